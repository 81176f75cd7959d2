"""RFC 6901 JSON pointers, and finding the line and column a pointer names in JSON source text."""

from __future__ import annotations

import json.decoder
import re
from array import array
from bisect import bisect_right
from collections.abc import Callable, Iterator

from neuralis_build.util.limits import MAX_JSON_DEPTH

# compiled on first use (re caches them): a package whose diagnostics need no line numbers never pays
_WS = r"[ \t\n\r]*"
# NaN and Infinity too: json.loads reads them and strictjson names them at their pointer
_SCALAR = r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null|NaN|-?Infinity"
_INDEX = r"0|[1-9][0-9]*"  # an array index as a pointer spells it (RFC 6901): no sign, no leading zero

# json's own string scanner (in C): linear, and it decodes a key as json.loads does; (text, offset after the
# opening quote, strict) -> (the string, the offset after its closing quote). typeshed does not declare it.
scanstring: Callable[[str, int, bool], tuple[str, int]] = json.decoder.scanstring  # type: ignore[attr-defined]


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


MAX_DUPLICATES = 20
"""Repeated keys listed per document; the rest are counted, and the first of them is kept to say where they
begin. Each is named by its pointer, which can be as long as the document, so a document of nothing but
repeats would otherwise be reported at its size squared."""


class _Locator:
    """Walks JSON text once and records, compactly, where every value (and every member's key) starts.

    The walk keeps two integers per value, in document order: where it starts (the opening quote of its
    key, for a member of an object) and the index of the value after its last descendant. No pointer is
    spelled out: a pointer is found on demand by descending from the root (``find``), and each container
    it descends into is indexed once (its children, or its keys: no more than the parsed value holds).
    Strings are skipped by ``json``'s own scanner (in C, linear).

    Why: the walk this replaces kept a dict of every value's pointer (each as long as its path, so a long
    key over a long array was quadratic) and matched strings with a regular expression that kept
    backtracking state per character: ``check`` of an 8 MiB package.json of one string peaked at 1 GB
    over its start-up size, 124 times the file. Now the walk costs 8 bytes per value (4 per integer; 8
    past 2 GiB of text) and nothing per character, and the same ``check`` peaks at 4 times the file, most
    of it the bytes, the text and the parsed value themselves (``tests/hostile/test_limits.py``).

    It recurses once per nesting level, so it stops at the first array or object nested deeper than
    ``MAX_JSON_DEPTH``, keeping what it located so far (that value's position included).
    """

    def __init__(self, text: str, max_depth: int = MAX_JSON_DEPTH) -> None:
        self.text = text
        self._ws, self._scalar = re.compile(_WS), re.compile(_SCALAR)
        code = "i" if len(text) < 2**31 else "q"
        self.starts = array(code)  # per value: the offset of its key (a member) or of the value itself
        self.ends = array(code)  # per value: the index of the first value after its subtree
        self.max_depth = max_depth
        self.too_deep: tuple[str, int] | None = None  # the first array or object nested past max_depth
        self.duplicates: list[tuple[str, int, int]] = []  # (pointer, offset of the repeat, of the first)
        self.duplicate_count = 0  # every repeat, the ones not kept included
        self._path: list[str | int] = []  # the tokens down to the value being read
        self._open: list[int] = []  # the containers being read, whose ends are not known yet
        self._kids: dict[int, array[int]] = {}  # each array descended into: its children's indexes
        self._keys: dict[int, dict[str, int]] = {}  # each object descended into: key to its (last) child

    def run(self) -> _Locator:
        try:
            self._value(self._skip(0), None, depth=0)
        except (IndexError, ValueError, _TooDeep):
            # the text is not valid JSON (or too deep): keep what was located so far; whatever was read
            # after a container opened is inside it
            for index in self._open:
                self.ends[index] = len(self.starts)
        self._open.clear()
        return self

    def _skip(self, i: int) -> int:
        m = self._ws.match(self.text, i)
        return m.end() if m else i

    def _value(self, i: int, key_at: int | None, *, depth: int) -> int:
        """Record the value at ``i`` (a member's key at ``key_at``) and its subtree; the offset after it."""
        index = len(self.starts)
        self.starts.append(i if key_at is None else key_at)
        self.ends.append(index + 1)
        ch = self.text[i]
        if ch in "{[":
            if depth >= self.max_depth:
                self.too_deep = (join("", *self._path), i if key_at is None else key_at)
                raise _TooDeep
            self._open.append(index)
            end = self._object(i, depth) if ch == "{" else self._array(i, depth)
            self._open.pop()
            self.ends[index] = len(self.starts)
            return end
        if ch == '"':
            return scanstring(self.text, i + 1, False)[1]
        m = self._scalar.match(self.text, i)
        if not m:
            raise ValueError("expected a value")
        return m.end()

    def _object(self, i: int, depth: int) -> int:
        i = self._skip(i + 1)
        if self.text[i] == "}":
            return i + 1
        seen: dict[str, int] = {}
        while True:
            if self.text[i] != '"':
                raise ValueError("expected a key")
            key, j = scanstring(self.text, i + 1, False)
            first = seen.setdefault(key, i)
            if first != i:
                self._duplicate(key, i, first)
            j = self._skip(j)
            if self.text[j] != ":":
                raise ValueError("expected ':'")
            self._path.append(key)
            j = self._skip(self._value(self._skip(j + 1), i, depth=depth + 1))
            self._path.pop()
            if self.text[j] == ",":
                i = self._skip(j + 1)
                continue
            if self.text[j] == "}":
                return j + 1
            raise ValueError("expected ',' or '}'")

    def _array(self, i: int, depth: int) -> int:
        i = self._skip(i + 1)
        if self.text[i] == "]":
            return i + 1
        self._path.append(0)
        while True:
            j = self._skip(self._value(i, None, depth=depth + 1))
            if self.text[j] == ",":
                i = self._skip(j + 1)
                self._path[-1] = int(self._path[-1]) + 1
                continue
            self._path.pop()
            if self.text[j] == "]":
                return j + 1
            raise ValueError("expected ',' or ']'")

    def _duplicate(self, key: str, at: int, first: int) -> None:
        # A repeated key overwrites: JSON.parse (and json.loads) keep the last value, so pointers lead to
        # the value the package really has (``find`` takes the last child of a key).
        self.duplicate_count += 1
        if len(self.duplicates) <= MAX_DUPLICATES:  # the listed ones, and the first of the rest
            self.duplicates.append((join("", *self._path, key), at, first))

    def find(self, pointer: str) -> int | None:
        """The offset where ``pointer`` (or its nearest located ancestor) starts; None when nothing was located."""
        if not self.starts:
            return None
        node, value_at = 0, self.starts[0]
        for token in split(pointer):
            child = self._child(node, value_at, token)
            if child is None:
                break
            node, value_at = child
        return self.starts[node]

    def _child(self, node: int, value_at: int, token: str) -> tuple[int, int] | None:
        """The child of container ``node`` (its value at ``value_at``) that ``token`` names, and its value's offset."""
        kind = self.text[value_at : value_at + 1]  # empty where a cut-off text ended before the value
        if kind == "[":
            kids = self._kids.get(node)
            if kids is None:
                kids = self._kids[node] = array(self.starts.typecode, self._children(node))
            if not re.fullmatch(_INDEX, token) or int(token) >= len(kids):
                return None
            element = kids[int(token)]
            return element, self.starts[element]
        if kind == "{":
            keys = self._keys.get(node)
            if keys is None:
                keys = self._keys[node] = dict(self._members(node))  # a repeated key: the last one wins
            member = keys.get(token)
            return None if member is None else (member, self._after_key(self.starts[member])[1])
        return None

    def _children(self, node: int) -> Iterator[int]:
        child, end = node + 1, self.ends[node]
        while child < end:
            yield child
            child = self.ends[child]

    def _members(self, node: int) -> Iterator[tuple[str, int]]:
        for child in self._children(node):
            yield self._after_key(self.starts[child])[0], child

    def _after_key(self, key_at: int) -> tuple[str, int]:
        """The key that starts at ``key_at``, and the offset of its value."""
        key, j = scanstring(self.text, key_at + 1, False)
        j = self._skip(j)
        return key, self._skip(j + 1)  # past the ':'


def first_too_deep(text: str, max_depth: int = MAX_JSON_DEPTH) -> tuple[str, int] | None:
    """The pointer and offset of the first array or object of ``text`` nested past ``max_depth`` levels."""
    return _Locator(text, max_depth).run().too_deep


class PointerMap:
    """Maps pointers to 1-based (line, column) in the JSON text; built lazily, on the first lookup."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._locator: _Locator | None = None
        self._line_starts: array[int] | None = None

    def _located(self) -> _Locator:
        if self._locator is None:
            self._locator = _Locator(self._text).run()
        return self._locator

    def duplicate_keys(self) -> list[tuple[str, tuple[int, int], tuple[int, int]]]:
        """Repeats of a key in one object: the pointer, where the repeat stands and where the first one does.

        The first ``MAX_DUPLICATES`` repeats, and one more when there are more (``duplicate_count`` counts all).
        """
        return [(ptr, self.line_column(at), self.line_column(first)) for ptr, at, first in self._located().duplicates]

    @property
    def duplicate_count(self) -> int:
        """How many repeated keys the text has in all."""
        return self._located().duplicate_count

    def locate(self, pointer: str) -> tuple[int, int] | None:
        """Where ``pointer`` (or its nearest existing ancestor) starts; ``None`` when nothing matches."""
        offset = self._located().find(pointer)
        return None if offset is None else self.line_column(offset)

    def line_column(self, offset: int) -> tuple[int, int]:
        if self._line_starts is None:  # 4 bytes a line: a list of ints took 36, and a file may be all newlines
            starts = array("i" if len(self._text) < 2**31 else "q", [0])
            starts.extend(m.end() for m in re.finditer("\n", self._text))
            self._line_starts = starts
        line = bisect_right(self._line_starts, offset) - 1
        return line + 1, offset - self._line_starts[line] + 1
