"""What every command shares: the run wrapper, the options every command takes, the consoles, the formats."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from neuralis_build import __version__
from neuralis_build.cli import boundary

if TYPE_CHECKING:
    import typer
    from rich.console import Console


class Format(StrEnum):
    """``--format``: text for people, json for programs, github for GitHub Actions annotations."""

    text = "text"
    json = "json"
    github = "github"


FORMAT_HELP = "text (default), json or github (workflow annotations)."
TRUST_HELP = "The tier the host assigns: first-party, trusted or untrusted (or NEURALIS_TRUST)."


def host_option(help: str = "A host profile JSON file.") -> Any:
    """The ``--host PROFILE`` option of every command that builds or judges for a host."""
    import typer

    return typer.Option("--host", metavar="PROFILE", help=help)


def path_argument(help: str = "The package folder (default: the current folder).") -> Any:
    """The optional ``[PATH]`` of a command that works on one package folder."""
    import typer

    return typer.Argument(metavar="[PATH]", show_default=False, help=help)


def trust_option(help: str = TRUST_HELP) -> Any:
    """The ``--trust TIER`` option of every command that judges a package at a tier (check, pack, dev)."""
    import typer

    return typer.Option(
        "--trust", metavar="TIER", envvar="NEURALIS_TRUST", case_sensitive=False, show_default=False, help=help
    )


CONTEXT = {"help_option_names": ["--help", "-h"]}


def examples(*lines: str) -> str:
    """A help epilog that lists example command lines as they are (``\\b`` stops click re-wrapping them)."""
    return "\b\nExamples:\n" + "\n".join(f"  {line}" for line in lines)


def version_callback(prog: str) -> Callable[[bool], None]:
    """An eager ``--version`` callback that prints ``<prog> <version>`` and exits."""

    def show(value: bool) -> None:
        if value:
            import typer

            print(f"{prog} {__version__}")
            raise typer.Exit(0)

    return show


def add_common_options(app: typer.Typer, prog: str) -> None:
    """Give every command of ``app`` the root's --verbose and --version (``-h`` comes from CONTEXT).

    So ``neuralis-build check --verbose`` works as well as ``neuralis-build --verbose check``. Each
    command is made with ``command_class(prog)``, click's own way to add parameters a command's
    function never receives (``expose_value=False``) and to wrap its invocation.
    """
    from typer.core import TyperCommand

    cls = command_class(prog)
    for info in app.registered_commands:
        if info.cls in (None, TyperCommand):
            info.cls = cls
    for group in app.registered_groups:
        if group.typer_instance is not None:
            add_common_options(group.typer_instance, prog)


def command_class(prog: str) -> type[Any]:
    """A typer command class whose commands take --verbose and --version, and end quietly on a closed stdout
    or Ctrl-C (see boundary.pipe_safe)."""
    from typer.core import TyperCommand, TyperOption

    def verbose(ctx: Any, param: Any, value: bool) -> None:
        if value:
            boundary.VERBOSE = True

    def version(ctx: Any, param: Any, value: bool) -> None:
        version_callback(prog)(value)

    def flag(names: list[str], callback: Callable[[Any, Any, bool], None], help: str) -> TyperOption:
        return TyperOption(
            param_decls=names,
            is_flag=True,
            default=False,
            is_eager=True,
            expose_value=False,
            callback=callback,
            help=help,
        )

    base: Any = TyperCommand.context_class

    class Context(base):  # type: ignore[misc]
        @property
        def command_path(self) -> str:
            # a group's default command runs without its own name (see default_group): no trailing space
            path: str = super().command_path
            return path.rstrip()

    class Command(TyperCommand):
        context_class = Context

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.params.append(flag(["--verbose", "-v"], verbose, "Show tracebacks of internal errors."))
            self.params.append(flag(["--version"], version, "Print the version."))

        def invoke(self, ctx: Any) -> Any:
            return boundary.pipe_safe(super().invoke)(ctx)

    return Command


def default_group(default: str) -> type[Any]:
    """A typer group class whose commands are reached by name and whose first argument, when it names none of
    them, goes to the ``default`` command (``image SPEC`` beside ``image diff OLD NEW``): the sub-commands of
    click's own ``Group``, with the one extension click-default-group is known for."""
    from typer.core import TyperGroup

    class DefaultGroup(TyperGroup):
        def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
            if not args or args[0] not in self.commands:
                args = [default, *args]  # `image --help` is the default command's help, as `image` was one
            result: list[str] = super().parse_args(ctx, args)
            return result

        def resolve_command(self, ctx: Any, args: list[str]) -> tuple[str | None, Any, list[str]]:
            name, command, rest = super().resolve_command(ctx, args)
            # the default command is shown as the group itself: `neuralis-build image [OPTIONS] SPEC`
            return (None if name == default else name), command, rest

    return DefaultGroup


def no_color() -> bool:
    """NO_COLOR (https://no-color.org): set and not empty means no escape codes at all."""
    return bool(os.environ.get("NO_COLOR"))


def stderr() -> Console:
    """A rich console on stderr (imported on first use, to keep start-up light)."""
    return _console(stderr=True)


def stdout() -> Console:
    """A rich console on stdout; under NO_COLOR it writes no escape code (rich alone would keep bold and dim)."""
    return _console(stderr=False)


def _console(*, stderr: bool) -> Console:
    from rich.console import Console

    console = Console(stderr=stderr, highlight=False, soft_wrap=True, color_system=None if no_color() else "auto")

    def closed() -> None:  # rich would exit 1 here; the boundary ends a closed pipe quietly with 0
        console.quiet = True
        raise boundary.PipeClosed

    console.on_broken_pipe = closed  # type: ignore[method-assign]
    return console


def live(console: Console) -> bool:
    """May this console redraw in place (a spinner)? Only on a terminal, and never under NO_COLOR."""
    return console.is_terminal and not no_color()


def status(console: Console, text: str) -> AbstractContextManager[Any]:
    """A spinner with ``text`` while the block runs where one may redraw (see ``live``); else one plain line."""
    if live(console):
        return console.status(text, spinner="dots")
    from contextlib import nullcontext

    console.print(f"{text}…")
    return nullcontext()


def plain(console: Console, width: int) -> bool:
    """Print a table as plain lines: no terminal (CI, a pipe), or a terminal narrower than the content."""
    return not console.is_terminal or width > console.width


def run_app(app: typer.Typer, argv: Sequence[str] | None = None, *, prog: str) -> int:
    """Run a typer app inside the one error boundary (boundary.guarded)."""
    import sys

    args = list(sys.argv[1:] if argv is None else argv)
    boundary.tolerant_streams()
    boundary.VERBOSE = False  # each run starts quiet (tests run many in one process)

    def body() -> int:
        try:
            code = app(args=args, prog_name=prog, standalone_mode=False)
        except SystemExit as done:  # --help, --version, completion
            code = done.code
        if code is None:
            return 0
        return code if isinstance(code, int) else 2

    return boundary.guarded(body, args)


def markup(text: str) -> str:
    """A name (or a line quoting names) for rich: control characters shown escaped (``printable.shown``), markup too."""
    from rich.markup import escape

    from neuralis_build.util.printable import shown

    return escape(shown(text))
