"""`check`: judge one package against every rule of the spec at a trust tier."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from neuralis_build.hostprofile import HostProfile, default_host_profile
from neuralis_build.judged import JudgedPackage
from neuralis_build.model.block import read_block
from neuralis_build.package import Package, load_package
from neuralis_build.util.diagnostics import Diagnostic, Diagnostics, code
from neuralis_build.util.errors import DiagnosedError
from neuralis_build.util.jsonpointer import MAX_DUPLICATES, split
from neuralis_build.util.trust import Trust

if TYPE_CHECKING:
    from neuralis_build.model.block import Block
    from neuralis_build.outputs import OutputFacts

NB0120 = code("NB0120", "not-neuralis", "package.json has no neuralis block, so the host never loads it")
NB0121 = code("NB0121", "reference-only", "a referenceOnly package is installed but never loaded or validated")
NB0009 = code("NB0009", "duplicate-key", "an object in package.json has one key twice; JSON.parse keeps only the last")


def check_package(package: Package, trust: Trust, host: HostProfile | None = None) -> JudgedPackage:
    """Run every rule on an already-read package: the judged package every other command takes."""
    from neuralis_build.manifest.block import NEURALIS, SECTIONS
    from neuralis_build.manifest.checker import Checker
    from neuralis_build.outputs import judge_outputs

    diags = Diagnostics()
    if not package.is_neuralis:
        diags.error(
            NB0120,
            "",
            "package.json has no neuralis block: the host will not load this package",
            'opt in with "neuralis": {} (or { "referenceOnly": true } for a reference package)',
        )
        return _result(package, trust, diags.items)
    block = package.manifest["neuralis"]
    if isinstance(block, dict) and block.get("referenceOnly") is True:
        diags.note(
            NB0121,
            "/neuralis/referenceOnly",
            "referenceOnly: the host installs this package but never loads it; nothing else is validated",
        )
        return _result(package, trust, diags.items)

    diags.extend(duplicate_keys(package))
    checker = Checker(diags=diags, trust=trust, package=package, host=host or default_host_profile())
    NEURALIS.check(block, "/neuralis", checker)
    if not isinstance(block, dict):
        return _result(package, trust, diags.items)
    for section in SECTIONS:
        for rule in section.rules:
            rule(block, checker)
    # what the host loads at this trust: the block as typed values, every dropped value left out
    loaded = read_block(block, package.source, checker.dropped)
    assert loaded is not None
    found = judge_outputs(loaded, checker)  # the outputs stage: declarations against what the build wrote
    return _result(package, trust, diags.items, JudgedParts(loaded, frozenset(checker.dropped), found))


def duplicate_keys(package: Package) -> list[Diagnostic]:
    """A key twice in one object: node keeps the last silently, so the first is an edit that does nothing.

    The first ``MAX_DUPLICATES`` repeats are listed and the rest counted in one more diagnostic, where
    they begin: each names its pointer, so a package.json of nothing but repeats was reported at its size
    squared.
    """
    found = []
    repeats = package.source.duplicate_keys()
    for pointer, (line, column), (first, first_column) in repeats[:MAX_DUPLICATES]:
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
    if len(repeats) > MAX_DUPLICATES:
        pointer, (line, column), _ = repeats[MAX_DUPLICATES]
        rest = package.source.duplicate_count - MAX_DUPLICATES
        found.append(
            Diagnostic(
                "error",
                NB0009.id,
                "package.json",
                pointer,
                f"{rest:,} more repeated keys, from this one on, are not listed",
                "remove the repeated keys listed above, then check again",
                line,
                column,
            )
        )
    return found


@dataclass(frozen=True, slots=True)
class JudgedParts:
    """What the manifest and outputs stages made of a package beside their diagnostics."""

    block: Block
    dropped: frozenset[str]
    found: OutputFacts


def _result(package: Package, trust: Trust, items: list[Diagnostic], parts: JudgedParts | None = None) -> JudgedPackage:
    located = [package.locate(d) for d in items]
    located.sort(key=lambda d: (d.file != "package.json", d.file, d.line or 0, d.column or 0, d.pointer))
    if parts is None:
        return JudgedPackage(package.root, trust, package, located)
    found = parts.found
    return JudgedPackage(
        package.root, trust, package, located, parts.block, parts.dropped, found.module_verdict, found.build
    )


def check_path(path: Path | str, trust: Trust, host: HostProfile | None = None) -> JudgedPackage:
    """Read the package at ``path`` and check it; an unreadable manifest becomes diagnostics, not an error."""
    try:
        package = load_package(path)
    except DiagnosedError as exc:
        return JudgedPackage(Path(path), trust, None, exc.diagnostics)
    return check_package(package, trust, host)
