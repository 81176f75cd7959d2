"""The shared-imports record (dist/app/shared-imports.json) and the host's verdict on a built module.

``judge_module`` is the one place that decides whether a host accepts a UI module: the ``check``
rules (NB16) and the image build both call it and show its reasons as they are.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from neuralis_build.diagnostics import Code, code
from neuralis_build.hostprofile import HostProfile

RECORD_NAME = "shared-imports.json"
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


@dataclass(frozen=True)
class SharedImportsRecord:
    """What the build records beside the bundle: host API version, React major and shared ids read."""

    host_api_version: str
    react_major: int | None
    shared_imports: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "hostApiVersion": self.host_api_version,
            "reactMajor": self.react_major,
            "sharedImports": list(self.shared_imports),
        }

    def dumps(self) -> str:
        """The record's bytes as the build writes them (stable: same record, same text)."""
        return json.dumps(self.to_json(), indent=2, ensure_ascii=False) + "\n"

    @property
    def reads_react(self) -> bool:
        return any(reads_react(i) for i in self.shared_imports)


def reads_react(module_id: str) -> bool:
    """True for ``react``, ``react-dom`` and their subpaths."""
    return module_id in ("react", "react-dom") or module_id.startswith(("react/", "react-dom/"))


@dataclass(frozen=True)
class RecordProblem:
    """One way a record file is malformed, at a JSON pointer into the record."""

    pointer: str
    message: str


_KEYS = ("hostApiVersion", "reactMajor", "sharedImports")


def parse_record(data: Any) -> tuple[SharedImportsRecord | None, list[RecordProblem]]:
    """Validate the record's JSON value; a record comes back only when there is no problem."""
    if not isinstance(data, dict):
        return None, [RecordProblem("", "the record is not a JSON object")]
    problems = [RecordProblem(f"/{k}", f'unknown key "{k}"') for k in sorted(set(data) - set(_KEYS))]
    problems += [RecordProblem("", f'the key "{k}" is missing') for k in _KEYS if k not in data]
    api = data.get("hostApiVersion")
    if "hostApiVersion" in data and (not isinstance(api, str) or not api):
        problems.append(RecordProblem("/hostApiVersion", 'hostApiVersion must be a non-empty string such as "1"'))
    major = data.get("reactMajor")
    if major is not None and (not isinstance(major, int) or isinstance(major, bool) or major < 0):
        problems.append(RecordProblem("/reactMajor", "reactMajor must be a whole number or null"))
    ids = data.get("sharedImports")
    if "sharedImports" in data:
        if not isinstance(ids, list):
            problems.append(RecordProblem("/sharedImports", "sharedImports must be an array of module ids"))
        else:
            for i, item in enumerate(ids):
                if not isinstance(item, str) or not item:
                    problems.append(RecordProblem(f"/sharedImports/{i}", "a shared import is a non-empty string"))
            if all(isinstance(x, str) for x in ids) and ids != sorted(set(ids)):
                problems.append(RecordProblem("/sharedImports", "sharedImports must be sorted and without duplicates"))
    if problems:
        return None, problems
    assert isinstance(api, str) and isinstance(ids, list)
    return SharedImportsRecord(api, major, tuple(ids)), []


def read_record(path: Path) -> tuple[SharedImportsRecord | None, list[RecordProblem]]:
    """Read and validate a record file; a missing file raises FileNotFoundError."""
    from neuralis_build.regularfile import read_regular
    from neuralis_build.strictjson import JSONRefused, parse

    raw = read_regular(path)  # a FIFO is refused (NotRegularFile), never waited on
    try:
        data = parse(raw.decode("utf-8"))
    except JSONRefused as exc:
        return None, [RecordProblem(exc.problems[0].pointer or "", f"not valid JSON: {exc.problems[0].message}")]
    except UnicodeDecodeError as exc:
        return None, [RecordProblem("", f"not valid JSON: {exc}")]
    return parse_record(data)


_STRIP = re.compile(
    r"\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'|`(?:\\.|[^`\\])*`|/\*.*?\*/|//[^\n]*",
    re.DOTALL,
)
_IDENT = r"[A-Za-z_$][\w$]*"
_EXPORT_CLAUSE = re.compile(r"\bexport\s*\{([^}]*)\}")
_EXPORT_DECL = re.compile(rf"\bexport\s+(?:async\s+)?(?:function\s*\*?|const|let|var|class)\s*({_IDENT})")
_EXPORT_DEFAULT = re.compile(r"\bexport\s+default\b")


def module_exports(text: str) -> set[str]:
    """The names an ES module's text exports (export clauses and declarations; comments/strings ignored)."""
    code_only = _STRIP.sub(lambda m: " " if m.group(0).startswith("/") else '""', text)
    names: set[str] = set()
    for clause in _EXPORT_CLAUSE.findall(code_only):
        for part in clause.split(","):
            words = part.split()
            if words:
                names.add(words[-1])
    names.update(_EXPORT_DECL.findall(code_only))
    if _EXPORT_DEFAULT.search(code_only):
        names.add("default")
    return names


@dataclass(frozen=True)
class ModuleProblem:
    """One reason a host refuses a module, located in the file a person should look at."""

    code: Code
    file: str
    pointer: str
    reason: str
    hint: str | None = None


@dataclass(frozen=True)
class ModuleVerdict:
    """Whether the host accepts a module; ``reason`` is the first refusal in words a person can act on."""

    problems: tuple[ModuleProblem, ...] = ()
    record: SharedImportsRecord | None = None

    @property
    def accepted(self) -> bool:
        return not self.problems

    @property
    def reason(self) -> str | None:
        return self.problems[0].reason if self.problems else None


def _inside(root: Path, rel: str) -> Path | None:
    pure = PurePosixPath(rel)
    if pure.is_absolute() or ".." in pure.parts:
        return None
    path = (root / pure).resolve()
    return path if path.is_relative_to(root.resolve()) else None


MODULE = "/neuralis/app/module"


def judge_module(
    root: Path, module: Mapping[str, Any] | None, host: HostProfile, available: Collection[str]
) -> ModuleVerdict:
    """Decide whether ``host`` accepts the UI module a package at ``root`` declares as ``module``.

    ``module`` is the package's effective ``app.module``; ``available`` is every id the host can hand
    the module: its shared modules plus the ids published by the packages it loads.
    """
    if not isinstance(module, Mapping) or not isinstance(module.get("entry"), str):
        return ModuleVerdict(
            (ModuleProblem(NB1601, "package.json", MODULE, "the package declares no app.module entry"),)
        )
    problems: list[ModuleProblem] = []
    entry_rel: str = module["entry"]
    entry = _inside(root, entry_rel)
    if entry is None:
        return ModuleVerdict(
            (ModuleProblem(NB1611, "package.json", f"{MODULE}/entry", f"{entry_rel} leads out of the package"),)
        )
    if not entry.is_file():
        return ModuleVerdict(
            (ModuleProblem(NB1601, "package.json", f"{MODULE}/entry", f"{entry_rel} has not been built", REBUILD),)
        )
    css_rel = module.get("css")
    if isinstance(css_rel, str):
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
        problems.extend(_judge_record(record, record_rel, host, available))

    names = module_exports(entry.read_text("utf-8", errors="replace"))
    if not any(INSTALL_EXPORT.match(n) for n in names):
        problems.append(
            ModuleProblem(
                NB1610,
                entry_rel,
                "",
                f"{entry_rel} exports no install<Name>HostComponents function",
                "export function install<Name>HostComponents(host) from src/app/host.tsx, then " + REBUILD,
            )
        )
    return ModuleVerdict(tuple(problems), record)


def _judge_record(
    record: SharedImportsRecord, file: str, host: HostProfile, available: Collection[str]
) -> list[ModuleProblem]:
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
    if record.react_major is None and record.reads_react:
        problems.append(
            ModuleProblem(
                NB1608,
                file,
                "/reactMajor",
                "the bundle reads React but records no React major",
                f"install react {host.react_major} (or declare a react range) and {REBUILD}",
            )
        )
    elif record.react_major is not None and record.react_major != host.react_major:
        problems.append(
            ModuleProblem(
                NB1607,
                file,
                "/reactMajor",
                f"built against React {record.react_major}, host provides React {host.react_major}",
                f"move react to ^{host.react_major}.0.0 and {REBUILD}",
            )
        )
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
