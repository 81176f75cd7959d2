"""Class names from CSS modules (``.module.css``, ``.module.scss``, ...) made unique per package, minified or not.

esbuild renames a CSS module's local names so they cannot collide *within one build*
(``Card_title``, or ``o`` when minified), but every package is built alone and all of them share
one page. esbuild has no option for a prefix (evanw/esbuild#3484), so the build adds one afterwards,
guided by the source maps esbuild wrote, never by guessing at the text:

- in host.css, esbuild's map names every local name it generated (global names carry no name),
  so each named segment is exactly one local name to prefix;
- in host.js, the names reach the code only as string literals in the small module esbuild
  generates for each CSS file, whose segments map back to that CSS file; only those literals,
  and only when every word of them is a local name, are rewritten.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from neuralis_build.ui.sourcemap import Edit, SourceMap, apply_edits, line_starts

_IDENT = re.compile(r"-?[A-Za-z_][A-Za-z0-9_-]*")
_LITERAL = re.compile(r'"([A-Za-z0-9_ -]*)"')  # esbuild writes a local-name literal plainly, without escapes


def scope_prefix(package_name: str, minify: bool) -> str:
    """The prefix of one package's local names: readable unminified, short when minified; unique per name."""
    digest = hashlib.sha256(package_name.encode("utf-8")).hexdigest()
    if minify:
        return f"n{digest[:6]}_"
    slug = re.sub(r"[^A-Za-z0-9]+", "-", package_name).strip("-") or "pkg"
    return f"{slug}_{digest[:4]}_"


def _load(path: Path) -> tuple[str, SourceMap]:
    return path.read_text("utf-8"), SourceMap(json.loads(path.with_name(path.name + ".map").read_text("utf-8")))


def _save(path: Path, text: str, smap: SourceMap, keep_map: bool) -> None:
    path.write_text(text, "utf-8")
    if keep_map:
        path.with_name(path.name + ".map").write_text(json.dumps(smap.to_json(), indent=2) + "\n", "utf-8")


def scope_local_names(staged: Path, prefix: str, *, keep_maps: bool, js_map: SourceMap | None = None) -> set[str]:
    """Prefix every local CSS name in staged host.css and host.js (both with maps); returns the old names.

    ``keep_maps``: the maps are the author's (--sourcemap), so they are updated too; otherwise
    they only guided the edits and are left as they were, to be dropped. ``js_map``: host.js.map as
    an earlier pass of the same build decoded it (unedited since), else it is read here.
    """
    css_path, js_path = staged / "host.css", staged / "host.js"
    if not css_path.is_file():
        return set()
    css, css_map = _load(css_path)
    starts = line_starts(css)
    names: set[str] = set()
    edits = []
    for line, column, _original in css_map.named():
        at = starts[line] + column if line < len(starts) else -1
        m = _IDENT.match(css, at) if at >= 0 else None
        if m is None:
            continue
        names.add(m.group(0))
        edits.append(Edit(at, at, prefix))
    if not names:
        return names
    _save(css_path, apply_edits(css, set(edits), css_map if keep_maps else None), css_map, keep_maps)

    if js_map is None:
        js, js_map = _load(js_path)
    else:
        js = js_path.read_text("utf-8")
    starts = line_starts(js)
    css_sources = {i for i, s in enumerate(js_map.sources) if s.endswith((".css", ".scss", ".sass", ".less"))}
    js_edits = []
    for line, segments in enumerate(js_map.lines):
        end_of_line = (starts[line + 1] - 1) if line + 1 < len(starts) else len(js)
        for i, seg in enumerate(segments):
            if len(seg) < 4 or seg[1] not in css_sources:
                continue
            begin = starts[line] + seg[0]
            end = starts[line] + segments[i + 1][0] if i + 1 < len(segments) else end_of_line
            for m in _LITERAL.finditer(js, begin, end):
                words = m.group(1).split()
                if words and all(w in names for w in words):
                    new = json.dumps(" ".join(prefix + w for w in words))
                    js_edits.append(Edit(m.start(), m.end(), new))
    _save(js_path, apply_edits(js, set(js_edits), js_map if keep_maps else None), js_map, keep_maps)
    return names
