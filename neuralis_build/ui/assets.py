"""Images, fonts and media imported by a UI module: small ones inlined, the rest emitted under dist/app/assets/.

esbuild's ``file`` loader copies each asset beside the bundle and hands the importer the path
``./assets/<name>-<hash>.<ext>``. In CSS that path resolves against the stylesheet's own URL, which
is right. In JavaScript a string like that would resolve against the *page* (an ``<img src>``), which
is not where the host serves the module, so every JS reference becomes
``new URL("./assets/…", import.meta.url).href``. An asset of at most ``INLINE_LIMIT`` bytes is
inlined as a data URL instead (in JS and CSS alike) and its file is dropped: a request saved.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

    from neuralis_build.ui.sourcemap import Edit

INLINE_LIMIT = 4096
"""Vite's default ``assetsInlineLimit``: at most this many bytes become a data URL."""

ASSET_DIR = "assets"

MIME_TYPES: dict[str, str] = {
    ".apng": "image/apng",
    ".avif": "image/avif",
    ".bmp": "image/bmp",
    ".cur": "image/x-icon",
    ".gif": "image/gif",
    ".ico": "image/x-icon",
    ".jfif": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".jpg": "image/jpeg",
    ".pjp": "image/jpeg",
    ".pjpeg": "image/jpeg",
    ".png": "image/png",
    ".svg": "image/svg+xml",
    ".webp": "image/webp",
    ".eot": "application/vnd.ms-fontobject",
    ".otf": "font/otf",
    ".ttf": "font/ttf",
    ".woff": "font/woff",
    ".woff2": "font/woff2",
    ".aac": "audio/aac",
    ".flac": "audio/flac",
    ".m4a": "audio/mp4",
    ".mp3": "audio/mpeg",
    ".oga": "audio/ogg",
    ".ogg": "audio/ogg",
    ".opus": "audio/ogg",
    ".wav": "audio/wav",
    ".mp4": "video/mp4",
    ".webm": "video/webm",
    ".pdf": "application/pdf",
    ".wasm": "application/wasm",
}
"""Every extension the build loads as an asset, with the type of its data URL."""


def loader_args() -> list[str]:
    """esbuild flags: the file loader for every asset type, named by content hash under assets/."""
    return [*(f"--loader:{ext}=file" for ext in MIME_TYPES), f"--asset-names={ASSET_DIR}/[name]-[hash]"]


def data_url(path: Path) -> str:
    import base64  # here, not at the top: most builds have no asset, and start-up would pay it

    mime = MIME_TYPES.get(path.suffix.lower(), "application/octet-stream")
    return f"data:{mime};base64,{base64.b64encode(path.read_bytes()).decode('ascii')}"


def _edits(text: str, replacements: Mapping[str, str]) -> list[Edit]:
    """An edit for each quoted occurrence of a key of ``replacements`` (esbuild writes them with double quotes)."""
    from neuralis_build.ui.sourcemap import Edit

    edits = []
    for old, new in replacements.items():
        needle = json.dumps(old)
        at = text.find(needle)
        while at >= 0:
            edits.append(Edit(at, at + len(needle), new))
            at = text.find(needle, at + len(needle))
    return edits


def _rewrite(path: Path, replacements: Mapping[str, str], keep_map: bool) -> None:
    """Apply the replacements to a built file and, when it keeps one, to its .map beside it."""
    if not replacements or not path.is_file():
        return
    from neuralis_build.ui.sourcemap import SourceMap, apply_edits

    text = path.read_text("utf-8")
    map_path = path.with_name(path.name + ".map")
    smap = SourceMap(json.loads(map_path.read_text("utf-8"))) if keep_map and map_path.is_file() else None
    new_text = apply_edits(text, _edits(text, replacements), smap)
    if new_text != text:
        path.write_text(new_text, "utf-8")
        if smap is not None:
            map_path.write_text(json.dumps(smap.to_json(), indent=2) + "\n", "utf-8")


def place_assets(staged: Path, outdir: str, meta: Mapping[str, Any], *, keep_maps: bool) -> list[str]:
    """Inline the small assets and point the JS at the others through ``import.meta.url``.

    ``outdir`` is the staged folder as the metafile names it; returns the asset files kept.
    """
    outputs: Mapping[str, Any] = meta.get("outputs", {})
    prefix = f"{outdir}/{ASSET_DIR}/"
    assets = sorted(p for p in outputs if p.startswith(prefix) and not p.endswith(".map"))
    if not assets:
        return []
    js: dict[str, str] = {}
    css: dict[str, str] = {}
    kept = []
    for out in assets:
        rel = "./" + out[len(outdir) + 1 :]
        file = staged / out[len(outdir) + 1 :]
        if file.stat().st_size <= INLINE_LIMIT:
            inline = data_url(file)
            js[rel] = json.dumps(inline)
            css[rel] = json.dumps(inline)
            file.unlink()
        else:
            js[rel] = f"new URL({json.dumps(rel)},import.meta.url).href"
            kept.append(out[len(outdir) + 1 :])
    _rewrite(staged / "host.js", js, keep_maps)
    _rewrite(staged / "host.css", css, keep_maps)
    folder = staged / ASSET_DIR
    if folder.is_dir() and not any(folder.iterdir()):
        folder.rmdir()
    return kept
