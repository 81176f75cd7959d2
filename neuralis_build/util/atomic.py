"""Write outputs so that a reader finds the old version or the new one, never a part of one.

A file is written to a temp file in its own folder (the same file system, so the rename is atomic),
flushed to disk, then renamed over the target; any failure removes the temp file and leaves the target
as it was (flit_core's ``make_wheel_in`` is the model). A folder is built beside its target under a
hidden name and swapped in: the old folder is renamed aside, the new one renamed in, the old one put
back if that fails, then deleted.

Every hidden name carries the id of the process that made it (``.<name>.<pid>-<random>.tmp`` for a
file, ``.<prefix><pid>-<random>`` for a folder being built, ``.<name>-old-<pid>-<random>`` for one
set aside), so :func:`sweep` removes what a killed process left and never what a live one is writing.
Two writers of one target must still be kept apart by the caller (``folderlock``): the swap is atomic
for readers, not for a second writer.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

__all__ = ["remove", "staging_dir", "swap_in", "sweep", "write_bytes", "write_text"]

_OPEN = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
# What a process of this module leaves when it is killed: a temp file, a folder being built, one set aside.
_LEFTOVER = re.compile(r"^\..+?(?:-old)?[-.](?P<pid>\d+)-[0-9a-z]+(?:\.tmp)?$")


def _token() -> str:
    """``<pid>-<10 hex digits>``: unique enough beside a target, and says whose it is."""
    return f"{os.getpid()}-{os.urandom(5).hex()}"


def write_bytes(path: Path, data: bytes, *, mode: int | None = None) -> None:
    """Replace ``path`` with ``data`` atomically; ``mode`` sets the file's mode exactly (else 0666 less the umask).

    An OSError (a full disk, a read-only folder, a target that is a folder) names ``path`` and leaves
    it untouched, with no temp file behind.
    """
    path = Path(path)
    temp = path.with_name(f".{path.name}.{_token()}.tmp")
    try:
        fd = os.open(temp, _OPEN, 0o666)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            if mode is not None:
                os.fchmod(fd, mode)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temp, path)
    except BaseException as exc:
        _quiet(os.unlink, str(temp))
        if isinstance(exc, OSError):
            # the temp file's name means nothing to the reader: name the file that could not be written
            raise OSError(exc.errno, exc.strerror or str(exc), str(path)) from None
        raise


def write_text(path: Path, text: str, *, mode: int | None = None) -> None:
    """Replace ``path`` with ``text`` in UTF-8, atomically (a lone surrogate fails before anything is written)."""
    write_bytes(path, text.encode("utf-8"), mode=mode)


def staging_dir(parent: Path, prefix: str) -> Path:
    """A fresh hidden folder ``parent/<prefix><pid>-<random>`` to build in, beside the target it replaces.

    ``prefix`` starts with a dot (``.app-``). What killed processes left in ``parent`` is swept first.
    """
    parent.mkdir(parents=True, exist_ok=True)
    sweep(parent)
    while True:
        path = parent / f"{prefix}{_token()}"
        try:
            os.mkdir(path, 0o700)
        except FileExistsError:
            continue
        return path


def swap_in(staged: Path, final: Path) -> None:
    """Replace ``final`` (a folder, a file or nothing) with the folder ``staged``; on failure ``final`` is as it was."""
    final.parent.mkdir(parents=True, exist_ok=True)
    if not os.path.lexists(final):
        os.replace(staged, final)
        return
    old = final.with_name(f".{final.name}-old-{_token()}")
    os.replace(final, old)
    try:
        os.replace(staged, final)
    except BaseException:
        os.replace(old, final)
        raise
    remove(old)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # it exists but belongs to someone else
    return True


def leftover_pid(name: str) -> int | None:
    """The process id in a hidden name this module makes, or None for any other name."""
    m = _LEFTOVER.match(name)
    return int(m.group("pid")) if m else None


def sweep(parent: Path) -> list[str]:
    """Remove the temp files and folders that processes now gone left in ``parent``; return their names."""
    try:
        entries = list(os.scandir(parent))
    except OSError:
        return []
    swept = []
    for entry in sorted(entries, key=lambda e: e.name):
        pid = leftover_pid(entry.name)
        if pid is not None and pid != os.getpid() and not _alive(pid):
            remove(Path(entry.path))
            swept.append(entry.name)
    return swept


def remove(path: Path) -> None:
    """Delete a file or folder if it is there (links are removed, never followed); best effort."""
    if path.is_dir() and not path.is_symlink():
        for here, dirs, files in os.walk(path, topdown=False):
            for name in files:
                _quiet(os.unlink, os.path.join(here, name))
            for name in dirs:
                full = os.path.join(here, name)
                _quiet(os.unlink if os.path.islink(full) else os.rmdir, full)
        _quiet(os.rmdir, str(path))
    else:
        _quiet(os.unlink, str(path))


def _quiet(op: Callable[[str], None], path: str) -> None:
    try:
        op(path)
    except OSError:
        pass  # best effort, like shutil.rmtree(ignore_errors=True)
