"""The dev loop: build once, serve the page, then rebuild and refresh on every change until stopped."""

from __future__ import annotations

import functools
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from neuralis_build.dev.guard import Keys
from neuralis_build.dev.server import DevApp, bind_servers, start_servers
from neuralis_build.dev.session import PAGE_MODE, DevOptions, DevSession
from neuralis_build.dev.state import BuildReport, DevState
from neuralis_build.esbuild.runner import find_esbuild
from neuralis_build.hostpage.react import find_react
from neuralis_build.hostpage.vendor import build_shared_modules
from neuralis_build.ui.watch import watch_changes
from neuralis_build.util.errors import UsageError

if TYPE_CHECKING:
    from neuralis_build.esbuild.runner import EsbuildRunner
    from neuralis_build.ui.watchset import WatchSet


def run_dev(
    options: DevOptions,
    *,
    on_ready: Callable[[str], None],
    on_report: Callable[[BuildReport], None],
    stop_event: threading.Event | None = None,
    esbuild: EsbuildRunner | None = None,
    debounce_ms: int = 80,
) -> None:
    """Serve the package's host page at 127.0.0.1:``options.port`` until Ctrl-C or ``stop_event``.

    ``on_ready(url)`` is called once the page is served and the watcher is live, with the page's
    URL and its key (the one address that opens it); ``on_report`` after every build. The servers,
    the live connections and the shared modules' folder end with the call.
    """
    root = options.path.resolve()
    if not root.is_dir():
        raise UsageError(f"{options.path}: not a folder", hint="pass the package folder (the one with package.json)")
    if not (root / "package.json").is_file():  # a page of nothing, "rebuilt" on every change, helps nobody
        raise UsageError(
            f"{options.path}: no package.json here, so there is no package to serve",
            hint="run neuralis-build dev in the package folder, or create one with neuralis new",
        )
    runner = esbuild or find_esbuild(root)
    state = DevState()
    session = DevSession(options, state, runner)
    with tempfile.TemporaryDirectory(prefix="neuralis-dev-") as tmp:
        react = find_react(root, options.host, options.trust)
        shared = build_shared_modules(Path(tmp) / "vendor", react, mode=PAGE_MODE, esbuild=runner)
        on_report(session.refresh())
        try:
            servers = bind_servers(options.port)
        except OSError as exc:
            raise UsageError(
                f"cannot listen on 127.0.0.1:{options.port}: {exc.strerror}", hint="pick another --port, or 0 for any"
            ) from None
        keys = Keys.draw()
        app = DevApp(
            state, shared, options.host, options.trust, session.publish, keys, servers.page.port, servers.files.port
        )
        start_servers(servers, app)
        try:
            ready = functools.partial(on_ready, servers.url)  # the page is announced once the watcher is live

            def watching() -> WatchSet:
                return session.watching  # what the latest refresh read

            for changed in watch_changes(watching, on_ready=ready, stop_event=stop_event, debounce_ms=debounce_ms):
                on_report(session.refresh(changed))
        finally:
            state.stop()
            servers.close()
