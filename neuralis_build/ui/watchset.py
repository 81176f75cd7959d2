"""What `ui --watch` and `dev` wait on: what the last build read, wherever it lies, and nothing else.

Every file in esbuild's metafile (a workspace library linked into node_modules is named by its real
path, outside the package), the manifest and the root's tsconfig files; for `dev`, also each tree the
page serves from another package or a surface root (a provider's ``dist/app/``). A new source file
beside one the build read counts too (an import of it may come next, or a glob import already wants
it). After a failed build, whose metafile was never written, any source file of the package does.
Everything is held by its real path, so an edit through a link is the edit of the file it names.

A change elsewhere in the package (``dev > dev.log``, notes, an editor's files) starts nothing: a
build of it would print, and the print would start the next one.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from neuralis_build.ui.assets import MIME_TYPES
from neuralis_build.util.outdir import DIST

SOURCE_SUFFIXES = frozenset(
    {".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs", ".mts", ".cts", ".css", ".scss", ".sass", ".less", ".json"}
    | set(MIME_TYPES)
)
"""What a build can read: code, styles, data and the assets it bundles (a ``.log`` or ``.md`` is none of them)."""

LATE_MARGIN_NS = 20_000_000
"""A file's mtime comes from a coarse clock (a few ms behind): a change this close to a build's start is a change."""


def real(path: str | os.PathLike[str]) -> str:
    return os.path.realpath(path)


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _is_source(path: str) -> bool:
    name = os.path.basename(path)
    return not name.startswith(".") and os.path.splitext(name)[1].lower() in SOURCE_SUFFIXES


def source_folders(root: str) -> Iterator[str]:
    """The package's folders where sources may be: all but node_modules, the root's dist/ and hidden ones."""
    for here, dirs, _files in os.walk(root):
        dirs[:] = sorted(
            d for d in dirs if not d.startswith(".") and d != "node_modules" and not (here == root and d == DIST)
        )
        yield here


@dataclass(frozen=True)
class WatchSet:
    """The files and folders whose change starts the next build, as real paths, and when the last one started."""

    root: str  # the package folder (real path)
    files: frozenset[str] = frozenset()
    trees: frozenset[str] = frozenset()  # folders each of whose files counts (created, changed or swapped in)
    sources: frozenset[str] = frozenset()  # folders where a new source file counts
    any_source: bool = False  # after a failed build: any change to a source file in ``sources`` counts
    since: int = 0  # time.time_ns() when the build that read these started
    outputs: tuple[str, ...] = ()  # the package's own output folders: a change there is the build's own

    def matters(self, path: str, added: bool) -> bool:
        """Whether a change to ``path`` (real, absolute; ``added`` when it is new) can change the next build."""
        if any(_inside(path, out) for out in self.outputs):
            return False
        if path in self.files:
            return True
        if any(_inside(path, tree) or _inside(tree, path) for tree in self.trees):
            return True  # a file of the tree, or a folder above it (a build swaps dist/app/ in whole)
        return (added or self.any_source) and os.path.dirname(path) in self.sources and _is_source(path)

    def shown(self, path: str) -> str:
        """``path`` as the author knows it: relative to the package (``../lib/src/x.ts`` outside it)."""
        return os.path.relpath(path, self.root).replace(os.sep, "/")

    def folders(self) -> dict[str, tuple[int, int]]:
        """Each folder to watch (not recursively) → its (device, inode): a folder swapped for another of the
        same name is a new one to watch. A tree not there yet is watched from the nearest folder above it."""
        wanted = {os.path.dirname(f) for f in self.files} | set(self.sources)
        for tree in self.trees:
            above = tree
            while not os.path.isdir(above) and os.path.dirname(above) != above:
                above = os.path.dirname(above)
            wanted.add(above)
            wanted.update(here for here, _dirs, _files in os.walk(tree))
        found = {}
        for folder in sorted(wanted):
            try:
                st = os.stat(folder)
            except OSError:
                continue  # gone since: the folder above it sees it come back
            found[folder] = (st.st_dev, st.st_ino)
        return found

    def changed_between(self, until: int) -> list[str]:
        """What changed after the build began reading and before ``until`` (time.time_ns(), when a watcher
        started), by mtime. A file dated later is the watcher's to see (one dated in the future, unpacked from an
        archive or written under a clock set back, would start a build after every build)."""
        since, until = self.since - LATE_MARGIN_NS, until + LATE_MARGIN_NS
        candidates: set[str] = set(self.files)
        for tree in self.trees:
            for here, _dirs, files in os.walk(tree):
                candidates.update(os.path.join(here, f) for f in files)
        if self.any_source:
            for folder in self.sources:
                candidates.update(_entries(folder))
        late = []
        for path in sorted(candidates):
            try:
                mtime = os.stat(path).st_mtime_ns
            except OSError:
                continue
            if since <= mtime <= until and self.matters(path, added=True):
                late.append(path)
        return late


def _entries(folder: str) -> Iterator[str]:
    try:
        with os.scandir(folder) as found:
            yield from (e.path for e in found if e.is_file())
    except OSError:
        return


def build_watch_set(
    root: str | os.PathLike[str],
    inputs: Iterable[str],
    *,
    failed: bool,
    since: int,
    named: Iterable[str] = (),
    trees: Iterable[str] = (),
    manifests: Iterable[str] = (),
) -> WatchSet:
    """The watch set after a build of the package at ``root``.

    ``inputs`` are the metafile's (relative to ``root``, as esbuild names them) of the last good build;
    ``failed`` says the latest build failed, ``named`` are the files its errors name. ``trees`` and
    ``manifests`` are what the page also serves or reads (``dev``): other packages' folders and files.
    """
    top = real(root)
    outputs = tuple(os.path.join(top, *out.split("/")) for out in ("dist/app", "dist/src/events", "dist/routes"))
    staging = os.path.join(top, DIST, ".")

    def own(path: str) -> bool:  # the package's outputs and staged builds: written by the build itself
        return any(_inside(path, out) for out in outputs) or path.startswith(staging)

    folders: dict[str, str] = {}

    def real_file(path: str) -> str:  # a folder resolved once for all its files: a build reads thousands
        folder, name = os.path.split(os.path.normpath(path))
        if folder not in folders:
            folders[folder] = real(folder)
        found = os.path.join(folders[folder], name)
        return real(found) if os.path.islink(found) else found

    files = {real_file(os.path.join(top, "package.json"))}
    try:
        names = os.listdir(top)
    except OSError:
        names = []  # the folder is gone: the next build says so
    for name in names:
        if name.startswith(("tsconfig", "jsconfig")) and name.endswith(".json"):
            files.add(real_file(os.path.join(top, name)))
    for rel in (*inputs, *named):
        if rel and ":" not in rel and "<" not in rel:  # not a virtual module (<define:…>, data:…)
            files.add(real_file(os.path.join(top, rel)))
    files.update(real_file(m) for m in manifests)
    files = {f for f in files if not own(f)}
    if failed:
        sources = set(source_folders(top))
    else:
        sources = {os.path.dirname(f) for f in files if _inside(f, top) and "/node_modules/" not in f[len(top) :]}
    kept_trees = frozenset(t for t in map(real, trees) if not own(t))
    return WatchSet(top, frozenset(files), kept_trees, frozenset(sources), failed, since, outputs)
