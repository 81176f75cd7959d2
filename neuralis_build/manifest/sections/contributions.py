"""Inline contributions and the directory contract: tools, workflows, skills, commands, hooks, team, routes.

Spec: "tools, workflow templates, markdown contributions, commands, hooks, and team members are all
auto-discovered from the directory contract, and file-based entries override anything declared
inline. Routes (routes/*.ts) ... have no inline form at all." The layout is DESIGN.md's "The
directory contract"; tool names are one key for the whole deployment ("Tool names are global").
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from neuralis_build.contract import Contract, ContractFile, Kind
from neuralis_build.diagnostics import Diagnostic, code
from neuralis_build.jsonpointer import join
from neuralis_build.manifest.engine import Section
from neuralis_build.manifest.paths import Containment, package_path_problem, resolve_inside
from neuralis_build.manifest.shape import Arr, Checker, Field, JSONSchema, JudgedStr, Obj, Shape, Str
from neuralis_build.package import Package

NB1401 = code("NB1401", "inline-routes", "neuralis.routes is declared; routes have no inline form (routes/*.ts only)")
NB1402 = code("NB1402", "tool-name-charset", "a tool name is not 1-64 letters, digits, _ or -")
NB1403 = code("NB1403", "tool-name-platform", "a tool name is one of the platform's own tools")
NB1404 = code("NB1404", "tool-name-generic", "a tool name is a single generic word (name it for its domain)")
NB1405 = code("NB1405", "inline-duplicate", "two inline entries of one kind share a name")
NB1406 = code("NB1406", "file-overrides-inline", "a file-based entry overrides the inline entry of the same name")
NB1407 = code("NB1407", "team-template-path", "a team template path is absolute or has a .. segment")
NB1408 = code("NB1408", "team-template-outside", "a team template leads out of the package through a symlink")
NB1409 = code("NB1409", "team-template-missing", "a team template file does not exist")
NB1410 = code("NB1410", "team-template-not-markdown", "a team template is not a .md file")
NB1411 = code("NB1411", "contract-symlink-outside", "a contract file is a symlink that leads out of the package")
NB1412 = code("NB1412", "contract-duplicate-file", "two contract files define the same entry (tools/x.ts and x.json)")
NB1413 = code("NB1413", "contract-stray", "a file sits in a contract folder but is no entry of it")
NB1414 = code("NB1414", "entry-name-charset", "an entry name (inline or file stem) is not a plain name")
NB1415 = code("NB1415", "tool-file-invalid", "a tools/<name>.json file is not a JSON object")
NB1416 = code("NB1416", "tool-file-name-mismatch", "a tools/<name>.json names a tool other than its file stem")
NB1417 = code("NB1417", "tool-file-description", "a tools/<name>.json has no description")
NB1418 = code("NB1418", "team-member-key", "a team[] entry has a key outside { id, name, template }")

TOOL_NAME = r"^[A-Za-z0-9_-]{1,64}$"
ENTRY_NAME = r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$"
_WORD_BREAK = re.compile(r"[_-]+|(?<=[a-z0-9])(?=[A-Z])")
_TOOL_RE = re.compile(TOOL_NAME)
_ENTRY_RE = re.compile(ENTRY_NAME)


@dataclass(frozen=True)
class InlineKind:
    """An inline array of the neuralis block, the contract kind its files have, and its name key."""

    key: str
    kind: Kind
    name_field: str


INLINE_KINDS = (
    InlineKind("tools", "tool", "name"),
    InlineKind("workflows", "workflow", "name"),
    InlineKind("skills", "skill", "name"),
    InlineKind("commands", "command", "name"),
    InlineKind("hooks", "hook", "event"),
    InlineKind("team", "team", "id"),
)
NAMED_FILE_KINDS: frozenset[Kind] = frozenset(k.kind for k in INLINE_KINDS)


def is_generic_tool_name(name: str) -> bool:
    """True when a tool name is one word (no _ or - separator, no camelCase break): ``status``, ``Search``."""
    return len([part for part in _WORD_BREAK.split(name) if part]) < 2


def _tool_name(description: str) -> Str:
    return Str(
        pattern=TOOL_NAME,
        pattern_code=NB1402,
        pattern_message="is not a tool name: 1 to 64 letters, digits, _ or -",
        pattern_hint="LLM tool names allow only these; name it for its domain, such as acme_release_status",
        description=description,
    )


def _entry_name(description: str) -> Str:
    return Str(
        pattern=ENTRY_NAME,
        pattern_code=NB1414,
        pattern_message="is not a plain name: a letter, digit or _, then up to 63 letters, digits, _, . or -",
        pattern_hint="the name is also the file stem of the file-based form",
        description=description,
    )


def _inline(item: Obj, kind: InlineKind, description: str) -> Field:
    return Field(
        Arr(
            item,
            unique=lambda entry: entry[kind.name_field],
            unique_code=NB1405,
            unique_what=f"{kind.kind} {kind.name_field}",
            unique_pointer=lambda at: f"{at}/{kind.name_field}",
            description=description,
        )
    )


def _template(member: dict[str, Any], pointer: str, c: Checker) -> None:
    at = pointer + "/template"
    path: str = member["template"]
    if not path.endswith(".md"):
        c.error(NB1410, at, f'team template "{path}" is not a .md file', "a team member's template is markdown")
        return
    if c.package is None:
        return
    target = resolve_inside(c.package.root, path)
    if target is None:
        c.error(
            NB1408,
            at,
            f'team template "{path}" leads out of the package through a symlink',
            "keep the template inside the package; replace the symlink by the file itself",
        )
    elif not target.is_file():
        c.error(NB1409, at, f'team template "{path}" does not exist', f"create {path}, or fix the path")


TOOL = Obj(
    fields={
        "name": Field(_tool_name("The tool's name: one key for the whole deployment."), required=True),
        "description": Field(Str(min_length=1, description="What the tool does, for the model."), required=True),
    },
    unknown="allow",
    what="an inline tool",
    description="An inline tool; tools/<name>.{ts,js,json} overrides it.",
)


def _named(kind: InlineKind, what: str, file_form: str) -> Obj:
    return Obj(
        fields={kind.name_field: Field(_entry_name(f"The {what}'s {kind.name_field}."), required=True)},
        unknown="allow",
        what=f"an inline {what}",
        description=f"An inline {what}; {file_form} overrides it.",
    )


TEAM_MEMBER = Obj(
    fields={
        "id": Field(_entry_name("The member id; team/<id>.md overrides this entry."), required=True),
        "name": Field(Str(min_length=1, description="The member's display name."), required=True),
        "template": Field(
            JudgedStr(
                judge=package_path_problem,
                judge_code=NB1407,
                judge_hint="name a .md file inside the package, such as team/reviewer.md",
                description="Package path to the member's .md template; must stay inside the package.",
            ),
            required=True,
        ),
    },
    unknown_code=NB1418,
    what="a team[] entry (exactly { id, name, template })",
    checks=(_template,),
    description="A team member; team/<id>.md overrides it.",
)


@dataclass
class NoInlineForm(Shape):
    """A key the block must not carry because its contributions are files only (routes)."""

    message: str = ""
    hint: str | None = None
    description: str | None = None

    def check(self, value: Any, pointer: str, c: Checker) -> bool:
        c.error(NB1401, pointer, self.message, self.hint)
        return False

    def schema(self) -> JSONSchema:
        return self._with_description({"not": {}})


_by_key = {k.key: k for k in INLINE_KINDS}


def _file_diag(c: Checker, severity: str, code_: Any, path: str, pointer: str, message: str, hint: str) -> None:
    if severity == "error":
        c.diags.error(code_, pointer, message, hint, file=path)
    elif severity == "warning":
        c.diags.warning(code_, pointer, message, hint, file=path)
    else:
        c.diags.note(code_, pointer, message, hint, file=path)


def _outside(inside: Containment, contract: Contract, c: Checker) -> set[str]:
    """Report every contract file that resolves outside the package; return their paths."""
    out: set[str] = set()
    for entries in contract.files.values():
        for f in entries.values():
            if inside.resolve(f.path) is None:
                out.add(f.path)
                _file_diag(
                    c,
                    "error",
                    NB1411,
                    f.path,
                    "",
                    f"{f.path} leads out of the package through a symlink",
                    "keep every contract file inside the package; replace the symlink by the file itself",
                )
    return out


def _file_names(contract: Contract, outside: set[str], c: Checker) -> None:
    for kind in sorted(NAMED_FILE_KINDS):
        for f in contract.of(kind).values():
            if f.path in outside:
                continue
            if kind == "tool" and not _TOOL_RE.match(f.name):
                _file_diag(
                    c,
                    "error",
                    NB1402,
                    f.path,
                    "",
                    f'tool file name "{f.name}" is not a tool name: 1 to 64 letters, digits, _ or -',
                    "rename the file; its stem is the tool name, such as tools/acme_release_status.ts",
                )
            elif kind != "tool" and not _ENTRY_RE.match(f.name):
                _file_diag(
                    c,
                    "error",
                    NB1414,
                    f.path,
                    "",
                    f'"{f.name}" is not a plain {kind} name: a letter, digit or _, then up to 63 letters, digits, _, '
                    ". or -",
                    "rename the file; its stem is the entry's name",
                )


def _tool_json(package: Package, f: ContractFile, c: Checker) -> None:
    """tools/<name>.json is the tool's whole definition: an object with a description, named by its stem."""
    try:
        data = json.loads((package.root / f.path).read_text("utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        _file_diag(c, "error", NB1415, f.path, "", f"{f.path} cannot be read as UTF-8 text ({exc})", "save as UTF-8")
        return
    except json.JSONDecodeError as exc:
        c.diags.items.append(
            Diagnostic(
                "error",
                NB1415.id,
                f.path,
                "",
                f"{f.path} is not valid JSON: {exc.msg}",
                "fix the JSON syntax at this line and column",
                exc.lineno,
                exc.colno,
            )
        )
        return
    if not isinstance(data, dict):
        _file_diag(c, "error", NB1415, f.path, "", f"{f.path} must hold one JSON object", '{"description": "...", ...}')
        return
    if "name" in data and data["name"] != f.name:
        _file_diag(
            c,
            "error",
            NB1416,
            f.path,
            "/name",
            f'the file names the tool "{data["name"]}" but its stem is "{f.name}"; the stem is the tool name',
            f'remove "name", or rename the file to tools/{data["name"]}.json',
        )
    description = data.get("description")
    if not isinstance(description, str) or not description:
        _file_diag(
            c,
            "error",
            NB1417,
            f.path,
            "/description" if "description" in data else "",
            f"{f.path} has no description; the model chooses tools by it",
            'add "description": "<what the tool does>"',
        )


def _same_file(inside: Containment, a: str, b: str) -> bool:
    first, second = inside.resolve(a), inside.resolve(b)
    return first is not None and first == second


def _overrides(block: dict[str, Any], inside: Containment, contract: Contract, c: Checker) -> None:
    """An inline entry that a file of the same name overrides: a note, and out of the effective block."""
    for kind in INLINE_KINDS:
        entries = block.get(kind.key)
        if not isinstance(entries, list) or not c.usable(f"/neuralis/{kind.key}"):
            continue
        files = contract.of(kind.kind)
        for index, entry in enumerate(entries):
            at = join("/neuralis", kind.key, index)
            name = entry.get(kind.name_field) if isinstance(entry, dict) else None
            if not c.usable(at) or not isinstance(name, str) or name not in files:
                continue
            path = files[name].path
            if kind.kind == "team" and _same_file(inside, entry["template"], path):
                continue  # the inline entry names the file itself: it adds the display name, no conflict
            c.note(
                NB1406,
                at,
                f'{path} defines the {kind.kind} "{name}", so it overrides this inline entry',
                "remove the inline entry, or rename one of the two if both are meant to exist",
            )
            c.dropped.add(at)


def _tool_name_warnings(block: dict[str, Any], package: Package | None, outside: set[str], c: Checker) -> None:
    located: list[tuple[str, str, str]] = []  # (name, file, pointer)
    tools = block.get("tools")
    if isinstance(tools, list) and c.usable("/neuralis/tools"):
        for index, entry in enumerate(tools):
            at = join("/neuralis/tools", index)
            if c.usable(at) and isinstance(entry, dict) and isinstance(entry.get("name"), str):
                located.append((entry["name"], "package.json", at + "/name"))
    if package is not None:
        for f in package.contract.of("tool").values():
            if f.path not in outside and _TOOL_RE.match(f.name):
                located.append((f.name, f.path, ""))
    platform = set(c.host.platform_tools) if c.host is not None else set()
    for name, file, pointer in located:
        if name in platform:
            _file_diag(
                c,
                "warning",
                NB1403,
                file,
                pointer,
                f'"{name}" is the name of one of the platform\'s own tools; tool names are global, so the platform '
                "(first-party) or the lexically-smaller first-party package id answers it, never both",
                f"name the tool for your domain, such as <package>_{name}",
            )
        elif is_generic_tool_name(name):
            _file_diag(
                c,
                "warning",
                NB1404,
                file,
                pointer,
                f'"{name}" is a single generic word; tool names are global across the deployment',
                f"name it for the domain it serves, such as acme_release_{name.lower()} (not {name})",
            )


def _contract_rules(block: dict[str, Any], c: Checker) -> None:
    package = c.package
    if package is None:
        _tool_name_warnings(block, None, set(), c)
        return
    contract = package.contract
    inside = Containment(package.root)
    outside = _outside(inside, contract, c)
    for path, first in contract.duplicates:
        _file_diag(
            c,
            "error",
            NB1412,
            path,
            "",
            f"{first} already defines this entry; one name, one file",
            f"remove {path} or {first}, or rename one of them",
        )
    for path, reason in contract.strays:
        _file_diag(c, "warning", NB1413, path, "", f"{path} is ignored: {reason}", "move or rename it")
    _file_names(contract, outside, c)
    for f in contract.of("tool").values():
        if f.path.endswith(".json") and f.path not in outside:
            _tool_json(package, f, c)
    _overrides(block, inside, contract, c)
    _tool_name_warnings(block, package, outside, c)


SECTION = Section(
    name="contributions",
    fields={
        "tools": _inline(
            TOOL,
            _by_key["tools"],
            "Inline tools {name, description, ...}; a tools/<name>.{ts,js,json} file overrides one.",
        ),
        "workflows": _inline(
            _named(_by_key["workflows"], "workflow", "workflows/<name>.{json,md}"),
            _by_key["workflows"],
            "Inline workflow templates {name, ...}; a workflows/<name>.{json,md} file overrides one.",
        ),
        "skills": _inline(
            _named(_by_key["skills"], "skill", "skills/<name>/SKILL.md"),
            _by_key["skills"],
            "Inline markdown contributions {name, ...}; a skills/<name>/SKILL.md folder overrides one.",
        ),
        "commands": _inline(
            _named(_by_key["commands"], "command", "commands/<name>.md"),
            _by_key["commands"],
            "Inline commands {name, ...}; a commands/<name>.md file overrides one.",
        ),
        "hooks": _inline(
            _named(_by_key["hooks"], "hook", "hooks/<event>.{ts,js}"),
            _by_key["hooks"],
            "Inline hooks {event, ...}; a hooks/<event>.{ts,js} file overrides one.",
        ),
        "team": _inline(
            TEAM_MEMBER,
            _by_key["team"],
            "Team members {id, name, template}; a team/<id>.md file overrides one.",
        ),
        "routes": Field(
            NoInlineForm(
                message="routes have no inline form; the host never reads neuralis.routes",
                hint="move each route to routes/<name>.ts, where the directory contract discovers it",
                description="Not allowed: routes are files only (routes/*.ts).",
            )
        ),
    },
    rules=(_contract_rules,),
)


def tool_sources(package: Package, block: Mapping[str, Any] | None = None) -> dict[str, str]:
    """Tool name → where the package defines it (its tools/ file, or "package.json" inline); files win.

    Pass the effective block of a check (``CheckResult.effective``); without one the raw block is read.
    """
    raw = package.block if block is None else block
    sources: dict[str, str] = {}
    tools = raw.get("tools") if raw is not None else None
    if isinstance(tools, list):
        for entry in tools:
            if isinstance(entry, dict) and isinstance(entry.get("name"), str):
                sources.setdefault(entry["name"], "package.json")
    for f in package.contract.of("tool").values():
        sources[f.name] = f.path
    return dict(sorted(sources.items()))


def tool_names(package: Package, block: Mapping[str, Any] | None = None) -> list[str]:
    """The sorted tool names a package contributes (file-based and inline, files overriding inline)."""
    return list(tool_sources(package, block))
