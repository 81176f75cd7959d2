"""Node.js built-ins a dependency imports (NB1919): one refusal per dependency the author's code imported.

esbuild reports each built-in it cannot resolve where it is imported, deep in node_modules:
jsonwebtoken gives 13 errors in the files of jws and jwa, and none names the package the author
imported or how it came in. When those are the build's only errors, esbuild runs again with the
built-ins external, to read the import graph from its metafile; each top dependency is then named
once, at the author's import of it, with the built-ins, the chain and the packages that import them.
A built-in in the package's own files stays esbuild's located NB1900. Loaded only when a build fails.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from neuralis_build.npm.names import is_builtin
from neuralis_build.ui.driver import NB1900, UNRESOLVED, locate_import
from neuralis_build.ui.graph import describe_chain, first_dependency, import_chain, package_of
from neuralis_build.util.diagnostics import Diagnostic, code
from neuralis_build.util.errors import DiagnosedError, SubprocessError

if TYPE_CHECKING:
    from typing import Any

NB1919 = code("NB1919", "ui-dependency-node-builtin", "a dependency imports Node.js built-ins that a browser lacks")

Rebuild = Callable[[list[str]], Mapping[str, "Any"]]
"""esbuild run again with these ids external: its metafile (raises when that build fails too)."""


def unresolved_builtin(d: Diagnostic) -> str | None:
    """The Node.js built-in an esbuild error could not resolve, else None."""
    m = re.match(UNRESOLVED, d.message) if d.severity == "error" and d.code == NB1900.id else None
    return m["id"] if m and is_builtin(m["id"]) else None


def dependency_builtin(d: Diagnostic) -> str | None:
    """The Node.js built-in an esbuild error in a node_modules file could not resolve, else None."""
    return unresolved_builtin(d) if package_of(d.file) is not None else None


def regroup(diagnostics: Sequence[Diagnostic], root: Path, entry: str, rebuild: Rebuild) -> list[Diagnostic] | None:
    """The failed build's diagnostics with the dependencies' built-ins as one NB1919 per dependency.

    None when no error is a built-in a dependency imports. The other errors come first, unchanged. With
    errors other than built-ins esbuild writes no graph: one NB1919 then names the packages whose files
    import built-ins.
    """
    found = [(d, i) for d in diagnostics if (i := dependency_builtin(d)) is not None]
    if not found:
        return None
    rest = [d for d in diagnostics if dependency_builtin(d) is None]
    errors = [d for d in rest if d.severity == "error"]
    meta: Mapping[str, Any] | None = None
    if all(unresolved_builtin(d) for d in errors):  # the package's own built-ins stay NB1900s, graph or not
        try:
            meta = rebuild(sorted({i for d in diagnostics if (i := unresolved_builtin(d))}))
        except (DiagnosedError, SubprocessError):
            meta = None
    if meta is None:
        return [*errors, _unplaced(found), *(d for d in rest if d.severity != "error")]
    groups: dict[str, list[tuple[Diagnostic, str, list[str]]]] = {}
    for d, module_id in found:
        chain = import_chain(meta, entry, _input_key(root, d.file))
        top = first_dependency(chain) or package_of(d.file) or d.file
        groups.setdefault(top, []).append((d, module_id, chain))
    named = [_refusal(root, meta, top, groups[top]) for top in sorted(groups)]
    return [*errors, *named, *(d for d in rest if d.severity != "error")]


def _input_key(root: Path, file: str) -> str:
    """The metafile's name of a file a diagnostic names (outside the package it is absolute, there ``../``)."""
    return Path(os.path.relpath(file, root)).as_posix() if os.path.isabs(file) else file


def _hint(top: str) -> str:
    return (
        f"use a build of {top} made for the browser, or a browser library that does the same; or do this "
        f"work on the server side, in a tool or a route of the package, which runs in Node where {top} works"
    )


def _owners(found: Sequence[tuple[Diagnostic, str]]) -> str:
    """``jws (buffer, stream), jwa (crypto)``: each package whose files import built-ins, in ``found``'s order."""
    by_owner: dict[str, set[str]] = {}
    for d, module_id in found:
        by_owner.setdefault(package_of(d.file) or d.file, set()).add(module_id)
    return ", ".join(f"{o} ({', '.join(sorted(s))})" for o, s in by_owner.items())


def _unplaced(found: list[tuple[Diagnostic, str]]) -> Diagnostic:
    """One refusal for every dependency's built-ins when the build has other errors (and so no graph)."""
    found = sorted(found, key=lambda f: (f[0].file, f[0].line or 0, f[1]))
    first = found[0][0]
    message = f"dependencies import Node.js built-ins that a browser lacks: {_owners(found)}"
    hint = (
        "fix the other errors first: the build then names which of your imports brings each built-in in "
        "(and what to use instead)"
    )
    return Diagnostic("error", NB1919.id, first.file, "", message, hint, first.line, first.column)


def _refusal(
    root: Path, meta: Mapping[str, Any], top: str, found: list[tuple[Diagnostic, str, list[str]]]
) -> Diagnostic:
    """The one refusal of ``top``: at the author's import of it, with the built-ins, a chain and who imports them."""

    def steps(chain: Sequence[str]) -> int:
        return len(describe_chain(chain).split(" → "))

    # nearest packages first (esbuild's order of messages varies); the first chain holds the author's import
    found = sorted(found, key=lambda f: (steps(f[2]), len(f[2]), f[0].file, f[0].line or 0, f[1]))
    message = f"{top} imports Node.js built-ins that a browser lacks ({', '.join(sorted({i for _, i, _ in found}))})"
    message += f": {describe_chain(max((c for _, _, c in found), key=steps))}"
    if any(package_of(d.file) != top for d, _, _ in found):
        message += f"; imported by {_owners([(d, i) for d, i, _ in found])}"
    file, line, column = _author_import(root, meta, found[0][2])
    return Diagnostic("error", NB1919.id, file, "", message, _hint(top), line, column)


def _author_import(root: Path, meta: Mapping[str, Any], chain: list[str]) -> tuple[str, int | None, int | None]:
    """The author's file that imports the first dependency on ``chain``, with the line and column of that import."""
    at = next((n for n, path in enumerate(chain) if package_of(path) is not None), 0)
    if at == 0:
        return chain[0], None, None
    importer, target = chain[at - 1], chain[at]
    records = meta.get("inputs", {}).get(importer, {}).get("imports", [])
    spec = next((r.get("original", r["path"]) for r in records if r.get("path") == target), target)
    where = locate_import(root, importer, spec)
    return (importer, *where) if where else (importer, None, None)
