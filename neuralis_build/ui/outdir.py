"""Build into a temp folder beside the target, then swap it in: a failed build leaves the old one."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path


def staging_dir(parent: Path, prefix: str) -> Path:
    """A fresh hidden folder in ``parent`` (same file system as the target, so renames are atomic)."""
    parent.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(dir=parent, prefix=prefix))


def swap_in(staged: Path, final: Path) -> None:
    """Replace the folder ``final`` with ``staged``; on failure the previous ``final`` is put back."""
    final.parent.mkdir(parents=True, exist_ok=True)
    if not final.exists() and not final.is_symlink():
        os.replace(staged, final)
        return
    old = Path(tempfile.mkdtemp(dir=final.parent, prefix=f".{final.name}-old-"))
    old.rmdir()
    os.replace(final, old)
    try:
        os.replace(staged, final)
    except BaseException:
        os.replace(old, final)
        raise
    remove(old)


def remove(path: Path) -> None:
    """Delete a file or folder if it is there."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)
