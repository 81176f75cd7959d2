"""A ``[...]`` bracket expression of a minimatch segment, as minimatch 10's ``parseClass`` reads it."""

from __future__ import annotations

import re

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


MATCHES_NOTHING = "$."
"""A regex no segment can match: minimatch's answer for a class that can never match (``[]``, a POSIX class as
the end of a range), which still makes the pattern magic, so it never falls back to a literal comparison."""


def regexp_escape(s: str) -> str:
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
        if c in "!^" and i == pos + 1:  # only right after the "[": "[a!]" is a class of "a" and "!"
            negate = True
            i += 1
            continue
        if c == "]" and saw_start and not escaping:  # "[]a]" and "[!]a]": a "]" first is a member, not the end
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
                if range_start:  # "[a-[:digit:]]": minimatch gives up on the whole glob, which then matches nothing
                    return MATCHES_NOTHING, len(glob) - pos, True
                i += len(posix)
                src, neg = _POSIX[posix]
                (negs if neg else ranges).append(src)
                continue
        escaping = False
        if range_start:
            # a reversed range ("[z-a]") is dropped, not an error, as minimatch does
            if c > range_start:
                ranges.append(_brace_escape(range_start) + "-" + _brace_escape(c))
            elif c == range_start:
                ranges.append(_brace_escape(c))
            range_start = ""
            i += 1
            continue
        if glob.startswith("-]", i + 1):  # "[a-]": a "-" before the "]" is a member
            ranges.append(_brace_escape(c + "-"))
            i += 2
            continue
        if glob.startswith("-", i + 1):
            range_start = c
            i += 2
            continue
        ranges.append(_brace_escape(c))
        i += 1
    if end < i:  # no closing "]": not a class at all, the "[" is a literal character
        return "", 0, False
    if not ranges and not negs:
        return MATCHES_NOTHING, len(glob) - pos, True
    # a class of one plain character ("[a]") is that character, and not magic: minimatch's own shortcut
    if not negs and len(ranges) == 1 and re.fullmatch(r"\\?.", ranges[0], re.DOTALL) and not negate:
        return regexp_escape(ranges[0][-1]), end - pos, False
    if not any(r.startswith("^") for r in ranges):  # minimatch's own shape, which its dot rules look at
        sranges = "[" + ("^" if negate else "") + "".join(ranges) + "]"
        snegs = "[" + ("" if negate else "^") + "".join(negs) + "]"
        src = f"(?:{sranges}|{snegs})" if ranges and negs else sranges if ranges else snegs
        return src, end - pos, True
    # "^\W_"-style entries (our stand-ins for Unicode classes) are negated sets: one class each
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
