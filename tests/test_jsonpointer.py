"""The locator: the line and column of a JSON pointer, exact on escapes, surrogate pairs and CRLF, and its repeats."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from neuralis_build.util.jsonpointer import MAX_DUPLICATES, PointerMap, first_too_deep, join

TRICKY = (
    '{\r\n  "a\\"b": "\\ud83d\\ude00 😀 \\\\",\r\n'
    '  "\\u0041": [1, {"": null, "x/y~z": "\\"]"}],\r\n'
    '\t"dup": 1, "dup": [true,\r\n false]\r\n}'
)


def test_each_pointer_names_the_line_and_column_of_its_key_or_value_on_tricky_input() -> None:
    source = PointerMap(TRICKY)
    assert source.locate("") == (1, 1)
    assert source.locate('/a"b') == (2, 3)  # a member sits at its key
    assert source.locate("/A") == (3, 3)  # the key \u0041 is "A", as JSON.parse reads it
    assert source.locate("/A/0") == (3, 14)
    assert source.locate("/A/1") == (3, 17)
    assert source.locate("/A/1/") == (3, 18)  # the empty key
    assert source.locate("/A/1/x~1y~0z") == (3, 28)
    assert source.locate("/dup") == (4, 12)  # JSON.parse keeps the last of two keys: so does the locator
    assert source.locate("/dup/1") == (5, 2)  # after a CRLF, the column counts from the line's first character


def test_a_pointer_past_what_the_text_holds_names_its_nearest_ancestor() -> None:
    source = PointerMap(TRICKY)
    assert source.locate("/A/2") == source.locate("/A/01") == source.locate("/A/-1") == (3, 3)
    assert source.locate("/A/1/x~1y~0z/0") == (3, 28)  # inside a string
    assert source.locate("/missing/deeper") == (1, 1)


def test_a_text_cut_short_keeps_what_was_located_before_the_cut() -> None:
    source = PointerMap('{"a": [1, 2], "b": {"c": [3, ')
    assert source.locate("/a/1") == (1, 11)
    assert source.locate("/b/c/0") == (1, 27)
    assert source.locate("/b/c/1") == (1, 30)  # where the missing value would start: the end of the text
    assert source.locate("/b/c/2") == (1, 21)  # its nearest ancestor, the member /b/c, sits at its key


def test_repeats_are_named_at_the_repeat_and_the_first_and_counted_past_the_kept_ones() -> None:
    members = ", ".join(f'"k": "{i:02d}"' for i in range(MAX_DUPLICATES + 6))  # 11 characters apart
    source = PointerMap('{"o": {' + members + "}}")
    repeats = source.duplicate_keys()
    assert len(repeats) == MAX_DUPLICATES + 1 and source.duplicate_count == MAX_DUPLICATES + 5
    assert repeats[0] == ("/o/k", (1, 19), (1, 8))
    assert repeats[-1] == ("/o/k", (1, 8 + 11 * (MAX_DUPLICATES + 1)), (1, 8))  # where the ones not kept begin
    assert source.locate("/o/k") == (1, 8 + 11 * (MAX_DUPLICATES + 5))  # the last one, which JSON.parse keeps


def test_the_first_value_nested_too_deep_is_named_by_its_pointer_and_offset() -> None:
    assert first_too_deep('{"a": [[[0]]]}', max_depth=2) == ("/a/0", 7)
    assert first_too_deep('{"a": {"b": {}}}', max_depth=2) == ("/a/b", 7)  # a member, at its key
    assert first_too_deep('{"a": [[0]]}', max_depth=3) is None


# A JSON document as written: objects as lists of members, so a key may repeat, as in a real file.
KEYS = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]) | st.sampled_from('"\\/~\r\n😀'))
SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | KEYS
TREES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4).map(lambda v: ("array", v))
        | st.lists(st.tuples(st.sampled_from(["a", "b"]) | KEYS, inner), max_size=4).map(lambda v: ("object", v))
    ),
    max_leaves=30,
)
SPACE = st.sampled_from(["", " ", "\n", "\r\n", "\t", " \r\n  "])


@st.composite
def documents(draw: st.DrawFn) -> str:
    """A JSON text with whitespace of every kind between tokens, strings escaped or written as they are."""
    ascii_only = draw(st.booleans())

    def write(tree: Any) -> str:
        gap = draw(SPACE)
        if isinstance(tree, tuple) and tree[0] == "array":
            return "[" + gap + ("," + draw(SPACE)).join(write(v) for v in tree[1]) + draw(SPACE) + "]"
        if isinstance(tree, tuple):
            members = (json.dumps(k, ensure_ascii=ascii_only) + draw(SPACE) + ":" + gap + write(v) for k, v in tree[1])
            return "{" + gap + ("," + draw(SPACE)).join(members) + draw(SPACE) + "}"
        return json.dumps(tree, ensure_ascii=ascii_only)

    return draw(SPACE) + write(draw(TREES)) + draw(SPACE)


def pointers(value: Any, pointer: str = "", key: str | None = None) -> Iterator[tuple[str, Any, str | None]]:
    """Every pointer of a parsed value: (pointer, the value there, its key when it is an object's member)."""
    yield pointer, value, key
    if isinstance(value, dict):
        for k, v in value.items():
            yield from pointers(v, join(pointer, k), k)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from pointers(v, join(pointer, i))


def past_colon(text: str, at: int) -> int:
    rest = text[at:].lstrip(" \t\r\n")
    assert rest[:1] == ":"
    return len(text) - len(rest[1:].lstrip(" \t\r\n"))


def offset_of(text: str, line: int, column: int) -> int:
    """The character offset of a 1-based line and column, counted afresh (lines end at each LF)."""
    return sum(len(chunk) + 1 for chunk in text.split("\n")[: line - 1]) + column - 1


@settings(max_examples=300, deadline=None)
@given(text=documents())
def test_every_pointer_leads_to_where_its_key_and_value_are_written(text: str) -> None:
    decoder = json.JSONDecoder()
    data = json.loads(text)
    source = PointerMap(text)
    for pointer, value, key in pointers(data):
        where = source.locate(pointer)
        assert where is not None, pointer
        at = offset_of(text, *where)
        if key is not None:  # a member sits at its key
            found_key, at = decoder.raw_decode(text, at)
            assert found_key == key, pointer
            at = past_colon(text, at)
        assert decoder.raw_decode(text, at)[0] == value, pointer
