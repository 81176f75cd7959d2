"""The content-hash cache under ``DIR/.neuralis-cache``: an unchanged package is neither re-extracted nor re-checked.

It lives inside the output folder so that deleting the image deletes its cache and a CI cache of the
folder carries both. A record is reused only when its key (the source's content hash, the install
class and trust, the host profile and the toolchain version) matches AND the installed folder still
lists the same files with the same sizes and modification times as when it was written.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from neuralis_build import __version__, atomic
from neuralis_build.hostprofile import HostProfile

CACHE_DIR = ".neuralis-cache"
STATE = "state.json"
STATE_VERSION = 1

Listing = list[list[Any]]


def cache_key(*parts: Any, host: HostProfile) -> str:
    """A stable hash of everything a package's verdict depends on."""
    blob = json.dumps([__version__, STATE_VERSION, host.to_json(), *parts], sort_keys=True, ensure_ascii=True)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def listing(root: Path) -> Listing:
    """Every file under ``root`` with its size and mtime, sorted: what tells an untouched install apart."""
    out: Listing = []
    base = str(root)
    for folder, dirs, files in os.walk(root):
        dirs.sort()
        for name in files:
            full = os.path.join(folder, name)
            st = os.lstat(full)
            out.append([os.path.relpath(full, base).replace(os.sep, "/"), st.st_size, st.st_mtime_ns, st.st_mode])
    out.sort()
    return out


def tree_hash(root: Path, skip_top: frozenset[str] = frozenset()) -> str:
    """A content hash of a source folder (names, modes and bytes; links by target), skipping node_modules and .git."""
    digest = hashlib.sha256()
    for folder, dirs, files in os.walk(root):
        rel = os.path.relpath(folder, root).replace(os.sep, "/")
        dirs[:] = sorted(d for d in dirs if d not in (".git", "node_modules") and not (rel == "." and d in skip_top))
        for name in sorted(files):
            full = os.path.join(folder, name)
            digest.update(f"{rel}/{name}\0".encode("utf-8", "surrogateescape"))
            if os.path.islink(full):
                digest.update(b"L" + os.readlink(full).encode("utf-8", "surrogateescape"))
                continue
            st = os.stat(full)
            digest.update(b"F" + str(st.st_mode & 0o111).encode())
            with open(full, "rb") as fh:
                digest.update(hashlib.sha256(fh.read()).digest())
    return digest.hexdigest()


class Cache:
    """The records of the last build in one output folder, keyed by cache key."""

    def __init__(self, out: Path) -> None:
        self.folder = out / CACHE_DIR
        self.records: dict[str, dict[str, Any]] = {}
        self.fresh: dict[str, dict[str, Any]] = {}
        try:
            data = json.loads((self.folder / STATE).read_text("utf-8"))
        except (OSError, ValueError):
            return
        if isinstance(data, dict) and data.get("version") == STATE_VERSION and isinstance(data.get("records"), dict):
            self.records = data["records"]

    @property
    def npm(self) -> Path:
        """Where npm: sources are packed to (a version never changes, so a tarball here is reused as is)."""
        return self.folder / "npm"

    def get(self, key: str, installed: Path | None) -> dict[str, Any] | None:
        """The record for ``key`` when the installed folder (if the record has one) is untouched."""
        record = self.records.get(key)
        if record is None:
            return None
        if record.get("listing") is not None and (
            installed is None or not installed.is_dir() or listing(installed) != record["listing"]
        ):
            return None
        return record

    def put(self, key: str, record: dict[str, Any]) -> None:
        self.fresh[key] = record

    def save(self) -> None:
        """Keep exactly the records of this build (old keys are dropped), written atomically."""
        self.folder.mkdir(parents=True, exist_ok=True)
        text = json.dumps({"version": STATE_VERSION, "records": self.fresh}, sort_keys=True)
        atomic.write_text(self.folder / STATE, text)
