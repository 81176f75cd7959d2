"""`neuralis-build ui --watch`: rebuild on every change; a failed rebuild keeps the last good output."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from neuralis_build.errors import NeuralisError, UsageError
from neuralis_build.ui.esbuild import find_esbuild
from neuralis_build.ui.run import BuildOptions, PackageBuild, build_path

if TYPE_CHECKING:
    import threading

    from neuralis_build.ui.esbuild import EsbuildRunner


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
    root = Path(path).resolve()
    runner = esbuild or find_esbuild(root)
    last = _once(root, options, runner, ())
    on_result(last)
    for changed in changes_under(root, on_ready=on_ready, stop_event=stop_event, debounce_ms=debounce_ms):
        if not any(may_change_the_build(p, last) for p in changed):
            continue  # a log, a note, an editor's file beside the sources: nothing a build reads
        last = _once(root, options, runner, changed)
        on_result(last)


SOURCE_FOLDERS = frozenset({"src", "routes"})
"""Top-level folders whose files a build compiles (src/app, src/events, routes) even when new."""


def may_change_the_build(path: str, last: WatchResult) -> bool:
    """Whether a changed package-relative path can change the next build: a file the last good build read, a
    new file in a folder it read from (an import may come next), package.json or a tsconfig; anything after a
    failed build. A file written into the package by a command's own output (``ui --watch > watch.log``)
    must not start a build, whose output would change it again."""
    if last.build is None:
        return True
    name = path.rsplit("/", 1)[-1]
    if name == "package.json" or (name.startswith(("tsconfig", "jsconfig")) and name.endswith(".json")):
        return True
    inputs = last.build.ui.inputs if last.build.ui is not None else ()
    if path in inputs:
        return True
    top = path.split("/", 1)[0] if "/" in path else None
    return top is not None and (top in SOURCE_FOLDERS or any(i.startswith(top + "/") for i in inputs))


def changes_under(
    root: Path,
    *,
    on_ready: Callable[[], None] | None = None,
    stop_event: threading.Event | None = None,
    debounce_ms: int = 80,
) -> Iterator[tuple[str, ...]]:
    """Each batch of changed package-relative paths under ``root`` (dist/ and node_modules/ left out), sorted.

    ``on_ready`` is called once the watcher is live; the batches end on Ctrl-C or ``stop_event``.
    ``ui --watch`` and the dev page both rebuild from these batches.
    """
    import logging

    import watchfiles

    logging.getLogger("watchfiles").setLevel(logging.ERROR)  # its "KeyboardInterrupt caught" on Ctrl-C is ours to say
    # watchfiles' default filter already leaves out node_modules, .git and editors' swap files
    watch_filter = watchfiles.DefaultFilter(ignore_paths=[str(root / "dist")])
    ready = False
    for changes in watchfiles.watch(
        root,
        watch_filter=watch_filter,
        debounce=debounce_ms,
        step=20,
        stop_event=stop_event,
        rust_timeout=250,  # wake up now and then, so a stop_event is seen without a change
        yield_on_timeout=True,
        raise_interrupt=False,
    ):
        if not ready:
            ready = True
            if on_ready is not None:
                on_ready()
        if changes:
            yield tuple(
                sorted({Path(p).relative_to(root).as_posix() for _, p in changes if Path(p).is_relative_to(root)})
            )
