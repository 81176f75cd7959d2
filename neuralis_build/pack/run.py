"""Pack one folder as ``npm pack`` does: its lifecycle scripts, the checks that refuse what would ship broken, the
tarball, and the file written.

The whole pipeline of ``neuralis-build pack`` for one folder, as a value: ``Packed`` (with the warnings
and notes it found) or ``Refused`` (the package is judged bad, with the diagnostics that say why). A
folder that cannot be worked on at all (no package.json, a tool missing, a lifecycle script that
fails) is the ``NeuralisError`` of the step that found it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from neuralis_build.util import folderlock
from neuralis_build.util.diagnostics import Diagnostic, has_errors

if TYPE_CHECKING:
    from neuralis_build.hostprofile import HostProfile
    from neuralis_build.pack.lifecycle import ScriptContext
    from neuralis_build.pack.tarball import PackResult
    from neuralis_build.package import Package
    from neuralis_build.util.trust import Trust


@dataclass(frozen=True)
class PackOptions:
    """How to pack: the tier the host will assign, where to write, whether to write, whether scripts run."""

    trust: Trust
    host: HostProfile
    out: Path | None = None  # the folder for the .tgz (default: the working folder)
    dry_run: bool = False
    ignore_scripts: bool = False
    on_output: Callable[[str], None] | None = None  # a lifecycle script's output, as it comes


@dataclass(frozen=True)
class Packed:
    """A folder packed: its tarball, where it was written (None for a dry run), and what was found on the way."""

    package: Package
    result: PackResult
    written: Path | None
    diagnostics: list[Diagnostic]
    trust: Trust


@dataclass(frozen=True)
class Refused:
    """A folder not packed: it would ship broken (a check's error, a declared output left out of ``files``)."""

    package: Package
    message: str
    diagnostics: list[Diagnostic]


def pack_folder(path: Path, options: PackOptions) -> Packed | Refused:
    """Pack the folder ``path``, or say why it is refused."""
    from neuralis_build.check import check_package
    from neuralis_build.pack import lifecycle
    from neuralis_build.pack.refusals import prepare_pack, tarball_diagnostics
    from neuralis_build.pack.tarball import pack_package, write_tarball
    from neuralis_build.package import load_package
    from neuralis_build.workspaces import refuse_workspaces_root

    refuse_workspaces_root(path, "pack")
    package = load_package(path)
    scripts = _scripts(package, options)
    skipped = lifecycle.skipped_notes(package, options.ignore_scripts) if scripts is None else []
    before = package
    if scripts is not None:
        package = lifecycle.before_pack(package, scripts)  # outside the lock: a script may run `ui`
    with folderlock.hold(package.root):  # another pack or ui of this folder waits: no half-written file is packed
        prep = prepare_pack(check_package(package, options.trust, options.host))
        diagnostics = skipped + prep.diagnostics
        result = pack_package(package, prep.files) if prep.ok else None
        if result is not None:
            diagnostics = diagnostics + tarball_diagnostics(result)
        if result is None or has_errors(diagnostics):
            who = package.name or package.root
            return Refused(package, f"{who} was not packed (judged at {options.trust})", diagnostics)
        written = None if options.dry_run else write_tarball(result, options.out or Path.cwd())
    if scripts is not None:
        lifecycle.after_pack(before, scripts, result.integrity, written)
    return Packed(package, result, written, diagnostics, options.trust)


def _scripts(package: Package, options: PackOptions) -> ScriptContext | None:
    """The context to run the package's lifecycle scripts in, or None when none is to run."""
    from neuralis_build.pack import lifecycle

    if options.ignore_scripts or not lifecycle.lifecycle_scripts(package.npm):
        return None
    if lifecycle.ignored_by_npm(package.root):
        return None
    return lifecycle.ScriptContext(options.on_output or (lambda _: None), Path.cwd(), options.dry_run)
