"""`check`: judge one package against every rule of the spec at a trust tier."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypedDict

from neuralis_build.diagnostics import Diagnostic, DiagnosticJSON, Diagnostics, code, has_errors
from neuralis_build.errors import DiagnosedError
from neuralis_build.hostprofile import HostProfile, default_host_profile
from neuralis_build.jsonpointer import split
from neuralis_build.package import Package, load_package
from neuralis_build.trust import Trust

NB0120 = code("NB0120", "not-neuralis", "package.json has no neuralis block, so the host never loads it")
NB0121 = code("NB0121", "reference-only", "a referenceOnly package is installed but never loaded or validated")
NB0009 = code("NB0009", "duplicate-key", "an object in package.json has one key twice; JSON.parse keeps only the last")


class CheckJSON(TypedDict):
    package: str | None
    id: str | None
    trust: Trust
    ok: bool
    diagnostics: list[DiagnosticJSON]


@dataclass(frozen=True)
class CheckResult:
    """The verdict on one package: its diagnostics and the block the host would load after drops."""

    path: Path
    trust: Trust
    package: Package | None
    diagnostics: list[Diagnostic]
    effective: dict[str, Any] | None = field(default=None, repr=False)

    @property
    def ok(self) -> bool:
        return not has_errors(self.diagnostics)

    def to_json(self) -> CheckJSON:
        pkg = self.package
        return {
            "package": pkg.name if pkg else None,
            "id": pkg.id if pkg and pkg.is_neuralis else None,
            "trust": self.trust,
            "ok": self.ok,
            "diagnostics": [d.to_json() for d in self.diagnostics],
        }


def _without(block: dict[str, Any], dropped: set[str]) -> dict[str, Any]:
    """A deep copy of the block with every dropped pointer removed (array items from the end)."""
    effective = copy.deepcopy(block)
    for pointer in sorted(dropped, key=lambda p: [int(t) if t.isdigit() else -1 for t in split(p)], reverse=True):
        tokens = split(pointer)[1:]  # drop the leading "neuralis"
        if not tokens:
            continue
        parent: Any = effective
        for token in tokens[:-1]:
            parent = parent[int(token)] if isinstance(parent, list) else parent.get(token)
            if parent is None:
                break
        else:
            last = tokens[-1]
            if isinstance(parent, list):
                del parent[int(last)]
            elif isinstance(parent, dict):
                parent.pop(last, None)
    return effective


def check_package(package: Package, trust: Trust, host: HostProfile | None = None) -> CheckResult:
    """Run every rule on an already-read package."""
    from neuralis_build.manifest.block import NEURALIS, SECTIONS
    from neuralis_build.manifest.shape import Checker

    diags = Diagnostics()
    if not package.is_neuralis:
        diags.error(
            NB0120,
            "",
            "package.json has no neuralis block: the host will not load this package",
            'opt in with "neuralis": {} (or { "referenceOnly": true } for a reference package)',
        )
        return _result(package, trust, diags.items, None)
    block = package.manifest["neuralis"]
    if isinstance(block, dict) and block.get("referenceOnly") is True:
        diags.note(
            NB0121,
            "/neuralis/referenceOnly",
            "referenceOnly: the host installs this package but never loads it; nothing else is validated",
        )
        return _result(package, trust, diags.items, None)

    diags.extend(duplicate_keys(package))
    checker = Checker(diags=diags, trust=trust, package=package, host=host or default_host_profile())
    NEURALIS.check(block, "/neuralis", checker)
    if isinstance(block, dict):
        for section in SECTIONS:
            for rule in section.rules:
                rule(block, checker)
    effective = _without(block, checker.dropped) if isinstance(block, dict) else None
    return _result(package, trust, diags.items, effective)


def duplicate_keys(package: Package) -> list[Diagnostic]:
    """A key twice in one object: node keeps the last silently, so the first is an edit that does nothing."""
    found = []
    for pointer, (line, column), (first, first_column) in package.source.duplicate_keys():
        key, parent = split(pointer)[-1], pointer.rsplit("/", 1)[0]
        where = f"in {parent}" if parent else "at the top level"
        lines = f"lines {first} and {line}" if first != line else f"line {line}, columns {first_column} and {column}"
        found.append(
            Diagnostic(
                "error",
                NB0009.id,
                "package.json",
                pointer,
                f'"{key}" appears twice {where} ({lines}); JSON.parse keeps only this last one',
                f'remove one of the two "{key}" keys, keeping the value you mean (merge them if both hold parts)',
                line,
                column,
            )
        )
    return found


def _result(package: Package, trust: Trust, items: list[Diagnostic], effective: dict[str, Any] | None) -> CheckResult:
    located = [package.locate(d) for d in items]
    located.sort(key=lambda d: (d.file != "package.json", d.file, d.line or 0, d.column or 0, d.pointer))
    return CheckResult(package.root, trust, package, located, effective)


def check_path(path: Path | str, trust: Trust, host: HostProfile | None = None) -> CheckResult:
    """Read the package at ``path`` and check it; an unreadable manifest becomes diagnostics, not an error."""
    try:
        package = load_package(path)
    except DiagnosedError as exc:
        return CheckResult(Path(path), trust, None, exc.diagnostics, None)
    return check_package(package, trust, host)
