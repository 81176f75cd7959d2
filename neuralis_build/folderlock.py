"""One writer per folder at a time: an advisory lock on the folder itself, which the kernel drops when its holder dies.

``flock(2)`` on the folder's own descriptor, so there is no lock file: a package folder stays clean
(``pack`` has nothing to leave out) and no lock can go stale, since the kernel releases it the moment
the holding process exits, ``kill -9`` included. A second process waits for the first, and says for
whom it waits as a progress step (the holder's process id and command line, from ``/proc/locks`` on
Linux). Within one process the lock is re-entrant per thread, and other threads wait their turn.
Where the file system has no locks (some network mounts) the folder is used unlocked.
"""

from __future__ import annotations

import errno
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from neuralis_build import progress

try:
    import fcntl
except ImportError:  # Windows: no flock; the folder is used unlocked
    fcntl = None  # type: ignore[assignment]

__all__ = ["hold", "holder_of"]

_NO_LOCKS = {errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOSYS, errno.EINVAL}


class _Held:
    """This process's hold on one folder: a lock for its threads, how deep the current one holds it, the fd."""

    def __init__(self) -> None:
        self.thread_lock = threading.RLock()
        self.depth = 0
        self.fd = -1
        self.users = 0


_registry = threading.Lock()
_held: dict[tuple[int, int], _Held] = {}


@contextmanager
def hold(folder: Path) -> Iterator[None]:
    """Hold ``folder`` (which must exist) for writing while the block runs; wait, saying for whom, if it is held."""
    fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    st = os.fstat(fd)
    key = (st.st_dev, st.st_ino)
    with _registry:
        held = _held.setdefault(key, _Held())
        held.users += 1
    try:
        with held.thread_lock:
            if held.depth == 0:
                _lock(fd, folder, st)
                held.fd, fd = fd, -1
            held.depth += 1
            try:
                yield
            finally:
                held.depth -= 1
                if held.depth == 0:
                    os.close(held.fd)  # closing the descriptor releases the lock
                    held.fd = -1
    finally:
        if fd >= 0:
            os.close(fd)
        with _registry:
            held.users -= 1
            if held.users == 0:
                del _held[key]


def _lock(fd: int, folder: Path, st: os.stat_result) -> None:
    if fcntl is None:
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return
    except BlockingIOError:
        pass
    except OSError as exc:
        if exc.errno in _NO_LOCKS:
            return
        raise
    with progress.step(f"waiting for {holder_of(st) or 'another process'} to finish with {folder}"):
        fcntl.flock(fd, fcntl.LOCK_EX)


def holder_of(st: os.stat_result) -> str | None:
    """``pid N (command line)`` of the process holding a flock on the file ``st`` describes; None if unknown."""
    device = f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}:{st.st_ino}"
    try:
        with open("/proc/locks", encoding="ascii", errors="replace") as locks:
            lines = locks.read().splitlines()
    except OSError:
        return None
    for line in lines:
        fields = line.split()
        # "1: FLOCK  ADVISORY  WRITE 4242 fe:00:2295700 0 EOF"; a waiter's line has "->" after the number
        if len(fields) >= 6 and fields[1] == "FLOCK" and fields[5] == device:
            return f"pid {fields[4]}{_command(fields[4])}"
    return None


def _command(pid: str) -> str:
    """`` (command line)`` of a process, the interpreter and the script by their names only; empty if unknown."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            words = [w.decode("utf-8", "replace") for w in fh.read().rstrip(b"\0").split(b"\0")]
    except OSError:
        return ""
    # "/usr/bin/python3 /home/me/.venv/bin/neuralis-build image …" reads as "python3 neuralis-build image …"
    shown = [os.path.basename(w) if i < 2 and os.path.isabs(w) else w for i, w in enumerate(words)]
    text = " ".join(" ".join(shown).split())  # one line, however the command was spelt
    return f" ({text[:160]})" if text else ""
