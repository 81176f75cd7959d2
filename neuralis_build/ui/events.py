"""Compile event subjects (src/events/<subject>.ts) and routes (routes/*.ts) to ESM under dist/."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from neuralis_build.esbuild.runner import find_esbuild
from neuralis_build.npm.packagejson import MANIFEST
from neuralis_build.package import Package
from neuralis_build.record.inputs import RECORD, hash_inputs, render
from neuralis_build.ui.driver import run_build
from neuralis_build.util.diagnostics import Diagnostic
from neuralis_build.util.errors import DiagnosedError
from neuralis_build.util.outdir import (
    DIST,
    EVENTS_OUT,
    ROUTES_OUT,
    SERVER_STAGING,
    normalize_modes,
    remove,
    staging_dir,
    swap_in,
)

if TYPE_CHECKING:
    from typing import Any

    from neuralis_build.esbuild.runner import EsbuildRunner


@dataclass(frozen=True, slots=True)
class EventsBuildResult:
    """Event subjects and routes compiled: the files written and each module's exported names."""

    outputs: tuple[str, ...]
    exports: Mapping[str, tuple[str, ...]]  # output path -> export names
    warnings: list[Diagnostic] = field(default_factory=list)
    root: Path | None = None
    staged: Path | None = None  # until committed
    inputs: tuple[str, ...] = ()  # every file compiled, as esbuild's metafile names it (package-relative)

    @property
    def empty(self) -> bool:
        return not self.outputs

    def commit(self) -> None:
        """Swap each compiled folder in (dist/src/events/, dist/routes/); a folder with nothing left goes."""
        if self.staged is None or self.root is None:
            return
        for sub, final in (("src/events", EVENTS_OUT), ("routes", ROUTES_OUT)):
            if (self.staged / sub).is_dir():
                normalize_modes(self.staged / sub)
                swap_in(self.staged / sub, self.root / final)
            else:
                remove(self.root / final)
        remove(self.staged)

    def discard(self) -> None:
        if self.staged is not None:
            remove(self.staged)


def declared_subjects(package: Package) -> list[tuple[str, str]]:
    """(pointer, subject) of every declared ``neuralis.events[]`` entry with a string subject."""
    declared = package.declared
    events = declared.events if declared is not None else ()
    return [(e.at.child("subject").pointer, e.subject) for e in events if e.subject is not None]


def has_sources(package: Package) -> bool:
    """True when the package has event subjects or routes to compile, or declares events."""
    contract = package.contract
    return bool(contract.of("event") or contract.of("route") or declared_subjects(package))


def check_sources(package: Package) -> None:
    """Refuse declared subjects without src/events/<subject>.ts: check's own rule (NB0706), run here."""
    subjects = declared_subjects(package)
    if not subjects:
        return
    from neuralis_build.manifest.sections.events import missing_sources

    problems = [
        package.locate(Diagnostic("error", found.id, MANIFEST, at, message, hint))
        for found, at, message, hint in missing_sources(subjects, package.contract.of("event"))
    ]
    if problems:
        raise DiagnosedError("event subjects are missing their source files", problems)


def compile_events(package: Package, *, esbuild: EsbuildRunner | None = None, commit: bool = True) -> EventsBuildResult:
    """Compile every src/events/*.ts to dist/src/events/ and routes/*.ts to dist/routes/ (ESM for Node).

    Each file is bundled on its own with its npm imports left to Node; an event subject must export
    ``subject`` and ``visible``. Each output folder is swapped in whole, so a failure keeps the old one.
    """
    root = package.root
    check_sources(package)
    events = sorted(f.path for f in package.contract.of("event").values())
    routes = sorted(f.path for f in package.contract.of("route").values())
    if not events and not routes:
        return EventsBuildResult((), {})
    runner = esbuild or find_esbuild(root)
    staged = staging_dir(root / DIST, SERVER_STAGING)
    try:
        meta_path = staged / "meta.json"
        outdir = staged.relative_to(root).as_posix()
        args = [
            *events,
            *routes,
            "--bundle",
            "--format=esm",
            "--platform=node",
            "--packages=external",
            "--outbase=.",
            f"--outdir={outdir}",
        ]
        built = run_build(runner, root, args, meta_path, "the event subjects and routes")
        meta_path.unlink()
        exports = _exports(built.meta, outdir)
        _record_inputs(root, built.meta, outdir, staged)
        problems = _check_exports(exports)
        if problems:
            raise DiagnosedError("event subjects do not export what the platform calls", problems + built.warnings)
    except BaseException:
        remove(staged)
        raise
    inputs = tuple(sorted(built.meta.get("inputs", {})))
    result = EventsBuildResult(tuple(sorted(exports)), exports, built.warnings, root, staged, inputs)
    if commit:
        result.commit()
    return result


def _record_inputs(root: Path, meta: Mapping[str, Any], outdir: str, staged: Path) -> None:
    """What each compiled event subject read, beside it (see ``buildrecord``); routes are not declared outputs."""
    prefix = f"{outdir}/src/events/"
    read = {
        path[len(prefix) :]: hash_inputs(root, info.get("inputs", {}))
        for path, info in meta.get("outputs", {}).items()
        if path.startswith(prefix) and path.endswith(".js")
    }
    if read:
        (staged / "src/events" / RECORD).write_text(render(read), encoding="utf-8")


def _exports(meta: Mapping[str, Any], outdir: str) -> dict[str, tuple[str, ...]]:
    out: dict[str, tuple[str, ...]] = {}
    for path, info in meta.get("outputs", {}).items():
        if path.endswith(".js") and path.startswith(outdir + "/"):
            out["dist/" + path[len(outdir) + 1 :]] = tuple(sorted(info.get("exports", [])))
    return dict(sorted(out.items()))


def _check_exports(exports: Mapping[str, tuple[str, ...]]) -> list[Diagnostic]:
    """The host's rule on a compiled subject (NB1613, the one check applies), located at its source."""
    from neuralis_build.record.verdict import NB1613, event_exports_problem

    problems = []
    for out, names in exports.items():
        if not out.startswith(EVENTS_OUT + "/"):
            continue
        source = "src/events/" + out[len(EVENTS_OUT) + 1 : -3] + ".ts"
        problem = event_exports_problem(out, source, names)
        if problem is not None:
            problems.append(Diagnostic("error", NB1613.id, source, "", *problem))
    return problems
