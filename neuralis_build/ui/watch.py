"""`neuralis-build ui --watch`: rebuild on every change; a failed rebuild keeps the last good output."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from neuralis_build.errors import NeuralisError, UsageError
from neuralis_build.ui.esbuild import EsbuildRunner, find_esbuild
from neuralis_build.ui.run import BuildOptions, PackageBuild, build_path

if TYPE_CHECKING:
    import threading


@dataclass(frozen=True)
class WatchResult:
    """One build of the watch loop: what changed, and either the build or the error that refused it."""

    changed: tuple[str, ...]
    build: PackageBuild | None
    error: NeuralisError | None
    seconds: float

    @property
    def ok(self) -> bool:
        return self.error is None


def _once(root: Path, options: BuildOptions, runner: EsbuildRunner, changed: tuple[str, ...]) -> WatchResult:
    started = time.perf_counter()
    try:
        build = build_path(root, options, runner)
    except UsageError:
        raise  # esbuild vanished, the folder is gone: the watch cannot go on
    except NeuralisError as exc:
        return WatchResult(changed, None, exc, time.perf_counter() - started)
    return WatchResult(changed, build, None, build.seconds)


def watch_package(
    path: Path | str,
    options: BuildOptions,
    on_result: Callable[[WatchResult], None],
    *,
    on_ready: Callable[[], None] | None = None,
    stop_event: threading.Event | None = None,
    esbuild: EsbuildRunner | None = None,
    debounce_ms: int = 80,
) -> None:
    """Build once, then rebuild on each change under ``path`` (dist/ and node_modules/ excluded).

    ``on_ready`` is called once the file watcher is live; the loop ends on Ctrl-C or ``stop_event``.
    """
    import watchfiles

    root = Path(path).resolve()
    runner = esbuild or find_esbuild(root)
    on_result(_once(root, options, runner, ()))
    watch_filter = watchfiles.DefaultFilter(ignore_paths=[str(root / "dist")])
    ready = False
    for changes in watchfiles.watch(
        root,
        watch_filter=watch_filter,
        debounce=debounce_ms,
        step=20,
        stop_event=stop_event,
        rust_timeout=250,
        yield_on_timeout=True,
        raise_interrupt=False,
    ):
        if not ready:
            ready = True
            if on_ready is not None:
                on_ready()
        if not changes:
            continue
        changed = tuple(
            sorted({Path(p).relative_to(root).as_posix() for _, p in changes if Path(p).is_relative_to(root)})
        )
        on_result(_once(root, options, runner, changed))
