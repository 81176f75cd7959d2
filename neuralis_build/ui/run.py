"""Everything `neuralis-build ui` builds for one package: the UI module, event subjects and routes."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from neuralis_build.esbuild.runner import find_esbuild
from neuralis_build.hostprofile import HostProfile
from neuralis_build.package import Package, load_package
from neuralis_build.ui.build import UiBuildResult, build_ui
from neuralis_build.ui.entry import find_entry
from neuralis_build.ui.events import EventsBuildResult, check_sources, compile_events, has_sources
from neuralis_build.util import folderlock
from neuralis_build.util.diagnostics import Diagnostic

if TYPE_CHECKING:
    from neuralis_build.esbuild.runner import EsbuildRunner
    from neuralis_build.ui.env import Mode


@dataclass(frozen=True, slots=True)
class BuildOptions:
    """The knobs of one build, shared by a single run and every rebuild of --watch."""

    host: HostProfile
    minify: bool = True  # a production build is minified; --watch and dev say False
    sourcemap: bool = False
    entry: str | None = None
    published: Mapping[str, str] | None = None
    mode: Mode = "production"  # --watch builds for development


@dataclass(frozen=True, slots=True)
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
    """Build a UI module when the package has an entry, was given one, or declares app.module.

    ``ui`` builds for a first-party host, where nothing of app.module or events is dropped, so it reads
    the declaration from the package model and leaves the manifest rules (and their start-up) to check.
    """
    return entry is not None or package.contract.ui_entry is not None or package.module is not None


def build_package(package: Package, options: BuildOptions, esbuild: EsbuildRunner | None = None) -> PackageBuild:
    """Build the UI module and compile events and routes; the first refusal raises DiagnosedError.

    Everything is built into staging folders first and swapped in only when all of it succeeded:
    a refusal anywhere leaves dist/ exactly as it was. Another ``ui`` or ``pack`` of the same folder
    (another process) waits until this build is done, so two builds never swap dist/ at once.
    """
    with folderlock.hold(package.root):
        return _build_package(package, options, esbuild)


def _build_package(package: Package, options: BuildOptions, esbuild: EsbuildRunner | None) -> PackageBuild:
    started = time.perf_counter()
    ui_wanted = wants_ui(package, options.entry)
    server_wanted = has_sources(package)
    if not ui_wanted and not server_wanted:
        find_entry(package, None)  # raises the "no UI entry" diagnostic
    if server_wanted:
        check_sources(package)  # before anything is built, so a missing source writes nothing
    runner = esbuild or find_esbuild(package.root)
    ui = events = None
    try:
        if ui_wanted:
            ui = build_ui(
                package,
                host=options.host,
                published=options.published,
                minify=options.minify,
                sourcemap=options.sourcemap,
                entry=options.entry,
                esbuild=runner,
                mode=options.mode,
                commit=False,
            )
        events = compile_events(package, esbuild=runner, commit=False) if server_wanted else None
        if ui is not None:
            ui.commit()
        if events is not None:
            events.commit()
    finally:
        for staged in (ui, events):
            if staged is not None:
                staged.discard()
    return PackageBuild(package, ui, events, time.perf_counter() - started)


def build_path(path: Path | str, options: BuildOptions, esbuild: EsbuildRunner | None = None) -> PackageBuild:
    """Read the package at ``path`` and build it."""
    return build_package(load_package(path), options, esbuild)
