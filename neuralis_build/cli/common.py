"""What every command shares: the run wrapper, the options every command takes, the consoles, the formats."""

from __future__ import annotations

import inspect
import os
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, Any

from neuralis_build import __version__
from neuralis_build.cli import boundary

if TYPE_CHECKING:
    import typer
    from rich.console import Console


class TrustOption(StrEnum):
    """The ``--trust`` choices of check, pack (and anything that judges a package at a tier)."""

    first_party = "first-party"
    trusted = "trusted"
    untrusted = "untrusted"


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


def _set_verbose(value: bool) -> None:
    if value:
        boundary.VERBOSE = True


def add_common_options(app: typer.Typer, prog: str) -> None:
    """Give every command of ``app`` the root's --verbose and --version (``-h`` comes from CONTEXT).

    So ``neuralis-build check --verbose`` works as well as ``neuralis-build --verbose check``. Each
    callback is also wrapped so a closed stdout ends the run quietly (see boundary.pipe_safe).
    """
    import typer

    extra = [
        inspect.Parameter(
            "_verbose",
            inspect.Parameter.KEYWORD_ONLY,
            default=False,
            annotation=Annotated[
                bool,
                typer.Option(
                    "--verbose", "-v", callback=_set_verbose, is_eager=True, help="Show tracebacks of internal errors."
                ),
            ],
        ),
        inspect.Parameter(
            "_version",
            inspect.Parameter.KEYWORD_ONLY,
            default=False,
            annotation=Annotated[
                bool,
                typer.Option("--version", callback=version_callback(prog), is_eager=True, help="Print the version."),
            ],
        ),
    ]
    for info in app.registered_commands:
        if info.callback is not None and not getattr(info.callback, "_common_options", False):
            info.callback = _with_options(info.callback, extra)


def _with_options(func: Callable[..., Any], extra: list[inspect.Parameter]) -> Callable[..., Any]:
    """``func`` with ``extra`` keyword parameters in its signature (for typer), which it never receives."""
    signature = inspect.signature(func, eval_str=True)
    safe = boundary.pipe_safe(func)

    def run(*args: Any, _verbose: bool = False, _version: bool = False, **kwargs: Any) -> Any:
        return safe(*args, **kwargs)

    run.__name__, run.__doc__, run.__module__ = func.__name__, func.__doc__, func.__module__
    run.__signature__ = signature.replace(parameters=[*signature.parameters.values(), *extra])  # type: ignore[attr-defined]
    run._common_options = True  # type: ignore[attr-defined]
    return run


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
