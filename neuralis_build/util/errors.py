"""The toolchain's exception tree; the CLI maps each class to an exit code in one place."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from neuralis_build.util.diagnostics import Diagnostic


class NeuralisError(Exception):
    """Base of every error the toolchain raises on purpose."""

    exit_code = 1

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint


class UserError(NeuralisError):
    """The input was judged bad (exit 1); the message and hint say what to change."""


class DiagnosedError(UserError):
    """The input was judged bad and the reasons are located diagnostics."""

    def __init__(self, message: str, diagnostics: Sequence[Diagnostic], *, hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.diagnostics = list(diagnostics)


class UsageError(NeuralisError):
    """A bad flag, a missing path or a missing tool: the command could not run (exit 2)."""

    exit_code = 2


class ToolMissingError(UsageError):
    """A program the command needs (node, npm, esbuild) is not available."""


class SubprocessError(UsageError):
    """A program we ran failed in a way that is not the user's input's fault."""

    def __init__(self, message: str, *, command: Sequence[str], output: str, hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.command = list(command)
        self.output = output


class ScriptError(DiagnosedError):
    """A script of the package (a lifecycle script pack runs) failed: the package's own code, so exit 1.

    Carries the command and the end of its output like a SubprocessError, for ``--format json``.
    """

    def __init__(self, message: str, diagnostics: Sequence[Diagnostic], *, command: Sequence[str], output: str) -> None:
        super().__init__(message, diagnostics)
        self.command = list(command)
        self.output = output
