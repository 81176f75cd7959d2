"""A stylesheet's style rules and the selectors among them that reach outside a module's own elements.

A small tokenizer after CSS Syntax Level 3: comments, strings (with escapes), ``url(…)`` without quotes,
escaped characters and the brackets are tokens, so that a brace or a comma inside one of them is never
taken for structure. On top of it, the rules: a qualified rule's prelude is its selector list; grouping
at-rules (``@media``, ``@supports``, ``@layer``, ``@container``, ``@document``, ``@starting-style``)
hold rules; any other at-rule (``@font-face``, ``@keyframes``, ``@property``, ``@page``, ``@scope``, …)
holds none that select the page's elements, or selects them within its own scope.

A complex selector stays within the module when one of its compounds names a class, an id or an
attribute (``.card h1``, ``h1.title``, ``[data-acme] a``), directly or through ``:is()``/``:where()``
(every alternative scoped) or a CSS module's ``:global()``/``:local()``. Everything else reaches out:
``*``, ``html``, ``body``, ``:root``, ``:host``, a bare ``h1`` or ``button``, ``::selection``,
``a:hover``, ``div:not(.x)``, ``div:has(.x)`` (a host element that contains the module). A rule whose
declarations all set custom properties (``:root { --brand: red }``) defines variables and restyles
nothing, and is not counted.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

# One token per match, in order of precedence. An unquoted url(…) is one token from its "(" (the "url"
# before it ends the run of other characters), so that a brace or semicolon in it is never structure.
_TOKEN = re.compile(
    r"""
    (?P<comment>/\*.*?(?:\*/|\Z))
  | (?P<string>"(?:[^"\\\n]|\\.|\\\n)*(?:"|$)|'(?:[^'\\\n]|\\.|\\\n)*(?:'|$))
  | (?P<url>(?<=url)\(\s*[^\s"'()\\]*(?:\\.[^\s"'()\\]*)*\s*\))
  | (?P<escape>\\.)
  | (?P<open>[{(\[])
  | (?P<close>[})\]])
  | (?P<semi>;)
  | (?P<other>[^/"'\\{}()\[\];]+|.)
    """,
    re.VERBOSE | re.DOTALL | re.IGNORECASE | re.MULTILINE,
)
_PAIRS = {"{": "}", "(": ")", "[": "]"}
GROUPING = frozenset({"media", "supports", "layer", "container", "document", "-moz-document", "starting-style"})

Token = tuple[str, str, int]
"""(kind, text, start): comment, string, url, escape, open, close, semi or other. Plain tuples: a 300 kB
stylesheet is some 40,000 tokens."""
KIND: Final = 0
TEXT: Final = 1
START: Final = 2


def tokens(css: str) -> list[Token]:
    """The stylesheet's tokens (comments included: callers skip them)."""
    return [(m.lastgroup or "other", m.group(), m.start()) for m in _TOKEN.finditer(css)]


@dataclass(frozen=True, slots=True)
class StyleRule:
    """A style rule: its selector list as written (whitespace and comments collapsed), where it starts, and the
    property names of its own declarations (lowercased)."""

    selector: str
    start: int
    properties: tuple[str, ...]

    @property
    def restyles(self) -> bool:
        """Whether it sets a property; a rule of custom properties only defines variables."""
        return any(not p.startswith("--") for p in self.properties)


def style_rules(css: str) -> Iterator[StyleRule]:
    """Every style rule the page matches selectors of: top-level ones and those inside grouping at-rules."""
    toks = [t for t in tokens(css) if t[KIND] != "comment"]
    yield from _rules(toks, 0, len(toks))


def _rules(toks: list[Token], at: int, end: int) -> Iterator[StyleRule]:
    """The rules of ``toks[at:end]``, a list of rules (a stylesheet, or a grouping rule's block)."""
    while at < end:
        while at < end and (toks[at][KIND] == "semi" or not toks[at][TEXT].strip()):
            at += 1
        if at >= end:
            return
        prelude_end = _prelude_end(toks, at, end)
        if prelude_end >= end or toks[prelude_end][TEXT] != "{":
            at = prelude_end + 1  # a statement (@import, @layer a, b;) or a stray token: no block
            continue
        block_end = _matching(toks, prelude_end, end)
        head = toks[at][TEXT].lstrip()
        start = toks[at][START] + len(toks[at][TEXT]) - len(head)
        prelude = " ".join("".join(t[TEXT] for t in toks[at:prelude_end]).split())
        if prelude.startswith("@"):
            name = re.match(r"@([\w-]*)", prelude)
            if name and name[1].lower() in GROUPING:
                yield from _rules(toks, prelude_end + 1, block_end)
        else:
            yield StyleRule(prelude, start, _properties(toks, prelude_end + 1, block_end))
        at = block_end + 1


def _prelude_end(toks: list[Token], at: int, end: int) -> int:
    """The index of the ``{`` or ``;`` that ends the prelude starting at ``at`` (brackets skipped)."""
    while at < end:
        kind, text, _ = toks[at]
        if kind == "semi" or text in ("{", "}"):
            return at
        if kind == "open":  # "(" or "["
            at = _matching(toks, at, end)
        at += 1
    return end


def _matching(toks: list[Token], at: int, end: int) -> int:
    """The index of the bracket that closes ``toks[at]`` (or ``end`` for an unclosed one)."""
    stack = [_PAIRS[toks[at][TEXT]]]
    at += 1
    while at < end:
        kind, text, _ = toks[at]
        if kind == "open":
            stack.append(_PAIRS[text])
        elif kind == "close" and text == stack[-1]:
            stack.pop()
            if not stack:
                return at
        at += 1
    return end


def _properties(toks: list[Token], at: int, end: int) -> tuple[str, ...]:
    """The property names of a block's own declarations (nested rules and at-rules skipped)."""
    found = []
    while at < end:
        stop = at
        while stop < end and toks[stop][KIND] != "semi" and toks[stop][TEXT] != "{":
            if toks[stop][KIND] == "open":
                stop = _matching(toks, stop, end)
            stop += 1
        if stop < end and toks[stop][TEXT] == "{":  # a nested rule: its own block, not a declaration
            stop = _matching(toks, stop, end)
        else:
            text = "".join(t[TEXT] for t in toks[at:stop])
            name, colon, _ = text.partition(":")
            if colon and re.fullmatch(r"\s*-?-?[A-Za-z_][\w-]*\s*", name):
                found.append(name.strip().lower())
        at = stop + 1
    return tuple(found)


# ---------------------------------------------------------------------------------------------------------
# Selectors


def split_list(selector: str) -> list[str]:
    """A selector list's complex selectors (top-level commas only)."""
    parts, depth, current, i = [], 0, "", 0
    while i < len(selector):
        ch = selector[i]
        if ch == "\\" and i + 1 < len(selector):
            current += selector[i : i + 2]
            i += 2
            continue
        if ch in "\"'":
            close = _string_end(selector, i)
            current += selector[i:close]
            i = close
            continue
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += ch
        i += 1
    parts.append(current.strip())
    return [p for p in parts if p]


def _string_end(text: str, at: int) -> int:
    quote, i = text[at], at + 1
    while i < len(text) and text[i] != quote:
        i += 2 if text[i] == "\\" else 1
    return min(i + 1, len(text))


_SCOPING_FUNCTIONS = frozenset({"is", "where", "matches", "-webkit-any", "-moz-any", "global", "local"})
_IDENT = re.compile(r"-?(?:[A-Za-z_]|[^\x00-\x7f]|\\.)(?:[\w-]|[^\x00-\x7f]|\\.)*")


def scoped(selector: str) -> bool:
    """Whether a complex selector stays within elements that carry one of the module's classes, ids or attributes."""
    i, n = 0, len(selector)
    while i < n:
        ch = selector[i]
        if ch == "\\":
            i += 2
        elif ch in ".#":
            ident = _IDENT.match(selector, i + 1)
            if ident:
                return True
            i += 1
        elif ch == "[":
            return True
        elif ch == ":":
            i, found = _pseudo(selector, i)
            if found:
                return True
        elif ch in "\"'":
            i = _string_end(selector, i)
        else:
            i += 1
    return False


def _pseudo(selector: str, at: int) -> tuple[int, bool]:
    """Skip the pseudo-class or pseudo-element at ``at``: (where it ends, whether it scopes the selector)."""
    i = at + (2 if selector.startswith("::", at) else 1)
    ident = _IDENT.match(selector, i)
    if ident is None:
        return i, False
    name = ident.group().lower()
    i = ident.end()
    if i >= len(selector) or selector[i] != "(":
        return i, False
    close = _close_paren(selector, i)
    inner = selector[i + 1 : close]
    found = name in _SCOPING_FUNCTIONS and bool(inner.strip()) and all(scoped(s) for s in split_list(inner))
    return close + 1, found


def _close_paren(text: str, at: int) -> int:
    depth, i = 0, at
    while i < len(text):
        ch = text[i]
        if ch == "\\":
            i += 2
            continue
        if ch in "\"'":
            i = _string_end(text, i)
            continue
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return len(text)


@dataclass(frozen=True, slots=True)
class Reach:
    """A rule that reaches outside the module: where it starts, and its selectors that do."""

    start: int
    selectors: tuple[str, ...]


def reaching(css: str) -> list[Reach]:
    """The style rules of ``css`` that restyle elements outside the module's own, in order."""
    found = []
    for rule in style_rules(css):
        if not rule.restyles:
            continue
        outside = tuple(s for s in split_list(rule.selector) if not scoped(s))
        if outside:
            found.append(Reach(rule.start, outside))
    return found
