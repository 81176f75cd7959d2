"""Ignore rules as npm's walk reads and applies them: one file's rules in order, and each rule's match.

ignore-walk 8 reads an ignore file as one minimatch rule per trimmed, non-comment line, and asks each
rule ``match('/' + entry) || match(entry)``. A run of consecutive rules with the same negation answers
as one (the first hit decides), so each run is compiled into two regular expressions where minimatch
allows, and falls back to minimatch's own segment matcher where it does not (walker.py applies them).
"""

from __future__ import annotations

import itertools
import re
from typing import NamedTuple

from neuralis_build.pack.minimatch import Minimatch, has_dot_segment

# JavaScript's String.prototype.trim set (WhiteSpace and LineTerminator), which differs from str.strip().
_JS_SPACE = "\t\n\v\f\r \u00a0\u1680" + "".join(map(chr, range(0x2000, 0x200B)))
_JS_SPACE += "\u2028\u2029\u202f\u205f\u3000\ufeff"

_RULE_CACHE: dict[str, Minimatch] = {}
_SET_CACHE: dict[str, RuleSet] = {}


class Combined(NamedTuple):
    whole: re.Pattern[str] | None
    base: re.Pattern[str] | None
    slow: list[Minimatch]
    rules: list[Minimatch]


def _combined(rules: list[Minimatch]) -> Combined:
    """``rule.match('/' + e) || rule.match(e)`` for any of ``rules`` as two regexes: one over the path
    (tested on ``'/' + e``, the leading slash optional) and one over its last non-empty segment
    (matchBase); plus the rules they cannot answer for, matched segment by segment."""
    whole = "|".join(r.whole_source for r in rules if r.whole_source)
    base = "|".join(r.base_source for r in rules if r.base_source)
    slow = [r for r in rules if r.needs_segments]
    if base and re.fullmatch(base, "", re.IGNORECASE) is not None:
        # a basename pattern that matches "" would need minimatch's own choice of segment
        slow += [r for r in rules if r.base_source and r not in slow]
        base = ""
    return Combined(
        re.compile(f"/?(?:{whole})", re.IGNORECASE) if whole else None,
        re.compile(base, re.IGNORECASE) if base else None,
        slow,
        rules,
    )


def _basename(path: str) -> str:
    tail = path.rstrip("/")
    return tail[tail.rfind("/") + 1 :]


class Run:
    """Consecutive rules with the same negation: in order, the first hit flips the verdict, so the run
    answers as one ("does any rule hit?"), with combined regexes where minimatch allows."""

    __slots__ = ("combined", "negate", "relative", "relative_combined", "rules")

    def __init__(self, negate: bool, rules: list[Minimatch]) -> None:
        self.negate = negate
        self.rules = rules
        self.combined = _combined(rules)
        self.relative = [r for r in rules if _relative_rule(r)]
        self.relative_combined = _combined(self.relative)

    def hit(self, slash_entry: str, entry: str) -> bool:
        """``rule.match('/' + entry) || rule.match(entry)`` for any rule of the run."""
        return _hit(self.combined, slash_entry, entry)

    def hit_partial(self, slash_entry: str, entry: str, base: str | None) -> bool:
        """ignore-walk's test for an entry that may be a folder (see ``filterEntry``), for any rule."""
        if self.hit(slash_entry, entry) or self.hit(slash_entry + "/", entry + "/"):
            return True
        if self.negate and any(r.match(slash_entry, True) or r.match(entry, True) for r in self.rules):
            return True
        if not base or not self.relative:
            return False
        slash_base = f"/{base}/"
        if _hit(self.relative_combined, slash_base, slash_base[1:]):
            return True
        return self.negate and any(r.match("/" + base, True) or r.match(base, True) for r in self.relative)


def _hit(combined: Combined, slash_entry: str, entry: str) -> bool:
    whole, base, slow, rules = combined
    if has_dot_segment(entry):  # never from a directory listing; answered rule by rule, exactly
        return any(r.match(slash_entry) or r.match(entry) for r in rules)
    if whole is not None and whole.fullmatch(slash_entry):
        return True
    if base is not None and base.fullmatch(_basename(entry)):
        return True
    return any(r.match(slash_entry) or r.match(entry) for r in slow) if slow else False


class RuleSet:
    """The rules of one ignore file (or npm's synthetic sets), in order, and their runs."""

    __slots__ = ("rules", "runs")

    def __init__(self, rules: list[Minimatch]) -> None:
        self.rules = rules
        self.runs = [Run(negate, list(group)) for negate, group in itertools.groupby(rules, lambda r: r.negate)]


def parse_rules(text: str) -> RuleSet:
    """ignore-walk's reading of an ignore file: one trimmed minimatch rule per non-comment line."""
    cached = _SET_CACHE.get(text)
    if cached is not None:
        return cached
    rules = []
    for line in text.replace("\r\n", "\n").split("\n"):
        rule = line.strip(_JS_SPACE)
        if not rule or rule.startswith("#"):
            continue
        mm = _RULE_CACHE.get(rule)
        if mm is None:
            mm = _RULE_CACHE[rule] = Minimatch(rule)
        rules.append(mm)
    result = _SET_CACHE[text] = RuleSet(rules)
    return result


def _relative_rule(rule: Minimatch) -> bool:
    return any(len(part) <= (1 if part[-1] else 2) for part in rule.glob_parts)
