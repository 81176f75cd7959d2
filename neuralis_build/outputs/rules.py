"""The rules of the outputs stage: the built UI module and its record, the compiled events, stale builds.

The verdict on a UI module is ``neuralis_build.record.verdict.judge_module``, the same judge the image
build uses; these rules show its reasons as diagnostics (NB16xx).
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from neuralis_build.hostprofile import default_host_profile
from neuralis_build.manifest.checker import Checker
from neuralis_build.manifest.paths import path_problem
from neuralis_build.util.diagnostics import code
from neuralis_build.util.trust import at_least

if TYPE_CHECKING:
    from neuralis_build.model.block import Block, Module
    from neuralis_build.outputs import OutputFacts
    from neuralis_build.util.diagnostics import Severity

NB1603 = code("NB1603", "module-css-undeclared", "the build emitted a stylesheet that app.module does not declare")
NB1612 = code("NB1612", "event-output-missing", "a declared event subject has not been compiled to dist/src/events/")
NB1615 = code("NB1615", "build-stale", "a built output was built from sources that changed since")
NB1616 = code("NB1616", "build-record-unreadable", "a build-inputs.json record cannot be read")

MODULE = "/neuralis/app/module"
REBUILD = "build it: neuralis-build ui (npm run build:ui)"


def module_outputs(block: Block, c: Checker, found: OutputFacts) -> None:
    """A declared app.module must be built, recorded and acceptable to the host profile."""
    from neuralis_build.npm.resolve import installed_ui_packages
    from neuralis_build.record.verdict import NB1609, judge_module

    module = block.module
    package = c.package
    if package is None or module is None or not at_least(c.trust, "first-party") or not c.usable(MODULE):
        return
    if module.entry is None or not c.usable(f"{MODULE}/entry"):
        return
    host = c.host or default_host_profile()
    installed = installed_ui_packages(package.root, exclude=package.name)
    c.diags.extend(installed.diagnostics(package.root))
    available = set(host.shared_modules) | {pid for pkg in installed.packages.values() for pid in pkg.provides}
    verdict = judge_module(package.root, module, host, available, package_id=package.id)
    found.module_verdict = verdict  # handed on: the image and the host page judge availability, never parse again
    for p in verdict.problems:
        # What other packages publish depends on what is installed here; the image build decides.
        severity: Severity = "warning" if p.code is NB1609 else "error"
        c.diags.add(severity, p.code, p.pointer, p.reason, p.hint, file=p.file)
        if p.file == "package.json" and severity == "error":
            c.mark_invalid(p.pointer)
    _undeclared_css(package.root, module, c)


def _undeclared_css(root: Path, module: Module, c: Checker) -> None:
    assert module.entry is not None
    entry = PurePosixPath(module.entry)
    if module.css is not None or entry.is_absolute() or ".." in entry.parts:
        return
    css = entry.with_suffix(".css")
    if (root / css).is_file():
        c.error(
            NB1603,
            MODULE,
            f"{css} was built beside {entry}, but app.module declares no css, so the host never loads its styles",
            f'add "css": "{css}" to app.module',
        )


def event_outputs(block: Block, c: Checker, found: OutputFacts) -> None:
    """Each declared event subject must be compiled to dist/src/events/<subject>.js with its exports."""
    from neuralis_build.esbuild.analyze import read_modules
    from neuralis_build.record.verdict import NB1613, NB1614, event_exports_problem

    package = c.package
    if package is None or not at_least(c.trust, "first-party"):
        return  # below first-party the events are dropped, and block.events is empty
    seen: set[str] = set()
    built: list[str] = []
    for event in block.events:
        subject = event.subject
        pointer = event.at.child("subject").pointer
        if subject is None or not subject or subject in seen:
            continue
        seen.add(subject)  # judged once, at its first mention
        if not c.usable(pointer) or "/" in subject or "\\" in subject or subject.startswith("."):
            continue  # not a file name, or already reported by the events rules
        if subject not in package.contract.of("event"):
            continue  # no source to compile: the events rules report the missing file
        rel = f"dist/src/events/{subject}.js"
        if (package.root / rel).is_file():
            built.append(rel)
        else:
            c.error(NB1612, pointer, f'event subject "{subject}" has not been compiled to {rel}', REBUILD)
    for rel, module in read_modules(package.root, built).items():
        subject = rel[len("dist/src/events/") : -len(".js")]
        if module.error is not None:
            c.diags.error(NB1614, "", f"{rel} cannot be read: {module.error}", REBUILD, file=rel)
            continue
        problem = event_exports_problem(rel, f"src/events/{subject}.ts", module.exports)
        if problem is not None:
            c.diags.error(NB1613, "", problem[0], f"{problem[1]}, then {REBUILD}", file=rel)


def _built_outputs(block: Block, c: Checker) -> dict[str, str]:
    """Each declared output a build of this package writes (package-relative) → the pointer that declares it."""
    found: dict[str, str] = {}
    entry = block.module.entry if block.module is not None else None
    if entry is not None and c.usable(f"{MODULE}/entry") and path_problem(entry) is None:
        found[str(PurePosixPath(entry))] = f"{MODULE}/entry"
    for event in block.events:  # empty when the events are dropped at this trust
        subject, pointer = event.subject, event.at.child("subject").pointer
        if subject and c.usable(pointer) and path_problem(subject) is None:
            found.setdefault(f"dist/src/events/{subject}.js", pointer)
    return found


def stale_outputs(block: Block, c: Checker, found: OutputFacts) -> None:
    """A declared output built from sources that have changed since (what the build read, record/inputs.py).

    A warning for check, which judges the package as it is; pack refuses it, since the tarball would
    ship the old build (docs/spec-decisions.md, "Stale builds").
    """
    from neuralis_build.record.stale import read_state

    package = c.package
    if package is None or not at_least(c.trust, "first-party"):
        return
    outputs = {out: at for out, at in _built_outputs(block, c).items() if (package.root / out).is_file()}
    if not outputs:
        return
    state = read_state(package.root, outputs)
    found.build = state
    for record, why in state.unreadable:
        c.diags.warning(
            NB1616,
            "",
            f"{record} cannot be read ({why}), so whether the build is stale is not known",
            REBUILD,
            file=record,
        )
    for stale in state.stale:
        c.warning(
            NB1615,
            outputs[stale.output],
            f"{stale.output} was built from older sources: {stale.describe()} since the last build",
            REBUILD,
        )
