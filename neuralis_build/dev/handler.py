"""What both dev servers' request handlers share: the loopback check, the limits, the quiet failures.

A request that is not addressed to this server's own loopback name and port is refused (no DNS
rebinding). A connection silent for ``REQUEST_TIMEOUT`` is closed, and so is one whose request
(headers and body) has not arrived whole by then, however it trickles (no slowloris). At most
``MAX_CONNECTIONS`` are served at once; one more is answered 503 and closed, so no client can make
the server start threads without end. A file system error while serving (a name longer than the
file system takes, a file gone) is a 404, never a traceback; a client that went away ends its
request quietly.
"""

from __future__ import annotations

import contextlib
import http.server
import json
import mimetypes
import socket
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from neuralis_build.dev.guard import REQUEST_TIMEOUT, Refused, addressed_to, body_length

MAX_CONNECTIONS = 64
"""Connections one server serves at once (a browser opens about six per origin)."""
_BUSY = b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"

_TYPES = {".js": "text/javascript", ".mjs": "text/javascript", ".css": "text/css", ".json": "application/json"}


class BaseHandler(http.server.BaseHTTPRequestHandler):
    """GET, HEAD and POST routed to ``get`` and ``post``; every answer says ``no-store`` and ``nosniff``."""

    server: LoopbackServer
    protocol_version = "HTTP/1.1"
    timeout = REQUEST_TIMEOUT

    def log_message(self, format: str, *args: object) -> None:
        pass

    def handle_one_request(self) -> None:
        # The request must arrive whole by the deadline; the socket timeout alone lets a client that
        # sends a byte every few seconds hold its thread for ever.
        self.server.watchdog.arm(self.connection)
        try:
            super().handle_one_request()
        finally:
            self.server.watchdog.disarm(self.connection)

    def read_body(self) -> bytes:
        """The request's body (refused past the cap); once it is read, the request has arrived."""
        body = self.rfile.read(body_length(self.headers))
        self.server.watchdog.disarm(self.connection)
        return body

    def headers_for(self, content_type: str) -> Mapping[str, str]:
        """Headers a subclass adds to every answer of this kind (its CORS or CSP)."""
        return {}

    def send(self, status: int, body: bytes, content_type: str, extra: Mapping[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        if self.close_connection:  # a refusal: say so, or a keep-alive client sends its next request into a reset
            self.send_header("Connection", "close")
        for k, v in {**self.headers_for(content_type), **(extra or {})}.items():
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def text(self, status: int, text: str) -> None:
        self.send(status, (text + "\n").encode(), "text/plain; charset=utf-8")

    def json(self, value: Any, status: int = 200) -> None:
        self.send(status, json.dumps(value, indent=1).encode(), "application/json; charset=utf-8")

    def file(self, path: Path, extra: Mapping[str, str] | None = None) -> None:
        body = path.read_bytes()  # an OSError is the 404 of ``_answer``
        kind = _TYPES.get(path.suffix) or mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        if kind.startswith("text/") and "charset" not in kind:
            kind += "; charset=utf-8"
        self.send(200, body, kind, extra)

    def path_only(self) -> str:
        """The request's path, percent-decoded (its query left off)."""
        return unquote(urlsplit(self.path).path)

    def get(self, path: str) -> None:
        self.text(404, f"{path}: not found")

    def post(self, path: str) -> None:
        self.text(404, f"{path}: not found")

    def _answer(self, route: str) -> None:
        try:
            if not addressed_to(self.headers.get("Host"), self.server.port):
                raise Refused(403, f"this server answers only requests addressed to 127.0.0.1:{self.server.port}")
            path = self.path_only()
            if "\x00" in path:
                raise Refused(400, "bad path")
            if route == "get":
                self.server.watchdog.disarm(self.connection)  # its headers are the whole request
                self.get(path)
            else:
                self.post(path)
        except Refused as exc:
            self.close_connection = True  # what is left of a refused request's body is never read
            self.text(exc.status, exc.message)
        except (ConnectionError, TimeoutError):
            self.close_connection = True  # the client went away, or stopped reading
        except OSError:
            self.close_connection = True
            self.text(404, "not found")  # a name the file system refuses, a file gone: nothing served

    def do_HEAD(self) -> None:
        self._answer("get")

    def do_GET(self) -> None:
        self._answer("get")

    def do_POST(self) -> None:
        self._answer("post")


class LoopbackServer(http.server.ThreadingHTTPServer):
    """A threaded HTTP server on 127.0.0.1 whose handler reads ``app`` (set before it serves)."""

    daemon_threads = True
    allow_reuse_address = False

    def __init__(self, port: int, handler: type[BaseHandler]) -> None:
        super().__init__(("127.0.0.1", port), handler)
        self.app: Any = None
        self.watchdog = Watchdog(REQUEST_TIMEOUT)
        self._slots = threading.BoundedSemaphore(MAX_CONNECTIONS)

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self._slots.acquire(blocking=False):
            with contextlib.suppress(OSError):
                request.sendall(_BUSY)
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._slots.release()  # no thread was started to release it
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()

    @property
    def port(self) -> int:
        return int(self.server_address[1])

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def handle_error(self, request: Any, client_address: Any) -> None:
        import sys

        if isinstance(sys.exc_info()[1], OSError):  # a client that went away mid-answer, a timeout
            return
        super().handle_error(request, client_address)

    def start(self) -> threading.Thread:
        """Serve in a daemon thread (and cut late requests in another)."""
        self.watchdog.start()
        thread = threading.Thread(target=self.serve_forever, kwargs={"poll_interval": 0.2}, daemon=True)
        thread.start()
        return thread


class Watchdog:
    """Shuts a connection whose current request has not arrived whole ``seconds`` after it began."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._due: dict[socket.socket, float] = {}
        self._lock = threading.Lock()

    def arm(self, conn: socket.socket) -> None:
        with self._lock:
            self._due[conn] = time.monotonic() + self.seconds

    def disarm(self, conn: socket.socket) -> None:
        with self._lock:
            self._due.pop(conn, None)

    def start(self) -> None:
        threading.Thread(target=self._watch, daemon=True).start()

    def _watch(self) -> None:
        while True:
            time.sleep(1.0)
            now = time.monotonic()
            with self._lock:
                late = [conn for conn, due in self._due.items() if due <= now]
                for conn in late:
                    del self._due[conn]
            for conn in late:
                with contextlib.suppress(OSError):
                    conn.shutdown(socket.SHUT_RDWR)  # its thread's read ends; the handler closes it
