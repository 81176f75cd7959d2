"""``new URL("./x.png", import.meta.url)``: a file named relative to the module that names it.

Vite's authors (and libraries that ship a .wasm or a font beside their code) write it; esbuild leaves
the expression as it is. In the bundle, ``import.meta.url`` is dist/app/host.js, so the URL would
point beside the bundle, where nothing is: a 404 in the browser, found by nobody at build time.
The build finds each such literal in the output, learns through the source map which file wrote it,
resolves the name from that file's folder, and places the file like an imported asset (inlined up
to the same 4 KiB, else copied to ``assets/<name>-<hash>.<ext>``). A name that is not there, or
that is not an asset type (a script: a Web Worker has no place in a host's module), is refused at its
line in the author's own code and a warning in a dependency's (the code may never run). A bare name
(``"logo.png"``) is relative to the module as well, as a browser reads it; so is ``"pkg/file.mjs"``,
which is not looked up in node_modules. A template literal without ``${}`` is read like a string.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

from neuralis_build.util.diagnostics import Diagnostic, code

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

    from neuralis_build.ui.sourcemap import SourceMap

NB1918 = code("NB1918", "ui-meta-url", "new URL(..., import.meta.url) names a file the build cannot place")

MARK = "import.meta.url"
# esbuild prints a string literal with double quotes, and keeps a template literal as written unless it
# minifies (then a template without ${} becomes a string); a template with ${} is computed, left alone.
_PATTERN = re.compile(r'new URL\(\s*(?:"((?:[^"\\\n]|\\.)*)"|`((?:[^`\\$]|\$(?!\{))*)`)\s*,\s*import\.meta\.url\s*\)')
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def has_meta_urls(js: str) -> bool:
    """Whether the bundle names a file relative to ``import.meta.url`` (cheap: most bundles do not)."""
    return MARK in js and any(_relative(m) for m in _PATTERN.finditer(js))


def _relative(match: re.Match[str]) -> bool:
    """Whether the literal is a path relative to the module: ``./x``, ``../x``, and as a browser reads it, a
    bare ``x.png`` or ``pkg/file.mjs`` too (not a URL with a scheme, ``//host``, ``/root``, ``?q`` or ``#f``)."""
    try:
        value = _literal(match)
    except ValueError:  # an escape JSON does not have (\x41): not a name this build reads
        return False
    return bool(value) and not value.startswith(("/", "?", "#")) and not _SCHEME.match(value)


def _literal(match: re.Match[str]) -> str:
    if match.group(2) is not None:
        return match.group(2)  # a template literal without ${} or escapes: its text is its value
    value: str = json.loads(f'"{match.group(1)}"')
    return value


def _span(match: re.Match[str]) -> tuple[int, int]:
    """Where the literal is, its quotes included."""
    group = 1 if match.group(1) is not None else 2
    return match.start(group) - 1, match.end(group) + 1


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
            message = f"{shown} names {_rel(root, target)}, which does not exist"
            package = _package_named(root, literal)
            found.append(_diagnostic(*where, message, meta, entry, package=package))
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
        edits.append(Edit(*_span(match), json.dumps(url)))
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


def _package_named(root: Path, literal: str) -> str | None:
    """The installed package a bare name starts with (``pdfjs-dist/build/x.mjs``), or None."""
    from neuralis_build.npm.nodemodules import package_name_of

    if literal.startswith("."):
        return None
    name = package_name_of(literal)
    return name if literal.startswith(name + "/") and (root / "node_modules" / name).is_dir() else None


def _diagnostic(
    file: str,
    line: int,
    column: int,
    message: str,
    meta: Mapping[str, Any],
    entry: str,
    *,
    script: bool = False,
    package: str | None = None,
) -> Diagnostic:
    from neuralis_build.ui.graph import describe_chain, first_dependency, import_chain, package_of

    dependency = package_of(file)
    if dependency is None:
        if script:
            hint = (
                "the build ships one module (dist/app/host.js) and the assets it names, not another script: "
                'import the code if it can run on the page (import { x } from "./work"); a Web Worker '
                "(new Worker(new URL(...))) has no place in a host's module: do the work on the page or in the "
                "package's own service"
            )
        elif package is not None:
            hint = (
                f"new URL resolves a name from the folder of the file that writes it, as the browser does, not "
                f"through node_modules: {package} is not looked up there (a bundler's ?url import is not "
                "supported either)"
            )
        else:
            hint = "fix the name: it is resolved from the folder of the file that writes it"
        return Diagnostic("error", NB1918.id, file, "", message, hint, line, column)
    chain = import_chain(meta, entry, file)
    top = first_dependency(chain) or dependency
    message = f"{message}: the URL would fail to load if that code of {dependency} runs ({describe_chain(chain)})"
    hint = f"nothing to do if {top} never takes that path here; otherwise give it the URL its options accept"
    return Diagnostic("warning", NB1918.id, file, "", message, hint, line, column)
