"""Pack a package into npm's tarball, report it as ``npm pack --json`` does, and write it atomically."""

from __future__ import annotations

import base64
import hashlib
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypedDict

from neuralis_build.npm.packagejson import MANIFEST
from neuralis_build.pack.collate import sort_listing
from neuralis_build.pack.fields import identity_diagnostics, normalize_bin
from neuralis_build.pack.packlist import packlist_exact
from neuralis_build.pack.tarstream import TarEntry, entry_name, gzip_npm, portable_mode, tar_stream
from neuralis_build.package import Package
from neuralis_build.util.atomic import write_bytes
from neuralis_build.util.diagnostics import Diagnostic, code
from neuralis_build.util.errors import DiagnosedError, UsageError

NB1713 = code("NB1713", "order-approximated", "non-ASCII names were ordered without node, so npm's order may differ")
NB1714 = code("NB1714", "file-unreadable", "a file npm would pack could not be read")


class NpmFileJSON(TypedDict):
    path: str
    size: int
    mode: int


class NpmPackJSON(TypedDict):
    id: str
    name: str
    version: str
    size: int
    unpackedSize: int
    shasum: str
    integrity: str
    filename: str
    files: list[NpmFileJSON]
    entryCount: int
    bundled: list[str]


@dataclass(frozen=True)
class PackedFile:
    """One tar entry as ``npm pack --json`` lists it: path without ``package/``, size, mode."""

    path: str
    size: int
    mode: int


@dataclass(frozen=True)
class PackResult:
    """A packed tarball: its bytes, hashes and listing, in the facts ``npm pack --json`` reports."""

    name: str
    version: str
    filename: str
    tgz: bytes = field(repr=False)
    files: tuple[PackedFile, ...]
    size: int
    unpacked_size: int
    shasum: str
    integrity: str
    entry_count: int
    tar_size: int = 0
    bundled: tuple[str, ...] = ()
    notes: tuple[Diagnostic, ...] = ()

    @property
    def id(self) -> str:
        return f"{self.name}@{self.version}"

    @property
    def disk_filename(self) -> str:
        """The name libnpmpack writes the tarball under (``@scope/name`` → ``scope-name-<version>.tgz``)."""
        return re.sub(r"[/\\]", "-", re.sub(r"^@", "", f"{self.name}-{self.version}.tgz"))

    def to_npm_json(self) -> NpmPackJSON:
        """The object ``npm pack --json`` prints for one package (keys in npm's order)."""
        return {
            "id": self.id,
            "name": self.name,
            "version": self.version,
            "size": self.size,
            "unpackedSize": self.unpacked_size,
            "shasum": self.shasum,
            "integrity": self.integrity,
            "filename": self.filename,
            "files": [{"path": f.path, "size": f.size, "mode": f.mode} for f in self.files],
            "entryCount": self.entry_count,
            "bundled": list(self.bundled),
        }


_BUNDLED = re.compile(r"^package/node_modules/((?:@[^/]+/)?[^/]+)")


def npm_filename(name: str, version: str) -> str:
    """The ``filename`` npm reports: the first ``@`` dropped, the first ``/`` made ``-``."""
    return f"{name.replace('@', '', 1).replace('/', '-', 1)}-{version}.tgz"


def _strip_first_component(path: str) -> str:
    return re.sub(r"^[^\\/]*/", "", path, count=1)


def _read(root: Path, rel: str) -> tuple[bytes, int]:
    """A file's bytes and stat mode, never through a symlink (the list holds regular files only)."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)  # a FIFO never blocks
    try:
        fd = os.open(root / rel, flags)
    except OSError as exc:
        d = Diagnostic("error", NB1714.id, rel, "", f"{rel} cannot be read: {exc.strerror}", "check its permissions")
        raise DiagnosedError(f"{rel} cannot be read", [d]) from None
    with os.fdopen(fd, "rb") as fh:
        mode = os.fstat(fh.fileno()).st_mode
        if not stat.S_ISREG(mode):  # swapped for something else since the walk listed it
            d = Diagnostic("error", NB1714.id, rel, "", f"{rel} is no longer a regular file", "pack again")
            raise DiagnosedError(f"{rel} cannot be read", [d])
        return fh.read(), mode


def tar_entries(root: Path, manifest: dict[str, Any], paths: list[str]) -> list[TarEntry]:
    """The tar entries npm writes for ``paths`` (in that order), bins made executable as npm does.

    npm's pack-time chmod compares a path *without its first component* to the bin targets (npm/cli#7762),
    so ``cli.js`` and ``x/cli.js`` become 0755 for a bin ``cli.js`` while ``bin/cli.js`` stays as it is on
    disk; we reproduce that so the tarball is npm's. Installing sets the real bins executable either way.
    """
    bins = set(normalize_bin(manifest, root).values())
    entries = []
    for rel in paths:
        listed = f"./{rel}" if rel.startswith("@") else rel  # as ignore-walk hands it to node-tar
        data, mode = _read(root, rel)
        if _strip_first_component(listed) in bins:
            mode |= 0o111
        entries.append(TarEntry(entry_name(listed), data, mode))
    return entries


def build_result(name: str, version: str, entries: list[TarEntry], notes: tuple[Diagnostic, ...] = ()) -> PackResult:
    """Write the tar stream and gzip it; list and hash it as npm does."""
    tar = tar_stream(entries)
    tgz = gzip_npm(tar)
    listed = [PackedFile(re.sub(r"^package/", "", e.path), len(e.data), portable_mode(e.mode)) for e in entries]
    order, exact = sort_listing([f.path for f in listed])
    queue: dict[str, list[PackedFile]] = {}
    for f in listed:
        queue.setdefault(f.path, []).append(f)
    files = tuple(queue[p].pop(0) for p in order)
    if not exact:
        notes = (*notes, _approximate_note())
    bundled = [m.group(1) for e in entries if (m := _BUNDLED.match(e.path))]
    return PackResult(
        name=name,
        version=version,
        filename=npm_filename(name, version),
        tgz=tgz,
        files=files,
        size=len(tgz),
        unpacked_size=sum(f.size for f in listed),
        shasum=hashlib.sha1(tgz).hexdigest(),
        integrity="sha512-" + base64.b64encode(hashlib.sha512(tgz).digest()).decode("ascii"),
        entry_count=len(entries),
        tar_size=len(tar),
        bundled=tuple(dict.fromkeys(bundled)),
        notes=tuple(dict.fromkeys(notes)),
    )


def _approximate_note() -> Diagnostic:
    return Diagnostic(
        "warning",
        NB1713.id,
        MANIFEST,
        "",
        "some file names are not ASCII and node is not on PATH (or did not answer): their order in the tarball "
        "approximates npm's ICU collation and may differ from npm pack's",
        "install Node.js (node on PATH) so the exact order can be computed",
    )


def pack_package(package: Package, files: list[str] | None = None) -> PackResult:
    """Pack ``package`` exactly as ``npm pack`` would (``files``: a packlist already computed)."""
    problems = identity_diagnostics(package.manifest)
    if problems:
        raise DiagnosedError("npm cannot pack a package without a name and a version", problems)
    notes: tuple[Diagnostic, ...] = ()
    if files is None:
        files, exact = packlist_exact(package.root, package.manifest, as_npm_pack=True)
        if not exact:
            notes = (_approximate_note(),)
    entries = tar_entries(package.root, package.manifest, files)
    return build_result(str(package.name), str(package.version), entries, notes)


def write_tarball(result: PackResult, out_dir: Path) -> Path:
    """Write the tarball into ``out_dir`` atomically (a temp file beside it, then a rename)."""
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"{out_dir}: cannot create the folder ({exc.strerror})") from None
    target = out_dir / result.disk_filename
    try:
        write_bytes(target, result.tgz)
    except OSError as exc:
        raise UsageError(f"{target}: cannot write the tarball ({exc.strerror})") from None
    return target
