"""Fetch each source: a tarball is read, an npm: spec is packed by npm into the cache, a folder is read in memory."""

from __future__ import annotations

import base64
import hashlib
import io
import json
import os
import shutil
import subprocess
import tarfile
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from neuralis_build.diagnostics import code
from neuralis_build.errors import SubprocessError, ToolMissingError, UserError
from neuralis_build.image.extract import Entry
from neuralis_build.image.files import select
from neuralis_build.npmname import tarball_stem

NB1801 = code("NB1801", "fetch-failed", "the package source could not be read or fetched")
NB1802 = code("NB1802", "integrity-mismatch", "the fetched bytes do not match the integrity the image spec pins")

NPM_MTIME = 499162500  # 1985-10-26T08:15:00Z, the mtime npm writes into every tarball


class FetchFailed(UserError):
    """A source could not be read or fetched; the package is refused."""


def integrity_of(data: bytes) -> str:
    """npm's Subresource Integrity string: ``sha512-`` and the base64 digest."""
    return "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode("ascii")


def read_tarball_file(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise FetchFailed(f"cannot read {path}: {exc.strerror}") from None


def npm_pack(name: str, version: str, cache: Path) -> Path:
    """``npm pack <name>@<version>`` from the registry npm is configured for, once: versions never change."""
    target = cache / f"{tarball_stem(name, version)}.tgz"
    if target.is_file():
        return target
    npm = shutil.which("npm")
    if npm is None:
        raise ToolMissingError("npm is not on PATH", hint="install Node.js and npm to fetch npm: sources")
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache, prefix=".fetch-") as scratch:
        command = [npm, "pack", f"{name}@{version}", "--json", "--ignore-scripts", "--pack-destination", scratch]
        done = subprocess.run(command, cwd=scratch, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            message = next((ln for ln in done.stderr.splitlines() if "error" in ln.lower()), done.stderr.strip())
            raise FetchFailed(f"npm pack {name}@{version} failed: {message}")
        try:
            filename = json.loads(done.stdout)[0]["filename"]
        except (ValueError, LookupError, TypeError):
            raise SubprocessError("npm pack printed no JSON", command=command, output=done.stdout) from None
        os.replace(Path(scratch) / Path(filename).name, target)
    return target


_SKIP_DIRS = {".git", ".svn", ".hg", "CVS"}


def directory_entries(root: Path, manifest: dict[str, Any]) -> list[Entry]:
    """The files ``npm pack`` would take from a folder (regular files only; links are never followed), sorted."""
    found: list[str] = []
    for folder, dirs, files in os.walk(root):
        rel_folder = os.path.relpath(folder, root)
        rel_folder = "" if rel_folder == "." else rel_folder.replace(os.sep, "/") + "/"
        dirs[:] = sorted(
            d
            for d in dirs
            if d not in _SKIP_DIRS
            and not (rel_folder == "" and d == "node_modules")
            and not os.path.islink(os.path.join(folder, d))
        )
        for name in files:
            full = os.path.join(folder, name)
            if os.path.islink(full) or not os.path.isfile(full) or "*" in name:
                continue
            found.append(rel_folder + name)
    chosen = sorted(select(found, manifest))
    entries = []
    for rel in chosen:
        path = root / rel
        entries.append(Entry(rel, path.read_bytes(), bool(path.stat().st_mode & 0o100)))
    return entries


def tar_of(entries: Sequence[Entry]) -> bytes:
    """A deterministic uncompressed tar of ``entries`` laid out as npm packs them (package/ prefix, fixed mtime)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as archive:
        for entry in entries:
            info = tarfile.TarInfo("package/" + entry.path)
            info.size = len(entry.data)
            info.mtime = NPM_MTIME
            info.mode = 0o755 if entry.executable else 0o644
            info.uname = info.gname = ""
            archive.addfile(info, io.BytesIO(entry.data))
    return buffer.getvalue()
