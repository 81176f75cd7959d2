"""The files an HTML page asks the browser to load: src/href attributes, CSS url() and @import, module imports.

An iframe entry comes from the package, so it may be hostile: the work is linear in the page's size and
bounded by a budget of parser events (tags, text runs, comments), after which the scan stops and says
where. Python's ``HTMLParser.close()`` rescans an unclosed construct once per character (quadratic on
``<a<a<a…``), so the end of the page is handled here the way HTML5 handles end-of-file instead.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from html.parser import HTMLParser

from neuralis_build.manifest.paths import has_scheme

# Attributes whose value is one URL, and the one whose value is a srcset list.
_URL_ATTRIBUTES = frozenset({"src", "href", "poster", "data", "action", "formaction", "background", "xlink:href"})
# An unquoted url() stops at "(" too (CSS requires it escaped there), so "url(url(url(…" is linear.
_CSS_URL = re.compile(r"""url\(\s*(?:"([^"]*)"|'([^']*)'|([^()'"\s]*))\s*\)""", re.IGNORECASE)
_CSS_IMPORT = re.compile(r"""@import\s+(?:"([^"]*)"|'([^']*)')""", re.IGNORECASE)
_JS_IMPORT = re.compile(r"""(?:\bimport\s*\(\s*|\bfrom\s*|\bimport\s+)(?:"(\.{1,2}/[^"]*)"|'(\.{1,2}/[^']*)')""")


MAX_CHARS = 4 * 1024 * 1024
"""How much of a page is scanned; a self-contained page past 4 MiB is rare (its inline data is no reference)."""
MAX_EVENTS = 100_000
"""Parser events (tags, text runs, comments) one page may cost; a real page has far fewer."""
MAX_REFERENCES = 10_000
"""References one page may hold before the scan stops (each becomes a finding)."""


@dataclass(frozen=True)
class Reference:
    """One URL the page loads or links to, and the 1-based line it sits on."""

    url: str
    line: int


@dataclass(frozen=True)
class Scan:
    """The references found; when the scan stopped at a budget, the line where and which budget."""

    references: list[Reference]
    stopped_at: int | None = None
    why: str = ""


class _Budget(Exception):
    """The page cost more than a budget allows; ``why`` names the budget."""

    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


def is_file_reference(url: str) -> bool:
    """True when ``url`` names a file served beside the page (not data:, blob:, http(s):, //host or #fragment)."""
    url = url.strip()
    return bool(url) and not url.startswith(("#", "//")) and not has_scheme(url)


_SRCSET_SEPARATORS = re.compile(r"[\s,]*")
_SRCSET_URL = re.compile(r"\S*")
# a candidate's descriptors, up to the comma that ends it; "(" opens a group a comma does not end (no nesting)
_SRCSET_DESCRIPTORS = re.compile(r"(?:[^,(]++|\([^)]*+\)?+)*+")


def srcset_urls(value: str) -> list[str]:
    """The URLs of a srcset list; a URL may hold commas (data:), so candidates split as HTML parses them."""
    urls: list[str] = []
    i, n = 0, len(value)
    while i < n:
        i = _SRCSET_SEPARATORS.match(value, i).end()  # type: ignore[union-attr]  # matches the empty string
        end = _SRCSET_URL.match(value, i).end()  # type: ignore[union-attr]
        url = value[i:end]
        i = end
        if url.endswith(","):
            url = url.rstrip(",")
        else:
            i = _SRCSET_DESCRIPTORS.match(value, i).end()  # type: ignore[union-attr]
        if url:
            urls.append(url)
    return urls


def _matches(pattern: re.Pattern[str], text: str, line: int) -> Iterator[tuple[str, int]]:
    """Each match's first non-empty group and its line, counting newlines once over the text (linear)."""
    pos = 0
    for m in pattern.finditer(text):
        line += text.count("\n", pos, m.start())
        pos = m.start()
        yield next(g for g in m.groups() if g is not None), line


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[Reference] = []
        self._in: str | None = None
        self._module = False
        self._events = 0

    def _tick(self) -> None:
        self._events += 1
        if self._events > MAX_EVENTS:
            raise _Budget(f"after {MAX_EVENTS:,} tags and text runs")

    def _add(self, url: str, line: int) -> None:
        if len(self.found) >= MAX_REFERENCES:
            raise _Budget(f"after {MAX_REFERENCES:,} references")
        self.found.append(Reference(url.strip(), line))

    def _css(self, text: str, line: int) -> None:
        for url, at in _matches(_CSS_URL, text, line):
            self._add(url, at)
        for url, at in _matches(_CSS_IMPORT, text, line):
            self._add(url, at)

    def finish(self) -> None:
        """End of file as HTML5 reads it: an unclosed <style> or <script> keeps its text; an unclosed tag,
        comment or declaration holds no reference (``HTMLParser.close`` is quadratic on those)."""
        if self._in is not None and self.rawdata:
            self.handle_data(self.rawdata)
        self.rawdata = ""

    def handle_comment(self, data: str) -> None:
        self._tick()

    def handle_decl(self, decl: str) -> None:
        self._tick()

    def handle_pi(self, data: str) -> None:
        self._tick()

    def unknown_decl(self, data: str) -> None:
        self._tick()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._tick()
        line = self.getpos()[0]
        for name, value in attrs:
            if value is None:
                continue
            if name in _URL_ATTRIBUTES:
                self._add(value, line)
            elif name in ("srcset", "imagesrcset"):
                for url in srcset_urls(value):
                    self._add(url, line)
            elif name == "style":
                self._css(value, line)
        if tag in ("style", "script"):
            self._in = tag
            self._module = tag == "script" and any(n == "type" and v == "module" for n, v in attrs)

    def handle_endtag(self, tag: str) -> None:
        self._tick()
        if tag == self._in:
            self._in = None

    def handle_data(self, data: str) -> None:
        self._tick()
        line = self.getpos()[0]
        if self._in == "style":
            self._css(data, line)
        elif self._in == "script" and self._module:
            for url, at in _matches(_JS_IMPORT, data, line):
                self._add(url, at)


def scan(html: str) -> Scan:
    """Every URL the page references, in document order (attributes, inline CSS, inline module imports),
    within the budgets: ``MAX_CHARS`` of text, ``MAX_EVENTS`` parser events, ``MAX_REFERENCES`` references."""
    collector = _Collector()
    try:
        collector.feed(html[:MAX_CHARS])
        collector.finish()
    except _Budget as budget:
        return Scan(collector.found, collector.getpos()[0], budget.why)
    if len(html) > MAX_CHARS:
        return Scan(collector.found, html.count("\n", 0, MAX_CHARS) + 1, f"after {MAX_CHARS:,} characters")
    return Scan(collector.found)


def references(html: str) -> list[Reference]:
    """Every URL the page references (see :func:`scan`), whether or not the scan read the whole page."""
    return scan(html).references


def file_references(html: str) -> Scan:
    """The references that name a file beside the page (relative or root-relative paths)."""
    found = scan(html)
    return Scan([r for r in found.references if is_file_reference(r.url)], found.stopped_at, found.why)
