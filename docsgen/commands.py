"""The command reference: one page per command, read from the CLI's own click objects (usage, help, options).

typer carries its own copy of click, so the objects are read by their attributes, not by their classes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import typer.main

from docsgen.markdown import cell, escape, page, table

# The warm build server is being removed; it is not part of the documented toolchain.
UNDOCUMENTED = frozenset({"server"})


@dataclass(frozen=True)
class Command:
    """A documented command: its program, its name and its click object."""

    prog: str
    name: str
    command: Any  # typer's click Command

    @property
    def slug(self) -> str:
        return f"{self.prog}-{self.name.replace(' ', '-')}"

    @property
    def title(self) -> str:
        return f"{self.prog} {self.name}"


def commands() -> list[Command]:
    """Every documented command of both programs, in the order their --help lists them."""
    from neuralis_build.cli.build import app as build_app
    from neuralis_build.cli.image_cmd import DEFAULT
    from neuralis_build.cli.new import app as new_app

    found: list[Command] = []
    for prog, app in (("neuralis", new_app), ("neuralis-build", build_app)):
        group: Any = typer.main.get_command(app)
        for name, command in group.commands.items():
            if name in UNDOCUMENTED or command.hidden:
                continue
            inner = getattr(command, "commands", None)
            if inner is None:
                found.append(Command(prog, name, command))
                continue
            # a group of commands (image): its default command is the group's own page, then each other one
            found.append(Command(prog, name, inner[DEFAULT]))
            found += [Command(prog, f"{name} {sub}", c) for sub, c in inner.items() if sub != DEFAULT]
    return found


def _usage(cmd: Command) -> str:
    ctx = cmd.command.context_class(cmd.command, info_name=cmd.name)
    return " ".join([cmd.title, *cmd.command.collect_usage_pieces(ctx)])


def _examples(epilog: str | None) -> list[str]:
    """The example command lines of a help epilog (``common.examples`` writes them indented under "Examples:")."""
    if not epilog:
        return []
    lines = epilog.replace("\b", "").splitlines()
    if "Examples:" not in lines:
        return []
    return [line.strip() for line in lines[lines.index("Examples:") + 1 :] if line.strip()]


def _summary(command: Any) -> str:
    """The command's one-line help: its short help, else the first sentence of its help (as click shows it)."""
    if command.short_help:
        return str(command.short_help)
    first = (command.help or "").strip().split("\n\n")[0]
    return " ".join(first.split()).split(". ")[0].rstrip(".") + "."


def _is_option(param: Any) -> bool:
    return bool(param.param_type_name == "option")


def _value(param: Any) -> str:
    if _is_option(param) and param.is_flag:
        return ""
    choices = getattr(param.type, "choices", None)
    if choices:
        return " \\| ".join(f"`{c}`" for c in choices)
    return f"`{param.metavar or str(param.name).upper()}`"


def _notes(param: Any) -> str:
    notes = []
    if param.required:
        notes.append("required")
    if _is_option(param):
        if param.envvar:
            notes.append(f"or the environment variable `{param.envvar}`")
        if not param.is_flag and param.default not in (None, (), []) and param.show_default is not False:
            notes.append(f"default `{param.default}`")
    return "; ".join(notes)


def render(cmd: Command) -> str:
    """The page of one command."""
    c = cmd.command
    arguments = [p for p in c.params if not _is_option(p)]
    options = [p for p in c.params if _is_option(p)]
    parts = [
        f"# `{cmd.title}`",
        escape(_summary(c)) if _summary(c) != " ".join((c.help or "").split()) else "",
        f"```text\n{_usage(cmd)}\n```",
        escape(c.help or ""),
    ]
    if arguments:
        rows = [[f"`{a.metavar or a.name}`", cell(escape(getattr(a, "help", None) or ""))] for a in arguments]
        parts += ["## Arguments", table(["argument", "meaning"], rows)]
    rows = []
    for o in options:
        names = ", ".join(f"`{n}`" for n in [*o.opts, *o.secondary_opts])
        help_text = escape(o.help or "")
        notes = _notes(o)
        rows.append([names, _value(o), cell(f"{help_text} ({notes})" if notes else help_text)])
    rows.append(["`-h`, `--help`", "", "Print this help and exit."])
    parts += ["## Options", table(["option", "value", "meaning"], rows)]
    examples = _examples(c.epilog)
    if examples:
        parts += ["## Examples", "```sh\n" + "\n".join(examples) + "\n```"]
    return page(parts)


def index(found: list[Command]) -> str:
    """The list of every command, each with its one-line help."""
    rows = [[f"[`{cmd.title}`]({cmd.slug}.md)", cell(escape(_summary(cmd.command)))] for cmd in found]
    intro = (
        "Every command of the two programs the toolchain installs: `neuralis` creates packages and keeps them "
        "up to date with their templates, `neuralis-build` builds, checks and packs them. These pages are "
        "generated from the commands themselves (`./scripts/docs-gen`); `--help` on any command prints the same."
    )
    grammar = (
        "What every command shares (options anywhere, `--format`, the JSON shapes, exit codes) is in "
        "[the command grammar](../grammar.md)."
    )
    return page(["# Commands", intro, table(["command", "what it does"], rows), grammar])


def pages() -> dict[str, str]:
    """Every page of the command reference, by its path under docs/."""
    found = commands()
    out = {"reference/commands/index.md": index(found)}
    for cmd in found:
        out[f"reference/commands/{cmd.slug}.md"] = render(cmd)
    return out
