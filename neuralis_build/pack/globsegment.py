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
# POSIX classes: minimatch uses Unicode properties; Python's re has none, so these are close equivalents.
_POSIX: dict[str, tuple[str, bool]] = {
    "[:alnum:]": (r"^\W_", False),
    "[:alpha:]": (r"^\W\d_", False),
    "[:ascii:]": (r"\x00-\x7f", False),
    "[:blank:]": (r" \t\u00a0\u2000-\u200a\u3000", False),
    "[:cntrl:]": (r"\x00-\x1f\x7f-\x9f", False),
    "[:digit:]": (r"\d", False),
    "[:graph:]": (r"\s\x00-\x1f\x7f-\x9f", True),
    "[:lower:]": (r"a-z", False),
    "[:print:]": (r"\x00-\x1f\x7f-\x9f", False),
    "[:punct:]": (r"!-/:-@\[-`{-~", False),
    "[:space:]": (r"\s", False),
    "[:upper:]": (r"A-Z", False),
    "[:word:]": (r"\w", False),
    "[:xdigit:]": (r"A-Fa-f0-9", False),
}


def _regexp_escape(s: str) -> str:
    return re.sub(r"[-\[\]{}()*+?.,\\^$|#\s]", lambda m: "\\" + m.group(0), s)


def _brace_escape(s: str) -> str:
    return re.sub(r"[\[\]\\-]", lambda m: "\\" + m.group(0), s)


def parse_class(glob: str, pos: int) -> tuple[str, int, bool]:
    """A ``[...]`` at ``pos``: (regex source, characters consumed (0 = not a class), magic)."""
    ranges: list[str] = []
    negs: list[str] = []
    i = pos + 1
    saw_start = escaping = negate = False
    end = pos
    range_start = ""
    while i < len(glob):
        c = glob[i]
        if c in "!^" and i == pos + 1:
            negate = True
            i += 1
            continue
        if c == "]" and saw_start and not escaping:
            end = i + 1
            break
        saw_start = True
        if c == "\\" and not escaping:
            escaping = True
            i += 1
            continue
        if c == "[" and not escaping:
            posix = next((cls for cls in _POSIX if glob.startswith(cls, i)), None)
            if posix is not None:
                if range_start:
                    return "$.", len(glob) - pos, True
                i += len(posix)
                src, neg = _POSIX[posix]
                (negs if neg else ranges).append(src)
                continue
        escaping = False
        if range_start:
            if c > range_start:
                ranges.append(_brace_escape(range_start) + "-" + _brace_escape(c))
            elif c == range_start:
                ranges.append(_brace_escape(c))
            range_start = ""
            i += 1
            continue
        if glob.startswith("-]", i + 1):
            ranges.append(_brace_escape(c + "-"))
            i += 2
            continue
        if glob.startswith("-", i + 1):
            range_start = c
            i += 2
            continue
        ranges.append(_brace_escape(c))
        i += 1
    if end < i:
        return "", 0, False
    if not ranges and not negs:
        return "$.", len(glob) - pos, True
    if not negs and len(ranges) == 1 and re.fullmatch(r"\\?.", ranges[0], re.DOTALL) and not negate:
        return _regexp_escape(ranges[0][-1]), end - pos, False
    # "^\W_"-style entries are already negated sets; wrap each in its own class
    pos_parts = [f"[{r}]" if r.startswith("^") else None for r in ranges]
    plain = "".join(r for r, p in zip(ranges, pos_parts, strict=True) if p is None)
    alts = [p for p in pos_parts if p is not None]
    if plain or not alts:
        alts.insert(0, "[" + plain + "]")
    positive = "(?:" + "|".join(alts) + ")" if len(alts) > 1 else alts[0]
    if negate:
        positive = "(?:(?!" + positive + ")[\\s\\S])"
    if negs:
        negative = "[" + ("" if negate else "^") + "".join(negs) + "]"
        src = "(?:" + positive + "|" + negative + ")" if ranges else negative
    else:
        src = positive
    return src, end - pos, True


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
        out.append(_regexp_escape(c))
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
