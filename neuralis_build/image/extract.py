"""Read a package tarball that may be hostile: every rule is enforced in memory before a byte is written.

The reader streams the gzip layer and counts decompressed bytes as it goes, so a gzip bomb is
refused at the cap rather than inflated. It is stricter than npm (which relativises absolute paths,
skips links and lets the last duplicate win): anything npm would silently rewrite is refused here.
"""

from __future__ import annotations

import io
import os
import stat
import tarfile
import unicodedata
import zlib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from neuralis_build.diagnostics import Code, code
from neuralis_build.errors import UserError

NB1803 = code("NB1803", "archive-path", "a tarball entry's path is absolute, has .. or lacks the package/ prefix")
NB1804 = code("NB1804", "archive-entry-type", "a tarball holds a link, a device, a FIFO or another non-file entry")
NB1805 = code("NB1805", "archive-duplicate", "a tarball holds the same path twice (or two that differ only in case)")
NB1806 = code("NB1806", "archive-limit", "a tarball exceeds the entry count, entry size or total size cap")
NB1807 = code("NB1807", "archive-corrupt", "a tarball is not a readable gzip-compressed tar")
NB1808 = code("NB1808", "archive-no-manifest", "a tarball has no package/package.json")

PREFIX = "package/"
_DATA_FILTER = getattr(tarfile, "data_filter", None)
_FILTER_ERROR: type[Exception] | tuple[()] = getattr(tarfile, "FilterError", ())
MiB = 1024 * 1024


@dataclass(frozen=True)
class Limits:
    """Caps on one tarball; the defaults admit every real npm package we know of."""

    max_entries: int = 20_000
    max_entry_bytes: int = 64 * MiB
    max_total_bytes: int = 256 * MiB
    max_path_bytes: int = 1024
    max_depth: int = 64

    @property
    def max_stream_bytes(self) -> int:
        """The decompressed tar stream may hold headers and padding beyond the file bytes, never more."""
        return self.max_total_bytes + 1536 * (self.max_entries + 2) + 10240


@dataclass(frozen=True)
class Entry:
    """One regular file of a package: its package-relative path, bytes and whether it is executable."""

    path: str
    data: bytes
    executable: bool = False


class ArchiveRefused(UserError):
    """The tarball breaks a rule; nothing of it may be installed."""

    def __init__(self, rule: Code, message: str, hint: str) -> None:
        super().__init__(message, hint=hint)
        self.rule = rule


class _Gunzip(io.RawIOBase):
    """A read-only stream of the decompressed bytes that refuses to inflate past a cap."""

    def __init__(self, data: bytes, cap: int) -> None:
        self._data = memoryview(data)
        self._pos = 0
        self._inflate = zlib.decompressobj(16 + zlib.MAX_WBITS)
        self._pending = b""
        self._cap = cap
        self.total = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        want = len(buffer)
        out = self._pending
        while len(out) < want and not self._inflate.eof:
            if self._inflate.unconsumed_tail:
                chunk = self._inflate.unconsumed_tail
            else:
                chunk = bytes(self._data[self._pos : self._pos + 65536])
                self._pos += len(chunk)
                if not chunk:
                    raise ArchiveRefused(
                        NB1807, "the gzip stream ends before its end marker", "re-create the tarball (npm pack)"
                    )
            try:
                out += self._inflate.decompress(chunk, max(want - len(out), 65536))
            except zlib.error as exc:
                raise ArchiveRefused(NB1807, f"the gzip stream is corrupt ({exc})", "re-create the tarball") from None
            if self.total + len(out) > self._cap:
                raise ArchiveRefused(
                    NB1806,
                    f"the tarball inflates past {self._cap:,} bytes (a gzip bomb or an oversized package); "
                    "refused while decompressing, nothing was extracted",
                    "ship a smaller package; the image caps a package's total size",
                )
        n = min(want, len(out))
        buffer[:n] = out[:n]
        self._pending = out[n:]
        self.total += n
        return n


def _refuse_path(name: str, why: str) -> ArchiveRefused:
    return ArchiveRefused(
        NB1803,
        f"the entry {name!r} {why}",
        "a package tarball holds only package/<relative path> entries, as npm pack writes them",
    )


def _relative(name: str, limits: Limits, root: str = "package") -> str:
    """The package-relative path of an entry name, or a refusal naming what is wrong with it."""
    if len(name.encode("utf-8", "surrogateescape")) > limits.max_path_bytes:
        raise ArchiveRefused(NB1806, f"the entry path {name[:60]!r}… is longer than {limits.max_path_bytes} bytes", "")
    if "\\" in name:
        raise _refuse_path(name, "has a backslash (a Windows path separator)")
    if name.startswith("/"):
        raise _refuse_path(name, "is an absolute path")
    if any(ord(ch) < 0x20 or ord(ch) == 0x7F for ch in name):
        raise _refuse_path(name, "has a control character")
    parts = name.split("/")
    if ".." in parts:
        raise _refuse_path(name, "has a .. segment")
    if parts[0] != root:
        raise _refuse_path(name, f"does not start with {root}/")
    rest = parts[1:]
    if rest and rest[-1] == "":  # a directory entry's trailing slash
        rest = rest[:-1]
    if any(p in ("", ".") for p in rest):
        raise _refuse_path(name, "has an empty or . segment")
    if len(rest) > limits.max_depth:
        raise ArchiveRefused(NB1806, f"the entry {name!r} is nested deeper than {limits.max_depth} folders", "")
    return "/".join(rest)


def _fold(path: str) -> str:
    """The key two paths collide under on a case-insensitive or normalising file system."""
    return unicodedata.normalize("NFC", path).casefold()


_KIND_WORDS = {
    tarfile.SYMTYPE: "a symbolic link",
    tarfile.LNKTYPE: "a hard link",
    tarfile.CHRTYPE: "a character device",
    tarfile.BLKTYPE: "a block device",
    tarfile.FIFOTYPE: "a FIFO",
    tarfile.GNUTYPE_SPARSE: "a sparse file",
}


def read_tarball(data: bytes, limits: Limits | None = None, *, any_root: bool = False) -> list[Entry]:
    """Every regular file of a ``.tgz`` in archive order; refuse the whole archive on the first broken rule.

    ``any_root``: the entries share one first folder of any name, not necessarily ``package/`` (npm
    strips the first component of a registry tarball, and some publishers, @types/* among them, name it
    after the package); every other rule stays.
    """
    limits = limits or Limits()
    root: str | None = None if any_root else "package"
    if data[:2] != b"\x1f\x8b":
        raise ArchiveRefused(NB1807, "the file is not gzip-compressed", "a package tarball is a .tgz (npm pack)")
    stream = io.BufferedReader(_Gunzip(data, limits.max_stream_bytes), buffer_size=65536)
    entries: list[Entry] = []
    seen: dict[str, str] = {}  # folded path -> the entry name that took it
    dirs: set[str] = set()
    files: set[str] = set()
    total = 0
    count = 0
    try:
        archive = tarfile.open(fileobj=stream, mode="r|")  # noqa: SIM115 (a stream over bytes in memory)
        for member in archive:
            count += 1
            if count > limits.max_entries:
                raise ArchiveRefused(NB1806, f"the tarball has more than {limits.max_entries:,} entries", "")
            if root is None:
                root = member.name.split("/", 1)[0] or "package"
            rel = _relative(member.name, limits, root)
            if member.type in _KIND_WORDS or not (member.isfile() or member.isdir()):
                what = _KIND_WORDS.get(member.type, f"an entry of tar type {member.type!r}")
                raise ArchiveRefused(
                    NB1804,
                    f"the entry {member.name!r} is {what}; a package installs regular files only",
                    "pack the package with npm pack or neuralis-build pack, which write regular files only",
                )
            # Python's own extraction policy (PEP 706, Python 3.11.4+), as a second opinion on the rules above.
            if _DATA_FILTER is not None:
                _DATA_FILTER(member, "/nonexistent-extraction-root")
            if member.isdir():
                if rel and rel in files:
                    raise ArchiveRefused(NB1805, f"{member.name!r} is both a file and a folder", "")
                if rel:
                    dirs.add(rel)
                continue
            if not rel:
                raise _refuse_path(member.name, "is a file named package/ itself")
            folded = _fold(rel)
            if folded in seen:
                same = seen[folded] == rel
                raise ArchiveRefused(
                    NB1805,
                    f"the tarball holds {PREFIX}{rel} twice"
                    if same
                    else f"{PREFIX}{rel} and {PREFIX}{seen[folded]} differ only in case or Unicode normalisation",
                    "a tarball lists each file once; names must stay distinct on case-insensitive file systems",
                )
            parents = [str(p) for p in PurePosixPath(rel).parents][:-1]
            clash = next((p for p in parents if p in files), None) or (rel if rel in dirs else None)
            if clash is not None:
                raise ArchiveRefused(NB1805, f"{PREFIX}{clash} is both a file and a folder", "")
            if member.size > limits.max_entry_bytes:
                raise ArchiveRefused(
                    NB1806,
                    f"{member.name} is {member.size:,} bytes; one entry may hold at most {limits.max_entry_bytes:,}",
                    "",
                )
            total += member.size
            if total > limits.max_total_bytes:
                raise ArchiveRefused(
                    NB1806, f"the files add up to more than {limits.max_total_bytes:,} bytes", "ship a smaller package"
                )
            reader = archive.extractfile(member)
            body = reader.read() if reader is not None else b""
            if len(body) != member.size:
                raise ArchiveRefused(NB1807, f"{member.name} is cut short", "re-create the tarball")
            seen[folded] = rel
            files.add(rel)
            for parent in parents:
                dirs.add(parent)
            entries.append(Entry(rel, body, bool(member.mode & 0o100)))
        # tarfile stops quietly at a block it cannot parse; what follows the last entry must be padding
        while chunk := archive.fileobj.read(65536):
            if chunk.strip(b"\0"):
                raise ArchiveRefused(
                    NB1807, "the tar stream has data after its last readable entry", "re-create the tarball"
                )
    except _FILTER_ERROR as exc:
        raise ArchiveRefused(NB1803, f"the entry is unsafe to extract: {exc}", "") from None
    except (tarfile.TarError, EOFError) as exc:
        raise ArchiveRefused(NB1807, f"the tar stream is unreadable ({exc})", "re-create the tarball") from None
    if "package.json" not in files:
        raise ArchiveRefused(NB1808, "the tarball has no package/package.json", "pack the package folder with npm pack")
    return entries


def write_entries(entries: list[Entry], root: Path) -> None:
    """Write checked entries under the fresh folder ``root``, refusing to follow anything out of it."""
    real_root = os.path.realpath(root)
    made: set[str] = set()
    for entry in entries:
        target = os.path.join(real_root, *entry.path.split("/"))
        parent = os.path.dirname(target)
        if parent not in made:
            os.makedirs(parent, exist_ok=True)
            # containment after resolving: nothing on the way may lead out of the root
            if os.path.commonpath([os.path.realpath(parent), real_root]) != real_root:
                raise ArchiveRefused(NB1803, f"{entry.path} would be written outside the package folder", "")
            made.add(parent)
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_BINARY", 0)
        fd = os.open(target, flags, 0o755 if entry.executable else 0o644)
        try:
            _write_all(fd, entry.data)
            os.fchmod(fd, stat.S_IMODE(0o755 if entry.executable else 0o644))
        finally:
            os.close(fd)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
