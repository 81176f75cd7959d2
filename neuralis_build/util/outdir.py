"""Build into a temp folder beside the target, then swap it in: a failed build leaves the old one.

The folder mechanics (hidden names carrying the process id, the swap with rollback, the sweep of what
a killed build left) are ``neuralis_build.util.atomic``'s; this module adds what the UI build needs on top:
a message naming the folder when ``dist/`` cannot be made, and the modes the host serves.
"""

from __future__ import annotations

import os
from pathlib import Path

from neuralis_build.util import atomic
from neuralis_build.util.atomic import remove, swap_in, sweep
from neuralis_build.util.errors import UsageError

__all__ = ["BUILD_LEFTOVERS", "normalize_modes", "remove", "staging_dir", "swap_in", "sweep"]

# Where `neuralis-build ui` writes, and the hidden folders it stages in: the one list pack reads too.
DIST = "dist"
OUT_DIR = f"{DIST}/app"  # the UI module, swapped in whole
EVENTS_OUT = f"{DIST}/src/events"  # compiled event subjects
ROUTES_OUT = f"{DIST}/routes"  # compiled routes
UI_STAGING = ".app-"  # dist/.app-<pid>-<random>: a UI module being built
SERVER_STAGING = ".server-"  # dist/.server-<pid>-<random>: events and routes being compiled


def _aside(folder: str) -> str:
    """The pattern of the name ``atomic.swap_in`` sets a replaced folder aside under (``dist/.app-old-…``)."""
    parent, _, name = folder.rpartition("/")
    return f"/{parent}/.{name}-old-*"


BUILD_LEFTOVERS: tuple[str, ...] = (
    f"/{DIST}/{UI_STAGING}*",
    f"/{DIST}/{SERVER_STAGING}*",
    *(_aside(folder) for folder in (OUT_DIR, EVENTS_OUT, ROUTES_OUT)),
)
"""What a killed build leaves beside its outputs (a staged folder holds a tsconfig with the build machine's
absolute path): pack never ships these, whatever ``files`` says (pack/packlist.py, a strict rule)."""


def staging_dir(parent: Path, prefix: str) -> Path:
    """A fresh hidden folder in ``parent`` (same file system as the target, so renames are atomic)."""
    try:
        return atomic.staging_dir(parent, prefix)
    except (FileExistsError, NotADirectoryError):
        raise UsageError(
            f"cannot write the build output: {parent} (or a folder above it) is a file",
            hint=f"move or delete {parent}; the build writes its outputs into that folder",
        ) from None


def normalize_modes(folder: Path) -> None:
    """0755 folders and 0644 files, whatever the umask or mkdtemp's 0700: the host serves this tree."""
    os.chmod(folder, 0o755)
    for here, dirs, files in os.walk(folder):
        for d in dirs:
            os.chmod(os.path.join(here, d), 0o755)
        for f in files:
            os.chmod(os.path.join(here, f), 0o644)
