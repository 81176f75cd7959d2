"""The one error boundary of every console entry point: exit codes, messages, and tracebacks only with --verbose.

pypa/build's ``_handle_build_error`` is the model: everything runs inside ``guarded``, which maps what
escapes to an exit code in one place. ``neuralis-build`` and
``neuralis`` both go through it. A user error exits 1 or 2 with its message (and its diagnostics); an
OSError is the machine's state (a path, a permission, a full disk), exit 2; anything else is a bug:
"internal error", exit 2, with the traceback only under ``--verbose``. A reader that stops early
(``| head``) ends the run quietly with 0. Nothing heavy is imported here: every command loads it.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from neuralis_build.util.errors import DiagnosedError, NeuralisError, ScriptError, SubprocessError, ToolMissingError

if TYPE_CHECKING:
    from typing import Any, Literal, TypedDict

    from neuralis_build.util.diagnostics import DiagnosticJSON

    Format = Literal["text", "json", "github"]
    ErrorKind = Literal["input", "usage", "environment", "internal"]

    class ErrorJSON(TypedDict):
        """What an error looks like under ``--format json`` (the ``error`` member of an element)."""

        kind: ErrorKind
        exitCode: int
        message: str
        hint: str | None
        diagnostics: list[DiagnosticJSON]
        command: list[str] | None
        output: str | None


def tolerant_streams() -> None:
    """Let stdout and stderr write any string: a lone surrogate (from a file name or a tarball entry that is
    not UTF-8) comes out as a ``\\udcff`` escape instead of raising UnicodeEncodeError mid-report.

    In JSON output that escape is itself valid JSON for the same code unit, so ``--format json`` stays
    parseable; in text it shows the reader exactly which character was wrong.
    """
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            try:
                reconfigure(errors="backslashreplace")
            except (ValueError, OSError):  # a closed or detached stream: nothing to print to anyway
                pass


VERBOSE = False  # set by --verbose wherever it is given (before or after the subcommand)

# Commands whose JSON is an array with one element per PATH; the others print one object (a report).
PATH_COMMANDS = frozenset({"check", "ui", "pack"})
REPORT_COMMANDS = frozenset({"doctor", "image"})


class PipeClosed(Exception):
    """stdout's reader went away; raised instead of BrokenPipeError, which typer would turn into exit 1."""


class Interrupted(Exception):
    """Ctrl-C inside a command; raised instead of KeyboardInterrupt, which typer would end silently."""


def verbose(args: Sequence[str] = ()) -> bool:
    """Was --verbose given (parsed already, or anywhere in the arguments before ``--``)?"""
    return VERBOSE or any(a in ("--verbose", "-v") for a in _options(args))


def _options(args: Sequence[str]) -> list[str]:
    return list(args[: args.index("--")] if "--" in args else args)


def requested_format(args: Sequence[str]) -> Format:
    """The output format the arguments ask for (``--format X``, ``-f X``, ``--json``), read before typer parses."""
    found: Format = "text"
    rest = _options(args)
    for i, arg in enumerate(rest):
        value = None
        if arg in ("--format", "-f") and i + 1 < len(rest):
            value = rest[i + 1]
        elif arg.startswith("--format="):
            value = arg.partition("=")[2]
        elif arg.startswith("-f") and len(arg) > 2 and not arg.startswith("--"):
            value = arg[2:]
        elif arg == "--json":
            value = "json"
        if value in ("text", "json", "github"):
            found = value  # type: ignore[assignment]
    return found


def command_of(args: Sequence[str]) -> str | None:
    """The subcommand named in the arguments (the first one that is not an option)."""
    return next((a for a in _options(args) if not a.startswith("-")), None)


def kind_of(exc: BaseException) -> ErrorKind:
    if isinstance(exc, NeuralisError):
        if exc.exit_code == 1:
            return "input"
        return "environment" if isinstance(exc, ToolMissingError | SubprocessError) else "usage"
    if isinstance(exc, OSError):
        return "environment"
    return "usage" if _is_click(exc, "UsageError") else "internal"


def error_json(exc: BaseException) -> ErrorJSON:
    """An error as JSON: the same members whatever raised it."""
    diagnostics = [d.to_json() for d in exc.diagnostics] if isinstance(exc, DiagnosedError) else []
    subprocess_error = exc if isinstance(exc, SubprocessError | ScriptError) else None  # what ran, what it said
    return {
        "kind": kind_of(exc),
        "exitCode": exit_code(exc),
        "message": message_of(exc),
        "hint": exc.hint if isinstance(exc, NeuralisError) else None,
        "diagnostics": diagnostics,
        "command": subprocess_error.command if subprocess_error else None,
        "output": subprocess_error.output if subprocess_error else None,
    }


def exit_code(exc: BaseException) -> int:
    if isinstance(exc, NeuralisError):
        return exc.exit_code
    if _is_click(exc, "ClickException"):
        return int(getattr(exc, "exit_code", 2))
    return 2


def message_of(exc: BaseException) -> str:
    if isinstance(exc, NeuralisError):
        return exc.message
    if isinstance(exc, OSError) and exc.strerror:
        return f"{exc.filename}: {exc.strerror}" if exc.filename else exc.strerror
    if _is_click(exc, "ClickException"):
        return str(exc.format_message())  # type: ignore[attr-defined]
    if kind_of(exc) == "internal":
        return f"internal error: {type(exc).__name__}: {exc}"
    return str(exc)


def _is_click(exc: BaseException, name: str) -> bool:
    # typer 0.28 vendors click (typer._click); match by class name so either layout works.
    return any(c.__name__ == name for c in type(exc).__mro__)


def guarded(body: Callable[[], int], args: Sequence[str]) -> int:
    """Run ``body`` (a whole command) and turn whatever escapes it into an exit code and a message."""
    from neuralis_build.cli.progress import showing_progress

    try:
        with showing_progress():  # the library's long steps (the first esbuild fetch) show on stderr
            code = body()
        sys.stdout.flush()  # a closed pipe shows here, not at interpreter exit
        return code
    except (BrokenPipeError, PipeClosed):
        return _pipe_closed()
    except (KeyboardInterrupt, Interrupted):
        _stderr_line("interrupted")
        return 130
    except Exception as exc:
        try:
            return report(exc, args)
        except BrokenPipeError:
            return _pipe_closed()


def _pipe_closed() -> int:
    """The reader of stdout went away (``| head``): stop quietly, like ``cat``, and exit 0."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # the final flush at exit must not fail again
    except (OSError, ValueError, AttributeError):
        pass  # stdout is not a file (captured in a test): nothing is left to flush
    return 0


def _stderr_line(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def report(exc: BaseException, args: Sequence[str]) -> int:
    """Tell the person (stderr) and, under --format json/github, the program (stdout); return the exit code."""
    if _is_click(exc, "Abort"):
        _stderr_line("Aborted.")
        return 1
    kind = kind_of(exc)
    unexpected = kind == "internal" or (kind == "environment" and not isinstance(exc, NeuralisError))
    if unexpected and verbose(args):
        import traceback

        traceback.print_exception(exc, file=sys.stderr)
    if _is_click(exc, "ClickException"):
        exc.show()  # type: ignore[attr-defined]
    else:
        show_error(exc, args)
    emit_error(exc, args)
    return exit_code(exc)


def show_error(exc: BaseException, args: Sequence[str] = ()) -> None:
    """The error as a person reads it, on stderr: the message, its diagnostics, the command, a hint."""
    from rich.markup import escape

    from neuralis_build.cli.common import stderr
    from neuralis_build.util.printable import shown_text

    console = stderr()
    kind = kind_of(exc)
    if kind == "internal":
        again = "" if verbose(args) else " rerun with --verbose for the traceback and"
        console.print(
            f"[bold red]internal error:[/] {escape(type(exc).__name__)}: {escape(shown_text(str(exc)))}\n"
            f"This is a bug in neuralis-build;{again} report it."
        )
        return
    console.print(f"[bold red]error:[/] {escape(shown_text(message_of(exc)))}")
    if isinstance(exc, DiagnosedError):
        from neuralis_build.cli.render import explain_footer, print_diagnostics

        print_diagnostics(console, exc.diagnostics, base=None)
        explain_footer(console, exc.diagnostics)
    if isinstance(exc, SubprocessError):
        console.print(f"[dim]command:[/] {escape(shown_text(' '.join(exc.command)))}")
        if exc.output.strip():
            console.print(escape(shown_text(exc.output.rstrip())))
    hint = exc.hint if isinstance(exc, NeuralisError) else None
    if hint is None and isinstance(exc, OSError):
        hint = "this is the machine's state, not the package's: check the path, its permissions and the free space"
        if not verbose(args):
            hint += " (--verbose shows where it happened)"
    if hint:
        console.print(f"[cyan]hint:[/] {escape(shown_text(hint))}")


def emit_error(exc: BaseException, args: Sequence[str], *, path: str | None = None) -> None:
    """Under --format json print the error in the command's JSON shape; under github, as an annotation."""
    fmt = requested_format(args)
    command = command_of(args)
    if fmt == "json" and command in PATH_COMMANDS | REPORT_COMMANDS:
        error: Any = {"error": error_json(exc)}
        data = [{"path": path, **error}] if command in PATH_COMMANDS else error
        print_json(data)
    elif fmt == "github" and command in PATH_COMMANDS | REPORT_COMMANDS:
        from neuralis_build.cli.render import annotation

        print(annotation("error", message_of(exc), title=f"neuralis-build {command}"))


def print_json(data: Any) -> None:
    """JSON on stdout, the way every command prints it (two-space indent, UTF-8 as is)."""
    import json

    print(json.dumps(data, indent=2, ensure_ascii=False))


def pipe_safe(func: Callable[..., Any]) -> Callable[..., Any]:
    """Wrap a command so a closed stdout and Ctrl-C reach ``guarded`` (typer would exit 1, or 130 silently)."""
    import functools

    @functools.wraps(func)
    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except BrokenPipeError:
            raise PipeClosed from None
        except KeyboardInterrupt:
            raise Interrupted from None

    return run
