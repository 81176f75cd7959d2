"""Who brought a file into the bundle: the import chain from the entry, read from esbuild's metafile."""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any


def package_of(path: str) -> str | None:
    """The npm package a bundled file belongs to (``…/node_modules/@a/b/x.js`` → ``@a/b``), or None for own files."""
    at = path.rfind("node_modules/")
    if at < 0:
        return None
    parts = path[at + len("node_modules/") :].split("/")
    return "/".join(parts[:2]) if parts[0].startswith("@") else parts[0]


def import_chain(meta: Mapping[str, Any], entry: str, target: str) -> list[str]:
    """The shortest chain of input files from ``entry`` to ``target`` (both metafile input keys)."""
    inputs: Mapping[str, Any] = meta.get("inputs", {})
    parent: dict[str, str | None] = {entry: None}
    queue = deque([entry])
    while queue:
        here = queue.popleft()
        if here == target:
            chain = [here]
            while (up := parent[chain[-1]]) is not None:
                chain.append(up)
            return chain[::-1]
        for imp in inputs.get(here, {}).get("imports", []):
            path = imp.get("path")
            if not imp.get("external") and path in inputs and path not in parent:
                parent[path] = here
                queue.append(path)
    return [target]


def describe_chain(chain: Sequence[str]) -> str:
    """``src/app/host.tsx → recharts → use-sync-external-store``: own files by path, packages by name."""
    steps: list[str] = []
    for path in chain:
        step = package_of(path) or path
        if not steps or steps[-1] != step:
            steps.append(step)
    return " → ".join(steps)


def first_dependency(chain: Sequence[str]) -> str | None:
    """The package the author's own code imported on the way to the file (the one to replace)."""
    return next((p for p in map(package_of, chain) if p is not None), None)
