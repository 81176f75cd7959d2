"""Everything `neuralis-build ui` builds for one package: the UI module, event subjects and routes."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from neuralis_build.diagnostics import Diagnostic
from neuralis_build.hostprofile import HostProfile
from neuralis_build.package import Package, load_package
from neuralis_build.ui.build import UiBuildResult, build_ui, find_entry
from neuralis_build.ui.esbuild import EsbuildRunner, find_esbuild
from neuralis_build.ui.events import EventsBuildResult, compile_events, has_sources


@dataclass(frozen=True)
class BuildOptions:
    """The knobs of one build, shared by a single run and every rebuild of --watch."""

    host: HostProfile
    minify: bool = False
    sourcemap: bool = False
    entry: str | None = None
    published: Mapping[str, str] | None = None


@dataclass(frozen=True)
class PackageBuild:
    """What one run built: the UI module (when the package has one) and the server-side modules."""

    package: Package
    ui: UiBuildResult | None
    events: EventsBuildResult | None
    seconds: float

    @property
    def warnings(self) -> list[Diagnostic]:
        return [*(self.ui.warnings if self.ui else []), *(self.events.warnings if self.events else [])]


def wants_ui(package: Package, entry: str | None) -> bool:
    """Build a UI module when the package has an entry, was given one, or declares app.module."""
    app = package.block.get("app") if package.block else None
    declared = isinstance(app, dict) and "module" in app
    return entry is not None or package.contract.ui_entry is not None or declared


def build_package(package: Package, options: BuildOptions, esbuild: EsbuildRunner | None = None) -> PackageBuild:
    """Build the UI module and compile events and routes; the first refusal raises DiagnosedError."""
    started = time.perf_counter()
    ui_wanted = wants_ui(package, options.entry)
    server_wanted = has_sources(package)
    if not ui_wanted and not server_wanted:
        find_entry(package, None)  # raises the "no UI entry" diagnostic
    runner = esbuild or find_esbuild(package.root)
    ui = None
    if ui_wanted:
        ui = build_ui(
            package,
            host=options.host,
            published=options.published,
            minify=options.minify,
            sourcemap=options.sourcemap,
            entry=options.entry,
            esbuild=runner,
        )
    events = compile_events(package, esbuild=runner) if server_wanted else None
    return PackageBuild(package, ui, events, time.perf_counter() - started)


def build_path(path: Path | str, options: BuildOptions, esbuild: EsbuildRunner | None = None) -> PackageBuild:
    """Read the package at ``path`` and build it."""
    return build_package(load_package(path), options, esbuild)
