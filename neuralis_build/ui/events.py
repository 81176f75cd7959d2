"""Compile event subjects (src/events/<subject>.ts) and routes (routes/*.ts) to ESM under dist/."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from neuralis_build.diagnostics import Diagnostic, code
from neuralis_build.errors import DiagnosedError
from neuralis_build.package import MANIFEST, Package
from neuralis_build.ui.driver import run_build
from neuralis_build.ui.esbuild import EsbuildRunner, find_esbuild
from neuralis_build.ui.outdir import remove, staging_dir, swap_in

NB1913 = code("NB1913", "event-export-missing", "an event subject module does not export subject and visible")
NB1914 = code("NB1914", "event-source-missing", "a declared event subject has no src/events/<subject>.ts")

EVENTS_OUT = "dist/src/events"
ROUTES_OUT = "dist/routes"
REQUIRED_EXPORTS = ("subject", "visible")


@dataclass(frozen=True)
class EventsBuildResult:
    """Event subjects and routes compiled: the files written and each module's exported names."""

    outputs: tuple[str, ...]
    exports: Mapping[str, tuple[str, ...]]  # output path -> export names
    warnings: list[Diagnostic] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not self.outputs


def declared_subjects(package: Package) -> list[tuple[int, str]]:
    """(index, subject) of every ``neuralis.events[]`` entry with a string subject."""
    events = package.block.get("events") if package.block else None
    if not isinstance(events, list):
        return []
    return [
        (i, e["subject"]) for i, e in enumerate(events) if isinstance(e, dict) and isinstance(e.get("subject"), str)
    ]


def has_sources(package: Package) -> bool:
    """True when the package has event subjects or routes to compile, or declares events."""
    contract = package.contract
    return bool(contract.of("event") or contract.of("route") or declared_subjects(package))


def _missing_sources(package: Package) -> list[Diagnostic]:
    files = package.contract.of("event")
    problems = []
    for i, subject in declared_subjects(package):
        if subject not in files:
            problems.append(
                package.locate(
                    Diagnostic(
                        "error",
                        NB1914.id,
                        MANIFEST,
                        f"/neuralis/events/{i}/subject",
                        f'event subject "{subject}" has no source file src/events/{subject}.ts',
                        f"create src/events/{subject}.ts exporting subject and visible(event, session, state)",
                    )
                )
            )
    return problems


def compile_events(package: Package, *, esbuild: EsbuildRunner | None = None) -> EventsBuildResult:
    """Compile every src/events/*.ts to dist/src/events/ and routes/*.ts to dist/routes/ (ESM for Node).

    Each file is bundled on its own with its npm imports left to Node; an event subject must export
    ``subject`` and ``visible``. Each output folder is swapped in whole, so a failure keeps the old one.
    """
    root = package.root
    problems = _missing_sources(package)
    events = sorted(f.path for f in package.contract.of("event").values())
    routes = sorted(f.path for f in package.contract.of("route").values())
    if problems:
        raise DiagnosedError("event subjects are missing their source files", problems)
    if not events and not routes:
        return EventsBuildResult((), {})
    runner = esbuild or find_esbuild(root)
    staged = staging_dir(root / "dist", ".server-")
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
        problems = _check_exports(exports)
        if problems:
            raise DiagnosedError("event subjects do not export what the platform calls", problems + built.warnings)
        for sub, final in (("src/events", EVENTS_OUT), ("routes", ROUTES_OUT)):
            if (staged / sub).is_dir():
                swap_in(staged / sub, root / final)
            else:
                remove(root / final)
    finally:
        remove(staged)
    return EventsBuildResult(tuple(sorted(exports)), exports, built.warnings)


def _exports(meta: Mapping[str, Any], outdir: str) -> dict[str, tuple[str, ...]]:
    out: dict[str, tuple[str, ...]] = {}
    for path, info in meta.get("outputs", {}).items():
        if path.endswith(".js") and path.startswith(outdir + "/"):
            out["dist/" + path[len(outdir) + 1 :]] = tuple(sorted(info.get("exports", [])))
    return dict(sorted(out.items()))


def _check_exports(exports: Mapping[str, tuple[str, ...]]) -> list[Diagnostic]:
    problems = []
    for out, names in exports.items():
        if not out.startswith(EVENTS_OUT + "/"):
            continue
        source = "src/events/" + out[len(EVENTS_OUT) + 1 : -3] + ".ts"
        missing = [n for n in REQUIRED_EXPORTS if n not in names]
        if missing:
            shown = " and ".join(missing)
            problems.append(
                Diagnostic(
                    "error",
                    NB1913.id,
                    source,
                    "",
                    f"{source} does not export {shown}; without visible every event is dropped (deny-by-default)",
                    'export const subject = "<subject>" and export function visible(event, session, state)',
                )
            )
    return problems
