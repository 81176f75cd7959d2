"""The extracted store: each distinct registry tarball written to disk once, every installed copy hard links to it.

``DIR/.neuralis-cache/store/<algorithm>-<hex digest>/`` holds one package's files as its verified
tarball gives them, every file read-only (0444, or 0555 for an executable), and ``<same>.json``
beside it lists each folder and file with the mode, size and mtime it was written with. Each copy
of the package in the image (one in each trust tier whose packages need it) is
a folder of hard links to those files: the bytes are written, and take disk space, once.

A file is never written in place, in the store or in an image: an entry is written beside its final
name and renamed in, and a stale one is replaced whole, so a later build cannot write through a link
into a copy another image holds. Before an entry is linked again, its listing is compared with the
files on disk; an entry that was touched (a file rewritten, added, removed or re-moded) is extracted
afresh from its tarball. The store keeps the entries of the image last committed (``prune``).
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import stat
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path

from neuralis_build.image.archive.extract import Entry, write_entries
from neuralis_build.image.archive.integrity import strongest
from neuralis_build.util import atomic

READ_ONLY, EXECUTABLE = 0o444, 0o555
_NEW = ".new-"  # an entry being written: .new-<pid>-<random>, swept when its process is gone
# link() fails so on a file system without hard links, across devices, or past an inode's link limit: copy then
_NO_LINK = {errno.EXDEV, errno.EMLINK, errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP}


@dataclass(frozen=True)
class Extracted:
    """One tarball's files in the store, as every copy of the package links to them."""

    integrity: str
    folder: Path
    dirs: tuple[str, ...]  # package-relative folders, each after its parent
    files: tuple[str, ...]  # package-relative files


def _key(integrity: str) -> str:
    best = strongest(integrity)
    if best is None:
        raise ValueError(f"no integrity the store can key: {integrity!r}")
    return f"{best[0]}-{best[1].hex()}"


def _listing(folder: Path) -> tuple[list[str], list[list[object]]]:
    """Every folder and every file under ``folder`` (files with mode, size and mtime), sorted."""
    dirs: list[str] = []
    files: list[list[object]] = []
    stack = [("", str(folder))]
    while stack:
        rel, here = stack.pop()
        with os.scandir(here) as found:
            for entry in found:
                st = entry.stat(follow_symlinks=False)
                path = f"{rel}{entry.name}"
                if stat.S_ISDIR(st.st_mode):
                    dirs.append(path)
                    stack.append((path + "/", entry.path))
                else:  # a link, a FIFO or anything else someone put here fails the comparison on its mode
                    files.append([path, st.st_mode, st.st_size, st.st_mtime_ns])
    dirs.sort()
    files.sort()
    return dirs, files


class Store:
    """The extracted entries under one folder, by the integrity of their tarball."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def get(self, integrity: str) -> Extracted | None:
        """The entry of this tarball, when it is there and untouched since it was written."""
        key = _key(integrity)
        try:
            recorded = json.loads((self.folder / f"{key}.json").read_text("utf-8"))
            dirs, files = _listing(self.folder / key)
        except (OSError, ValueError):
            return None
        if not isinstance(recorded, dict) or recorded.get("dirs") != dirs or recorded.get("files") != files:
            return None
        return Extracted(integrity, self.folder / key, tuple(dirs), tuple(str(f[0]) for f in files))

    def put(self, integrity: str, entries: Sequence[Entry], executables: Collection[str]) -> Extracted:
        """Write a checked tarball's files as the entry of ``integrity`` (replacing a stale one whole)."""
        key = _key(integrity)
        self.folder.mkdir(parents=True, exist_ok=True)
        temp = self.folder / f"{_NEW}{os.getpid()}-{os.urandom(5).hex()}"
        try:
            temp.mkdir()
            write_entries(list(entries), temp, executables=frozenset(executables), modes=(READ_ONLY, EXECUTABLE))
            dirs, files = _listing(temp)
            final = self.folder / key
            if os.path.lexists(final):  # stale: set aside whole, never rewritten (copies may link to its files)
                aside = self.folder / f"{_NEW}{os.getpid()}-{os.urandom(5).hex()}"
                os.replace(final, aside)
                atomic.remove(aside)
            os.replace(temp, final)
        except BaseException:
            atomic.remove(temp)
            raise
        atomic.write_text(self.folder / f"{key}.json", json.dumps({"dirs": dirs, "files": files}))
        return Extracted(integrity, final, tuple(dirs), tuple(str(f[0]) for f in files))

    def prune(self, keep: Collection[str]) -> None:
        """Remove every entry but those of ``keep`` (integrities); best effort."""
        wanted = {_key(i) for i in keep}
        try:
            names = sorted(os.listdir(self.folder))
        except OSError:
            return
        for name in names:
            if not name.startswith(_NEW) and name.removesuffix(".json") not in wanted:
                atomic.remove(self.folder / name)


def link(entry: Extracted, target: Path) -> None:
    """Install one copy of the entry at the fresh folder ``target``: its folders made, its files hard-linked."""
    target.mkdir(parents=True)
    base, into = str(entry.folder), str(target)
    for rel in entry.dirs:
        os.mkdir(os.path.join(into, rel))
    for rel in entry.files:
        source, dest = os.path.join(base, rel), os.path.join(into, rel)
        try:
            os.link(source, dest)
        except OSError as exc:
            if exc.errno not in _NO_LINK:
                raise
            shutil.copy2(source, dest)  # a copy, read-only as the entry's file is
