"""Three-way merges for `neuralis update`: text with git's merge-file, JSON key by key.

The three sides are the author's file (``yours``), the template as it rendered when the package was
made (``base``) and the template as this toolchain renders it (``theirs``). What only the template
changed is taken, what only the author changed is kept, and what both changed differently is a
conflict: conflict markers in a text file, a list of JSON pointers for a JSON file (markers would
make it invalid JSON, so the template's side goes to a ``.rej`` file instead).
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from neuralis_build.util.errors import SubprocessError
from neuralis_build.util.jsonpointer import join
from neuralis_build.util.process import run, which
from neuralis_build.util.strictjson import parse

_ABSENT: Any = object()  # a key one side does not have (None is JSON null)
GIT_TIMEOUT = 60.0
"""Seconds one git call may take (a merge of two template files takes milliseconds)."""


@dataclass(frozen=True)
class Merged:
    """The merged bytes and where the two sides disagreed (empty when the merge is clean)."""

    content: bytes
    conflicts: tuple[str, ...]
    rejected: bytes | None = None  # for JSON: the template's side of each conflict, as a .rej file


def merge_text(yours: bytes, base: bytes, theirs: bytes, *, labels: tuple[str, str, str]) -> Merged:
    """Merge with ``git merge-file`` (diff3 semantics, conflict markers labelled with ``labels``)."""
    git = which("git", "neuralis update needs git for its three-way merge (git merge-file): install git")
    with tempfile.TemporaryDirectory(prefix="neuralis-merge-") as tmp:
        paths = []
        for name, data in (("yours", yours), ("base", base), ("theirs", theirs)):
            path = Path(tmp) / name
            path.write_bytes(data)
            paths.append(str(path))
        command = [git, "merge-file", "-p", "-L", labels[0], "-L", labels[1], "-L", labels[2], *paths]
        done = run(command, timeout=GIT_TIMEOUT)
    # merge-file exits with the number of conflicts (capped at 127), negative or >127 on an error.
    if done.returncode < 0 or done.returncode > 127:
        raise SubprocessError(
            f"git merge-file failed: {done.stderr.strip() or done.returncode}", command=command, output=done.stderr
        )
    count = _count_markers(done.out, labels[0])
    return Merged(done.out, tuple(f"conflict {i + 1}" for i in range(count)))


def _count_markers(merged: bytes, yours_label: str) -> int:
    marker = b"<<<<<<< " + yours_label.encode("utf-8")
    return sum(1 for line in merged.splitlines() if line.startswith(marker))


def merge_json(yours_text: str, base: Any, theirs: Any) -> Merged:
    """Merge parsed JSON values key by key, keeping the author's key order and indentation."""
    yours = parse(yours_text)
    conflicts: dict[str, dict[str, Any]] = {}
    merged = _merge(yours, base, theirs, "", conflicts)
    text = dump_json_like(merged, yours_text)
    rejected = None
    if conflicts:
        rejected = (json.dumps(conflicts, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    return Merged(text.encode("utf-8"), tuple(conflicts), rejected)


def _merge(yours: Any, base: Any, theirs: Any, pointer: str, conflicts: dict[str, dict[str, Any]]) -> Any:
    if _same(base, theirs) or _same(yours, theirs):
        return yours  # the template did not change it, or the author already made the same change
    if _same(yours, base):
        return theirs  # only the template changed it
    if isinstance(yours, dict) and isinstance(base, dict) and isinstance(theirs, dict):
        return _merge_objects(yours, base, theirs, pointer, conflicts)
    conflicts[pointer or "/"] = {"yours": _shown(yours), "base": _shown(base), "template": _shown(theirs)}
    return yours


def _merge_objects(
    yours: dict[str, Any], base: dict[str, Any], theirs: dict[str, Any], pointer: str, conflicts: dict[str, Any]
) -> dict[str, Any]:
    result = dict(yours)
    for key in [*base, *(k for k in theirs if k not in base)]:
        merged = _merge(
            yours.get(key, _ABSENT),
            base.get(key, _ABSENT),
            theirs.get(key, _ABSENT),
            join(pointer, key),
            conflicts,
        )
        if merged is _ABSENT:
            result.pop(key, None)
        elif key in result:
            result[key] = merged
        else:
            result = _insert_after(result, key, merged, _previous_key(theirs, key, result))
    return result


def _previous_key(theirs: dict[str, Any], key: str, present: dict[str, Any]) -> str | None:
    """The nearest key before ``key`` in the template's order that the author's object also has."""
    keys = list(theirs)
    for earlier in reversed(keys[: keys.index(key)]):
        if earlier in present:
            return earlier
    return None


def _insert_after(obj: dict[str, Any], key: str, value: Any, after: str | None) -> dict[str, Any]:
    if after is None:
        return {key: value, **obj}
    out: dict[str, Any] = {}
    for k, v in obj.items():
        out[k] = v
        if k == after:
            out[key] = value
    return out


def _same(a: Any, b: Any) -> bool:
    if a is _ABSENT or b is _ABSENT:
        return a is b
    return bool(a == b) and type(a) is type(b)


def _shown(value: Any) -> Any:
    return "(absent)" if value is _ABSENT else value


def dump_json_like(value: Any, original: str) -> str:
    """``value`` as JSON in ``original``'s style (indentation, line ending, final newline), as npm keeps them."""
    indent: str | int = 2
    for line in original.splitlines()[1:]:
        stripped = line.lstrip(" \t")
        if stripped and len(stripped) < len(line):
            indent = line[: len(line) - len(stripped)]
            break
    text = json.dumps(value, indent=indent, ensure_ascii=False)
    newline = "\r\n" if "\r\n" in original else "\n"
    if newline != "\n":
        text = text.replace("\n", newline)
    return text + (newline if original.endswith(("\n", "\r")) or not original else "")
