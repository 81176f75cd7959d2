"""Inline contributions and the directory contract: tools, workflows, skills, commands, hooks, team, routes.

Contributions are found from the package's files (the directory contract, docs/design.md), a file
overriding an inline entry of the same name, and routes exist only as files (spec: Manifest and
distribution); a tool name is one key for the whole deployment (spec: Tool names are global).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from neuralis_build.contract import Contract
from neuralis_build.manifest.checker import Checker
from neuralis_build.manifest.compound import Arr, Field, Obj
from neuralis_build.manifest.contractfiles import check_contract_files
from neuralis_build.manifest.engine import Section
from neuralis_build.manifest.names import entry_name_shape, is_tool_name, tool_name_shape, warn_tool_names
from neuralis_build.manifest.paths import Containment, file_inside, path_problem
from neuralis_build.manifest.shape import JSONSchema, JudgedStr, Shape, Str
from neuralis_build.model import block as model
from neuralis_build.model.block import Block
from neuralis_build.package import Package
from neuralis_build.util.diagnostics import code
from neuralis_build.util.jsonpointer import join

if TYPE_CHECKING:
    from neuralis_build.contract import Kind

NB1401 = code("NB1401", "inline-routes", "neuralis.routes is declared; routes have no inline form (routes/*.ts only)")
NB1405 = code("NB1405", "inline-duplicate", "two inline entries of one kind share a name")
NB1406 = code("NB1406", "file-overrides-inline", "a file-based entry overrides the inline entry of the same name")
NB1407 = code("NB1407", "team-template-path", "a team template path is not a plain package path (absolute, ..)")
NB1408 = code("NB1408", "team-template-outside", "a team template leads out of the package through a symlink")
NB1409 = code("NB1409", "team-template-missing", "a team template file does not exist")
NB1410 = code("NB1410", "team-template-not-markdown", "a team template is not a .md file")
NB1418 = code("NB1418", "team-member-key", "a team[] entry has a key outside { id, name, template }")


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
    target = file_inside(c, at, path, "team template", NB1408, "template")
    if target is not None and not target.is_file():
        c.error(NB1409, at, f'team template "{path}" does not exist', f"create {path}, or fix the path")


TOOL = Obj(
    fields={
        "name": Field(tool_name_shape("The tool's name: one key for the whole deployment."), required=True),
        "description": Field(Str(min_length=1, description="What the tool does, for the model."), required=True),
    },
    unknown="allow",
    what="an inline tool",
    description="An inline tool; tools/<name>.{ts,js,json} overrides it.",
    model=model.Tool,
)


def _named(kind: InlineKind, what: str, file_form: str) -> Obj:
    return Obj(
        fields={kind.name_field: Field(entry_name_shape(f"The {what}'s {kind.name_field}."), required=True)},
        unknown="allow",
        what=f"an inline {what}",
        description=f"An inline {what}; {file_form} overrides it.",
        model=model.Named,
    )


TEAM_MEMBER = Obj(
    fields={
        "id": Field(entry_name_shape("The member id; team/<id>.md overrides this entry."), required=True),
        "name": Field(Str(min_length=1, description="The member's display name."), required=True),
        "template": Field(
            JudgedStr(
                judge=path_problem,
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
    model=model.TeamMember,
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


def _contract_rules(block: dict[str, Any], c: Checker) -> None:
    package = c.package
    outside: set[str] = set()
    if package is not None:
        inside = Containment(package.root)
        outside = check_contract_files(package, inside, c)
        _overrides(block, inside, package.contract, c)
    located: list[tuple[str, str, str]] = []  # the effective tools: (name, file, pointer)
    tools = block.get("tools")
    if isinstance(tools, list) and c.usable("/neuralis/tools"):
        for index, entry in enumerate(tools):
            at = join("/neuralis/tools", index)
            if c.usable(at) and isinstance(entry, dict) and isinstance(entry.get("name"), str):
                located.append((entry["name"], "package.json", at + "/name"))
    if package is not None:
        for f in package.contract.of("tool").values():
            if f.path not in outside and is_tool_name(f.name):
                located.append((f.name, f.path, ""))
    warn_tool_names(located, c)


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


def tool_sources(package: Package, block: Block | None = None) -> dict[str, str]:
    """Tool name → where the package defines it (its tools/ file, or "package.json" inline); files win.

    Pass the block the host loads (``JudgedPackage.block``); without one the declared block is read.
    """
    typed = package.declared if block is None else block
    sources: dict[str, str] = {}
    for tool in typed.tools if typed is not None else ():
        if tool.name is not None:
            sources.setdefault(tool.name, "package.json")
    for f in package.contract.of("tool").values():
        sources[f.name] = f.path
    return dict(sorted(sources.items()))


def tool_names(package: Package, block: Block | None = None) -> list[str]:
    """The sorted tool names a package contributes (file-based and inline, files overriding inline)."""
    return list(tool_sources(package, block))
