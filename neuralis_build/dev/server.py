"""The dev server's HTTP side: the host page, its assets, the package's served trees, the live channel.

It binds 127.0.0.1 only, answers only requests addressed to that host (no DNS rebinding), and serves
a package file only through ``hostpage.model.served_file``: inside a served tree, no ``..``, no
symlink out. ``/__neuralis/live`` is a Server-Sent Events stream that tells the page when to
reload (a new good page) or re-read the state (a failed build, new diagnostics).
"""

from __future__ import annotations

import http.server
import json
import mimetypes
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from neuralis_build.dev.state import DevState
from neuralis_build.hostpage.model import served_file
from neuralis_build.hostpage.page import ASSETS, DATA, VENDOR, render_page
from neuralis_build.hostpage.vendor import SharedModules
from neuralis_build.hostprofile import HostProfile
from neuralis_build.strictjson import parse
from neuralis_build.trust import Trust

DEV_CLIENT = "dev-client.js"
ASSET_FILES = ("host-page.js", "host-page.css", DEV_CLIENT)
LIVE = ASSETS + "live"
STATE = ASSETS + "state"
PUBLISH = ASSETS + "publish"
_TYPES = {".js": "text/javascript", ".mjs": "text/javascript", ".css": "text/css", ".json": "application/json"}


@dataclass(frozen=True)
class DevApp:
    """What the handler serves from: the state, the shared modules, the host, and the publish action."""

    state: DevState
    shared: SharedModules
    host: HostProfile
    trust: Trust
    publish: Callable[[Mapping[str, Any]], dict[str, Any]]

    def page(self) -> str:
        snap = self.state.snapshot
        extra = {"dev": {"generation": snap.generation, "package": snap.primary, "version": snap.version}}
        return render_page(
            snap.packages,
            self.host,
            self.trust,
            self.shared.import_map(VENDOR),
            self.shared.exports,
            title=snap.primary,
            extra_config=extra,
            extra_scripts=[ASSETS + DEV_CLIENT],
        )


class _Handler(http.server.BaseHTTPRequestHandler):
    server: DevHTTPServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:
        pass

    def _send(self, status: int, body: bytes, content_type: str, extra: Mapping[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        # Sandboxed iframes have an opaque origin: their module scripts and fetches are CORS requests.
        self.send_header("Access-Control-Allow-Origin", "*")
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _text(self, status: int, text: str) -> None:
        self._send(status, (text + "\n").encode(), "text/plain; charset=utf-8")

    def _json(self, value: Any, status: int = 200) -> None:
        self._send(status, json.dumps(value, indent=1).encode(), "application/json; charset=utf-8")

    def _host_ok(self) -> bool:
        host = (self.headers.get("Host") or "").rsplit(":", 1)[0]
        if host in ("127.0.0.1", "localhost"):
            return True
        self._text(403, "neuralis-build dev answers only requests addressed to 127.0.0.1 or localhost")
        return False

    def do_HEAD(self) -> None:
        self.do_GET()

    def do_GET(self) -> None:
        if not self._host_ok():
            return
        app = self.server.app
        path = unquote(urlsplit(self.path).path)
        if "\x00" in path:
            self._text(400, "bad path")
        elif path in ("/", "/index.html"):
            self._send(200, app.page().encode(), "text/html; charset=utf-8")
        elif path == STATE:
            self._json(app.state.snapshot.to_json())
        elif path == LIVE:
            self._live()
        elif path.startswith(VENDOR):
            name = path[len(VENDOR) :]
            if name in {*app.shared.files.values(), "vendor.js"}:
                self._file(app.shared.folder / name)
            else:
                self._text(404, f"{path}: not a shared module of the host")
        elif path.startswith(ASSETS) and path[len(ASSETS) :] in ASSET_FILES:
            self._file(DATA / path[len(ASSETS) :])
        elif path.startswith("/pkg/"):
            slug, _, rel = path[len("/pkg/") :].partition("/")
            pkg = app.state.snapshot.package(slug)
            found = served_file(pkg, rel) if pkg is not None else None
            if found is None:
                self._text(404, f"{path}: not in a tree the host serves (dist/app/ or a surface's root)")
            else:
                self._file(found)
        else:
            self._text(404, f"{path}: not found")

    def do_POST(self) -> None:
        if not self._host_ok():
            return
        path = urlsplit(self.path).path
        # A JSON body from our own origin only: a cross-site form cannot reach the predicate runner.
        origin = self.headers.get("Origin")
        own = {f"http://{self.headers.get('Host')}"}
        if path != PUBLISH or not (self.headers.get("Content-Type") or "").startswith("application/json"):
            self._text(404, f"{path}: not found")
            return
        if origin is not None and origin not in own:
            self._text(403, "cross-origin publish refused")
            return
        length = int(self.headers.get("Content-Length") or 0)
        try:
            request = parse((self.rfile.read(length) or b"{}").decode("utf-8"))
        except ValueError:
            self._json({"ok": False, "error": "the request is not JSON"}, 400)
            return
        if not isinstance(request, dict):
            self._json({"ok": False, "error": "the request is not a JSON object"}, 400)
            return
        try:
            result = self.server.app.publish(request)
        except Exception as exc:  # a bug here must not take the page's request down without a word
            self._json({"ok": False, "error": f"internal error: {type(exc).__name__}: {exc}"}, 500)
            return
        self._json(result)

    def _file(self, path: Path) -> None:
        try:
            body = path.read_bytes()
        except OSError:
            self._text(404, "gone")
            return
        kind = _TYPES.get(path.suffix) or mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        if kind.startswith("text/") and "charset" not in kind:
            kind += "; charset=utf-8"
        self._send(200, body, kind)

    def _live(self) -> None:
        state = self.server.app.state
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-store")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        snap = state.snapshot
        try:
            self._event(snap.version, snap.generation, bool(snap.build and snap.build.ok))
            while not state.stopping.is_set():
                newer = state.wait_newer(snap.version, timeout=15.0)
                if state.stopping.is_set():
                    return
                if newer.version > snap.version:
                    self._event(newer.version, newer.generation, bool(newer.build and newer.build.ok))
                else:
                    self.wfile.write(b": keep-alive\n\n")  # finds closed connections
                    self.wfile.flush()
                snap = newer
        except (BrokenPipeError, ConnectionResetError):
            return

    def _event(self, version: int, generation: int, ok: bool) -> None:
        message = {"version": version, "generation": generation, "ok": ok}
        self.wfile.write(f"data: {json.dumps(message)}\n\n".encode())
        self.wfile.flush()


class DevHTTPServer(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = False

    def __init__(self, port: int, app: DevApp) -> None:
        self.app = app
        super().__init__(("127.0.0.1", port), _Handler)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/"


def start_server(port: int, app: DevApp) -> tuple[DevHTTPServer, threading.Thread]:
    """Bind 127.0.0.1:``port`` (0 picks a free one) and serve in a thread."""
    server = DevHTTPServer(port, app)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.2}, daemon=True)
    thread.start()
    return server, thread
