"""The library's face: one call per command, typed options in, a typed result with its diagnostics out.

The command line is its flags and one call here; so are the end-to-end tests, and so is any program
that builds on the toolchain. A call that works on a package folder returns the folder's result, or
``Failed`` when the folder could not be worked on or is refused (the error as a value, with its
diagnostics): never an exception for the caller to catch. What stops a whole command (a SPEC that
cannot be read, an image folder that cannot be written) is raised as a ``UsageError``, exit 2.

Importing this module loads nothing of the toolchain's work: each call imports what it runs, and the
values it names load on first use, so ``neuralis-build --version`` stays light.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from neuralis_build.util.errors import DiagnosedError, NeuralisError, UsageError
from neuralis_build.util.trust import Trust

if TYPE_CHECKING:
    from neuralis_build.dev.session import DevOptions
    from neuralis_build.dev.state import BuildReport
    from neuralis_build.doctor import ToolStatus
    from neuralis_build.explain import Explanation
    from neuralis_build.hostprofile import HostProfile
    from neuralis_build.image.build import BuildInterrupted, PackageFinished
    from neuralis_build.image.judge.report import ImageResult, PackageOutcome
    from neuralis_build.image.output.diffmodel import ImageDiff, PackageChange
    from neuralis_build.image.output.whatifmodel import HostRefusal, WhatIf
    from neuralis_build.image.packages.spec import ImageSpec
    from neuralis_build.judged import JudgedPackage

    # the scaffolding steps (see _SCAFFOLD)
    from neuralis_build.npm.names import name_problems, suggest_name
    from neuralis_build.pack.run import Packed, PackOptions
    from neuralis_build.pack.tarball import PackResult
    from neuralis_build.pack.workspace import workspace_root
    from neuralis_build.package import Package
    from neuralis_build.scaffold.adopt import AdoptPlan, plan_adopt
    from neuralis_build.scaffold.create import DEFAULT_TEMPLATE, Plan, Request, default_description, tree_lines
    from neuralis_build.scaffold.create import create as create_package
    from neuralis_build.scaffold.create import plan as plan_new
    from neuralis_build.scaffold.monorepo import ROOT_WORKFLOW, write_root_workflow
    from neuralis_build.scaffold.names import check_name
    from neuralis_build.scaffold.templates import Template, get_template, list_templates
    from neuralis_build.scaffold.update import Change, UpdatePlan, apply_update, dirty_files, plan_update
    from neuralis_build.scaffold.writer import occupants, write_plan
    from neuralis_build.ui.run import BuildOptions, PackageBuild
    from neuralis_build.ui.watch import WatchResult
    from neuralis_build.workspaces import Folders, package_root, workspace_patterns

__all__ = [
    "DEFAULT_TEMPLATE",
    "ROOT_WORKFLOW",
    "AdoptPlan",
    "BuildInterrupted",
    "BuildOptions",
    "BuildReport",
    "Change",
    "DevOptions",
    "Explanation",
    "Failed",
    "Folders",
    "HostProfile",
    "HostRefusal",
    "ImageDiff",
    "ImageResult",
    "ImageSpec",
    "JudgedPackage",
    "PackOptions",
    "PackResult",
    "Package",
    "PackageBuild",
    "PackageChange",
    "PackageFinished",
    "PackageOutcome",
    "Packed",
    "Plan",
    "Request",
    "Template",
    "ToolStatus",
    "Trust",
    "UpdatePlan",
    "WatchResult",
    "WhatIf",
    "apply_update",
    "build_image",
    "build_ui",
    "builds_something",
    "check",
    "check_name",
    "create_package",
    "default_description",
    "diagnose",
    "diff_images",
    "dirty_files",
    "explain",
    "get_template",
    "list_templates",
    "load_host_profile",
    "load_image_spec",
    "name_problems",
    "occupants",
    "pack",
    "package_folders",
    "package_root",
    "plan_adopt",
    "plan_new",
    "plan_update",
    "redirect_page",
    "run_dev",
    "schema",
    "suggest_name",
    "tree_lines",
    "watch_ui",
    "what_if",
    "workspace_patterns",
    "workspace_root",
    "write_plan",
    "write_root_workflow",
]

# The values the face hands out, each loaded from its module on first use (PEP 562).
_LAZY = {
    "AdoptPlan": "neuralis_build.scaffold.adopt",
    "BuildInterrupted": "neuralis_build.image.build",
    "BuildOptions": "neuralis_build.ui.run",
    "BuildReport": "neuralis_build.dev.state",
    "Change": "neuralis_build.scaffold.update",
    "DevOptions": "neuralis_build.dev.session",
    "Explanation": "neuralis_build.explain",
    "Folders": "neuralis_build.workspaces",
    "HostProfile": "neuralis_build.hostprofile",
    "HostRefusal": "neuralis_build.image.output.whatifmodel",
    "ImageDiff": "neuralis_build.image.output.diffmodel",
    "ImageResult": "neuralis_build.image.judge.report",
    "ImageSpec": "neuralis_build.image.packages.spec",
    "JudgedPackage": "neuralis_build.judged",
    "PackOptions": "neuralis_build.pack.run",
    "Package": "neuralis_build.package",
    "PackResult": "neuralis_build.pack.tarball",
    "PackageBuild": "neuralis_build.ui.run",
    "PackageChange": "neuralis_build.image.output.diffmodel",
    "PackageFinished": "neuralis_build.image.build",
    "PackageOutcome": "neuralis_build.image.judge.report",
    "Packed": "neuralis_build.pack.run",
    "Plan": "neuralis_build.scaffold.create",
    "Request": "neuralis_build.scaffold.create",
    "Template": "neuralis_build.scaffold.templates",
    "ToolStatus": "neuralis_build.doctor",
    "UpdatePlan": "neuralis_build.scaffold.update",
    "WatchResult": "neuralis_build.ui.watch",
    "WhatIf": "neuralis_build.image.output.whatifmodel",
}


# The scaffolding steps ``neuralis new``, ``update`` and ``init`` take one by one (they ask and show as they go):
# name -> "module:its name there".
_SCAFFOLD = {
    "DEFAULT_TEMPLATE": "neuralis_build.scaffold.create:DEFAULT_TEMPLATE",
    "ROOT_WORKFLOW": "neuralis_build.scaffold.monorepo:ROOT_WORKFLOW",
    "apply_update": "neuralis_build.scaffold.update:apply_update",
    "check_name": "neuralis_build.scaffold.names:check_name",
    "create_package": "neuralis_build.scaffold.create:create",
    "default_description": "neuralis_build.scaffold.create:default_description",
    "dirty_files": "neuralis_build.scaffold.update:dirty_files",
    "get_template": "neuralis_build.scaffold.templates:get_template",
    "list_templates": "neuralis_build.scaffold.templates:list_templates",
    "name_problems": "neuralis_build.npm.names:name_problems",
    "occupants": "neuralis_build.scaffold.writer:occupants",
    "package_root": "neuralis_build.workspaces:package_root",
    "plan_adopt": "neuralis_build.scaffold.adopt:plan_adopt",
    "plan_new": "neuralis_build.scaffold.create:plan",
    "plan_update": "neuralis_build.scaffold.update:plan_update",
    "suggest_name": "neuralis_build.npm.names:suggest_name",
    "tree_lines": "neuralis_build.scaffold.create:tree_lines",
    "workspace_patterns": "neuralis_build.workspaces:workspace_patterns",
    "workspace_root": "neuralis_build.pack.workspace:workspace_root",
    "write_plan": "neuralis_build.scaffold.writer:write_plan",
    "write_root_workflow": "neuralis_build.scaffold.monorepo:write_root_workflow",
}


def __getattr__(name: str) -> Any:
    where = _SCAFFOLD.get(name) or (f"{_LAZY[name]}:{name}" if name in _LAZY else None)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module, _, attr = where.partition(":")
    return getattr(importlib.import_module(module), attr)


@dataclass(frozen=True)
class Failed:
    """A folder a command could not work on, or refused: the error as a value (with its diagnostics, if any)."""

    path: Path
    error: NeuralisError

    @property
    def exit_code(self) -> int:
        return self.error.exit_code


def _failed(path: Path, call: Callable[[], Any]) -> Any:
    try:
        return call()
    except NeuralisError as exc:  # the one place a folder's error becomes a value
        return Failed(path, exc)


# -- folders and hosts ------------------------------------------------------------------------------------


def package_folders(
    paths: Sequence[Path] | None,
    selectors: Sequence[str] | None = None,
    every: bool = False,
    wanted: tuple[str, Callable[[Path], bool]] | None = None,
) -> Folders:
    """The folders ``check``, ``ui`` and ``pack`` work on: the PATHs, the members npm selects, or npm's folder."""
    from neuralis_build.workspaces import package_folders as select

    return select(paths, selectors, every, wanted)


def load_host_profile(path: Path | str | None = None) -> HostProfile:
    """The host profile at ``path``, or the one the toolchain ships."""
    from neuralis_build.hostprofile import load_host_profile as load

    return load(path)


# -- check, ui, pack ---------------------------------------------------------------------------------------


def check(path: Path, trust: Trust, host: HostProfile | None = None) -> JudgedPackage | Failed:
    """Judge the package at ``path`` at ``trust``: every rule of the spec, and its declarations against its
    build output."""
    from neuralis_build.check import check_path
    from neuralis_build.workspaces import refuse_workspaces_root

    def judge() -> JudgedPackage:
        refuse_workspaces_root(path, "check")
        return check_path(path, trust, host)

    result: JudgedPackage | Failed = _failed(path, judge)
    return result


def build_ui(path: Path, options: BuildOptions) -> PackageBuild | Failed:
    """Bundle the UI module of the package at ``path`` (and its events and routes) into ``dist/``."""
    from neuralis_build.ui.run import build_path
    from neuralis_build.workspaces import refuse_workspaces_root

    def build() -> PackageBuild:
        refuse_workspaces_root(path, "ui")
        return build_path(path, options)

    result: PackageBuild | Failed = _failed(path, build)
    return result


def builds_something(path: Path, entry: str | None = None) -> bool:
    """Does ``ui`` have anything to build at ``path`` (a UI module, events or routes)? An unreadable folder is
    built anyway, so that its report says why."""
    from neuralis_build.package import load_package
    from neuralis_build.ui.events import has_sources
    from neuralis_build.ui.run import wants_ui

    try:
        package = load_package(path)
        return wants_ui(package, entry) or has_sources(package)
    except NeuralisError:
        return True


def watch_ui(
    path: Path,
    options: BuildOptions,
    on_result: Callable[[WatchResult], None],
    on_ready: Callable[[], None] | None = None,
) -> None:
    """Build, then rebuild on every change, handing each result on, until Ctrl-C (KeyboardInterrupt)."""
    from neuralis_build.ui.watch import watch_package
    from neuralis_build.workspaces import refuse_workspaces_root

    refuse_workspaces_root(path, "ui")
    watch_package(path, options, on_result, on_ready=on_ready)


def pack(path: Path, options: PackOptions) -> Packed | Failed:
    """Write the tarball ``npm pack`` would write for the package at ``path``, unless it would ship broken."""
    from neuralis_build.pack.run import Refused, pack_folder

    done = _failed(path, lambda: pack_folder(path, options))
    if isinstance(done, Refused):
        return Failed(path, DiagnosedError(done.message, done.diagnostics))
    result: Packed | Failed = done
    return result


# -- image -------------------------------------------------------------------------------------------------


def load_image_spec(path: Path, *, frozen: bool = False) -> ImageSpec:
    """The image SPEC at ``path``; with ``frozen``, each source must carry its integrity (a usage error if not)."""
    from neuralis_build.image.packages.spec import frozen_problems, load_spec

    spec = load_spec(path)
    problems = frozen_problems(spec) if frozen else []
    if problems:
        raise UsageError("--frozen needs a pinned integrity:\n  " + "\n  ".join(problems))
    return spec


def build_image(
    spec: ImageSpec,
    out: Path,
    *,
    host: HostProfile,
    jobs: int = 2,
    frozen: bool = False,
    on_event: Callable[[PackageFinished], None] | None = None,
) -> ImageResult:
    """Install, check and judge every package of ``spec`` into the image folder ``out``; the report of it."""
    from neuralis_build.image.build import build_image as build

    return build(spec, out, host=host, jobs=jobs, frozen=frozen, on_event=on_event)


def diff_images(old: Path, new: Path) -> ImageDiff:
    """What changed between two images (folders or reports), for review."""
    from neuralis_build.image.output.diff import diff_images as diff

    return diff(old, new)


def what_if(out: Path, host: HostProfile) -> WhatIf:
    """What the host profile ``host`` would refuse of the image in the folder ``out``, without building it again:
    each UI module and package, with its fix. A usage error when ``out`` is not an image."""
    from neuralis_build.image.output.whatif import what_if as judge

    return judge(out, host)


# -- dev, and the rest -----------------------------------------------------------------------------------


def run_dev(options: DevOptions, *, on_ready: Callable[[str], None], on_report: Callable[[BuildReport], None]) -> None:
    """Serve the host-like page of one package on 127.0.0.1, rebuilt on each change, until Ctrl-C."""
    from neuralis_build.dev.run import run_dev as serve
    from neuralis_build.workspaces import refuse_workspaces_root

    refuse_workspaces_root(options.path, "dev")
    serve(options, on_ready=on_ready, on_report=on_report)


def redirect_page(url: str, folder: Path) -> Path:
    """A file only this user can read (in ``folder``) that sends a browser to the dev page's ``url`` (with its
    key), so the key is in no process's arguments."""
    from neuralis_build.dev.guard import redirect_page as page

    return page(url, folder)


def explain(code: str) -> Explanation:
    """The rule behind a diagnostic code (or its slug): why, a bad and a good example."""
    from neuralis_build.explain import lookup

    return lookup(code)


def schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of the ``neuralis`` block, for editors."""
    from neuralis_build.manifest.schema import manifest_schema

    return manifest_schema()


def diagnose(*, fetch: bool = False) -> list[ToolStatus]:
    """The tools the toolchain drives on this machine (Node, npm, esbuild, its JS API, the sandbox)."""
    from neuralis_build.doctor import diagnose as tools

    return tools(fetch=fetch)
