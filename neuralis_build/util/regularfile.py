"""Read a file only when it is a regular file: a FIFO, a device or a folder is refused, never waited on.

``open()`` on a FIFO blocks until a writer appears, so a package (or a SPEC, or a host profile) that
names one would hang the toolchain forever. The file is opened with ``O_NONBLOCK`` (which a regular
file ignores) and judged by ``fstat`` on the open descriptor, so nothing can be swapped in between.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


class TooLarge(OSError):
    """The file is larger than its reader's cap: refused from its size, before it is read whole (``errno.EFBIG``)."""

    def __init__(self, path: Path | str, size: int, cap: int) -> None:
        why = f"{size_text(size)}, more than the {size_text(cap)} the toolchain reads"
        super().__init__(errno.EFBIG, why, str(path))
        self.size = size
        self.cap = cap

    def __str__(self) -> str:
        return f"{self.filename} is {self.strerror}"


def size_text(size: int) -> str:
    """A size as messages give it: ``16 MiB``, ``300.5 MiB (315,097,088 bytes)``, ``1,000 bytes``."""
    if size < 1 << 20:
        return f"{size:,} bytes"
    mib = size / (1 << 20)
    return f"{mib:.0f} MiB" if size % (1 << 20) == 0 else f"{mib:.1f} MiB ({size:,} bytes)"


class NotRegularFile(OSError):
    """The path exists but is a FIFO, a socket, a device or a folder (or, when asked, a symlink)."""

    fifo = False
    """True for a FIFO, which a plain ``open()`` would have waited on forever."""


def kind_of(mode: int) -> str:
    """What a non-regular file is, in words (for messages)."""
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    return "not a regular file"


def read_regular(path: Path | str, *, follow_symlinks: bool = True, limit: int | None = None) -> bytes:
    """The bytes of the regular file at ``path``; ``NotRegularFile`` for anything else.

    With ``follow_symlinks=False`` a symlink itself is refused (``O_NOFOLLOW``). With ``limit`` a file
    larger than ``limit`` bytes is refused (``TooLarge``) from its size, before it is read, and no more
    than ``limit`` and one byte is read should it grow meanwhile.
    """
    flags = _FLAGS | (0 if follow_symlinks else _NOFOLLOW)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP and not follow_symlinks and os.path.islink(path):
            raise NotRegularFile(errno.ELOOP, "a symbolic link", str(path)) from None
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            refused = NotRegularFile(errno.EINVAL, kind_of(st.st_mode), str(path))
            refused.fifo = stat.S_ISFIFO(st.st_mode)
            raise refused
        if limit is not None and st.st_size > limit:
            raise TooLarge(path, st.st_size, limit)
        chunks, total = [], 0
        while chunk := os.read(fd, 1 << 20 if limit is None else min(1 << 20, limit + 1 - total)):
            chunks.append(chunk)
            total += len(chunk)
            if limit is not None and total > limit:  # it grew after fstat
                raise TooLarge(path, total, limit)
        return b"".join(chunks)
    finally:
        os.close(fd)


def is_regular(path: Path | str) -> bool:
    """True when ``path`` (followed through symlinks) is a regular file; never raises."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False
