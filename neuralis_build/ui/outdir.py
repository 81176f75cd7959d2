"""Build into a temp folder beside the target, then swap it in: a failed build leaves the old one.

A staging folder's name carries the id of the process that made it (``.app-<pid>-<random>``), so
the next build can sweep what a killed one left behind without touching a build still running.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

from neuralis_build.errors import UsageError


def staging_dir(parent: Path, prefix: str) -> Path:
    """A fresh hidden folder in ``parent`` (same file system as the target, so renames are atomic)."""
    try:
        parent.mkdir(parents=True, exist_ok=True)
        sweep(parent)
        return _fresh(parent, f"{prefix}{os.getpid()}-")
    except (FileExistsError, NotADirectoryError):
        raise UsageError(
            f"cannot write the build output: {parent} (or a folder above it) is a file",
            hint=f"move or delete {parent}; the build writes its outputs into that folder",
        ) from None


def _fresh(parent: Path, prefix: str) -> Path:
    """A new folder ``<prefix><random>`` (tempfile's mkdtemp, without its import cost on every build)."""
    while True:
        path = parent / f"{prefix}{os.urandom(5).hex()}"
        try:
            os.mkdir(path, 0o700)
        except FileExistsError:
            continue
        return path


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # it exists but belongs to someone else
    return True


_LEFTOVER = re.compile(r"^\.[a-z]+-(?:old-)?(\d+)-")


def sweep(parent: Path) -> None:
    """Remove ``.<name>-<pid>-…`` and ``.<name>-old-<pid>-…`` leftovers of build processes that are gone."""
    try:
        entries = list(os.scandir(parent))
    except OSError:
        return
    for entry in entries:
        m = _LEFTOVER.match(entry.name)
        if m and int(m.group(1)) != os.getpid() and not _alive(int(m.group(1))):
            remove(Path(entry.path))


def normalize_modes(folder: Path) -> None:
    """0755 folders and 0644 files, whatever the umask or mkdtemp's 0700: the host serves this tree."""
    os.chmod(folder, 0o755)
    for here, dirs, files in os.walk(folder):
        for d in dirs:
            os.chmod(os.path.join(here, d), 0o755)
        for f in files:
            os.chmod(os.path.join(here, f), 0o644)


def swap_in(staged: Path, final: Path) -> None:
    """Replace the folder ``final`` with ``staged``; on failure the previous ``final`` is put back."""
    final.parent.mkdir(parents=True, exist_ok=True)
    if not final.exists() and not final.is_symlink():
        os.replace(staged, final)
        return
    old = _fresh(final.parent, f".{final.name}-old-{os.getpid()}-")
    old.rmdir()
    os.replace(final, old)
    try:
        os.replace(staged, final)
    except BaseException:
        os.replace(old, final)
        raise
    remove(old)


def remove(path: Path) -> None:
    """Delete a file or folder if it is there (links are removed, never followed)."""
    if path.is_dir() and not path.is_symlink():
        for here, dirs, files in os.walk(path, topdown=False):
            for name in files:
                _quiet(os.unlink, os.path.join(here, name))
            for name in dirs:
                full = os.path.join(here, name)
                _quiet(os.unlink if os.path.islink(full) else os.rmdir, full)
        _quiet(os.rmdir, str(path))
    else:
        path.unlink(missing_ok=True)


def _quiet(op: Callable[[str], None], path: str) -> None:
    try:
        op(path)
    except OSError:
        pass  # best effort, like shutil.rmtree(ignore_errors=True)
