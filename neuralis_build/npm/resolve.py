"""Find what a package resolves the way Node does: installed UI-module packages and the React major.

A standalone build learns which modules other packages publish by walking up from the package root
through every ``node_modules`` folder, nearest first, exactly as Node's resolver would; the first
folder that holds a package name wins. A package counts as shipping a UI module when its
package.json declares ``neuralis.app.module`` as an object; the ids it publishes are the strings of
``neuralis.app.module.provides`` that sit under its own name.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from neuralis_build.model.block import block_of
from neuralis_build.npm.fields import NpmFields
from neuralis_build.npm.nodemodules import node_modules_dirs, package_dirs, resolve_package
from neuralis_build.npm.packagejson import read_package_json
from neuralis_build.util.diagnostics import Diagnostic, code

if TYPE_CHECKING:
    pass

NB1917 = code(
    "NB1917", "dependency-manifest-unreadable", "an installed dependency's package.json cannot be read as Node reads it"
)


@dataclass(frozen=True, slots=True)
class UiPackage:
    """An installed package that ships a UI module: its name, folder and the ids it publishes."""

    name: str
    root: Path
    provides: tuple[str, ...]


class Unreadable(Exception):
    """A dependency's package.json that cannot be read as Node reads it: the file and why."""

    def __init__(self, path: Path, why: str) -> None:
        super().__init__(f"{path}: {why}")
        self.path = path
        self.why = why


def ui_package(name: str, folder: Path) -> UiPackage | None:
    """The package in ``folder`` as a UI-module package, or None when it ships no UI module.

    A package.json that mentions ``"neuralis"`` but cannot be read raises :class:`Unreadable`: the host
    could not load it either, and whoever builds against it is told (NB1917), never left to guess.
    """
    read = read_package_json(folder, parse=False)
    if read.missing:
        return None  # a folder that is no package (a scope's leftover, a cache)
    if read.raw is None:
        raise Unreadable(read.path, read.reason)
    if b'"neuralis"' not in read.raw:  # cheap: most of node_modules is not Neuralis
        return None
    read = read.parse()
    if read.error is not None:
        raise Unreadable(read.path, read.reason)
    block = block_of(read.object)
    module = block.module if block is not None else None
    if module is None:
        return None
    own = tuple(sorted({p for p in module.provides if p.startswith(name + "/")}))
    return UiPackage(name, folder, own)


@dataclass(frozen=True, slots=True)
class InstalledUi:
    """The UI-module packages Node would resolve from a folder, and the package.json files it could not read."""

    packages: dict[str, UiPackage]
    unreadable: tuple[Unreadable, ...] = ()

    def diagnostics(self, root: Path) -> list[Diagnostic]:
        """A warning naming each unreadable package.json (relative to ``root``, the package being judged)."""
        return [
            Diagnostic(
                "warning",
                NB1917.id,
                os.path.relpath(u.path, root).replace(os.sep, "/"),
                "",
                f"{os.path.relpath(u.path, root)} cannot be read ({u.why}), so the ids it may publish in "
                "app.module.provides are not known",
                "reinstall the dependency (npm install), or remove it if it is not needed",
            )
            for u in self.unreadable
        ]


def installed_ui_packages(start: Path, *, exclude: str | None = None) -> InstalledUi:
    """Every package Node would resolve from ``start`` that ships a UI module (nearest copy wins)."""
    seen: set[str] = set()
    found: dict[str, UiPackage] = {}
    unreadable: list[Unreadable] = []
    for node_modules in node_modules_dirs(start):
        for name, folder in package_dirs(node_modules):
            if name in seen:
                continue
            seen.add(name)
            if name == exclude:
                continue
            try:
                pkg = ui_package(name, folder)
            except Unreadable as exc:
                unreadable.append(exc)
                continue
            if pkg is not None:
                found[name] = pkg
    return InstalledUi(dict(sorted(found.items())), tuple(unreadable))


_MAJOR = re.compile(r"^\s*v?(\d+)")
_SIMPLE_RANGE = re.compile(r"^\s*[\^~]?(\d+)(?:\.(?:\d+|[xX*])){0,2}\s*$")


def installed_react_major(start: Path) -> int | None:
    """The major of the ``react`` that Node resolves from ``start``."""
    folder = resolve_package(start, "react")
    version = read_package_json(folder).npm.version if folder is not None else None
    m = _MAJOR.match(version) if version is not None else None
    return int(m.group(1)) if m else None


def range_major(spec: str) -> int | None:
    """The one major an npm range admits (``^19.0.0``, ``19.x``, ``~19.1``, ``>=19 <20``), else None."""
    simple = _SIMPLE_RANGE.match(spec)
    if simple:  # ^19.0.0, ~19.1, 19.x, 19.2.0: the common forms name their one major
        return int(simple.group(1))
    import semantic_version  # type: ignore[import-untyped]

    try:
        npm_spec = semantic_version.NpmSpec(spec.strip() or "*")
    except ValueError:
        return None
    # Probe each major with a few versions plus every version the range itself names.
    named: list[tuple[int, int, int]] = []
    for a, b, c in re.findall(r"(\d+)(?:\.(\d+|[xX*]))?(?:\.(\d+|[xX*]))?", spec):
        named.append((int(a), int(b) if b.isdigit() else 0, int(c) if c.isdigit() else 0))
    majors = set()
    for major in range(max((n[0] for n in named), default=0) + 2):  # one past the largest: open ranges
        probes = {(major, minor, patch) for minor in (0, 1, 9, 99) for patch in (0, 9)}
        probes.update(n for n in named if n[0] == major)
        if any(npm_spec.match(semantic_version.Version(major=a, minor=b, patch=c)) for a, b, c in probes):
            majors.add(major)
    return majors.pop() if len(majors) == 1 else None


def declared_react_major(npm: NpmFields) -> int | None:
    """The major of the package's declared react range (devDependencies, dependencies, then peer)."""
    for key in ("devDependencies", "dependencies", "peerDependencies"):
        spec = npm.range_of(key, "react")
        if spec is not None:
            major = range_major(spec)
            if major is not None:
                return major
    return None
