"""The files an HTML page asks the browser to load: src/href attributes, CSS url() and @import, module imports."""

from __future__ import annotations

import re
from dataclasses import dataclass
from html.parser import HTMLParser

from neuralis_build.manifest.paths import has_scheme

# Attributes whose value is one URL, and the one whose value is a srcset list.
_URL_ATTRIBUTES = frozenset({"src", "href", "poster", "data", "action", "formaction", "background", "xlink:href"})
_CSS_URL = re.compile(r"""url\(\s*(?:"([^"]*)"|'([^']*)'|([^)'"\s]*))\s*\)""", re.IGNORECASE)
_CSS_IMPORT = re.compile(r"""@import\s+(?:"([^"]*)"|'([^']*)')""", re.IGNORECASE)
_JS_IMPORT = re.compile(r"""(?:\bimport\s*\(\s*|\bfrom\s*|\bimport\s+)(?:"(\.{1,2}/[^"]*)"|'(\.{1,2}/[^']*)')""")


@dataclass(frozen=True)
class Reference:
    """One URL the page loads or links to, and the 1-based line it sits on."""

    url: str
    line: int


def is_file_reference(url: str) -> bool:
    """True when ``url`` names a file served beside the page (not data:, blob:, http(s):, //host or #fragment)."""
    url = url.strip()
    return bool(url) and not url.startswith(("#", "//")) and not has_scheme(url)


def srcset_urls(value: str) -> list[str]:
    """The URLs of a srcset list; a URL may hold commas (data:), so candidates split as HTML parses them."""
    urls: list[str] = []
    i, n = 0, len(value)
    while i < n:
        while i < n and (value[i].isspace() or value[i] == ","):
            i += 1
        start = i
        while i < n and not value[i].isspace():
            i += 1
        url = value[start:i]
        if url.endswith(","):
            url = url.rstrip(",")
        else:
            depth = 0  # skip the descriptors up to the comma that ends this candidate
            while i < n and (value[i] != "," or depth):
                depth += {"(": 1, ")": -1}.get(value[i], 0)
                i += 1
        if url:
            urls.append(url)
    return urls


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[Reference] = []
        self._in: str | None = None
        self._module = False

    def _add(self, url: str, line: int) -> None:
        self.found.append(Reference(url.strip(), line))

    def _css(self, text: str, line: int) -> None:
        for m in _CSS_URL.finditer(text):
            self._add(next(g for g in m.groups() if g is not None), line + text.count("\n", 0, m.start()))
        for m in _CSS_IMPORT.finditer(text):
            self._add(next(g for g in m.groups() if g is not None), line + text.count("\n", 0, m.start()))

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
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
        if tag == self._in:
            self._in = None

    def handle_data(self, data: str) -> None:
        line = self.getpos()[0]
        if self._in == "style":
            self._css(data, line)
        elif self._in == "script" and self._module:
            for m in _JS_IMPORT.finditer(data):
                self._add(next(g for g in m.groups() if g is not None), line + data.count("\n", 0, m.start()))


def references(html: str) -> list[Reference]:
    """Every URL the page references, in document order (attributes, inline CSS, inline module imports)."""
    collector = _Collector()
    collector.feed(html)
    collector.close()
    return collector.found


def file_references(html: str) -> list[Reference]:
    """The references that name a file beside the page (relative or root-relative paths)."""
    return [r for r in references(html) if is_file_reference(r.url)]
