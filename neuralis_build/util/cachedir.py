"""The toolchain's per-user cache folder, and the content digest its entries are named and checked by."""

from __future__ import annotations

import os
import sys
from pathlib import Path

try:  # the builtin module: hashlib's import loads OpenSSL first (about 8 ms), which every `ui` run would pay
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - a Python built without it
    from hashlib import blake2b

CACHE_ENV = "NEURALIS_BUILD_CACHE"


def cache_root() -> Path:
    """The per-user cache folder of the toolchain (``NEURALIS_BUILD_CACHE`` overrides)."""
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV])
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
        return base / "neuralis-build" / "Cache"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / "neuralis-build"
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "neuralis-build"


def digest(data: bytes) -> str:
    """A content digest (BLAKE2b with 32 bytes: fast in pure software, and collision-safe), in hex."""
    return blake2b(data, digest_size=32).hexdigest()
