"""The values of an image diff (diff.py computes them): each kind of change a reviewer reads, and the whole."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

ChangeKind = Literal["added", "removed", "upgraded", "downgraded", "changed"]


@dataclass(frozen=True)
class PackageChange:
    """A package added to, removed from or changed in the tree, with the chain that brings it in."""

    kind: ChangeKind
    name: str
    old: tuple[str, ...]
    new: tuple[str, ...]
    chain: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "name": self.name,
            "old": list(self.old),
            "new": list(self.new),
            "chain": list(self.chain),
        }


@dataclass(frozen=True)
class ToolChange:
    """A tool name whose owner changed, or that became or stopped being contested."""

    name: str
    old: str | None
    new: str | None
    contested: bool
    was_contested: bool
    shadowed: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "old": self.old,
            "new": self.new,
            "contested": self.contested,
            "wasContested": self.was_contested,
            "shadowed": list(self.shadowed),
        }


@dataclass(frozen=True)
class Refusal:
    """A package the new image refuses and the old one did not (or did not have)."""

    name: str
    version: str | None
    source: str
    code: str | None
    message: str | None

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "version": self.version,
            "source": self.source,
            "code": self.code,
            "message": self.message,
        }


@dataclass(frozen=True)
class ScriptChange:
    """A package with an install script (a native module) new to the image, or whose load verdict changed."""

    name: str
    version: str
    path: str
    scripts: dict[str, str]
    load: dict[str, Any] | None
    was: dict[str, Any] | None  # the old load verdict of the same name and version, when it had one

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "version": self.version,
            "path": self.path,
            "scripts": self.scripts,
            "load": self.load,
            "was": self.was,
        }


@dataclass(frozen=True)
class Shift:
    """A value of one package that changed between the images (its trust, its licence)."""

    name: str
    old: tuple[str, ...]
    new: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "old": list(self.old), "new": list(self.new)}


@dataclass(frozen=True)
class SizeChange:
    """The tree's size on each side (files, bytes, bytes on disk), and the packages that moved it most."""

    old: dict[str, int] | None
    new: dict[str, int] | None
    movers: tuple[tuple[str, int, int], ...] = ()  # (name, old bytes, new bytes), largest change first

    def delta(self, key: str) -> int | None:
        if self.old is None or self.new is None or key not in self.old or key not in self.new:
            return None
        return self.new[key] - self.old[key]

    def to_json(self) -> dict[str, Any]:
        return {
            "old": self.old,
            "new": self.new,
            "delta": {k: self.delta(k) for k in ("files", "bytes", "disk")},
            "movers": [{"name": n, "old": a, "new": b} for n, a, b in self.movers],
        }


@dataclass(frozen=True)
class ImageDiff:
    """Everything that changed between two image reports."""

    old: str
    new: str
    packages: list[PackageChange] = field(default_factory=list)
    tools: list[ToolChange] = field(default_factory=list)
    refusals: list[Refusal] = field(default_factory=list)
    admitted: list[str] = field(default_factory=list)  # names refused before and loaded now
    scripts: list[ScriptChange] = field(default_factory=list)
    trust: list[Shift] = field(default_factory=list)
    licenses: list[Shift] = field(default_factory=list)
    conflicts: list[dict[str, Any]] = field(default_factory=list)  # conflicts the new image has and the old had not
    size: SizeChange = field(default_factory=lambda: SizeChange(None, None))

    def count(self, kind: ChangeKind) -> int:
        return sum(1 for p in self.packages if p.kind == kind)

    @property
    def empty(self) -> bool:
        lists = (self.packages, self.tools, self.refusals, self.admitted, self.scripts, self.trust, self.licenses)
        return not any(lists) and not self.conflicts and not self.size.delta("bytes")

    def to_json(self) -> dict[str, Any]:
        return {
            "old": self.old,
            "new": self.new,
            "packages": [p.to_json() for p in self.packages],
            "tools": [t.to_json() for t in self.tools],
            "refused": [r.to_json() for r in self.refusals],
            "noLongerRefused": self.admitted,
            "scripts": [s.to_json() for s in self.scripts],
            "trust": [t.to_json() for t in self.trust],
            "licenses": [lic.to_json() for lic in self.licenses],
            "conflicts": self.conflicts,
            "size": self.size.to_json(),
        }

    def render(self) -> str:
        return json.dumps(self.to_json(), indent=2, ensure_ascii=False) + "\n"
