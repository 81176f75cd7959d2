"""Each distinct registry tarball of the closure, once: fetched and verified, read, extracted into the store.

The stage's values, per integrity: the verified tarball (``registrytarballs``), its entries as the
hostile-input reader checked them, and the store entry they were extracted to with the facts of its
package.json (``Unpacked``); or the refusal of a tarball that breaks a rule. A tarball goes from
the network to the disk in one worker, so the first extractions overlap the last downloads; an
entry the store already holds untouched is neither fetched nor read again.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from neuralis_build.image.archive.extract import ArchiveRefused, Entry, Limits, read_tarball
from neuralis_build.image.archive.store import Extracted, Store
from neuralis_build.image.layout.materialize import PackageFacts, facts_of_folder, manifest_of, written_of
from neuralis_build.image.resolution.npmcli import Runner, run_npm
from neuralis_build.image.resolution.registries import Registries
from neuralis_build.image.resolution.registrytarballs import Downloads, TarballStore, Wanted, download_workers
from neuralis_build.npm.packagejson import MANIFEST, PackageJson
from neuralis_build.pack.fields import normalize_bin


@dataclass(frozen=True)
class Unpacked:
    """A registry tarball extracted into the store, with the facts of its package.json (read once)."""

    entry: Extracted
    package_facts: PackageFacts


Outcome = Unpacked | ArchiveRefused


def unpack_all(
    wanted: Sequence[Wanted], tarballs: TarballStore, store: Store, limits: Limits, jobs: int, npm: Runner
) -> dict[str, Outcome]:
    """Every wanted tarball in the store (by integrity), or its refusal; fetched directly, else through npm."""

    with _Extractors(jobs, len(wanted)) as extractors:

        def one(w: Wanted, downloads: Downloads | None) -> Outcome | None:
            entry = store.get(w.integrity)
            try:
                if entry is not None:
                    return Unpacked(entry, facts_of_folder(entry.folder))
                data = tarballs.fetch(w, downloads) if downloads is not None else tarballs.get(w.integrity)
                return None if data is None else extractors.extract(store, w.integrity, data, limits)
            except ArchiveRefused as exc:
                return exc

        cap = limits.max_tarball_bytes
        with Downloads(cap) as downloads, ThreadPoolExecutor(max_workers=download_workers(jobs)) as pool:
            got = dict(zip((w.integrity for w in wanted), pool.map(lambda w: one(w, downloads), wanted), strict=True))
        failed = [w for w in wanted if got[w.integrity] is None]
        if failed:  # read and extracted while the extractors are still there
            too_large = tarballs.fetch_through_npm(failed, cap, npm)  # raises when npm cannot fetch one either
            got.update((w.integrity, too_large.get(w.integrity) or one(w, None)) for w in failed)
    out: dict[str, Outcome] = {}
    for integrity, outcome in got.items():
        if outcome is None:
            raise FileNotFoundError(f"the tarball {integrity} is not in the store after npm fetched it")
        out[integrity] = outcome
    return out


PROCESSES_FROM = 16
"""Tarballs at which reading and extracting move to ``--jobs`` worker processes: the hostile-input reader is
Python, bound to one core in threads; a pool pays off only past a handful of tarballs."""


class _Extractors:
    """Where tarballs are read and extracted: in this process, or, for many tarballs and ``jobs`` > 1, in a pool of
    ``jobs`` worker processes."""

    def __init__(self, jobs: int, count: int) -> None:
        # forked workers cost nothing to start on Linux; elsewhere (macOS forks badly) the reading stays here
        self.jobs = jobs if jobs > 1 and count >= PROCESSES_FROM and sys.platform.startswith("linux") else 1
        self.pool: ProcessPoolExecutor | None = None

    def __enter__(self) -> _Extractors:
        if self.jobs > 1:
            import multiprocessing

            # forked (no start-up cost, nothing imported again), and all at once here, before the download threads
            # start: no other thread of this build holds a lock a worker could inherit
            self.pool = ProcessPoolExecutor(max_workers=self.jobs, mp_context=multiprocessing.get_context("fork"))
            for ready in [self.pool.submit(_ready) for _ in range(self.jobs)]:
                ready.result()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)

    def extract(self, store: Store, integrity: str, data: bytes, limits: Limits) -> Unpacked:
        if self.pool is None:
            return extract(store, integrity, data, limits)
        kind, value = self.pool.submit(_extract_in_worker, store.folder, integrity, data, limits).result()
        if kind == "refused":
            rule, message, hint = value
            raise ArchiveRefused(rule, message, hint)
        assert isinstance(value, Unpacked)
        return value


def _ready() -> None:
    """A worker's first task: it exists."""


def _extract_in_worker(folder: Path, integrity: str, data: bytes, limits: Limits) -> tuple[str, Any]:
    """``extract`` in a worker process; a refusal comes back as a value (an exception's pickling loses its rule)."""
    try:
        return "ok", extract(Store(folder), integrity, data, limits)
    except ArchiveRefused as exc:
        return "refused", (exc.rule, exc.message, exc.hint or "")


def extract(store: Store, integrity: str, data: bytes, limits: Limits) -> Unpacked:
    """Read a verified tarball as a dependency's (any first folder) and write it into the store.

    ArchiveRefused when it breaks a hostile-input rule or its package.json is not one Node reads; then
    nothing of it is written.
    """
    entries = read_tarball(data, limits, any_root=True)
    raw = next(e.data for e in entries if e.path == MANIFEST)  # read_tarball refuses a tarball without one
    manifest = manifest_of(PackageJson(Path(MANIFEST), raw).parse())
    entry = store.put(integrity, entries, _bin_targets(manifest, entries))
    return Unpacked(entry, written_of(manifest, any(e.path == "binding.gyp" for e in entries)))


def _bin_targets(manifest: dict[str, object], entries: Sequence[Entry]) -> frozenset[str]:
    """npm (pacote) installs every ``bin`` target executable, whatever mode the tarball gave it."""
    files = {e.path for e in entries}
    return frozenset(rel for t in normalize_bin(manifest).values() if (rel := t.removeprefix("./")) in files)


class Prefetch:
    """With ``--frozen`` the lock names every registry tarball before the listed packages are checked: download
    them into the tarball store meanwhile. Only the downloads overlap (they wait on the network); reading and
    extracting stay with the install, which would otherwise compete for the interpreter with the checks.

    Best effort: a tarball it could not get is fetched by the install itself (``unpack_all`` finds what this
    put in the store). Platform-specific optional packages for another platform are skipped, as the install
    skips them, and so is what the store already holds extracted, and every URL that is not a tarball of the
    registry npm is configured for (the lock check refuses what needs it; nothing is fetched from there). The
    registry settings it reads for that are the tree's too (``registries``).
    """

    def __init__(
        self,
        lock: Path,
        tarballs: TarballStore,
        store: Store,
        jobs: int,
        npm: Runner = run_npm,
        limits: Limits | None = None,
    ) -> None:
        import threading

        self._registries: Registries | None = None
        self._read = threading.Event()
        cap = (limits or Limits()).max_tarball_bytes
        self.thread = threading.Thread(target=self._run, args=(lock, tarballs, store, jobs, npm, cap), daemon=True)
        self.thread.start()

    def registries(self) -> Registries | None:
        """npm's registry settings for the lock's scopes, once read (None when they could not be)."""
        self._read.wait()
        return self._registries

    def _run(self, lock: Path, tarballs: TarballStore, store: Store, jobs: int, npm: Runner, cap: int) -> None:
        from neuralis_build.image.layout.graph import platform_problem, this_platform
        from neuralis_build.image.resolution.npmlock import read_npm_lock
        from neuralis_build.image.resolution.registries import read_registries, scopes_of

        try:
            try:
                locked = read_npm_lock(lock)
                self._registries = registries = read_registries(scopes_of(locked), npm)
            finally:
                self._read.set()
            here = this_platform()
            wanted = {
                n.integrity: Wanted.of(n)
                for n in locked.nodes.values()
                if n.integrity
                and n.resolved is not None
                and registries.serves(n.package_name, n.resolved)
                and not (n.in_bundle or n.dev or n.link)
                and platform_problem(n, here) is None
            }
            missing = [w for _, w in sorted(wanted.items()) if store.get(w.integrity) is None]
            with Downloads(cap) as downloads, ThreadPoolExecutor(max_workers=download_workers(jobs)) as pool:
                list(pool.map(lambda w: _fetch_quietly(tarballs, w, downloads), missing))
        except Exception:  # the install fetches, and says what went wrong, in the build's own order
            return

    def wait(self) -> None:
        self.thread.join()


def _fetch_quietly(tarballs: TarballStore, w: Wanted, downloads: Downloads) -> None:
    """Prefetch one tarball; one too large is left to the install, which refuses it in the build's own order."""
    try:
        tarballs.fetch(w, downloads)
    except ArchiveRefused:
        return
