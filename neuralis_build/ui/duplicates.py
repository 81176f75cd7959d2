"""More than one copy of a package in the bundle: each named, with its version and who brought it (NB1923, NB1924).

npm places a second copy of a package wherever one dependent needs a version the top-level copy does
not satisfy (lexical 0.53 installed beside @lexical/react 0.52, which brings its own 0.52 to each of
eleven @lexical packages), or when a tree was never deduplicated. esbuild bundles every copy it
reaches, silently: the bundle grows, and a library that keeps module state (a registry, a class
checked with instanceof, React's hooks) breaks at run time. A copy is a folder under a
``node_modules`` that the metafile's inputs come from; a plain build pays one pass over those paths,
and only a duplicate reads package.json files and walks the import graph.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from neuralis_build.npm.fields import DEPENDENCY_FIELDS
from neuralis_build.util.diagnostics import Diagnostic, code
from neuralis_build.util.jsonpointer import join

if TYPE_CHECKING:
    from typing import Any

    from neuralis_build.package import Package

NB1923 = code("NB1923", "ui-duplicate-package", "the bundle holds more than one copy of a package")
NB1924 = code("NB1924", "ui-duplicate-react", "the bundle holds more than one copy of react or react-dom")

SINGLETONS = ("react", "react-dom")
"""Packages whose second copy is an error, not a warning: hooks and context break across two Reacts."""

SHOWN = 4
"""Copies described one by one in a message; the rest are counted."""

_MARK = "node_modules/"


def copies(inputs: Mapping[str, Any]) -> dict[str, dict[str, str]]:
    """Package name → each folder it is bundled from (as the metafile names it) → its first input file there."""
    found: dict[str, dict[str, str]] = {}
    for path in sorted(inputs):
        at = path.rfind(_MARK)
        if at < 0 or path.startswith("<"):
            continue
        parts = path[at + len(_MARK) :].split("/")
        size = 2 if parts[0].startswith("@") else 1
        if len(parts) <= size:
            continue
        name = "/".join(parts[:size])
        folder = path[: at + len(_MARK)] + name
        found.setdefault(name, {}).setdefault(folder, path)
    return {name: folders for name, folders in found.items() if len(folders) > 1}


Copy = tuple[str, str, "str | None", str]
"""One copy in the bundle: its folder, its version, the package whose dependency it is (None at the top), the
chain that brought it. (A tuple: only a duplicate builds one, and a class would cost every build at import.)"""


def _copy(package: Package, meta: Mapping[str, Any], entry: str, folder: str, first: str) -> Copy:
    from neuralis_build.npm.packagejson import read_package_json
    from neuralis_build.ui.graph import describe_chain, import_chain, package_of

    version = read_package_json(package.root / folder).npm.version
    parent = folder[: folder.rfind(_MARK)].rstrip("/")
    dependent = package_of(parent) if _MARK in parent else None
    chain = describe_chain(import_chain(meta, entry, first))
    return folder, version if version is not None else "unknown version", dependent, chain


def duplicate_copies(package: Package, meta: Mapping[str, Any], entry: str) -> list[Diagnostic]:
    """A warning (NB1923) for each package bundled from more than one folder; an error (NB1924) for React's."""
    found = copies(meta.get("inputs", {}))
    return [_diagnostic(package, meta, entry, name, folders) for name, folders in sorted(found.items())]


def _diagnostic(
    package: Package, meta: Mapping[str, Any], entry: str, name: str, folders: dict[str, str]
) -> Diagnostic:
    every = sorted(
        (_copy(package, meta, entry, folder, first) for folder, first in folders.items()),
        key=lambda c: (c[2] is not None, c[0]),
    )
    versions = sorted({version for _, version, _, _ in every})
    described = [f"{v} at {folder[folder.find(_MARK) :]} ({chain})" for folder, v, _, chain in every[:SHOWN]]
    if len(every) > SHOWN:
        rest = every[SHOWN:]
        by = sorted({dependent or "the package" for _, _, dependent, _ in rest})
        described.append(f"{len(rest)} more ({', '.join(sorted({c[1] for c in rest}))}) for {', '.join(by)}")
    kinds = f"versions {', '.join(versions)}" if len(versions) > 1 else f"all {versions[0]}"
    message = f"the bundle holds {len(every)} copies of {name} ({kinds}): {'; '.join(described)}"
    if len(versions) > 1:
        needs: dict[str, set[str]] = {}
        for _, version, dependent, _ in every:
            needs.setdefault(version, set()).add(dependent or "the package itself")
        wanted = "; ".join(f"{v} for {', '.join(sorted(d))}" for v, d in sorted(needs.items()))
        hint = (
            f"make them agree on one version of {name} ({wanted}): install the version its dependents need "
            f"(npm install {name}@<version>), or update them to one that accepts yours, or pin it with npm "
            "overrides; then npm dedupe and build again"
        )
    else:
        hint = _same_version_hint(package, name, versions[0], [folder for folder, _, _, _ in every])
    pointer, file = _declared(package, name)
    if name in SINGLETONS:
        message += "; two Reacts in one page break hooks and context"
        return package.locate(Diagnostic("error", NB1924.id, file, pointer, message, hint))
    return package.locate(Diagnostic("warning", NB1923.id, file, pointer, message, hint))


def _same_version_hint(package: Package, name: str, version: str, folders: list[str]) -> str:
    """How to merge copies of one version. npm hoists a copy to the folder Node finds the name in from the
    package; when another version holds that place (internmap 2 for d3, with nivo's two d3-array 2 each keeping
    its internmap 1), npm dedupe may leave every copy where it is, and an override is what merges them."""
    from neuralis_build.npm.nodemodules import resolve_package
    from neuralis_build.npm.packagejson import read_package_json

    hoisted = resolve_package(package.root, name)
    other = read_package_json(hoisted).npm.version if hoisted is not None else None
    bundled = {(package.root / folder).resolve() for folder in folders}
    if hoisted is None or other == version or hoisted.resolve() in bundled:
        return f"every copy is {version}: npm dedupe (or a fresh npm install) leaves one copy that all resolve"
    return (
        f"every copy is {version}, each under a package that needs it, since node_modules/{name} is "
        f"{other or 'another version'}: npm dedupe merges them only if it can move {version} there; if they stay, "
        f"pin {name} to one version that all its dependents accept with npm overrides, then npm dedupe"
    )


def _declared(package: Package, name: str) -> tuple[str, str]:
    """Where package.json declares ``name`` (its JSON pointer), else package.json's root."""
    for key in DEPENDENCY_FIELDS:
        if name in package.npm.ranges(key):
            return join(f"/{key}", name), "package.json"
    return "", "package.json"
