"""HTTP servers on loopback that the image tests start: files at fixed paths, and a proxy in front of the local
verdaccio that answers some paths itself (an oversized tarball, say).

Each runs in a thread of the test process on a free port and records the paths it was asked for; no test
waits on a clock.
"""

from __future__ import annotations

import http.client
import http.server
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from urllib.parse import urlsplit

Answer = Callable[[http.server.BaseHTTPRequestHandler], None]
"""Writes the whole response to one request (status, headers, body)."""


@dataclass
class Served:
    """A server on loopback: its URL (``http://127.0.0.1:<port>/``), the paths it was asked for, the bytes of
    body each answer got out before the client stopped reading."""

    url: str
    requests: list[str] = field(default_factory=list)
    sent: dict[str, int] = field(default_factory=dict)


@contextmanager
def serve(route: Callable[[str], Answer | None]) -> Iterator[Served]:
    """Serve every GET with ``route(path)``'s answer (404 when it has none), in threads, until the block ends."""
    served = Served("")

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:
            served.requests.append(self.path)
            answer = route(self.path)
            if answer is None:
                self.send_error(404)
                return
            try:
                answer(self)
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True  # the client stopped reading: what the oversized answers expect

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    served.url = f"http://127.0.0.1:{server.server_address[1]}/"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield served
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def file_answer(data: bytes) -> Answer:
    def answer(h: http.server.BaseHTTPRequestHandler) -> None:
        h.send_response(200)
        h.send_header("Content-Type", "application/octet-stream")
        h.send_header("Content-Length", str(len(data)))
        h.end_headers()
        h.wfile.write(data)

    return answer


def zeros_answer(served: Served, size: int, *, announce: bool) -> Answer:
    """``size`` bytes of zeros in 1 MiB writes, with a Content-Length saying so (``announce``) or none (the body
    ends when the connection closes); ``served.sent[path]`` counts what got out before the client hung up."""
    chunk = bytes(1 << 20)

    def answer(h: http.server.BaseHTTPRequestHandler) -> None:
        h.send_response(200)
        h.send_header("Content-Type", "application/octet-stream")
        if announce:
            h.send_header("Content-Length", str(size))
        else:
            h.send_header("Connection", "close")
            h.close_connection = True
        h.end_headers()
        served.sent[h.path] = 0
        while served.sent[h.path] < size:
            h.wfile.write(chunk[: size - served.sent[h.path]])
            served.sent[h.path] += min(len(chunk), size - served.sent[h.path])

    return answer


@contextmanager
def files(by_path: Mapping[str, bytes]) -> Iterator[Served]:
    """A plain file server: each path (``/lodash-4.17.21.tgz``) answers its bytes."""
    with serve(lambda path: file_answer(by_path[path]) if path in by_path else None) as served:
        yield served


@contextmanager
def registry_proxy(upstream: str, own: Callable[[Served, str], Answer | None]) -> Iterator[Served]:
    """A registry in front of ``upstream`` (the local verdaccio): every request is forwarded to it, and its
    answers name the proxy instead of it (so npm's lock points here), except the paths ``own`` answers itself."""
    target = urlsplit(upstream)
    holder: list[Served] = []

    def forward(h: http.server.BaseHTTPRequestHandler) -> None:
        connection = http.client.HTTPConnection(target.netloc, timeout=60)
        try:
            headers = {k: v for k, v in h.headers.items() if k.lower() not in ("host", "accept-encoding")}
            connection.request("GET", h.path, headers=headers)
            response = connection.getresponse()
            body = response.read()
        finally:
            connection.close()
        body = body.replace(upstream.rstrip("/").encode(), holder[0].url.rstrip("/").encode())
        h.send_response(response.status)
        for key in ("Content-Type", "ETag", "Last-Modified"):
            value = response.getheader(key)
            if value is not None:
                h.send_header(key, value)
        h.send_header("Content-Length", str(len(body)))
        h.end_headers()
        h.wfile.write(body)

    def route(path: str) -> Answer:
        mine = own(holder[0], path)
        return mine if mine is not None else forward

    with serve(route) as served:
        holder.append(served)
        yield served
