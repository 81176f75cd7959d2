"""minimatch 10 as npm's ignore walker runs it: ``{matchBase, dot, flipNegate, nocase}``, partial matching.

Why not wcmatch: its ``globmatch`` has no *partial* mode (does this directory prefix possibly lead to a
match?), which the walker needs to decide whether to descend; its ``NEGATE`` flag means "exclusion
pattern", not minimatch's ``flipNegate``; and minimatch's segment-wise matching (``a/*`` matches ``a/b/``,
``matchBase`` only for one-segment patterns, its ``**`` rules) differs from a whole-path regular
expression. So this is a port of the parts of minimatch that npm exercises.
"""

from __future__ import annotations

import re

from neuralis_build.pack.braces import brace_expand
from neuralis_build.pack.globsegment import GLOBSTAR, Part, Segment, parse_segment

_SLASHES = re.compile(r"/+")
MAX_PATTERN_LENGTH = 64 * 1024
MAX_GLOBSTAR_RECURSION = 200


def _level_one_optimize(parts: list[str]) -> list[str]:
    """Collapse ``**/**`` and resolve ``<p>/..`` (minimatch's default optimisation level)."""
    out: list[str] = []
    for part in parts:
        prev = out[-1] if out else None
        if part == "**" and prev == "**":  # "a/**/**/b" is "a/**/b"
            continue
        # "a/../b" is "b", but ".." after "..", "." or "**" stays: what it would undo is not a known segment
        if part == ".." and prev and prev not in ("..", ".", "**"):
            out.pop()
            continue
        out.append(part)
    return out or [""]  # "a/.." optimises to nothing, which minimatch keeps as one empty segment


# one segment that is not "." or ".." (which "**" never crosses), and a run of them
# "**" as one or more segments: any text. minimatch's "**" never crosses a "." or ".." segment; the
# regexes skip that rule for speed, so paths holding such a segment go to the segment matcher instead.
_SEGS = r"[\s\S]*"
_DOT_SEGMENT = re.compile(r"(?:^|/)\.\.?(?:/|$)")


def has_dot_segment(path: str) -> bool:
    """True when ``path`` has a ``.`` or ``..`` segment (which whole-path regexes do not model)."""
    return "." in path and _DOT_SEGMENT.search(path) is not None


def _test(part: Part, f: str) -> bool:
    if isinstance(part, str):
        return f == part
    if isinstance(part, Segment):
        return part.test(f)
    return False


def _source(part: Part) -> str:
    return re.escape(part) if isinstance(part, str) else part.source if isinstance(part, Segment) else ""


def _whole_path_source(parts: list[Part]) -> str:
    """The non-partial ``match`` of one pattern as a regex (not minimatch's ``makeRe``, which differs).

    A leading or inner ``**`` stands for zero or more segments, a trailing one for at least one; a path
    may end in one extra empty segment (``a/*`` matches ``a/b/``), as minimatch's segment matcher allows.
    """
    out = ""
    last = len(parts) - 1
    for i, part in enumerate(parts):
        if part is GLOBSTAR:
            if i == 0:
                out += _SEGS if last == 0 else f"(?:{_SEGS}/)?"
            elif i == last:
                out += "/" + _SEGS
            else:
                out += f"/(?:{_SEGS}/)?"
            continue
        if i and parts[i - 1] is not GLOBSTAR:
            out += "/"
        out += _source(part)
    return out if parts[-1] is GLOBSTAR else out + "/?"


def _regex_safe(parts: list[Part]) -> bool:
    """minimatch bounds inner ``**`` sections with a shortcut that is exact for at most two ``**``."""
    return sum(1 for p in parts if p is GLOBSTAR) <= 2


class Minimatch:
    """One pattern; ``match(path, partial)`` answers as minimatch does with npm's options."""

    __slots__ = (
        "_base",
        "_slow",
        "_whole",
        "base_source",
        "comment",
        "empty",
        "glob_parts",
        "negate",
        "pattern",
        "set",
        "whole_source",
    )

    def __init__(self, pattern: str) -> None:
        if len(pattern) > MAX_PATTERN_LENGTH:
            raise ValueError("pattern is too long")
        self.pattern = pattern
        self.negate = False
        self.comment = pattern.startswith("#")
        self.empty = pattern == ""
        self.glob_parts: list[list[str]] = []
        self.set: list[list[Part]] = []
        self._base: re.Pattern[str] | None = None
        self._whole: re.Pattern[str] | None = None
        self._slow: list[list[Part]] = []
        self.base_source: str | None = None
        self.whole_source: str | None = None
        if self.comment or self.empty:  # "#x" matches nothing; "" matches only "" (see match)
            return
        # each leading "!" flips the pattern: "!!a" is "a" again (minimatch's parseNegate)
        stripped = pattern.lstrip("!")
        self.negate = (len(pattern) - len(stripped)) % 2 == 1
        # braces first, then one glob per expansion, duplicates dropped in order (minimatch's globSet)
        seen: dict[str, None] = dict.fromkeys(brace_expand(stripped))
        self.glob_parts = [_level_one_optimize(_SLASHES.split(g)) for g in seen]
        self.set = [[parse_segment(p) for p in parts] for parts in self.glob_parts]
        # Whole-path regular expressions answer the common, non-partial question in one call: one for the
        # one-segment patterns (matched against the basename, as matchBase does), one for the rest.
        base = [_whole_path_source(p) for p in self.set if len(p) == 1]
        whole = [_whole_path_source(p) for p in self.set if len(p) > 1 and _regex_safe(p)]
        self._slow = [p for p in self.set if len(p) > 1 and not _regex_safe(p)]
        self.base_source = "|".join(base) if base else None
        self.whole_source = "|".join(whole) if whole else None
        self._base = re.compile(self.base_source, re.IGNORECASE) if self.base_source else None
        self._whole = re.compile(self.whole_source, re.IGNORECASE) if self.whole_source else None

    @property
    def needs_segments(self) -> bool:
        """True when some alternative of the pattern is matched segment by segment, not by a regex."""
        return bool(self._slow)

    def match(self, f: str, partial: bool = False) -> bool:
        """True when ``f`` matches (negation flipped, as with ``flipNegate``)."""
        if self.comment:
            return False
        if self.empty:
            return f == ""
        if f == "/" and partial:  # the root may always hold a match
            return True
        # the fast path: the whole-path and basename regexes, for the questions they answer exactly
        if not partial and not has_dot_segment(f):
            if self._whole is not None and self._whole.fullmatch(f):
                return True
            if self._base is not None:
                tail = f.rstrip("/")
                if self._base.fullmatch(tail[tail.rfind("/") + 1 :]):
                    return True
            if not self._slow:
                return False
        # minimatch splits the path on runs of "/", so "a//b" is ["a", "b"] and "a/" is ["a", ""]
        ff = _SLASHES.split(f)
        # matchBase compares a one-segment pattern with the last non-empty segment ("a/b/" → "b")
        filename = ff[-1]
        if not filename:
            for seg in reversed(ff[:-1]):
                if seg:
                    filename = seg
                    break
        for pattern in self._slow if not partial and not has_dot_segment(f) else self.set:
            file = [filename] if len(pattern) == 1 else ff  # matchBase applies to one-segment patterns only
            if GLOBSTAR in pattern:
                hit = self._match_globstar(file, pattern, partial, 0, 0)
            else:
                hit = _match_one(file, pattern, partial, 0, 0)
            if hit:
                return True
        return False

    def _match_globstar(self, file: list[str], pattern: list[Part], partial: bool, fi: int, pi: int) -> bool:
        """minimatch 10's ``#matchGlobstar``: the part before the first ``**`` (head), after the last (tail),
        and the sections between, each placed as early as it fits; ``**`` never crosses ``.`` or ``..``."""
        first = pattern.index(GLOBSTAR, pi)
        last = len(pattern) - 1 - pattern[::-1].index(GLOBSTAR)
        head = pattern[pi:first]
        if partial:  # a folder that may still lead to a match: nothing after the first "**" must fit yet
            body, tail = pattern[first + 1 :], []
        else:
            body, tail = pattern[first + 1 : last], pattern[last + 1 :]
        if head:
            if not _match_one(file[fi : fi + len(head)], head, partial, 0, 0):
                return False
            fi += len(head)
        tail_match = 0
        if tail:
            if len(tail) + fi > len(file):
                return False
            tail_start = len(file) - len(tail)
            if _match_one(file, tail, partial, tail_start, 0):
                tail_match = len(tail)
            else:
                # a path ending in "/" has an empty last segment: the tail may match just before it
                if file[-1] != "" or fi + len(tail) == len(file):
                    return False
                if not _match_one(file, tail, partial, tail_start - 1, 0):
                    return False
                tail_match = len(tail) + 1
        if not body:
            # a lone "**" (or "**" between head and tail) must stand for at least one segment, none "." or ".."
            saw_some = bool(tail_match)
            for f in file[fi : len(file) - tail_match]:
                saw_some = True
                if f in (".", ".."):
                    return False
            return partial or saw_some
        sections: list[list[Part]] = [[]]
        for b in body:
            if b is GLOBSTAR:
                sections.append([])
            else:
                sections[-1].append(b)
        # the last index each section may start at; minimatch pairs section j with the prefix sum of
        # section n-1-j, which is exact for the usual one- or two-section bodies, and kept as is
        file_length = len(file) - tail_match
        sums = [0]
        for s in sections[:-1]:
            sums.append(sums[-1] + len(s))
        n = len(sections)
        afters = [file_length - (sums[n - 1 - j] + len(s)) for j, s in enumerate(sections)]
        return bool(_match_sections(file, sections, afters, fi, 0, partial, 0, bool(tail_match)))


def _match_sections(
    file: list[str],
    sections: list[list[Part]],
    afters: list[int],
    fi: int,
    bi: int,
    partial: bool,
    depth: int,
    saw_tail: bool,
) -> bool | None:
    if bi == len(sections):
        for f in file[fi:]:
            saw_tail = True
            if f in (".", ".."):
                return False
        return saw_tail
    body, after = sections[bi], afters[bi]
    # True: matched; False: can never match (a "." or ".." in the way); None: not here, try further on
    while fi <= after:
        hit = _match_one(file[: fi + len(body)], body, partial, fi, 0)
        if hit and depth < MAX_GLOBSTAR_RECURSION:  # minimatch's cap on nested "**" sections (its maxGlobstarRecursion)
            sub = _match_sections(file, sections, afters, fi + len(body), bi + 1, partial, depth + 1, saw_tail)
            if sub is not False:
                return sub
        if fi < len(file) and file[fi] in (".", ".."):
            return False
        fi += 1
    return True if partial else None


def _match_one(file: list[str], pattern: list[Part], partial: bool, fi: int, pi: int) -> bool:
    fl, pl = len(file), len(pattern)
    while fi < fl and pi < pl:
        if not _test(pattern[pi], file[fi]):
            return False
        fi += 1
        pi += 1
    if fi == fl and pi == pl:
        return True
    if fi == fl:  # the path ran out first: a folder on the way to a match, when asked partially
        return partial
    # the pattern ran out first: "a/*" matches "a/b/" (one trailing empty segment), never "a/b/c"
    return fi == fl - 1 and file[fi] == ""
