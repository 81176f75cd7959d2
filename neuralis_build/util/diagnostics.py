"""Located diagnostics: what is wrong, in which file, at which JSON pointer, and how to fix it."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Literal, TypedDict

    Severity = Literal["error", "warning", "note"]

    class DiagnosticJSON(TypedDict):
        severity: Severity
        code: str
        file: str
        pointer: str
        message: str
        hint: str | None
        line: int | None
        column: int | None


@dataclass(frozen=True, slots=True)
class Code:
    """A stable diagnostic code (``NB0402``) with a short slug that names the rule."""

    id: str
    slug: str
    summary: str

    def __str__(self) -> str:
        return self.id


def code(id: str, slug: str, summary: str) -> Code:
    """A diagnostic code, declared once beside the rule that emits it (``neuralis_build.util.codes`` says where)."""
    return Code(id, slug, summary)


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One finding: a severity, a stable code, a file, an RFC 6901 pointer, a message and a hint."""

    severity: Severity
    code: str
    file: str
    pointer: str
    message: str
    hint: str | None = None
    line: int | None = None
    column: int | None = None

    def to_json(self) -> DiagnosticJSON:
        return {
            "severity": self.severity,
            "code": self.code,
            "file": self.file,
            "pointer": self.pointer,
            "message": self.message,
            "hint": self.hint,
            "line": self.line,
            "column": self.column,
        }

    def located(self, line: int | None, column: int | None) -> Diagnostic:
        return replace(self, line=line, column=column)


class Diagnostics:
    """A growing list of diagnostics for one file, with shorthands for each severity."""

    def __init__(self, file: str = "package.json", items: list[Diagnostic] | None = None) -> None:
        self.file = file
        self.items: list[Diagnostic] = [] if items is None else items

    def __repr__(self) -> str:
        return f"Diagnostics(file={self.file!r}, items={self.items!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Diagnostics):
            return NotImplemented
        return (self.file, self.items) == (other.file, other.items)

    __hash__ = None  # type: ignore[assignment]  # mutable, like the dataclass it was

    def add(
        self,
        severity: Severity,
        code: Code,
        pointer: str,
        message: str,
        hint: str | None = None,
        *,
        file: str | None = None,
    ) -> None:
        self.items.append(Diagnostic(severity, code.id, file or self.file, pointer, message, hint))

    def error(self, code: Code, pointer: str, message: str, hint: str | None = None, **kw: str) -> None:
        self.add("error", code, pointer, message, hint, **kw)

    def warning(self, code: Code, pointer: str, message: str, hint: str | None = None, **kw: str) -> None:
        self.add("warning", code, pointer, message, hint, **kw)

    def note(self, code: Code, pointer: str, message: str, hint: str | None = None, **kw: str) -> None:
        self.add("note", code, pointer, message, hint, **kw)

    def extend(self, more: Iterable[Diagnostic]) -> None:
        self.items.extend(more)

    @property
    def has_errors(self) -> bool:
        return any(d.severity == "error" for d in self.items)


def has_errors(diagnostics: Iterable[Diagnostic]) -> bool:
    """True when any diagnostic is an error (the package is rejected)."""
    return any(d.severity == "error" for d in diagnostics)
