"""Bash-style brace expansion as npm's minimatch does it (a port of brace-expansion 5 and balanced-match 4)."""

from __future__ import annotations

import re
from typing import NamedTuple

EXPANSION_MAX = 100_000
EXPANSION_MAX_LENGTH = 4_000_000

# Private-use sentinels stand in for escaped characters while expanding (brace-expansion uses NUL-framed
# random strings; any string that cannot occur in a path works).
_NAMES = (("\\", "SLASH"), ("{", "OPEN"), ("}", "CLOSE"), (",", "COMMA"), (".", "PERIOD"))
_ESC = {ch: f"\0{name}\ue000\0" for ch, name in _NAMES}
_NUMERIC_SEQ = re.compile(r"-?\d+\.\.-?\d+(?:\.\.-?\d+)?")
_ALPHA_SEQ = re.compile(r"[a-zA-Z]\.\.[a-zA-Z](?:\.\.-?\d+)?")
_BRACE_SET = re.compile(r"\{(?:(?!\{).)*\}")


class Balanced(NamedTuple):
    pre: str
    body: str
    post: str


def _range(s: str) -> tuple[int, int] | None:
    """balanced-match's ``range('{', '}', s)``: the first balanced pair, preferring the outermost."""
    ai = s.find("{")
    bi = s.find("}", ai + 1)
    if ai < 0 or bi <= 0:
        return None
    begs: list[int] = []
    left = len(s)
    right: int | None = None
    result: tuple[int, int] | None = None
    i = ai
    while i >= 0 and result is None:
        if i == ai:
            begs.append(i)
            ai = s.find("{", i + 1)
        elif len(begs) == 1:
            result = (begs.pop(), bi)
        else:
            beg = begs.pop()
            if beg < left:
                left, right = beg, bi
            bi = s.find("}", i + 1)
        i = ai if 0 <= ai < bi else bi
    if begs and right is not None:  # unbalanced ("{a{b}"): the widest pair found, as balanced-match answers
        result = (left, right)
    return result


def balanced(s: str) -> Balanced | None:
    r = _range(s)
    if r is None:
        return None
    return Balanced(s[: r[0]], s[r[0] + 1 : r[1]], s[r[1] + 1 :])


def _numeric(s: str) -> int:
    """brace-expansion's ``numeric``: a number, else the code of the first character (for "{a..e}")."""
    try:
        return int(s, 10)
    except ValueError:
        return ord(s[0]) if s else 0


def _comma_parts(s: str) -> list[str]:
    """brace-expansion's ``parseCommaParts``: split on commas, but not inside a nested ``{...}``."""
    if not s:
        return [""]
    m = balanced(s)
    if m is None:
        return s.split(",")
    parts = m.pre.split(",")
    parts[-1] += "{" + m.body + "}"
    post_parts = _comma_parts(m.post)
    if m.post:
        parts[-1] += post_parts.pop(0)
        parts.extend(post_parts)
    return parts


def _combine(acc: list[str], pre: str, values: list[str], drop_empties: bool) -> list[str]:
    """Every ``a + pre + v``, stopping at brace-expansion 5's caps on the count and the total length."""
    out: list[str] = []
    length = 0
    for a in acc:
        for v in values:
            if len(out) >= EXPANSION_MAX:
                return out
            expansion = a + pre + v
            if drop_empties and not expansion:
                continue
            if length + len(expansion) > EXPANSION_MAX_LENGTH:
                return out
            out.append(expansion)
            length += len(expansion)
    return out


def _sequence(body: str, alpha: bool) -> list[str]:
    n = body.split("..")
    x, y = _numeric(n[0]), _numeric(n[1])
    width = max(len(n[0]), len(n[1]))
    incr = max(abs(_numeric(n[2])), 1) if len(n) == 3 else 1
    reverse = y < x
    if reverse:
        incr = -incr
    pad = any(re.match(r"-?0\d", part) for part in n)  # "{01..10}" pads to the widest end: 01 … 10
    out: list[str] = []
    i = x
    while (i >= y if reverse else i <= y) and len(out) < EXPANSION_MAX:
        if alpha:
            c = chr(i)
            if c == "\\":  # "{Z..a}" passes "\\", which brace-expansion leaves out
                c = ""
        else:
            c = str(i)
            if pad and width - len(c) > 0:
                zeros = "0" * (width - len(c))
                c = "-" + zeros + c[1:] if i < 0 else zeros + c
        out.append(c)
        i += incr
    return out


def _expand(s: str, is_top: bool) -> list[str]:
    acc = [""]
    drop_empties = False
    first_group = True
    while True:
        m = balanced(s)
        if m is None:
            return _combine(acc, s, [""], drop_empties)
        pre = m.pre
        if pre.endswith("$"):  # "${...}" is a shell variable, never a set: kept as it is
            acc = _combine(acc, pre + "{" + m.body + "}", [""], drop_empties and not m.post)
            first_group = False
            if not m.post:
                break
            s = m.post
            continue
        is_alpha = _ALPHA_SEQ.fullmatch(m.body) is not None
        is_seq = is_alpha or _NUMERIC_SEQ.fullmatch(m.body) is not None
        if not is_seq and "," not in m.body:
            # "{a}" alone is literal; but in "{a},b}" the first "}" is escaped: the set of "a}" and "b"
            if re.search(r",(?!,).*\}", m.post):
                s = m.pre + "{" + m.body + _ESC["}"] + m.post
                is_top = True
                continue
            return _combine(acc, pre + "{" + m.body + "}" + m.post, [""], drop_empties)
        if first_group:  # a top-level comma set drops results that are empty: "{,a}" → "a", "{,}" → nothing
            drop_empties = is_top and not is_seq
            first_group = False
        if is_seq:
            values = _sequence(m.body, is_alpha)
        else:
            n = _comma_parts(m.body)
            if len(n) == 1:  # "{{a,b}}": the inner set expands and the outer braces stay around each result
                n = ["{" + e + "}" for e in _expand(n[0], False)]
                if len(n) == 1:
                    acc = _combine(acc, pre + n[0], [""], drop_empties and not m.post)
                    if not m.post:
                        break
                    s = m.post
                    continue
            drops = drop_empties and not m.post and not pre and not any(acc)
            values = []
            for part in n:
                values.extend(v for v in _expand(part, False) if v or not drops)
            values = values[:EXPANSION_MAX]
        acc = _combine(acc, pre, values, drop_empties and not m.post)
        if not m.post:
            break
        s = m.post
    return acc


def _escape(s: str) -> str:
    for ch in ("\\", "{", "}", ",", "."):
        s = s.replace("\\" + ch, _ESC[ch])
    return s


def _unescape(s: str) -> str:
    for ch, sentinel in _ESC.items():
        s = s.replace(sentinel, ch)
    return s


def brace_expand(pattern: str) -> list[str]:
    """``a{b,c}d`` → ``abd acd``; ``{1..3}`` → ``1 2 3``; a set that is not one stays literal."""
    if not _BRACE_SET.search(pattern):
        return [pattern]
    if not pattern:
        return []
    if pattern.startswith("{}"):  # a leading "{}" is literal (bash's rule), so it is escaped before expanding
        pattern = "\\{\\}" + pattern[2:]
    return [_unescape(e) for e in _expand(_escape(pattern), True)]
