"""`neuralis-build ui --watch`: rebuild on each change to what the build read; a failed rebuild keeps the last
good output. ``watch_changes`` is the loop `dev` refreshes its page from too."""

from __future__ import annotations

import time
from collections.abc import Callable, Generator, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from neuralis_build.esbuild.runner import find_esbuild
from neuralis_build.ui.run import BuildOptions, PackageBuild, build_path
from neuralis_build.ui.watchset import WatchSet, build_watch_set
from neuralis_build.util.errors import DiagnosedError, NeuralisError, UsageError

if TYPE_CHECKING:
    import threading

    from watchfiles.main import FileChange

    from neuralis_build.esbuild.runner import EsbuildRunner


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
    """Build once, then rebuild on each change to what the last build read (``watchset``).

    ``on_ready`` is called once the file watcher is live; the loop ends on Ctrl-C or ``stop_event``.
    """
    root = Path(path).resolve()
    runner = esbuild or find_esbuild(root)
    since = time.time_ns()
    last = _once(root, options, runner, ())
    good = last
    on_result(last)

    def watching() -> WatchSet:
        return watch_set_of(root, good, last, since)

    for changed in watch_changes(watching, on_ready=on_ready, stop_event=stop_event, debounce_ms=debounce_ms):
        since = time.time_ns()
        last = _once(root, options, runner, changed)
        good = last if last.ok else good
        on_result(last)


def inputs_of(build: PackageBuild | None) -> tuple[str, ...]:
    """Every file a build read, as its metafiles name them (relative to the package)."""
    if build is None:
        return ()
    return (*(build.ui.inputs if build.ui else ()), *(build.events.inputs if build.events else ()))


def error_files(error: NeuralisError | None) -> tuple[str, ...]:
    """The files a refusal names (a syntax error in a linked library lies outside the package)."""
    if isinstance(error, DiagnosedError):
        return tuple(d.file for d in error.diagnostics if d.file)
    return ()


def watch_set_of(root: Path, good: WatchResult, last: WatchResult, since: int) -> WatchSet:
    """What to watch after ``last``: what ``good`` (the last good build) read, and after a failure what it names."""
    return build_watch_set(root, inputs_of(good.build), failed=not last.ok, since=since, named=error_files(last.error))


def watch_changes(
    current: Callable[[], WatchSet],
    *,
    on_ready: Callable[[], None] | None = None,
    stop_event: threading.Event | None = None,
    debounce_ms: int = 80,
) -> Iterator[tuple[str, ...]]:
    """Each batch of changes that matter to ``current()``, the watch set of the latest build, as the author
    names the files (sorted). The caller rebuilds before asking for the next batch.

    The folders are watched one by one, not recursively (a node_modules is never walked). When the folders
    change (a build read a new one, a provider's dist/app/ was swapped in), a watcher of the new ones starts
    before the old one stops, so no change falls between them; what changed before the first watcher was
    live is found by mtime. ``on_ready`` is called once it is; the batches end on Ctrl-C or ``stop_event``.
    """
    import logging

    from watchfiles import Change

    logging.getLogger("watchfiles").setLevel(logging.ERROR)  # its "KeyboardInterrupt caught" on Ctrl-C is ours to say
    watching = current()
    folders = watching.folders()
    batches = _watcher(folders, stop_event, debounce_ms)
    try:
        starting = time.time_ns()
        first = next(batches, None)  # the watcher is live within this call
        if first is None:
            return
        pending: set[FileChange] | None = first | {(Change.added, p) for p in watching.changed_between(starting)}
        if on_ready is not None:
            on_ready()
        while True:
            changes = pending if pending is not None else next(batches, None)
            pending = None
            if changes is None:
                return  # stopped (stop_event, or Ctrl-C)
            found = {watching.shown(p) for c, p in changes if watching.matters(p, c == Change.added)}
            if found:
                yield tuple(sorted(found))
                watching = current()  # the caller rebuilt: what the new build read
            elif not changes:
                continue
            now = watching.folders()
            if now != folders:  # a folder came, went or was swapped for another
                fresh = _watcher(now, stop_event, debounce_ms)
                seen = next(fresh, None)  # live from here
                before = next(batches, None)  # what the old one saw until then
                batches.close()
                batches, folders = fresh, now
                if seen is None or before is None:
                    return
                pending = seen | before
    finally:
        batches.close()


def _watcher(
    folders: Iterable[str], stop_event: threading.Event | None, debounce_ms: int
) -> Generator[set[FileChange], None, None]:
    import watchfiles

    return watchfiles.watch(
        *folders,
        watch_filter=None,  # the watch set decides: a linked library may sit under node_modules
        recursive=False,
        debounce=debounce_ms,
        step=20,
        stop_event=stop_event,
        rust_timeout=250,  # wake up now and then, so a stop_event is seen without a change
        yield_on_timeout=True,
        raise_interrupt=False,
        ignore_permission_denied=True,
    )
