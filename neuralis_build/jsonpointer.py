"""RFC 6901 JSON pointers, and finding the line and column a pointer names in JSON source text."""

from __future__ import annotations

import json
import re

from neuralis_build.limits import MAX_JSON_DEPTH

# compiled on first use (re caches them): a package whose diagnostics need no line numbers never pays
_WS = r"[ \t\n\r]*"
_STRING = r'(?s)"(?:[^"\\]|\\.)*"'
_SCALAR = r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null"


def escape(token: str | int) -> str:
    """Escape one reference token (``~`` → ``~0``, ``/`` → ``~1``)."""
    return str(token).replace("~", "~0").replace("/", "~1")


def unescape(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def join(base: str, *tokens: str | int) -> str:
    """Append reference tokens to a pointer: ``join("/neuralis", "app", 0)`` → ``/neuralis/app/0``."""
    return base + "".join("/" + escape(t) for t in tokens)


def split(pointer: str) -> list[str]:
    """The unescaped reference tokens of a pointer (``""`` is the whole document)."""
    if pointer == "":
        return []
    if not pointer.startswith("/"):
        raise ValueError(f"not a JSON pointer: {pointer!r}")
    return [unescape(t) for t in pointer[1:].split("/")]


class _TooDeep(Exception):
    """The text nests deeper than the locator descends (only a document refused for its depth does)."""


class _Locator:
    """Walks JSON text once and records where every value (and every member's key) starts.

    It recurses once per nesting level, so it stops at the first array or object nested deeper than
    ``MAX_JSON_DEPTH``, keeping what it located so far (that value's position included).
    """

    def __init__(self, text: str, max_depth: int = MAX_JSON_DEPTH) -> None:
        self.text = text
        self._ws, self._string, self._scalar = re.compile(_WS), re.compile(_STRING), re.compile(_SCALAR)
        self.positions: dict[str, int] = {}
        self.max_depth = max_depth
        self.too_deep: str | None = None  # the first array or object nested past max_depth
        self.duplicates: list[tuple[str, int, int]] = []  # (pointer, offset of the repeat, of the first)

    def run(self) -> dict[str, int]:
        try:
            self._value(self._skip(0), "", depth=0)
        except (IndexError, ValueError, _TooDeep):
            pass  # the text is not valid JSON (or too deep): keep what was located so far
        return self.positions

    def _skip(self, i: int) -> int:
        m = self._ws.match(self.text, i)
        return m.end() if m else i

    def _value(self, i: int, ptr: str, key_at: int | None = None, *, depth: int) -> int:
        # A repeated key overwrites: JSON.parse (and json.loads) keep the last value, so pointers
        # must lead to the value the package really has.
        self.positions[ptr] = i if key_at is None else key_at
        ch = self.text[i]
        if ch in "{[" and depth >= self.max_depth:
            self.too_deep = ptr
            raise _TooDeep
        if ch == "{":
            i = self._skip(i + 1)
            if self.text[i] == "}":
                return i + 1
            seen: dict[str, int] = {}
            while True:
                m = self._string.match(self.text, i)
                if not m:
                    raise ValueError("expected a key")
                key = json.loads(m.group(0))
                if key in seen:
                    self.duplicates.append((join(ptr, key), i, seen[key]))
                seen.setdefault(key, i)
                j = self._skip(m.end())
                if self.text[j] != ":":
                    raise ValueError("expected ':'")
                j = self._value(self._skip(j + 1), join(ptr, key), key_at=i, depth=depth + 1)
                j = self._skip(j)
                if self.text[j] == ",":
                    i = self._skip(j + 1)
                    continue
                if self.text[j] == "}":
                    return j + 1
                raise ValueError("expected ',' or '}'")
        if ch == "[":
            i = self._skip(i + 1)
            if self.text[i] == "]":
                return i + 1
            index = 0
            while True:
                j = self._skip(self._value(i, join(ptr, index), depth=depth + 1))
                index += 1
                if self.text[j] == ",":
                    i = self._skip(j + 1)
                    continue
                if self.text[j] == "]":
                    return j + 1
                raise ValueError("expected ',' or ']'")
        m = self._string.match(self.text, i) if ch == '"' else self._scalar.match(self.text, i)
        if not m:
            raise ValueError("expected a value")
        return m.end()


def first_too_deep(text: str, max_depth: int = MAX_JSON_DEPTH) -> tuple[str, int] | None:
    """The pointer and offset of the first array or object of ``text`` nested past ``max_depth`` levels."""
    locator = _Locator(text, max_depth)
    positions = locator.run()
    if locator.too_deep is None:
        return None
    return locator.too_deep, positions[locator.too_deep]


class SourceMap:
    """Maps pointers to 1-based (line, column) in the JSON text; built lazily, on the first lookup."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._positions: dict[str, int] | None = None
        self._duplicates: list[tuple[str, int, int]] = []
        self._line_starts: list[int] | None = None

    def _located(self) -> dict[str, int]:
        if self._positions is None:
            locator = _Locator(self._text)
            self._positions = locator.run()
            self._duplicates = locator.duplicates
        return self._positions

    def duplicate_keys(self) -> list[tuple[str, tuple[int, int], tuple[int, int]]]:
        """Each repeat of a key in one object: its pointer, where the repeat stands and where the first one does."""
        self._located()
        return [(ptr, self.line_column(at), self.line_column(first)) for ptr, at, first in self._duplicates]

    def locate(self, pointer: str) -> tuple[int, int] | None:
        """Where ``pointer`` (or its nearest existing ancestor) starts; ``None`` when nothing matches."""
        positions = self._located()
        probe = pointer
        while probe not in positions:
            if not probe:
                return None
            probe = probe.rsplit("/", 1)[0]
        return self.line_column(positions[probe])

    def line_column(self, offset: int) -> tuple[int, int]:
        if self._line_starts is None:
            self._line_starts = [0] + [m.end() for m in re.finditer("\n", self._text)]
        lo, hi = 0, len(self._line_starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self._line_starts[mid] <= offset:
                lo = mid
            else:
                hi = mid - 1
        return lo + 1, offset - self._line_starts[lo] + 1
