"""The tree a sandboxed load sees, and the proof that no load changed the tree the image commits.

Each load runs in the sandbox (``neuralis_build.util.sandbox``) with the staged ``node_modules`` mounted
read-only at ``/image/node_modules``: the kernel refuses every write, rename, chmod and link through
that mount, whatever the code (an addon's included) tries, and nothing else of the staging folder or
the image folder is in the sandbox's view. (A copy would add nothing: a copy of hard links shares
every inode with the tree, so only the mount protects it, and a copy of the bytes costs the tree's
size on every build.)

The proof is :func:`snapshot` and :func:`changes`. Before any load, every entry of the staged tree
is recorded with its inode, mode, size, link target and change time (``ctime``, which the kernel
sets on every write, rename, chmod or link and which no process can set back); right before the
commit it is recorded again. Any difference fails the build, and the change times name the loads
that ran when the change was made.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

INSIDE = "/image"
"""The image's folder in the sandbox (its node_modules mounted there): the same paths in every message."""

# the kernel's clock for ctime is coarse (a tick): a change stamped just outside a load's window is still its own
_TICK_NS = 20_000_000

Entry = tuple[int, int, int, int, str]  # mode, inode, size, ctime (ns), link target


def inside(root: Path, folder: Path) -> str:
    """Where ``folder`` (under ``root``, links followed) is in the sandbox."""
    rel = os.path.relpath(os.path.realpath(folder), os.path.realpath(root))
    return INSIDE if rel == "." else f"{INSIDE}/{Path(rel).as_posix()}"


def snapshot(root: Path) -> dict[str, Entry]:
    """Every folder, file and link under ``root`` (relative path -> what a change to it would change)."""
    out: dict[str, Entry] = {}
    stack = [("", str(root))]
    while stack:
        rel, here = stack.pop()
        with os.scandir(here) as found:
            for entry in found:
                st = entry.stat(follow_symlinks=False)
                path = f"{rel}{entry.name}"
                target = os.readlink(entry.path) if stat.S_ISLNK(st.st_mode) else ""
                out[path] = (st.st_mode, st.st_ino, st.st_size, st.st_ctime_ns, target)
                if stat.S_ISDIR(st.st_mode):
                    stack.append((path + "/", entry.path))
    return out


@dataclass(frozen=True)
class Window:
    """When one load ran (wall-clock nanoseconds, as ctime is stamped), and what was loaded."""

    what: str
    start: int
    end: int


@dataclass(frozen=True)
class Tampered:
    """The staged tree changed while packages were loaded: what changed, and the loads running at the time."""

    changed: tuple[str, ...]
    suspects: tuple[str, ...]


def changes(
    before: Mapping[str, Entry], after: Mapping[str, Entry], windows: Sequence[Window], root: Path
) -> Tampered | None:
    """What differs between two snapshots of one tree, with the loads whose window holds each change time."""
    changed = sorted(p for p in set(before) | set(after) if before.get(p) != after.get(p))
    if not changed:
        return None
    stamps = set()
    for path in changed:
        entry = after.get(path)
        if entry is None:  # removed: its folder's change time is the removal's
            parent = path.rpartition("/")[0]
            entry = after.get(parent)
            if entry is None and parent == "":
                try:
                    stamps.add(os.lstat(root).st_ctime_ns)
                except OSError:
                    pass
                continue
        if entry is not None:
            stamps.add(entry[3])
    suspects = sorted({w.what for w in windows for t in stamps if w.start - _TICK_NS <= t <= w.end + _TICK_NS})
    return Tampered(tuple(changed), tuple(suspects or sorted({w.what for w in windows})))
