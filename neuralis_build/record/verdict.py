"""The host's verdict on a built UI module: whether it would load it, and every reason it would not.

``judge_module`` is the one place that decides whether a host accepts a UI module. ``check`` runs it
once (the NB16 rules show its reasons as they are) and hands the verdict on with the judged package;
the image build and the host page only ask it again with the ids their hosts can hand the module
(``ModuleVerdict.against``). The module's exports and imports are read with esbuild's parser.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from neuralis_build.hostprofile import HostProfile
from neuralis_build.record.sharedimports import (
    RECORD_NAME,
    RecordProblem,
    SharedImportsRecord,
    parse_record,
    read_record,
)
from neuralis_build.util.diagnostics import Code, code

if TYPE_CHECKING:
    from typing import Any

    from neuralis_build.esbuild.runner import EsbuildRunner
    from neuralis_build.model.block import Module

INSTALL_EXPORT = re.compile(r"^install[A-Z][A-Za-z0-9]*HostComponents$")
REBUILD = "rebuild with neuralis-build ui (npm run build:ui)"

NB1601 = code("NB1601", "module-entry-missing", "the declared app.module entry has not been built")
NB1602 = code("NB1602", "module-css-missing", "the declared app.module css has not been built")
NB1604 = code("NB1604", "record-missing", "the UI module has no dist/app/shared-imports.json record")
NB1605 = code("NB1605", "record-malformed", "dist/app/shared-imports.json is not a well-formed record")
NB1606 = code("NB1606", "record-host-api", "the module was built for another host API version")
NB1607 = code("NB1607", "record-react-major", "the module was built against another React major")
NB1608 = code("NB1608", "record-react-unknown", "the module reads React but records no React major")
NB1609 = code("NB1609", "record-import-unavailable", "the module reads a shared id that nothing provides")
NB1610 = code("NB1610", "module-install-export", "the module exports no install<Name>HostComponents function")
NB1611 = code("NB1611", "module-path-escapes", "an app.module path leads out of the package")
NB1613 = code("NB1613", "event-output-exports", "a compiled event subject does not export subject and visible")
NB1614 = code("NB1614", "module-unparsable", "a built module is not JavaScript that esbuild can read")


def pascal_case(package_id: str) -> str:
    """``@acme/reports`` → ``AcmeReports``; starts with a letter (``3d-charts`` → ``Pkg3dCharts``).

    The one spelling of <Name> in install<Name>HostComponents: the scaffold writes it, the build
    suggests it, and it always matches ``INSTALL_EXPORT``.
    """
    joined = "".join(w[:1].upper() + w[1:] for w in (w.lower() for w in re.findall(r"[A-Za-z0-9]+", package_id)))
    return joined if joined[:1].isalpha() else "Pkg" + joined


def install_function(package_id: str | None) -> str:
    """The install function the scaffold writes for ``package_id`` (a placeholder when it is unknown)."""
    return f"install{pascal_case(package_id) if package_id else '<Name>'}HostComponents"


def install_export_problem(file: str, exports: Collection[str], package_id: str | None) -> tuple[str, str] | None:
    """(message, hint) when a module exports no install<Name>HostComponents function (NB1610), else None."""
    if any(INSTALL_EXPORT.match(name) for name in exports):
        return None
    shown = ", ".join(sorted(exports)) or "nothing"
    return (
        f"{file} exports {shown}, but no install<Name>HostComponents function",
        f"add to the UI entry: export function {install_function(package_id)}(host) {{ ... }}",
    )


ReactProblem = tuple[Code, str]


def react_major_problem(record: SharedImportsRecord, host: HostProfile) -> ReactProblem | None:
    """The host refuses a bundle that reads React with no major (NB1608) or records another major (NB1607)."""
    if record.react_major is None and record.reads_react:
        return NB1608, "the bundle reads React but records no React major"
    if record.react_major is not None and record.react_major != host.react_major:
        return NB1607, f"built against React {record.react_major}, host provides React {host.react_major}"
    return None


EVENT_EXPORTS = ("subject", "visible")


def event_exports_problem(out: str, source: str, exports: Collection[str]) -> tuple[str, str] | None:
    """(message, hint) when a compiled event subject lacks ``subject`` or ``visible`` (NB1613), else None."""
    missing = [n for n in EVENT_EXPORTS if n not in exports]
    if not missing:
        return None
    return (
        f"{out} does not export {' and '.join(missing)}; without visible every event is dropped (deny-by-default)",
        f'export const subject = "<subject>" and export function visible(event, session, state) from {source}',
    )


@dataclass(frozen=True, slots=True)
class ModuleProblem:
    """One reason a host refuses a module, located in the file a person should look at."""

    code: Code
    file: str
    pointer: str
    reason: str
    hint: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "code": self.code.id,
            "file": self.file,
            "pointer": self.pointer,
            "reason": self.reason,
            "hint": self.hint,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ModuleProblem:
        from neuralis_build.util.codes import lookup

        return cls(lookup(data["code"]), data["file"], data["pointer"], data["reason"], data["hint"])


@dataclass(frozen=True, slots=True)
class ModuleVerdict:
    """Whether the host accepts a module; ``reason`` is the first refusal in words a person can act on.

    ``check`` judges a module once (with esbuild's parser) and hands the verdict on; the image build
    and the host page only ask it again with the ids their hosts can hand the module (``against``).
    """

    problems: tuple[ModuleProblem, ...] = ()
    record: SharedImportsRecord | None = None
    record_file: str = ""  # package-relative, where NB1609 points

    @property
    def accepted(self) -> bool:
        return not self.problems

    @property
    def reason(self) -> str | None:
        return self.problems[0].reason if self.problems else None

    @property
    def explained(self) -> str | None:
        """The first refusal with what to do about it (the hint, unless the reason already says it)."""
        if not self.problems:
            return None
        first = self.problems[0]
        return first.reason if not first.hint or first.hint in first.reason else f"{first.reason}: {first.hint}"

    def against(self, available: Collection[str]) -> ModuleVerdict:
        """The same verdict for a host that can hand the module ``available`` ids (only NB1609 depends on them)."""
        fresh = _unavailable(self.record, self.record_file, available) if self.record is not None else []
        return self._with(frozenset({NB1609.id}), fresh)

    def on(self, host: HostProfile, available: Collection[str]) -> ModuleVerdict:
        """The same verdict for another host: what depends on the host (its API version, its React major, the ids
        it can hand the module: ``HOST_CODES``) judged afresh from the record, every other reason kept."""
        fresh = []
        if self.record is not None:
            fresh = [
                *_judge_record(self.record, self.record_file, host),
                *_unavailable(self.record, self.record_file, available),
            ]
        return self._with(HOST_CODES, fresh)

    def _with(self, replaced: frozenset[str], fresh: list[ModuleProblem]) -> ModuleVerdict:
        """The problems of ``replaced`` codes dropped and ``fresh`` put where ``judge_module`` puts the record's."""
        kept = [p for p in self.problems if p.code.id not in replaced]
        at = next((i for i, p in enumerate(kept) if p.code.id in (NB1614.id, NB1610.id)), len(kept))
        return replace(self, problems=(*kept[:at], *fresh, *kept[at:]))

    def to_json(self) -> dict[str, Any]:
        return {
            "problems": [p.to_json() for p in self.problems],
            "record": self.record.to_json() if self.record is not None else None,
            "recordFile": self.record_file,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ModuleVerdict:
        record, _ = parse_record(data["record"]) if data["record"] is not None else (None, [])
        return cls(tuple(ModuleProblem.from_json(p) for p in data["problems"]), record, data["recordFile"])


HOST_CODES = frozenset(c.id for c in (NB1606, NB1607, NB1608, NB1609))
"""The reasons that depend on the host, not on the module's bytes: another host may decide them otherwise."""

VERDICT_CODES = frozenset(
    c.id for c in (NB1601, NB1602, NB1604, NB1605, NB1606, NB1607, NB1608, NB1609, NB1610, NB1611, NB1614)
)
"""The codes of check's rules that only judge the built module (the image and the host page show the verdict)."""


def _inside(root: Path, rel: str) -> Path | None:
    pure = PurePosixPath(rel)
    if pure.is_absolute() or ".." in pure.parts:
        return None
    path = (root / pure).resolve()
    return path if path.is_relative_to(root.resolve()) else None


MODULE = "/neuralis/app/module"


def judge_module(
    root: Path,
    module: Module | None,
    host: HostProfile,
    available: Collection[str],
    *,
    package_id: str | None = None,
    esbuild: EsbuildRunner | None = None,
    parse: bool = True,
) -> ModuleVerdict:
    """Decide whether ``host`` accepts the UI module a package at ``root`` declares as ``module``.

    ``module`` is the package's effective ``app.module``; ``available`` is every id the host can hand
    the module: its shared modules plus the ids published by the packages it loads. ``parse=False``
    leaves out what only esbuild's parser tells (NB1614, NB1610): for a module whose bytes a verdict
    already accepted, asked again for another host (``image what-if``).
    """
    if module is None or module.entry is None:
        return ModuleVerdict(
            (ModuleProblem(NB1601, "package.json", MODULE, "the package declares no app.module entry"),)
        )
    problems: list[ModuleProblem] = []
    entry_rel = module.entry
    entry = _inside(root, entry_rel)
    if entry is None:
        return ModuleVerdict(
            (ModuleProblem(NB1611, "package.json", f"{MODULE}/entry", f"{entry_rel} leads out of the package"),)
        )
    if not entry.is_file():
        return ModuleVerdict(
            (ModuleProblem(NB1601, "package.json", f"{MODULE}/entry", f"{entry_rel} has not been built", REBUILD),)
        )
    css_rel = module.css
    if css_rel is not None:
        css = _inside(root, css_rel)
        if css is None:
            problems.append(
                ModuleProblem(NB1611, "package.json", f"{MODULE}/css", f"{css_rel} leads out of the package")
            )
        elif not css.is_file():
            problems.append(
                ModuleProblem(NB1602, "package.json", f"{MODULE}/css", f"{css_rel} has not been built", REBUILD)
            )

    record_rel = str(PurePosixPath(entry_rel).parent / RECORD_NAME)
    try:
        record, malformed = read_record(entry.parent / RECORD_NAME)
    except FileNotFoundError:
        problems.append(ModuleProblem(NB1604, record_rel, "", f"{entry_rel} has no {RECORD_NAME} beside it", REBUILD))
        record, malformed = None, []
    except OSError as exc:  # a FIFO, a folder, a loop: unreadable is malformed
        record, malformed = None, [RecordProblem("", f"cannot be read ({exc.strerror})")]
    for p in malformed:
        problems.append(ModuleProblem(NB1605, record_rel, p.pointer, f"{record_rel}: {p.message}", REBUILD))
    if record is not None:
        problems.extend(_judge_record(record, record_rel, host))
        problems.extend(_unavailable(record, record_rel, available))
    if not parse:
        return ModuleVerdict(tuple(problems), record, record_rel)

    from neuralis_build.esbuild.analyze import read_modules

    parsed = read_modules(root, [entry.relative_to(root.resolve()).as_posix()], esbuild)
    built = next(iter(parsed.values()))
    if built.error is not None:
        problems.append(ModuleProblem(NB1614, entry_rel, "", f"{entry_rel} cannot be read: {built.error}", REBUILD))
    else:
        missing = install_export_problem(entry_rel, built.exports, package_id)
        if missing is not None:
            problems.append(ModuleProblem(NB1610, entry_rel, "", missing[0], f"{missing[1]}; then {REBUILD}"))
    return ModuleVerdict(tuple(problems), record, record_rel)


def _judge_record(record: SharedImportsRecord, file: str, host: HostProfile) -> list[ModuleProblem]:
    problems: list[ModuleProblem] = []
    if record.host_api_version != host.host_api_version:
        problems.append(
            ModuleProblem(
                NB1606,
                file,
                "/hostApiVersion",
                f"built for host API {record.host_api_version}, host is {host.host_api_version}: {REBUILD}",
            )
        )
    react = react_major_problem(record, host)
    if react is not None:
        hint = f"install react {host.react_major} (or declare a react range) and {REBUILD}"
        if react[0] is NB1607:
            hint = f"move react to ^{host.react_major}.0.0 and {REBUILD}"
        problems.append(ModuleProblem(react[0], file, "/reactMajor", react[1], hint))
    return problems


def _unavailable(record: SharedImportsRecord, file: str, available: Collection[str]) -> list[ModuleProblem]:
    """A shared id the bundle reads that neither the host nor a loaded package provides (NB1609)."""
    problems = []
    for i, module_id in enumerate(record.shared_imports):
        if module_id not in available:
            problems.append(
                ModuleProblem(
                    NB1609,
                    file,
                    f"/sharedImports/{i}",
                    f'the bundle reads "{module_id}", which neither the host nor any loaded package provides',
                    "install the package that publishes it in app.module.provides, or stop importing it",
                )
            )
    return problems
