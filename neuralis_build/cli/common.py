"""What every command shares: the run wrapper that maps errors to exit codes, and the consoles."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from enum import StrEnum
from typing import TYPE_CHECKING, NoReturn

from neuralis_build import __version__
from neuralis_build.errors import DiagnosedError, NeuralisError, SubprocessError

if TYPE_CHECKING:
    import typer
    from rich.console import Console

VERBOSE = False


class TrustOption(StrEnum):
    """The ``--trust`` choices of check, pack (and anything that judges a package at a tier)."""

    first_party = "first-party"
    trusted = "trusted"
    untrusted = "untrusted"


def version_callback(prog: str) -> Callable[[bool], None]:
    """An eager ``--version`` callback that prints ``<prog> <version>`` and exits."""

    def show(value: bool) -> None:
        if value:
            import typer

            print(f"{prog} {__version__}")
            raise typer.Exit(0)

    return show


def stderr() -> Console:
    """A rich console on stderr (imported on first use, to keep start-up light)."""
    from rich.console import Console

    return Console(stderr=True, highlight=False, soft_wrap=True)


def stdout() -> Console:
    from rich.console import Console

    return Console(highlight=False, soft_wrap=True)


def fail(exc: NeuralisError) -> NoReturn:
    """Print an error the way a person can act on it, and exit with its code."""
    from rich.markup import escape

    console = stderr()
    console.print(f"[bold red]error:[/] {escape(exc.message)}")
    if isinstance(exc, DiagnosedError):
        from neuralis_build.cli.render import print_diagnostics

        print_diagnostics(console, exc.diagnostics, base=None)
    if isinstance(exc, SubprocessError):
        console.print(f"[dim]command:[/] {escape(' '.join(exc.command))}")
        if exc.output.strip():
            console.print(escape(exc.output.rstrip()))
    if exc.hint:
        console.print(f"[cyan]hint:[/] {escape(exc.hint)}")
    raise SystemExit(exc.exit_code)


def run_app(app: typer.Typer, argv: Sequence[str] | None = None, *, prog: str) -> int:
    """Run a typer app; map our errors to exit codes in one place and hide tracebacks unless --verbose."""
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        app(args=args, prog_name=prog, standalone_mode=True)
    except SystemExit as done:  # typer's own exits: success, --help, usage errors (2)
        code = done.code
        return code if isinstance(code, int) else (0 if code is None else 2)
    except Exception as exc:
        return exit_code_of(exc, args)
    except KeyboardInterrupt:
        stderr().print("[red]interrupted[/]")
        return 130
    return 0


def exit_code_of(exc: Exception, args: Sequence[str]) -> int:
    """The one error boundary of every entry point (typer's and the fast paths): report ``exc``, return the code."""
    if isinstance(exc, NeuralisError):
        try:
            fail(exc)
        except SystemExit as done:
            return int(done.code or 0)
    if VERBOSE or "--verbose" in args or "-v" in args:
        raise exc
    stderr().print(
        f"[bold red]internal error:[/] {type(exc).__name__}: {exc}\n"
        "This is a bug in neuralis-build; rerun with --verbose for the traceback and report it."
    )
    return 2
