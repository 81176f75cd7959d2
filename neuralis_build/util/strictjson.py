"""Parse JSON the way Node's ``JSON.parse`` accepts it, and refuse what Python alone would let through.

Python's ``json`` reads ``NaN``, ``Infinity`` and ``-Infinity`` (Node rejects them), turns ``1e999`` into
``inf`` and a 5,000-digit integer into a ``ValueError`` (the int-string conversion limit), keeps a
lone ``\\ud800`` escape as a string that cannot be written as UTF-8, and recurses once per nesting
level. Every input the toolchain reads as JSON goes through :func:`parse`, which reports each of these
as a :class:`JSONProblem` with the pointer (or the offset) where it sits, instead of crashing later.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING

from neuralis_build.util.jsonpointer import PointerMap, first_too_deep, join
from neuralis_build.util.limits import MAX_JSON_DEPTH

if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any, Literal

    Kind = Literal["syntax", "depth", "surrogate", "number"]
    Path = tuple[Any, str | int] | None
    """Where a value sits, as (parent's path, key): the pointer is only spelled out for a problem."""

# patterns, compiled on first use (re caches them): most texts have no \u escape and no syntax error
_SURROGATE_ESCAPE = r"\\u[dD][89a-fA-F]"
_SURROGATE = "[\ud800-\udfff]"
_MAX_DOUBLE = sys.float_info.max
_REPORTED = 10  # a document full of bad values gets its first ten named, not ten thousand


@dataclass(frozen=True, slots=True)
class JSONProblem:
    """One reason a JSON text is refused: where (a pointer, or a character offset) and why."""

    kind: Kind
    message: str
    hint: str
    pointer: str | None = None
    offset: int | None = None


class JSONRefused(ValueError):
    """The text is not JSON that Node would read to the same values; ``problems`` says where and why."""

    def __init__(self, problems: list[JSONProblem]) -> None:
        super().__init__(problems[0].message)
        self.problems = problems


class _Bad:
    """A value Node's ``JSON.parse`` would reject or change, left in the tree until the walk names it."""

    __slots__ = ("text", "why")

    def __init__(self, text: str, why: str) -> None:
        self.text = text
        self.why = why


def _constant(text: str) -> _Bad:
    return _Bad(text, f"{text} is not JSON (Node's JSON.parse rejects it)")


def _integer(text: str) -> int | _Bad:
    digits = len(text) - text.startswith("-")
    if digits > 309:  # past every double, and past Python's int-string conversion limit
        return _Bad(text, f"the number {text[:12]}… has {digits:,} digits; it does not fit a JSON number (a double)")
    value = int(text)
    if abs(value) > _MAX_DOUBLE:
        return _Bad(text, f"the number {text[:12]}… is beyond the largest JSON number (a double)")
    return value


def _float(text: str) -> float | _Bad:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        return _Bad(text, f"the number {text[:24]} is beyond the largest JSON number (a double)")
    return value


def parse(text: str, *, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """The value of ``text``; ``JSONRefused`` when Node would reject it or read it differently, or when it
    nests deeper than ``max_depth`` arrays and objects."""
    try:
        data = json.loads(text, parse_constant=_constant, parse_int=_integer, parse_float=_float)
    except json.JSONDecodeError as exc:
        raise JSONRefused([JSONProblem("syntax", exc.msg, _syntax_hint(exc.msg), None, exc.pos)]) from None
    except RecursionError:  # nested past what Python's parser can hold: find the place without recursing
        found = first_too_deep(text, max_depth)
        pointer, offset = found if found is not None else (None, None)
        raise JSONRefused([_depth_problem(pointer, offset, max_depth)]) from None
    problems = _walk(data, max_depth, check_strings="\\u" in text and re.search(_SURROGATE_ESCAPE, text) is not None)
    if problems:
        raise JSONRefused(problems)
    return data


def _depth_problem(pointer: str | None, offset: int | None, max_depth: int) -> JSONProblem:
    return JSONProblem(
        "depth",
        f"arrays and objects nest more than {max_depth} levels deep here",
        f"flatten the data: the toolchain reads at most {max_depth} levels of nesting",
        pointer,
        offset,
    )


def _pointer(path: Path) -> str:
    tokens: list[str | int] = []
    while path is not None:
        path, key = path
        tokens.append(key)
    return join("", *reversed(tokens))


def _walk(data: Any, max_depth: int, *, check_strings: bool) -> list[JSONProblem]:
    """Every bad value, lone surrogate and over-deep value, in document order (iteratively: no recursion).

    The walk keeps one iterator per open container, so it holds the path to the value it is at and no
    more: listing every container's children up front held ~150 bytes per value, and a package.json of
    8 MiB of ``[0,0,…]`` peaked at 1 GB.
    """
    problems: list[JSONProblem] = []
    stack: list[tuple[Path, Iterator[tuple[Any, Any]], int]] = []
    children = _look(None, data, 0, max_depth, check_strings, problems)
    if children is not None:
        stack.append((None, children, 1))
    while stack and len(problems) < _REPORTED:
        parent, items, depth = stack[-1]
        entry = next(items, None)
        if entry is None:
            stack.pop()
            continue
        key, value = entry
        path = (parent, key)
        if check_strings and isinstance(key, str) and re.search(_SURROGATE, key):  # an object's key
            problems.append(_surrogate(_pointer(path), "key"))
        children = _look(path, value, depth, max_depth, check_strings, problems)
        if children is not None:
            stack.append((path, children, depth + 1))
    return problems


def _look(
    path: Path, value: Any, depth: int, max_depth: int, check_strings: bool, problems: list[JSONProblem]
) -> Iterator[tuple[Any, Any]] | None:
    """Add the problem of one value, if any; the (key, child) pairs of an array or object to walk next."""
    if isinstance(value, dict | list):
        if depth >= max_depth:
            problems.append(_depth_problem(_pointer(path), None, max_depth))
            return None
        return iter(value.items()) if isinstance(value, dict) else enumerate(value)
    if isinstance(value, _Bad):
        kind: Kind = "number" if value.text[-1:].isdigit() else "syntax"
        problems.append(JSONProblem(kind, value.why, _hint(value), _pointer(path)))
    elif check_strings and isinstance(value, str) and re.search(_SURROGATE, value):
        problems.append(_surrogate(_pointer(path), "string"))
    return None


def _surrogate(pointer: str, what: str) -> JSONProblem:
    return JSONProblem(
        "surrogate",
        f"this {what} holds a lone UTF-16 surrogate escape (\\ud800–\\udfff without its pair), which is not "
        "Unicode text and cannot be written as UTF-8",
        "remove the escape, or write the character itself (or both halves of its surrogate pair)",
        pointer,
    )


def _hint(bad: _Bad) -> str:
    if bad.text in ("NaN", "Infinity", "-Infinity"):
        return "JSON has no NaN or Infinity: use null, a string, or a finite number"
    return "write a number between -1.7976931348623157e308 and 1.7976931348623157e308, or a string"


_TRAILING_COMMA = r"Expecting (property name|value)"


def _syntax_hint(msg: str) -> str:
    if re.match(_TRAILING_COMMA, msg):
        return "look for a trailing comma or a missing value just before this point"
    if msg.startswith("Expecting ',' delimiter"):
        return "a comma is missing between two entries, or a quote is not closed"
    if msg.startswith("Invalid control character"):
        return "strings cannot hold raw newlines or tabs: escape them as \\n or \\t"
    return "fix the JSON syntax at this line and column"


def line_column(text: str, offset: int) -> tuple[int, int]:
    """The 1-based line and column of a character offset."""
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def position(problem: JSONProblem, text: str, source: PointerMap | None = None) -> tuple[int, int] | None:
    """The 1-based line and column a problem names: its offset, else where its pointer sits in ``text``."""
    if problem.offset is not None:
        return line_column(text, problem.offset)
    if problem.pointer is None:
        return None
    return (source or PointerMap(text)).locate(problem.pointer)


def describe(problem: JSONProblem, file: str, text: str, what: str) -> str:
    """``file:line:col: <what> is not valid JSON: message (at pointer)``, for a refusal shown as a plain error."""
    where = position(problem, text)
    at = f"{file}:{where[0]}:{where[1]}" if where else file
    pointer = f" (at {problem.pointer})" if problem.pointer else ""
    verdict = "is not valid JSON" if problem.kind == "syntax" else "is refused"
    return f"{at}: {what} {verdict}: {problem.message}{pointer}"
