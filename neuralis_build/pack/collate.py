"""The orders npm sorts paths in: ICU ``en`` collation (``localeCompare``), computed without ICU.

For ASCII text the ICU root order is a fixed table (measured against node; tests compare every pair of
printable characters and thousands of random paths). Non-ASCII names need real ICU: when ``node`` is on
PATH we ask it, so the order is exactly npm's; otherwise a documented approximation orders accented Latin
letters beside their base letter and everything else after ASCII, by code point.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import unicodedata
from collections.abc import Iterable, Sequence
from functools import cache

from neuralis_build.pack.nodepath import extname

# ICU root (CLDR) primary order of the non-ignorable ASCII characters, letters paired by case.
ASCII_ORDER = "\t\n\v\f\r _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$0123456789" + "".join(
    c + c.upper() for c in "abcdefghijklmnopqrstuvwxyz"
)
_RANK = {c: i for i, c in enumerate(ASCII_ORDER) if not c.isupper()}
_RANK.update({c.upper(): _RANK[c] for c in "abcdefghijklmnopqrstuvwxyz"})
_DIGIT = _RANK["0"]
_BEYOND_ASCII = len(ASCII_ORDER) + 1

Key = tuple[tuple[tuple[int, int], ...], tuple[int, ...]]


def _char_weights(c: str) -> tuple[tuple[int, int], int] | None:
    """(primary, case) of one character; None for the ignorable control characters."""
    rank = _RANK.get(c)
    if rank is not None:
        return (rank, 0), 1 if "A" <= c <= "Z" else 0
    if c.isascii():
        return None
    # fallback for non-ASCII: a decomposed letter sorts with its base letter, the rest by code point
    base = unicodedata.normalize("NFD", c)[0]
    if base != c and base in _RANK:
        return (_RANK[base], ord(c)), 1 if base.isupper() else 0
    return (_BEYOND_ASCII, ord(c)), 1 if c.isupper() else 0


@cache
def collation_key(text: str, numeric: bool = False) -> Key:
    """A key that orders like ``a.localeCompare(b, 'en')`` (tertiary: case breaks primary ties)."""
    primary: list[tuple[int, int]] = []
    case: list[int] = []
    i = 0
    while i < len(text):
        c = text[i]
        if numeric and "0" <= c <= "9":
            j = i
            while j < len(text) and "0" <= text[j] <= "9":
                j += 1
            primary.append((_DIGIT, int(text[i:j])))
            case.append(0)
            i = j
            continue
        weights = _char_weights(c)
        if weights is not None:
            primary.append(weights[0])
            case.append(weights[1])
        i += 1
    return tuple(primary), tuple(case)


def _packlist_key(path: str) -> tuple[Key, Key, Key]:
    base = path.rsplit("/", 1)[-1]
    return collation_key(extname(path).lower()), collation_key(base.lower()), collation_key(path)


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
        done = subprocess.run(
            [node, "-e", _NODE_SORT],
            input=json.dumps({"mode": mode, "paths": list(paths)}),
            capture_output=True,
            text=True,
            encoding="utf-8",
            check=True,
            timeout=60,
        )
        out = json.loads(done.stdout)
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    return out if isinstance(out, list) and sorted(out) == sorted(paths) else None


def _all_ascii(paths: Iterable[str]) -> bool:
    return all(p.isascii() for p in paths)


def sort_packlist(paths: Iterable[str]) -> tuple[list[str], bool]:
    """npm-packlist's order (extension, then basename, then path); the flag says whether it is exact."""
    items = sorted(paths)
    if not _all_ascii(items):
        exact = _node_sort(items, "packlist")
        if exact is not None:
            return exact, True
        return sorted(items, key=_packlist_key), False
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
    ups = [p for p in paths if _is_upper_first(p)]
    rest = [p for p in paths if not _is_upper_first(p)]

    def key(p: str) -> Key:
        return collation_key(p, numeric=True)

    return sorted(ups, key=key) + sorted(rest, key=key), _all_ascii(paths)
