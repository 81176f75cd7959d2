"""``new URL("./x.png", import.meta.url)``: a file named relative to the module that names it.

Vite's authors (and libraries that ship a .wasm or a font beside their code) write it; esbuild leaves
the expression as it is. In the bundle, ``import.meta.url`` is dist/app/host.js, so the URL would
point beside the bundle, where nothing is: a 404 in the browser, found by nobody at build time.
The build finds each such literal in the output, learns through the source map which file wrote it,
resolves the name from that file's folder, and places the file like an imported asset (inlined up
to the same 4 KiB, else copied to ``assets/<name>-<hash>.<ext>``). A name that is not there, or
that is not an asset type (a script needs bundling: import it instead), is refused at its line in
the author's own code and a warning in a dependency's (the code may never run).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from neuralis_build.diagnostics import Diagnostic, code

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up); mypy knows the name
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

    from neuralis_build.ui.sourcemap import SourceMap

NB1918 = code("NB1918", "ui-meta-url", "new URL(..., import.meta.url) names a file the build cannot place")

MARK = "import.meta.url"
# esbuild prints every string literal with double quotes; a template literal with ${} is computed, left alone
_PATTERN = re.compile(r'new URL\(\s*"((?:[^"\\\n]|\\.)*)"\s*,\s*import\.meta\.url\s*\)')


def has_meta_urls(js: str) -> bool:
    """Whether the bundle names a file relative to ``import.meta.url`` (cheap: most bundles do not)."""
    return MARK in js and any(_relative(m) for m in _PATTERN.finditer(js))


def _relative(match: re.Match[str]) -> bool:
    return match.group(1).startswith(("./", "../"))


def _literal(match: re.Match[str]) -> str:
    value: str = json.loads(f'"{match.group(1)}"')
    return value


def _refs(js: str) -> list[re.Match[str]]:
    return [m for m in _PATTERN.finditer(js) if _relative(m)]


def locate(
    root: Path, js: str, smap: SourceMap, map_dir: Path, meta: Mapping[str, Any], entry: str
) -> tuple[list[Path | None], list[Diagnostic]]:
    """The file each relative ``new URL`` of the bundle names (None when it cannot be placed), and the findings."""
    from neuralis_build.ui.assets import MIME_TYPES
    from neuralis_build.ui.sourcemap import line_starts, position

    starts = line_starts(js)
    targets: list[Path | None] = []
    found: list[Diagnostic] = []
    for match in _refs(js):
        origin = smap.origin(*position(starts, match.start()))
        if origin is None:  # no source to resolve from: leave it as esbuild wrote it
            targets.append(None)
            continue
        source = (map_dir / origin.source).resolve()
        literal = _literal(match)
        target = (source.parent / re.split(r"[?#]", literal, maxsplit=1)[0]).resolve()
        file = _rel(root, source)
        where = (file, origin.line + 1, origin.column + 1)
        shown = f"new URL({json.dumps(literal)}, import.meta.url)"
        if not target.is_file():
            found.append(_diagnostic(*where, f"{shown} names {_rel(root, target)}, which does not exist", meta, entry))
            targets.append(None)
        elif target.suffix.lower() not in MIME_TYPES:
            message = f"{shown} names {_rel(root, target)}, which is not an asset the build can copy"
            found.append(_diagnostic(*where, message, meta, entry, script=True))
            targets.append(None)
        else:
            targets.append(target)
    return targets, found


def place(staged: Path, targets: Sequence[Path | None]) -> None:
    """Point each located ``new URL`` of staged/host.js at its placed file (its map follows, if it has one)."""
    from neuralis_build.ui.assets import ASSET_DIR, INLINE_LIMIT, data_url
    from neuralis_build.ui.sourcemap import Edit, SourceMap, apply_edits

    js_path = staged / "host.js"
    text = js_path.read_text("utf-8")
    refs = _refs(text)
    if len(refs) != len(targets):  # the bundle is the one located; a mismatch is a bug, not the author's
        raise AssertionError(f"{len(refs)} new URL() in host.js, {len(targets)} located")
    edits = []
    for match, target in zip(refs, targets, strict=True):
        if target is None:
            continue
        data = target.read_bytes()
        if len(data) <= INLINE_LIMIT:
            url = data_url(target)
        else:
            url = f"./{ASSET_DIR}/{target.stem}-{_hash(data)}{target.suffix}"
            out = staged / url[2:]
            out.parent.mkdir(exist_ok=True)
            out.write_bytes(data)
        edits.append(Edit(match.start(1) - 1, match.end(1) + 1, json.dumps(url)))
    map_path = staged / "host.js.map"
    smap = SourceMap(json.loads(map_path.read_text("utf-8"))) if map_path.is_file() else None
    js_path.write_text(apply_edits(text, edits, smap), "utf-8")
    if smap is not None:
        map_path.write_text(json.dumps(smap.to_json(), indent=2) + "\n", "utf-8")


def _hash(data: bytes) -> str:
    """Eight base32 characters of the content's digest, as esbuild names its own assets."""
    import base64
    import hashlib

    return base64.b32encode(hashlib.blake2b(data, digest_size=5).digest()).decode("ascii")


def _rel(root: Path, path: Path) -> str:
    return Path(os.path.relpath(path, root.resolve())).as_posix()


def _diagnostic(
    file: str, line: int, column: int, message: str, meta: Mapping[str, Any], entry: str, *, script: bool = False
) -> Diagnostic:
    from neuralis_build.ui.graph import describe_chain, first_dependency, import_chain, package_of

    dependency = package_of(file)
    if dependency is None:
        hint = (
            'import a script or module instead (import { x } from "./work"): the build bundles it'
            if script
            else "fix the name: it is resolved from the folder of the file that writes it"
        )
        return Diagnostic("error", NB1918.id, file, "", message, hint, line, column)
    chain = import_chain(meta, entry, file)
    top = first_dependency(chain) or dependency
    message = f"{message}: the URL would fail to load if that code of {dependency} runs ({describe_chain(chain)})"
    hint = f"nothing to do if {top} never takes that path here; otherwise give it the URL its options accept"
    return Diagnostic("warning", NB1918.id, file, "", message, hint, line, column)
