"""Every ``neuralis`` package in the installed tree is one the host loads: judge it like a listed one.

The host loads exactly those dependencies whose package.json has a neuralis block (spec: Manifest and distribution).
So each installed dependency with a ``neuralis`` key is validated at the tier its chain gives it
(``graph``: never above the listed package that brings it in), its UI module is judged, and it
takes part in the tool-name, service, config-key and OAuth rules like a listed package. The host
loads one package per id: the same package (name, version and bytes) installed at several places
is one package, at the best tier that reaches it; another package under an id already taken is
refused.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from neuralis_build.hostprofile import HostProfile
from neuralis_build.image.judge.contests import Facts, facts_of
from neuralis_build.image.judge.moduleverdict import module_verdict_codes
from neuralis_build.image.judge.report import PackageOutcome, Status
from neuralis_build.image.judge.standing import Weighed
from neuralis_build.image.layout.graph import Closure, Placed
from neuralis_build.image.layout.materialize import PackageFacts
from neuralis_build.npm.packagejson import MANIFEST
from neuralis_build.package import Package, load_package
from neuralis_build.util.diagnostics import Diagnostic, code, has_errors
from neuralis_build.util.errors import NeuralisError
from neuralis_build.util.trust import Trust

NB1814 = code("NB1814", "dependency-id-taken", "a dependency's neuralis id is already loaded from another package")


@dataclass(frozen=True, slots=True)
class StagedVerdict:
    """An installed package's own verdict at its tier: its status, its diagnostics, its claims when it loads."""

    status: Status
    diagnostics: tuple[Diagnostic, ...] = ()
    facts: Facts | None = None


def judge_staged(staged: Package | Path, trust: Trust, host: HostProfile) -> StagedVerdict:
    """Validate an installed package at its tier.

    ``staged`` is the package as installed: the model already read from its source (moved to the staged
    folder, so package.json is not read again), or the folder to read it from.
    """
    if isinstance(staged, Path):
        try:
            staged = load_package(staged)
        except NeuralisError as exc:
            diagnostics = getattr(exc, "diagnostics", None)
            if not diagnostics or exc.exit_code != 1:
                raise
            return StagedVerdict("refused", tuple(diagnostics))
    if not staged.is_neuralis:
        return StagedVerdict("not-neuralis")
    if staged.reference_only:
        return StagedVerdict("reference-only")
    from neuralis_build.check import check_package  # the manifest rules load only when a package is checked
    from neuralis_build.manifest.sections.events import NB0706

    judged = check_package(staged, trust, host)
    # The module is judged later, against the packages this image loads; its verdict never refuses the
    # package. An installed package is its packed form: event sources stay behind (the build compiled
    # them, and check's NB1612 still requires dist/src/events/<subject>.js).
    ignored = module_verdict_codes() | {NB0706.id}
    own = tuple(d for d in judged.diagnostics if d.code not in ignored)
    if has_errors(own):
        return StagedVerdict("refused", own)
    return StagedVerdict("loaded", own, facts_of(judged))


@dataclass
class FoundDependency(Weighed):
    """A dependency the host loads (or refuses): its own row, its claims and every place it is installed."""

    facts: Facts | None
    placed: list[Placed] = field(default_factory=list)

    @property
    def paths(self) -> list[str]:
        return [p.path for p in self.placed]


def _ident(package_facts: PackageFacts, fallback: str) -> str:
    ident = package_facts.block.id if package_facts.block is not None else None
    return ident or fallback


def discover(
    closure: Closure,
    package_facts: Mapping[str, PackageFacts],
    staging: Path,
    host: HostProfile,
    listed_ids: Mapping[str, str],
) -> list[FoundDependency]:
    """Judge every installed dependency that carries a ``neuralis`` block; ``listed_ids`` maps id → listed label."""
    groups: dict[str, list[Placed]] = {}
    for path, placed in sorted(closure.placed.items()):
        own = package_facts.get(path)
        if path in closure.listed or own is None or not own.is_neuralis:
            continue
        groups.setdefault(_ident(own, placed.node.package_name), []).append(placed)
    found: list[FoundDependency] = []
    for ident, members in sorted(groups.items()):
        members.sort(key=lambda p: (Trust(p.trust).rank, len(p.chain), p.path))
        kinds: dict[tuple[str, str, str | None], list[Placed]] = {}
        for p in members:
            kinds.setdefault((p.node.package_name, p.node.version, p.node.integrity), []).append(p)
        for n, same in enumerate(kinds.values()):
            best = same[0]
            taken = listed_ids.get(ident) or (_label(members[0]) if n > 0 else None)
            if taken is not None:
                verdict = StagedVerdict("refused", (_taken(best, ident, taken),))
            else:
                verdict = judge_staged(staging.joinpath(*best.path.split("/")), best.trust, host)
            outcome = PackageOutcome(
                source=best.node.resolved or f"bundled in {best.node.parent_path}",
                install_class=best.install_class,
                trust=best.trust,
                name=best.node.package_name,
                id=ident,
                version=best.node.version,
                status=verdict.status,
                diagnostics=verdict.diagnostics,
                path=best.path,
                chain=best.chain,
                paths=tuple(p.path for p in same),
            )
            found.append(FoundDependency(outcome, verdict.facts, same))
    return found


def _label(p: Placed) -> str:
    return f"{p.node.package_name}@{p.node.version} (via {' → '.join(p.chain)})"


def _taken(best: Placed, ident: str, taken: str) -> Diagnostic:
    name, version = best.node.package_name, best.node.version
    return Diagnostic(
        "error",
        NB1814.id,
        MANIFEST,
        "/neuralis/id" if ident != name else "/name",
        f"{name}@{version} (via {' → '.join(best.chain)}) has the id {ident!r}, which "
        f"{taken} already has; the host loads one package per id",
        "depend on the version the image already installs, or list only one of them",
    )
