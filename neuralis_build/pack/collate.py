"""The orders npm sorts paths in: ICU ``en`` collation (``localeCompare``), computed without ICU.

For ASCII text the ICU root order is a fixed table (measured against node; tests compare every pair of
printable characters and thousands of random paths). Non-ASCII names need real ICU: when ``node`` is on
PATH we ask it, so the order is exactly npm's; otherwise a documented approximation orders accented Latin
letters beside their base letter and everything else after ASCII, by code point.
"""

from __future__ import annotations

import json
import re
import shutil
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from functools import cache

from neuralis_build.pack.nodepath import extname
from neuralis_build.util.errors import NeuralisError
from neuralis_build.util.process import run

# ICU root (CLDR) primary order of the non-ignorable ASCII characters, letters paired by case.
ASCII_ORDER = "\t\n\v\f\r _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$0123456789" + "".join(
    c + c.upper() for c in "abcdefghijklmnopqrstuvwxyz"
)
_RANK = {c: i for i, c in enumerate(ASCII_ORDER) if not c.isupper()}
_RANK.update({c.upper(): _RANK[c] for c in "abcdefghijklmnopqrstuvwxyz"})
_DIGIT = _RANK["0"]
_BEYOND_ASCII = len(ASCII_ORDER) + 1

Key = tuple[str, str]
"""(primary, case): strings compare in C, and a shorter primary that is a prefix sorts first, as in ICU."""

_PRIMARY: dict[int, str | None] = {ord(c): chr(0x21 + r) for c, r in _RANK.items()}
_CASE: dict[int, str | None] = {ord(c): "1" if "A" <= c <= "Z" else "0" for c in _RANK}
for _c in range(128):  # the other ASCII characters (controls) are ignorable at every level
    _PRIMARY.setdefault(_c, None)
    _CASE.setdefault(_c, None)
_DIGIT_MARK = chr(0x21 + _DIGIT)
_DIGIT_RUNS = re.compile(r"([0-9]+)")


def _number(run: str) -> str:
    """A digit run as ICU's numeric collation compares it: by value, leading zeros ignored."""
    digits = run.lstrip("0")
    return _DIGIT_MARK + chr(0x100 + len(digits)) + digits


def _ascii_key(text: str, numeric: bool) -> Key:
    if numeric and _DIGIT_RUNS.search(text):
        parts = _DIGIT_RUNS.split(text)
        primary = "".join(_number(p) if i % 2 else p.translate(_PRIMARY) for i, p in enumerate(parts))
        case = "".join("0" if i % 2 else p.translate(_CASE) for i, p in enumerate(parts))
        return primary, case
    return text.translate(_PRIMARY), text.translate(_CASE)


def _wide_char(c: str) -> tuple[str, str] | None:
    """Fallback weights, two characters each: a decomposed letter sorts after its base letter."""
    rank = _RANK.get(c)
    if rank is not None:
        return chr(0x21 + rank) + "\u0100", "1" if "A" <= c <= "Z" else "0"
    if c.isascii():
        return None
    second = chr(0x101 + min(ord(c), 0x10FEFE))
    base = unicodedata.normalize("NFD", c)[0]
    if base != c and base in _RANK:
        return chr(0x21 + _RANK[base]) + second, "1" if base.isupper() else "0"
    return chr(0x21 + _BEYOND_ASCII) + second, "1" if c.isupper() else "0"


def _wide_key(text: str, numeric: bool) -> Key:
    primary: list[str] = []
    case: list[str] = []
    for i, part in enumerate(_DIGIT_RUNS.split(text) if numeric else [text]):
        if i % 2:
            digits = part.lstrip("0")
            primary.append(_DIGIT_MARK + chr(0x100 + len(digits)) + "".join(d + "\u0100" for d in digits))
            case.append("0")
            continue
        for c in part:
            weights = _wide_char(c)
            if weights is not None:
                primary.append(weights[0])
                case.append(weights[1])
    return "".join(primary), "".join(case)


@cache
def collation_key(text: str, numeric: bool = False) -> Key:
    """A key that orders like ``a.localeCompare(b, 'en')`` (tertiary: case breaks primary ties).

    Exact for ASCII; for other text an approximation, used only when node cannot be asked. Keys of the
    two kinds do not compare with each other: sort a list with one kind (see ``sort_packlist``).
    """
    return _ascii_key(text, numeric) if text.isascii() else _wide_key(text, numeric)


def _packlist_key(path: str, key: Callable[[str, bool], Key] = _ascii_key) -> tuple[Key, Key, Key]:
    base = path.rsplit("/", 1)[-1]
    return key(extname(path).lower(), False), key(base.lower(), False), key(path, False)


_NODE_SORT = r"""
const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const { extname, basename } = require('path');
const cmp = (a, b) => {
  const ea = extname(a).toLowerCase(), eb = extname(b).toLowerCase();
  const ba = basename(a).toLowerCase(), bb = basename(b).toLowerCase();
  return ea.localeCompare(eb, 'en') || ba.localeCompare(bb, 'en') || a.localeCompare(b, 'en');
};
const coll = new Intl.Collator('en', { sensitivity: 'case', numeric: true });
const up = s => s.charAt(0) === s.charAt(0).toUpperCase();
const out = input.mode === 'packlist' ? input.paths.slice().sort(cmp)
  : [...input.paths.filter(up).sort(coll.compare), ...input.paths.filter(p => !up(p)).sort(coll.compare)];
process.stdout.write(JSON.stringify(out));
"""


def _node_sort(paths: Sequence[str], mode: str) -> list[str] | None:
    node = shutil.which("node")
    if node is None:
        return None
    try:
        done = run([node, "-e", _NODE_SORT], input=json.dumps({"mode": mode, "paths": list(paths)}), timeout=60)
        out = json.loads(done.stdout) if done.returncode == 0 else None
    except (NeuralisError, ValueError, RecursionError):
        # no usable node (it cannot start, hangs, or prints garbage): the caller falls back to the
        # approximation and says so (NB1713, a note naming the order that may differ)
        return None
    if not isinstance(out, list) or not all(isinstance(p, str) for p in out):
        return None
    return out if sorted(out) == sorted(paths) else None


def _all_ascii(paths: Iterable[str]) -> bool:
    return all(p.isascii() for p in paths)


def sort_packlist(paths: Iterable[str]) -> tuple[list[str], bool]:
    """npm-packlist's order (extension, then basename, then path); the flag says whether it is exact."""
    items = sorted(paths)
    if not _all_ascii(items):
        exact = _node_sort(items, "packlist")
        if exact is not None:
            return exact, True
        return sorted(items, key=lambda p: _packlist_key(p, _wide_key)), False
    return sorted(items, key=_packlist_key), True


def _is_upper_first(path: str) -> bool:
    first = path[:1]
    if not first or ord(first) > 0xFFFF:  # JavaScript sees half a surrogate pair: unchanged by toUpperCase
        return True
    return first == first.upper()


def sort_listing(paths: Sequence[str]) -> tuple[list[str], bool]:
    """The order of ``npm pack --json``'s files: upper-case-first paths, then the rest, numeric collation."""
    if not _all_ascii(paths):
        exact = _node_sort(paths, "listing")
        if exact is not None:
            return exact, True
    ascii_only = _all_ascii(paths)
    make = _ascii_key if ascii_only else _wide_key
    ups = [p for p in paths if _is_upper_first(p)]
    rest = [p for p in paths if not _is_upper_first(p)]

    def key(p: str) -> Key:
        return make(p, True)

    return sorted(ups, key=key) + sorted(rest, key=key), ascii_only
