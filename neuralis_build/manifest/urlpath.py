"""A manifest path that the host serves by URL, read the way a browser reads it.

An iframe surface's ``url`` and ``app.module``'s ``entry`` and ``css`` are package paths, but the host
serves them over HTTP, so what loads is what a WHATWG URL parser makes of the text: ``%2e%2e`` and
``.%2E`` are ``..``, tabs and newlines vanish (``.<TAB>.`` is ``..``), a backslash is a slash, leading
and trailing spaces go, and the static server percent-decodes what is left. Judging the text alone
lets such a path pass while the browser loads a file outside the place the rule allows.

The parser is ada (the ``ada-url`` package), the WHATWG URL parser Node.js itself uses; its answer is
the one path every rule about these fields judges.
"""

from __future__ import annotations

import re
import urllib.parse
from dataclasses import dataclass

_ORIGIN = "https://package.invalid"
_ENCODED_SEPARATOR = re.compile(r"%(?:2f|5c|00)", re.IGNORECASE)


@dataclass(frozen=True)
class ServedPath:
    """What the host serves for a manifest path: the package-relative file it opens, and whether that is
    exactly what the text names (False when URL parsing changed its folders: a hidden ``..``, a tab…)."""

    path: str
    plain: bool


def served_path(text: str, base: str = "") -> ServedPath | None:
    """The package-relative file a browser asks for when it loads ``text`` from the package folder ``base``
    (the root by default), percent-decoded as a static server decodes it; None when it is no file of the
    package at all (another scheme or host, or an encoded ``/``, ``\\``, NUL or non-UTF-8 byte)."""
    import ada_url

    try:
        url = ada_url.URL(text, base=f"{_ORIGIN}/{base}/" if base else f"{_ORIGIN}/")
    except (ValueError, UnicodeError):
        return None
    if f"{url.protocol}//{url.host}" != _ORIGIN:
        return None
    encoded = url.pathname[1:]
    if _ENCODED_SEPARATOR.search(encoded):
        return None
    try:
        path = urllib.parse.unquote(encoded, errors="strict")
        literal = urllib.parse.unquote(f"{base}/{text}" if base else text, errors="strict")
    except UnicodeDecodeError:
        return None
    plain = path == literal and not url.search and not url.hash
    return ServedPath(path, plain)
