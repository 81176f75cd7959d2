"""Stylesheet rules that style elements outside the module's own (NB1926, a warning): a module shares the host's page.

The host loads ``dist/app/host.css`` into the page beside every other package's module and its own
chrome, so a rule for ``*``, ``html``, ``body``, ``:root`` or a bare ``h1`` restyles all of them:
Tailwind's preflight resets every heading of the page, Mantine's stylesheet sets the page's font. The
build reads what ``host.css`` is made of, each stylesheet the metafile lists for it as esbuild received
it (the file itself, or what Sass, Less or PostCSS handed esbuild, mapped back to the file the rule is
written in), so each finding has its file and line without a source map of the bundle; cssscan.py
says which selectors reach outside. One warning per file that holds such rules: how many, the first
selectors, and what to do (Tailwind's own switch for its preflight; for a library's stylesheet, the
import in the package's code that brought it).
"""

from __future__ import annotations

import base64
import json
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import TYPE_CHECKING

from neuralis_build.util.diagnostics import Diagnostic, code

if TYPE_CHECKING:
    from typing import Any

    from neuralis_build.ui.sourcemap import Origin, SourceMap

NB1926 = code("NB1926", "ui-css-outside-module", "a stylesheet of the module styles elements outside it")

SHOWN = 4
"""Selectors a finding quotes; the rest are counted."""

_TAILWIND = re.compile(r"/\*\s*!\s*tailwindcss v(\d+)\.")
_INLINE_MAP = re.compile(r"/\*# sourceMappingURL=data:application/json;base64,([A-Za-z0-9+/=]+) \*/\s*$")


@dataclass(frozen=True, slots=True)
class Hit:
    """One rule that reaches outside: the file it is written in, where, its selectors that do, and what
    brought it into host.css (the input esbuild bundled, and the Tailwind major whose output it is)."""

    source: str  # package-relative, or as the metafile names it
    at: tuple[int, int] | None  # line and column in ``source``, 1-based
    selectors: tuple[str, ...]
    stylesheet: str  # the input: the same file, unless a tool wrote the rule there
    tailwind: int | None


@dataclass(frozen=True, slots=True)
class Group:
    """The rules of one source file that reach outside, as one finding reports them."""

    source: str
    stylesheet: str
    tailwind: int | None
    at: tuple[int, int] | None  # the first rule's
    rules: int
    selectors: tuple[str, ...]  # in order, each once


def outside_rules(
    root: Path,
    meta: Mapping[str, Any],
    css_output: str,
    entry: str,
    loaded: Sequence[tuple[str, str]] = (),
    root_class: str = "my-module",
) -> list[Diagnostic]:
    """NB1926 for each file whose rules in ``css_output`` (the metafile's key of host.css) reach outside."""
    copies = {os.path.normpath(Path(f).resolve()): c for f, c in loaded}
    here = root.resolve()
    hits: list[Hit] = []
    for stylesheet in meta.get("outputs", {}).get(css_output, {}).get("inputs", {}):
        if not stylesheet.startswith("<") and ":" not in stylesheet:
            hits += _scan(root, stylesheet, copies.get(os.path.normpath(here / stylesheet)))
    return [_diagnostic(root, meta, entry, g, root_class) for g in _grouped(hits)]


def _grouped(hits: Sequence[Hit]) -> list[Group]:
    """One group per source file, in the order their first rule comes in host.css."""
    by_source: dict[str, list[Hit]] = {}
    for hit in hits:
        by_source.setdefault(hit.source, []).append(hit)
    groups = []
    for source, own in by_source.items():
        first = own[0]
        selectors = tuple(dict.fromkeys(s for h in own for s in h.selectors))
        at = next((h.at for h in own if h.at is not None), None)
        groups.append(Group(source, first.stylesheet, first.tailwind, at, len(own), selectors))
    return groups


def _scan(root: Path, stylesheet: str, copy: str | None) -> list[Hit]:
    """The rules of one input that reach outside, each placed in the file it is written in."""
    from neuralis_build.ui.cssscan import reaching
    from neuralis_build.ui.sourcemap import line_starts, position

    try:
        text = Path(copy).read_text("utf-8") if copy else (root / stylesheet).read_text("utf-8", errors="replace")
    except OSError:
        return []
    found = reaching(text)
    if not found:
        return []
    version = _TAILWIND.search(text)
    tailwind = int(version[1]) if version else None
    smap = _inline_map(text) if copy else None
    starts = line_starts(text)
    directive = _directive(root, stylesheet) if tailwind is not None else None
    hits = []
    for reach in found:
        line, column = position(starts, reach.start)
        source: str = stylesheet
        at: tuple[int, int] | None = (line + 1, column + 1)
        if smap is not None:  # what a tool wrote: where its map says the rule comes from
            origin = smap.origin(line, column)
            source, at = (stylesheet, None) if origin is None else _mapped(root, stylesheet, origin)
        if directive is not None and source == stylesheet:
            at = directive  # Tailwind maps what it writes to its directive's line or near it: that line
        hits.append(Hit(source, at, reach.selectors, stylesheet, tailwind))
    return hits


def _inline_map(text: str) -> SourceMap | None:
    """The tool's map esbuild was handed with the stylesheet (its sources relative to the stylesheet's folder)."""
    from neuralis_build.ui.sourcemap import SourceMap

    found = _INLINE_MAP.search(text)
    if found is None:
        return None
    try:
        return SourceMap(json.loads(base64.b64decode(found[1])))
    except ValueError:
        return None


def _mapped(root: Path, stylesheet: str, origin: Origin) -> tuple[str, tuple[int, int]]:
    """A map's source (relative to the stylesheet's folder) as the package names it, and a 1-based position."""
    from neuralis_build.ui.driver import relative

    source = relative(os.path.join(os.path.dirname(stylesheet), origin.source), root)
    return source, (origin.line + 1, origin.column + 1)


_DIRECTIVE = re.compile(r'@import\s+(?:url\(\s*)?["\']tailwindcss["\']|@tailwind\s+base\b')


def _directive(root: Path, source: str) -> tuple[int, int] | None:
    """Where the stylesheet brings Tailwind's preflight in (``@import "tailwindcss"``, ``@tailwind base``): Tailwind
    maps the rules it writes to that line or near it, and that line is the one to change."""
    try:
        text = (root / source).read_text("utf-8", errors="replace")
    except OSError:
        return None
    found = _DIRECTIVE.search(text)
    if found is None:
        return None
    line = text.count("\n", 0, found.start())
    return line + 1, found.start() - (text.rfind("\n", 0, found.start()) + 1) + 1


def _diagnostic(root: Path, meta: Mapping[str, Any], entry: str, group: Group, root_class: str) -> Diagnostic:
    """The warning for one file: at the rule when the file is the package's, at its import when a library's."""
    shown = ", ".join(group.selectors[:SHOWN]) + (", …" if len(group.selectors) > SHOWN else "")
    count = f"{group.rules} rules that style" if group.rules != 1 else "1 rule that styles"
    what = f"{count} elements outside the module ({shown}): {_EFFECT}"
    if group.source.find("node_modules/") < 0:
        hint = _tailwind_hint(group.tailwind) if group.tailwind else _own_hint(root_class)
        line, column = group.at or (None, None)
        return Diagnostic("warning", NB1926.id, group.source, "", f"{group.source} has {what}", hint, line, column)
    return _library_diagnostic(root, meta, entry, group, what, root_class)


_EFFECT = "in the host's page they restyle every element they match, the host's and other modules' included"


def _library_diagnostic(
    root: Path, meta: Mapping[str, Any], entry: str, group: Group, what: str, root_class: str
) -> Diagnostic:
    from neuralis_build.ui.driver import locate_import
    from neuralis_build.ui.graph import package_of

    package = package_of(group.source) or group.source
    importer, specifier = _brought_by(meta, entry, group.stylesheet)
    line, column = locate_import(root, importer, specifier) or (None, None)
    shown = group.source[group.source.find("node_modules/") :]
    message = f'the stylesheet {shown} of {package}, imported by {importer} as "{specifier}", has {what}'
    hint = (
        f"a library's page-wide stylesheet is written for an app that owns the page: import the part of {package} "
        "that styles only its components if it ships one (its documentation names it), or scope its selectors "
        f"under the module's root element at build time (postcss-prefix-selector with prefix .{root_class} in the "
        "package's PostCSS config)"
    )
    return Diagnostic("warning", NB1926.id, importer, "", message, hint, line, column)


def _brought_by(meta: Mapping[str, Any], entry: str, stylesheet: str) -> tuple[str, str]:
    """The package's own file that imports the first installed file on the way to ``stylesheet``, and how."""
    from neuralis_build.ui.graph import import_chain, package_of

    chain = import_chain(meta, entry, stylesheet)
    inputs: Mapping[str, Any] = meta.get("inputs", {})
    for here, there in pairwise(chain):
        if package_of(here) is None and package_of(there) is not None:
            for record in inputs.get(here, {}).get("imports", []):
                if record.get("path") == there and record.get("original"):
                    return here, str(record["original"])
            return here, there
    return entry, stylesheet


def _tailwind_hint(major: int) -> str:
    if major >= 4:
        return (
            "Tailwind's preflight resets the page's elements: import Tailwind without it, replacing "
            '@import "tailwindcss"; with @layer theme, base, components, utilities; @import "tailwindcss/theme.css" '
            'layer(theme); @import "tailwindcss/utilities.css" layer(utilities); and style the module\'s elements '
            "with utilities (docs/styling.md, Global styles)"
        )
    return (
        "Tailwind's preflight resets the page's elements: turn it off with corePlugins: { preflight: false } in "
        "tailwind.config.js (keep @tailwind base; for the variables its utilities use), and style the module's "
        "elements with utilities (docs/styling.md, Global styles)"
    )


def _own_hint(root_class: str) -> str:
    return (
        f"scope each selector under the module's root element (.{root_class} h1, or .{root_class} {{ h1 {{ … }} }} "
        f"with CSS nesting; :where(.{root_class}) h1 keeps it as easy to override as h1), and leave resets of "
        "html, body and * to the host's page"
    )
