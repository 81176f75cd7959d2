"""The dev server's page side: the host page, its own scripts, the shared modules and the controls.

Two loopback servers make one session. This one (the port `dev` prints) serves the page, which
needs the page key in its URL, and its controls: ``state``, ``live`` (a Server-Sent Events stream
that tells the page when to reload or re-read the state) and ``publish`` (a test event through
the package's ``visible``). A control is a POST from the page's own origin carrying the page key;
anything else is a 403. The package's files come from the other server (``dev.files``), another
origin, with CORS for the sandboxed surfaces only; nothing here carries CORS, and the page may be
framed by itself alone.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlsplit

from neuralis_build.dev.files import FilesHandler
from neuralis_build.dev.guard import KEY_HEADER, KEY_PARAM, Keys, Refused, origins_of, same_secret
from neuralis_build.dev.handler import BaseHandler, LoopbackServer
from neuralis_build.dev.state import DevState
from neuralis_build.hostpage.page import ASSETS, DATA, VENDOR, render_page
from neuralis_build.hostpage.vendor import SharedModules
from neuralis_build.hostprofile import HostProfile
from neuralis_build.util.strictjson import parse
from neuralis_build.util.trust import Trust

DEV_CLIENT = "dev-client.js"
ASSET_FILES = ("host-page.js", "host-page.css", DEV_CLIENT)
LIVE = ASSETS + "live"
STATE = ASSETS + "state"
PUBLISH = ASSETS + "publish"
CONTROLS = (LIVE, STATE, PUBLISH)
PAGE_HEADERS = {
    "Content-Security-Policy": "frame-ancestors 'self'",
    "Referrer-Policy": "no-referrer",  # the page's URL holds its key: never sent on to the package origin
}


@dataclass(frozen=True)
class DevApp:
    """What the servers serve from: the state, the shared modules, the host, the publish action, the keys."""

    state: DevState
    shared: SharedModules
    host: HostProfile
    trust: Trust
    publish: Callable[[Mapping[str, Any]], dict[str, Any]]
    keys: Keys
    page_port: int
    files_port: int

    @property
    def files_base(self) -> str:
        """The package origin's URL prefix: ``/pkg/<slug>/...`` follows it."""
        return f"http://127.0.0.1:{self.files_port}/{self.keys.files}"

    @property
    def url(self) -> str:
        """The page's URL, with its key: the one address that opens the session."""
        return f"http://127.0.0.1:{self.page_port}/?{KEY_PARAM}={self.keys.page}"

    def page(self) -> str:
        snap = self.state.snapshot
        extra = {
            "dev": {
                "generation": snap.generation,
                "package": snap.primary,
                "version": snap.version,
                "key": self.keys.page,
                "files": self.files_base + "/",
            }
        }
        return render_page(
            snap.packages,
            self.host,
            self.trust,
            self.shared.import_map(VENDOR),
            self.shared.exports,
            title=snap.primary,
            extra_config=extra,
            extra_scripts=[ASSETS + DEV_CLIENT],
            package_origin=self.files_base,
        )


class PageHandler(BaseHandler):
    server: DevServer

    def get(self, path: str) -> None:
        app: DevApp = self.server.app
        if path in ("/", "/index.html"):
            given = parse_qs(urlsplit(self.path).query).get(KEY_PARAM, [None])[-1]
            if not same_secret(given, app.keys.page):
                raise Refused(
                    403, "this page opens with the key of its session: use the URL neuralis-build dev printed"
                )
            self.send(200, app.page().encode(), "text/html; charset=utf-8", PAGE_HEADERS)
        elif path in CONTROLS:
            raise Refused(403, f"{path} is a control of the page: a POST from the page, with its key")
        elif path.startswith(VENDOR):
            name = path[len(VENDOR) :]
            if name not in {*app.shared.files.values(), "vendor.js"}:
                raise Refused(404, f"{path}: not a shared module of the host")
            self.file(app.shared.folder / name)
        elif path.startswith(ASSETS) and path[len(ASSETS) :] in ASSET_FILES:
            self.file(DATA / path[len(ASSETS) :])
        else:
            raise Refused(404, f"{path}: not found (a package's files are served from the package origin)")

    def post(self, path: str) -> None:
        app: DevApp = self.server.app
        if path not in CONTROLS:
            raise Refused(404, f"{path}: not found")
        # The page's own origin (a web page cannot forge it) and the page key (another local user,
        # who can forge an Origin, never saw it): both, on every control.
        if self.headers.get("Origin") not in origins_of(app.page_port):
            raise Refused(403, f"{path} answers the page of this session only (its Origin)")
        if not same_secret(self.headers.get(KEY_HEADER), app.keys.page):
            raise Refused(403, f"{path} answers the page of this session only (its key)")
        body = self.read_body()
        if path == STATE:
            self.json(app.state.snapshot.to_json())
        elif path == LIVE:
            self._live()
        else:
            self._publish(body)

    def _publish(self, body: bytes) -> None:
        if not (self.headers.get("Content-Type") or "").startswith("application/json"):
            raise Refused(415, "a test event is a JSON body (Content-Type: application/json)")
        try:
            request = parse(body.decode("utf-8"))
        except ValueError:  # not UTF-8, not JSON, or nested past what is read
            self.json({"ok": False, "error": "the request is not JSON"}, 400)
            return
        if not isinstance(request, dict):
            self.json({"ok": False, "error": "the request is not a JSON object"}, 400)
            return
        try:
            result = self.server.app.publish(request)
        except Exception as exc:  # a bug here must not take the page's request down without a word
            self.json({"ok": False, "error": f"internal error: {type(exc).__name__}: {exc}"}, 500)
            return
        self.json(result)

    def _live(self) -> None:
        state = self.server.app.state
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-store")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        snap = state.snapshot
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

    def _event(self, version: int, generation: int, ok: bool) -> None:
        message = {"version": version, "generation": generation, "ok": ok}
        self.wfile.write(f"data: {json.dumps(message)}\n\n".encode())
        self.wfile.flush()


class DevServer(LoopbackServer):
    """The page's server."""


@dataclass
class DevServers:
    """The session's two servers, bound: the page's and the package files'."""

    page: DevServer
    files: LoopbackServer
    threads: tuple[threading.Thread, ...] = ()

    @property
    def url(self) -> str:
        app: DevApp = self.page.app
        return app.url

    def close(self) -> None:
        for server in (self.page, self.files):
            server.shutdown()
            server.server_close()
        for thread in self.threads:
            thread.join(timeout=10)


def bind_servers(port: int) -> DevServers:
    """Bind the page's server to 127.0.0.1:``port`` (0 picks a free one) and the files' to a free port."""
    page = DevServer(port, PageHandler)
    try:
        files = LoopbackServer(0, FilesHandler)
    except BaseException:
        page.server_close()
        raise
    return DevServers(page, files)


def start_servers(servers: DevServers, app: DevApp) -> None:
    """Give both servers the app and serve each in a thread."""
    servers.page.app = app
    servers.files.app = app
    servers.threads = (servers.page.start(), servers.files.start())
