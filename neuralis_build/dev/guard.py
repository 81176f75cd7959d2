"""Who may reach the dev server, and how much they may send: the session's keys, the origins, the limits.

Two secrets are drawn per session (``secrets.token_urlsafe``). The page key is in the URL `dev`
prints and in the page it serves; every endpoint that does something (state, live, publish) wants
it in a header, from a request whose ``Origin`` is the page's own. The files key is the first path
segment of the package origin, the second port that serves ``/pkg/``: a sandboxed surface learns it
from its own URL, so it grants nothing but the package files. Another local user sees neither;
a web page can neither read them nor forge the ``Origin``.
"""

from __future__ import annotations

import hmac
import os
import secrets
from dataclasses import dataclass
from email.message import Message
from pathlib import Path

KEY_HEADER = "X-Neuralis-Key"
KEY_PARAM = "key"
MAX_BODY = 1024 * 1024
"""The largest request body taken (a test event is capped at 4 KiB of data; the rest is the form)."""
REQUEST_TIMEOUT = 20.0
"""Seconds a connection may stay silent (headers, a body, a keep-alive) before it is closed."""
LOOPBACK_NAMES = ("127.0.0.1", "localhost")


@dataclass(frozen=True)
class Keys:
    """The session's two secrets: one for the page and its controls, one for the package files."""

    page: str
    files: str

    @classmethod
    def draw(cls) -> Keys:
        return cls(secrets.token_urlsafe(32), secrets.token_urlsafe(32))


def same_secret(given: str | None, expected: str) -> bool:
    """``given`` is ``expected``, compared in constant time (a missing one never is)."""
    return given is not None and hmac.compare_digest(given.encode("utf-8", "replace"), expected.encode())


def origins_of(port: int) -> frozenset[str]:
    """The origins a browser gives a page served on 127.0.0.1:``port`` (by address or by name)."""
    return frozenset(f"http://{name}:{port}" for name in LOOPBACK_NAMES)


def addressed_to(host_header: str | None, port: int) -> bool:
    """The ``Host`` header names this server: a loopback name and its port (no DNS rebinding)."""
    host, sep, given = (host_header or "").rpartition(":")
    if not sep:
        host, given = given, ""
    return host in LOOPBACK_NAMES and given == str(port)


class Refused(Exception):
    """A request the server answers with ``status`` and ``message`` and nothing else."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def body_length(headers: Message) -> int:
    """The request body's declared length, or a refusal: 400 for a malformed one, 413 past the cap."""
    if headers.get("Transfer-Encoding") is not None:
        raise Refused(400, "a chunked request body is not taken; send a Content-Length")
    raw = headers.get("Content-Length")
    if raw is None:
        return 0
    text = raw.strip()
    if not text.isascii() or not text.isdigit():
        raise Refused(400, f"Content-Length {raw[:40]!r} is not a number of bytes")
    length = int(text)
    if length > MAX_BODY:
        raise Refused(413, f"the request body is {length} bytes; the dev server takes at most {MAX_BODY}")
    return length


def redirect_page(url: str, folder: Path) -> Path:
    """A file only its owner may read that sends a browser on to ``url``.

    A browser started with the page's URL would show its key to every local user (a process's
    arguments are public); started with this file's path, it shows nothing secret.
    """
    import html

    page = folder / "open-neuralis-dev.html"
    fd = os.open(page, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        target = html.escape(url)
        out.write(
            f'<!doctype html>\n<meta charset="utf-8">\n<meta name="referrer" content="no-referrer">\n'
            f'<meta http-equiv="refresh" content="0;url={target}">\n<a href="{target}">open the dev page</a>\n'
        )
    return page
