"""One path segment of a minimatch pattern, turned into a test (minimatch 10's AST, classes and fast paths).

npm matches with ``{dot, nocase}`` always on, so this translator only implements that mode. Plain segments
(``*``, ``?``, ``[...]``, escapes) follow minimatch's regular expressions exactly, including its fast paths
for ``*``, ``*.ext``, ``???`` and ``.*``. Extglobs (``@(a|b)``, ``!(a)``, ``+(…)``) follow bash semantics;
minimatch's own corner cases inside them (adoption of nested extglobs) are not reproduced.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Final

from neuralis_build.pack.globclass import parse_class, regexp_escape

Test = Callable[[str], bool]


class _Globstar:
    def __repr__(self) -> str:
        return "GLOBSTAR"


GLOBSTAR: Final = _Globstar()


class Segment:
    """A magic segment: ``test`` answers for one path segment; ``source`` is the same test as a regex."""

    __slots__ = ("source", "test")

    def __init__(self, test: Test, source: str) -> None:
        self.test = test
        self.source = source


Part = str | Segment | _Globstar
_SEGMENT_START = r"(?!\.\.?(?:/|$))"  # a segment that is not "." or ".."

_RE_SPECIALS = set("().*{}+?[]^$\\!")
_EXTGLOB = set("!?+*@")
_QMARK = "[^/]"
_STAR = "[^/]*?"
_STAR_NO_EMPTY = "[^/]+?"
_NO_TRAVERSAL = r"(?!(?:^|/)\.\.?(?:$|/))"


def _glob_source(glob: str, no_empty: bool) -> tuple[str, bool]:
    """minimatch's ``parseGlob``: (regex source, magic) for a glob without extglobs."""
    out: list[str] = []
    magic = escaping = in_star = False
    i = 0
    while i < len(glob):
        c = glob[i]
        if escaping:
            escaping = False
            out.append(("\\" if c in _RE_SPECIALS else "") + c)
            i += 1
            continue
        if c == "*":
            if not in_star:
                out.append(_STAR_NO_EMPTY if no_empty and set(glob) == {"*"} else _STAR)
            in_star = magic = True
            i += 1
            continue
        in_star = False
        if c == "\\":
            if i == len(glob) - 1:
                out.append("\\\\")
            else:
                escaping = True
            i += 1
            continue
        if c == "[":
            src, consumed, class_magic = parse_class(glob, i)
            if consumed:
                out.append(src)
                magic = magic or class_magic
                i += consumed
                continue
        if c == "?":
            out.append(_QMARK)
            magic = True
            i += 1
            continue
        out.append(regexp_escape(c))
        i += 1
    return "".join(out), magic


def _unescape(s: str) -> str:
    s = re.sub(r"((?!\\).|^)\[([^/\\])\]", r"\1\2", s)
    return re.sub(r"\\([^/])", r"\1", s)


def _extglob_source(glob: str, start: int) -> tuple[str, int] | None:
    """Translate the extglob whose type character sits at ``start``; None when it never closes."""
    kind = glob[start]
    depth, i, alts, acc = 0, start + 2, [], ""
    while i < len(glob):
        c = glob[i]
        if c == "\\" and i + 1 < len(glob):
            acc += glob[i : i + 2]
            i += 2
            continue
        if c in _EXTGLOB and glob.startswith("(", i + 1):
            depth += 1
            acc += glob[i : i + 2]
            i += 2
            continue
        if c == "(":
            depth += 1
        elif c == ")" and depth:
            depth -= 1
        elif c == ")":
            alts.append(acc)
            body = "|".join(_segment_source(a, no_empty=False)[0] for a in alts)
            rest = _segment_source(glob[i + 1 :], no_empty=False)[0]
            if kind == "!":
                return f"(?:(?!(?:{body}){rest}(?:/|$))[^/]*?)", i + 1
            suffix = {"@": "", "?": "?", "*": "*", "+": "+"}[kind]
            return f"(?:{body}){suffix}", i + 1
        elif c == "|" and not depth:
            alts.append(acc)
            acc = ""
            i += 1
            continue
        acc += c
        i += 1
    return None


def _segment_source(glob: str, no_empty: bool) -> tuple[str, bool]:
    """Regex source and magic of a whole segment, extglobs included."""
    out: list[str] = []
    magic = False
    i = literal_start = 0
    while i < len(glob):
        if glob[i] == "\\":
            i += 2
            continue
        if glob[i] == "[":
            _, consumed, _ = parse_class(glob, i)
            i += consumed or 1
            continue
        if glob[i] in _EXTGLOB and glob.startswith("(", i + 1):
            ext = _extglob_source(glob, i)
            if ext is not None:
                src, m = _glob_source(glob[literal_start:i], no_empty=False)
                out.append(src)
                out.append(ext[0])
                magic = True
                i = literal_start = ext[1]
                continue
        i += 1
    src, m = _glob_source(glob[literal_start:], no_empty and not out)
    out.append(src)
    return "".join(out), magic or m


def _fast_test(glob: str) -> Segment | None:
    """minimatch's shortcuts for the commonest shapes; they replace the regular expression's test."""
    if re.fullmatch(r"\*+", glob):
        return Segment(lambda f: f not in ("", ".", ".."), _SEGMENT_START + "[^/]+")
    m = re.fullmatch(r"\*+([^+@!?*\[(]*)", glob)
    if m:
        ext = m.group(1).lower()
        return Segment(lambda f: f.lower().endswith(ext), "[^/]*" + re.escape(m.group(1)))
    m = re.fullmatch(r"(\?+)([^+@!?*\[(]*)?", glob)
    if m:
        size = _js_length(m.group(0))
        raw = m.group(2) or ""
        qext = raw.lower()
        return Segment(
            lambda f: _js_length(f) == size and f not in (".", "..") and (not qext or f.lower().endswith(qext)),
            _SEGMENT_START + f"[^/]{{{size - len(raw)}}}" + re.escape(raw),
        )
    if re.fullmatch(r"\*+\.\*+", glob):
        return Segment(lambda f: f not in (".", "..") and "." in f, _SEGMENT_START + r"[^/]*\.[^/]*")
    if re.fullmatch(r"\.\*+", glob):
        return Segment(lambda f: f not in (".", "..") and f.startswith("."), _SEGMENT_START + r"\.[^/]*")
    return None


def _js_length(s: str) -> int:
    """A JavaScript string's length: UTF-16 code units."""
    return len(s) + sum(1 for c in s if ord(c) > 0xFFFF)


def _may_match_dots(src: str) -> bool:
    """minimatch's ``needNoTrav`` with ``dot``: the segment could match ``.`` or ``..``."""
    dots = ("[", ".")
    return (
        src[:1] in dots
        or (src.startswith("\\.") and src[2:3] in dots)
        or (src.startswith("\\.\\.") and src[4:5] in dots)
    )


def parse_segment(glob: str) -> Part:
    """One segment: GLOBSTAR for ``**``, a plain string when nothing is magic, else a test."""
    if glob == "**":
        return GLOBSTAR
    if glob == "":
        return ""
    src, magic = _segment_source(glob, no_empty=True)
    if not magic and glob.upper() == glob.lower():
        return _unescape(src)
    fast = _fast_test(glob)
    if fast is not None:
        return fast
    start = _NO_TRAVERSAL if glob not in (".", "..") and _may_match_dots(src) else ""
    if not magic:
        literal = _unescape(src)
        if literal.isascii():
            lowered = literal.lower()
            return Segment(lambda f: f.lower() == lowered, re.escape(literal))
    pattern = re.compile(start + src, re.IGNORECASE)
    per_segment = (_SEGMENT_START if start else "") + src
    return Segment(lambda f: pattern.fullmatch(f) is not None, per_segment)
