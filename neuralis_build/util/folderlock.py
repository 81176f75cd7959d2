"""One writer per folder at a time: an advisory lock on the folder itself, which the kernel drops when its holder dies.

``flock(2)`` on the folder's own descriptor, so there is no lock file: a package folder stays clean
(``pack`` has nothing to leave out) and no lock can go stale, since the kernel releases it the moment
the holding process exits, ``kill -9`` included. Within one process the lock is re-entrant per thread,
and other threads wait their turn. Where the file system has no locks (some network mounts) the folder
is used unlocked.

Whom a second process waits for. ``flock`` needs only a descriptor, and anyone who can open the folder
(another local user who can read it) can take it; waiting on them would let any user stall ``pack``,
``ui`` and ``image`` for ever. So a busy folder is polled rather than waited on blindly, and its holder
is named each time from ``/proc/locks`` (its pid) and ``/proc/<pid>/status`` (its effective uid):

- a process of this user: wait for it, saying for whom (pid and command line), as one progress step;
- a process of another uid: refuse at once (``UsageError``, exit 2) naming its uid and user name, pid,
  command and the folder. Another user's process is not this user's to wait on or to stop;
- a holder that cannot be identified (no ``/proc``; a pid in another pid namespace, shown as 0; a
  process ``/proc`` hides, as ``hidepid`` does for other users' processes; a holder that forked and
  exited, leaving the lock to a child) waits at most ``UNKNOWN_HOLDER_WAIT`` seconds, saying so, then
  refuses. Bounded, because such a holder is as likely another user's as this user's; generous,
  because if it is this user's build it should be allowed to finish.

Why not a lock only the author can take (a lock file in a folder only they can write, or refusing
folders they do not own)? The lock keeps every writer of a folder apart, and a folder may have several
legitimate writers (a group's shared checkout, root building a user's package): a per-user lock file
would let two of them swap ``dist/`` at once, a lock file inside the folder could be removed by any of
them (and would have to be left out of every tarball), and an ownership check would refuse folders
that are fine. Refusing at once keeps the folder shared and the lock kernel-held; what another user
can still do is make a build fail with their name in the message, never make it hang, and a folder
other users cannot read is one they cannot lock.
"""

from __future__ import annotations

import errno
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from neuralis_build.util import progress
from neuralis_build.util.errors import UsageError

try:
    import fcntl
except ImportError:  # Windows: no flock; the folder is used unlocked
    fcntl = None  # type: ignore[assignment]

__all__ = ["Holder", "hold", "holder_of"]

_NO_LOCKS = {errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOSYS, errno.EINVAL}

UNKNOWN_HOLDER_WAIT = 300.0
"""Seconds to wait for a holder whose owner cannot be read, before refusing (see the module docstring)."""

_POLL_MAX = 0.25  # seconds between two tries at most: a released folder is taken within a quarter second


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
    """Hold ``folder`` (which must exist) for writing while the block runs.

    Wait, saying for whom, while another process of this user holds it; ``UsageError`` when a process of
    another user does, or when a holder nobody can name keeps it past ``UNKNOWN_HOLDER_WAIT``.
    """
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


@dataclass(frozen=True, slots=True)
class Holder:
    """The process ``/proc/locks`` names as holding a folder's lock, and its owner when it can be read."""

    pid: int
    uid: int | None
    """Its effective uid; None when its process cannot be read (gone, hidden, or in another pid namespace)."""
    command: str
    """`` (command line)``, or empty when it cannot be read."""

    def __str__(self) -> str:
        return f"pid {self.pid}{self.command}"

    @property
    def foreign(self) -> bool:
        """True when the holder is known to run as another user than this process."""
        return self.uid is not None and self.uid != os.geteuid()


def _lock(fd: int, folder: Path, st: os.stat_result) -> None:
    if _try(fd):
        return
    holder = _holder(st)
    _refuse_foreign(holder, folder)
    known = holder is not None and holder.uid is not None
    waiting = f"waiting for {holder or 'another process'} to finish with {folder}"
    if not known:
        waiting += f" (its owner cannot be read: waiting at most {UNKNOWN_HOLDER_WAIT:.0f} s)"
    deadline = time.monotonic() + UNKNOWN_HOLDER_WAIT
    delay = 0.01
    with progress.step(waiting):
        while not _try(fd):
            # the holder is named afresh each time: the one waited for may hand over to another user's process
            holder = _holder(st)
            _refuse_foreign(holder, folder)
            if holder is not None and holder.uid is not None:
                deadline = time.monotonic() + UNKNOWN_HOLDER_WAIT  # this user's own: wait as long as it takes
            elif time.monotonic() >= deadline:
                raise _unknown(holder, folder)
            time.sleep(delay)
            delay = min(delay * 2, _POLL_MAX)


def _try(fd: int) -> bool:
    """Take the lock if it is free; True when taken, or when the file system has no locks (used unlocked)."""
    if fcntl is None:
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        return False
    except OSError as exc:
        if exc.errno in _NO_LOCKS:
            return True
        raise


def _refuse_foreign(holder: Holder | None, folder: Path) -> None:
    if holder is None or not holder.foreign:
        return
    assert holder.uid is not None
    name = _user_name(holder.uid)
    raise UsageError(
        f"{folder} is locked by another user: uid {holder.uid}{f' ({name})' if name else ''}, {holder}; "
        "not waiting for a process this user cannot stop",
        hint="ask them to end it, or build in a folder other users cannot read (anyone who can open a folder "
        "can lock it)",
    )


def _unknown(holder: Holder | None, folder: Path) -> UsageError:
    who = f"{holder}, whose owner cannot be read" if holder is not None else "a process that cannot be named"
    return UsageError(
        f"{folder} is still locked by {who}, after {UNKNOWN_HOLDER_WAIT:.0f} s of waiting",
        hint="if it is a build of yours (in another container, say), run again once it ends; if it is not, "
        "build in a folder other users cannot read",
    )


def _user_name(uid: int) -> str | None:
    try:
        import pwd
    except ImportError:
        return None
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return None


def holder_of(st: os.stat_result) -> str | None:
    """``pid N (command line)`` of the process holding a flock on the file ``st`` describes; None if unknown."""
    holder = _holder(st)
    return str(holder) if holder is not None else None


def _holder(st: os.stat_result) -> Holder | None:
    """The process holding a flock on the file ``st`` describes, from ``/proc/locks``; None if none is named."""
    device = f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}:{st.st_ino}"
    try:
        with open("/proc/locks", encoding="ascii", errors="replace") as locks:
            lines = locks.read().splitlines()
    except OSError:
        return None
    for line in lines:
        fields = line.split()
        # "1: FLOCK  ADVISORY  WRITE 4242 fe:00:2295700 0 EOF"; a waiter's line has "->" after the number
        if len(fields) >= 6 and fields[1] == "FLOCK" and fields[5] == device and fields[4].isdigit():
            pid = fields[4]
            return Holder(int(pid), _uid(pid), _command(pid))
    return None


def _uid(pid: str) -> int | None:
    """The effective uid of a process (``Uid:`` real, effective, saved, fs); None when it cannot be read.

    Pid 0 is a holder in another pid namespace; a pid ``/proc`` does not show (gone, or hidden by
    ``hidepid``) has no status to read.
    """
    if pid == "0":
        return None
    try:
        with open(f"/proc/{pid}/status", encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if line.startswith("Uid:"):
                    return int(line.split()[2])
    except (OSError, ValueError, IndexError):
        return None
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
