"""Browser fixtures: Playwright driving Debian's chromium, a page that records what went wrong, folders
served over 127.0.0.1, and the host page (neuralis_build.hostpage) written for built packages.

Registered for every test from tests/conftest.py. Never a downloaded browser build: Playwright for
Python launches ``/usr/bin/chromium`` through ``executable_path``. Wait on conditions (``wait_for_host``,
``page.wait_for_function``) with generous timeouts; never on time.
"""

from __future__ import annotations

import functools
import http.server
import json
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import Browser, ConsoleMessage, Page, Playwright, Request, Response

    from neuralis_build.hostpage.site import HostSite

CHROMIUM = os.environ.get("NEURALIS_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
TIMEOUT_MS = 90_000  # generous: a loaded CI machine is slow, and every wait is on a condition

requires_chromium = pytest.mark.skipif(
    not Path(CHROMIUM).is_file() and not os.environ.get("CI"), reason=f"Debian's chromium ({CHROMIUM}) is needed"
)


@dataclass
class PageLog:
    """What a page reported: console errors (and warnings), uncaught errors, failed or 4xx/5xx requests."""

    console_errors: list[str] = field(default_factory=list)
    console_warnings: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    failed_requests: list[str] = field(default_factory=list)
    aborted_requests: list[str] = field(default_factory=list)  # cancelled by the page (a reload), not failures

    def problems(self) -> list[str]:
        """Every console error, page error and failed request, in one list (empty on a clean page)."""
        return [*self.console_errors, *self.page_errors, *self.failed_requests]


@dataclass
class BrowserPage:
    """A fresh Chromium page and its log."""

    page: Page
    log: PageLog


def _record(log: PageLog, page: Page) -> None:
    def on_console(msg: ConsoleMessage) -> None:
        if msg.type == "error":
            log.console_errors.append(msg.text)
        elif msg.type == "warning":
            log.console_warnings.append(msg.text)

    def on_failed(request: Request) -> None:
        line = f"{request.method} {request.url}: {request.failure}"
        (log.aborted_requests if request.failure == "net::ERR_ABORTED" else log.failed_requests).append(line)

    def on_response(response: Response) -> None:
        if response.status >= 400:
            log.failed_requests.append(f"{response.request.method} {response.url}: HTTP {response.status}")

    page.on("console", on_console)
    page.on("pageerror", lambda exc: log.page_errors.append(str(exc)))
    page.on("requestfailed", on_failed)
    page.on("response", on_response)


@pytest.fixture(scope="session")
def playwright_driver() -> Iterator[Playwright]:
    """Playwright's driver, started once per session."""
    if not Path(CHROMIUM).is_file() and not os.environ.get("CI"):
        pytest.skip(f"Debian's chromium ({CHROMIUM}) is needed")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as driver:
        yield driver


@pytest.fixture(scope="session")
def chromium(playwright_driver: Playwright) -> Iterator[Browser]:
    """Debian's headless chromium, launched once per session."""
    browser = playwright_driver.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
    yield browser
    browser.close()


@pytest.fixture
def browser_page(chromium: Browser) -> Iterator[BrowserPage]:
    """A page in a fresh browser context, recording console errors, page errors and failed requests."""
    context = chromium.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    log = PageLog()
    _record(log, page)
    yield BrowserPage(page, log)
    context.close()


class _Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map: ClassVar[dict[str, str]] = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".js": "text/javascript",
        ".mjs": "text/javascript",
        ".json": "application/json",
    }

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-store")
        # Sandboxed iframes have an opaque origin: their module scripts are CORS requests.
        self.send_header("Access-Control-Allow-Origin", "*")
        super().end_headers()

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def serve_folder() -> Iterator[Callable[[Path], str]]:
    """``serve_folder(path)`` serves a folder on 127.0.0.1 (a free port) and returns its origin URL."""
    servers: list[tuple[http.server.ThreadingHTTPServer, threading.Thread]] = []

    def serve(folder: Path) -> str:
        handler = functools.partial(_Handler, directory=str(folder))
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        servers.append((server, thread))
        return f"http://127.0.0.1:{server.server_address[1]}"

    yield serve
    for server, thread in servers:
        server.shutdown()
        server.server_close()
        thread.join()


def host_status(page: Page) -> dict[str, Any]:
    """The host page's machine-readable status (``window.__neuralisHost``) as plain JSON."""
    status: dict[str, Any] = page.evaluate("() => JSON.parse(JSON.stringify(window.__neuralisHost || null))")
    return status


def wait_for_host(page: Page, timeout: float = TIMEOUT_MS) -> dict[str, Any]:
    """Wait until the host page has loaded every module and every surface has rendered or been refused."""
    page.wait_for_function(
        """() => {
            const s = window.__neuralisHost;
            return s && (s.state === "failed" ||
                (s.state === "ready" && s.surfaces.every((x) => x.status !== "loading")));
        }""",
        timeout=timeout,
    )
    return host_status(page)


def surface_states(status: dict[str, Any]) -> dict[str, tuple[str, str | None]]:
    """``{"<package>#<kind>:<id>": (status, reason)}`` of every surface in a host status."""
    return {f"{s['package']}#{s['kind']}:{s['id']}": (s["status"], s["reason"]) for s in status["surfaces"]}


@dataclass(frozen=True)
class ServedSite:
    """A host page written for some packages and served: open ``url`` in a page."""

    site: HostSite
    origin: str

    @property
    def url(self) -> str:
        return self.site.url(self.origin)


@pytest.fixture
def host_site(tmp_path: Path, serve_folder: Callable[[Path], str]) -> Callable[..., ServedSite]:
    """``host_site([root, ...], trust="first-party", mode="production")``: write the host page of
    built package folders (judged together, in that order) into a fresh folder and serve it."""
    from neuralis_build.hostpage.site import write_host_site

    counter = iter(range(1000))

    def make(roots: Sequence[Path], **kw: Any) -> ServedSite:
        site = write_host_site(tmp_path / f"host-site-{next(counter)}", roots, **kw)
        return ServedSite(site, serve_folder(site.folder))

    return make


def dump(status: dict[str, Any]) -> str:
    """A status as indented JSON, for assertion messages."""
    return json.dumps(status, indent=1)
