"""Read a package tarball that may be hostile: every rule is enforced in memory before a byte is written.

The reader streams the gzip layer (gunzip.py) and counts decompressed bytes as it goes, so a gzip bomb is
refused at the cap rather than inflated. Entry names are read as npm's tar (node-tar, with pacote's
``strip: 1``) reads them: ``.`` and empty segments are normalised away (``package/./dist/index.js`` is
``dist/index.js``) and a later entry of the same path replaces an earlier one. What would escape the
package (an absolute path, a ``..`` segment, a link) or collide (a file that is also a folder, two paths
that differ only in case or Unicode normalisation) refuses the whole tarball, where npm would skip or
rewrite the entry: the image installs exactly what it judged.
"""

from __future__ import annotations

import io
import os
import re
import stat
import tarfile
import unicodedata
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from neuralis_build.image.archive.gunzip import Gunzip, GzipRefused
from neuralis_build.image.archive.tarheader import MalformedHeader, StrictHeader, end_of_archive, is_sparse
from neuralis_build.util.archivepath import NB1803, NOT_UTF8, path_problem
from neuralis_build.util.diagnostics import Code, code
from neuralis_build.util.errors import UserError
from neuralis_build.util.limits import MAX_PATH_BYTES, MAX_PATH_DEPTH, MAX_SEGMENT_BYTES

NB1804 = code("NB1804", "archive-entry-type", "a tarball holds a link, a device, a FIFO or another non-file entry")
NB1805 = code("NB1805", "archive-collision", "two tarball entries collide (a file that is also a folder, a case clash)")
NB1806 = code("NB1806", "archive-limit", "a tarball exceeds the entry count, entry size or total size cap")
NB1807 = code("NB1807", "archive-corrupt", "a tarball is not a readable gzip-compressed tar")
NB1808 = code(
    "NB1808", "archive-no-manifest", "a tarball has no package/package.json, or a dependency one Node cannot read"
)

PREFIX = "package/"
_SURROGATE = re.compile("[\ud800-\udfff]")
_DATA_FILTER = getattr(tarfile, "data_filter", None)
_FILTER_ERROR: type[Exception] | tuple[()] = getattr(tarfile, "FilterError", ())
MiB = 1024 * 1024


@dataclass(frozen=True)
class Limits:
    """Caps on one tarball; the defaults admit every real npm package we know of."""

    max_entries: int = 20_000
    max_entry_bytes: int = 64 * MiB
    max_total_bytes: int = 256 * MiB
    max_path_bytes: int = MAX_PATH_BYTES
    max_depth: int = MAX_PATH_DEPTH  # path segments, the file's own name included

    @property
    def max_stream_bytes(self) -> int:
        """The decompressed tar stream may hold headers and padding beyond the file bytes, never more."""
        return self.max_total_bytes + 1536 * (self.max_entries + 2) + 10240

    @property
    def max_tarball_bytes(self) -> int:
        """The most a tarball's own bytes may be, the cap on a download: the stream the reader lets it inflate to,
        plus what gzip adds to bytes it cannot compress (5 bytes a 64 KiB block, its header and trailer). A
        larger tarball is one the reader would refuse anyway."""
        stream = self.max_stream_bytes
        return stream + 5 * (stream // 65535 + 1) + 1024


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


def _refuse_path(name: str, why: str) -> ArchiveRefused:
    return ArchiveRefused(
        NB1803,
        f"the entry {name!r} {why}",
        "a package tarball holds only package/<relative path> entries, as npm pack writes them",
    )


def _relative(name: str, limits: Limits, root: str | None = "package") -> str:
    """The package-relative path of an entry name, or a refusal naming what is wrong with it.

    ``root``: the first folder every entry must start with; None strips whatever it is, as npm's
    ``strip: 1`` does. The ``.`` and empty segments after it are dropped, as node-tar's
    ``path.resolve`` drops them, so ``package/./a`` and ``package//a`` are ``a``.
    """
    if _SURROGATE.search(name):  # tarfile decodes bytes that are not UTF-8 as lone surrogates
        raise _refuse_path(_shown(name), NOT_UTF8)
    if len(name.encode("utf-8")) > limits.max_path_bytes:
        raise ArchiveRefused(NB1806, f"the entry path {name[:60]!r}… is longer than {limits.max_path_bytes} bytes", "")
    problem = path_problem(name)
    if problem is not None:
        raise _refuse_path(name, problem)
    parts = name.split("/")
    if root is not None and parts[0] != root:
        raise _refuse_path(name, f"does not start with {root}/")
    rest = [p for p in parts[1:] if p not in ("", ".")]
    if len(rest) > limits.max_depth:
        raise ArchiveRefused(NB1806, f"the entry {name!r} has more than {limits.max_depth} path segments", "")
    if any(len(p.encode("utf-8")) > MAX_SEGMENT_BYTES for p in rest):
        raise ArchiveRefused(NB1806, f"the entry {name[:60]!r}… has a name longer than {MAX_SEGMENT_BYTES} bytes", "")
    return "/".join(rest)


def _shown(name: str) -> str:
    """An entry name as a person can read it: bytes that are not UTF-8 become U+FFFD."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


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


class _Tree:
    """The paths read so far, exactly and folded: none both a file and a folder, and no two that differ
    only in case or Unicode normalisation (they collide where the image may be copied). The same path
    twice is no collision: npm's tar writes the later entry over the earlier one."""

    def __init__(self) -> None:
        self.files: dict[str, str] = {}  # folded file path -> the path that took it
        self.dirs: dict[str, str] = {}  # folded folder path -> the path that took it

    def add_dir(self, rel: str) -> None:
        folded = _fold(rel)
        other = self.files.get(folded)
        if other is not None:
            raise _collision(rel + "/", other)
        self.dirs.setdefault(folded, rel)

    def add_file(self, rel: str) -> None:
        """Record a file; the very same path again is the later entry replacing the earlier one."""
        folded = _fold(rel)
        other = self.files.get(folded)
        if other is not None:
            if other == rel:
                return
            raise _collision(rel, other)
        other = self.dirs.get(folded)
        if other is not None:
            raise _collision(rel, other + "/")
        parents = [str(p) for p in PurePosixPath(rel).parents][:-1]
        for parent in parents:
            self.add_dir(parent)
        self.files[folded] = rel


def _collision(path: str, other: str) -> ArchiveRefused:
    if path.rstrip("/") == other.rstrip("/"):
        return ArchiveRefused(NB1805, f"{PREFIX}{path.rstrip('/')} is both a file and a folder", "")
    return ArchiveRefused(
        NB1805,
        f"{PREFIX}{path} and {PREFIX}{other} differ only in case or Unicode normalisation",
        "a tarball lists each file once; names must stay distinct on case-insensitive file systems",
    )


def read_tarball(data: bytes, limits: Limits | None = None, *, any_root: bool = False) -> list[Entry]:
    """Every regular file of a ``.tgz`` in archive order; refuse the whole archive on the first broken rule.

    A path the archive holds twice is kept once, with the later entry's bytes (at the place of the
    earlier one). ``any_root``: each entry's first folder may have any name, not only ``package/`` (npm
    strips the first component of a registry tarball, and some publishers, @types/* among them, name it
    after the package); every other rule stays.
    """
    limits = limits or Limits()
    root: str | None = None if any_root else "package"
    if data[:2] != b"\x1f\x8b":
        raise ArchiveRefused(NB1807, "the file is not gzip-compressed", "a package tarball is a .tgz (npm pack)")
    stream = io.BufferedReader(Gunzip(data, limits.max_stream_bytes), buffer_size=65536)
    entries: dict[str, Entry] = {}  # by path, in the order each path first appeared
    tree = _Tree()
    total = 0
    count = 0
    try:
        archive = tarfile.open(fileobj=stream, mode="r|", tarinfo=StrictHeader)  # noqa: SIM115 (bytes in memory)
        for member in archive:
            count += 1
            if count > limits.max_entries:
                raise ArchiveRefused(NB1806, f"the tarball has more than {limits.max_entries:,} entries", "")
            rel = _relative(member.name, limits, root)
            if member.type in _KIND_WORDS or not (member.isfile() or member.isdir()) or is_sparse(member):
                what = "a sparse file" if is_sparse(member) else _KIND_WORDS.get(member.type)
                raise ArchiveRefused(
                    NB1804,
                    f"the entry {member.name!r} is {what or f'an entry of tar type {member.type!r}'}; "
                    "a package installs regular files only",
                    "pack the package with npm pack or neuralis-build pack, which write regular files only",
                )
            # Python's own extraction policy (PEP 706, Python 3.11.4+), as a second opinion on the rules above.
            if _DATA_FILTER is not None:
                _DATA_FILTER(member, "/nonexistent-extraction-root")
            if member.isdir():
                if rel:
                    tree.add_dir(rel)
                continue
            if not rel:
                raise _refuse_path(member.name, "is a file named package/ itself")
            tree.add_file(rel)  # the same path again replaces the earlier entry below, as npm's tar does
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
            entries[rel] = Entry(rel, body, bool(member.mode & 0o100))
        stopped = end_of_archive(archive)
        if stopped is not None:
            raise ArchiveRefused(NB1807, f"the tar stream {stopped}", "re-create the tarball (npm pack)")
        # tarfile stops quietly at a block it cannot parse; what follows the last entry must be padding
        while chunk := archive.fileobj.read(65536):
            if chunk.strip(b"\0"):
                raise ArchiveRefused(
                    NB1807, "the tar stream has data after its last readable entry", "re-create the tarball"
                )
    except GzipRefused as exc:
        hint = "ship a smaller package; the image caps a package's total size" if exc.bomb else "re-create the tarball"
        raise ArchiveRefused(NB1806 if exc.bomb else NB1807, exc.message, hint) from None
    except _FILTER_ERROR as exc:
        raise ArchiveRefused(NB1803, f"the entry is unsafe to extract: {exc}", "") from None
    except MalformedHeader as exc:
        raise ArchiveRefused(NB1807, f"the tar stream {exc}", "re-create the tarball (npm pack)") from None
    except (tarfile.TarError, EOFError) as exc:
        raise ArchiveRefused(NB1807, f"the tar stream is unreadable ({exc})", "re-create the tarball") from None
    if tree.files.get("package.json") != "package.json":
        raise ArchiveRefused(NB1808, "the tarball has no package/package.json", "pack the package folder with npm pack")
    return list(entries.values())


def write_entries(
    entries: list[Entry],
    root: Path,
    *,
    executables: frozenset[str] = frozenset(),
    modes: tuple[int, int] = (0o644, 0o755),
) -> None:
    """Write checked entries under the fresh folder ``root``, refusing to follow anything out of it.

    A file gets ``modes[1]`` when its entry is executable or its path is in ``executables``, else ``modes[0]``.
    """
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
        mode = modes[1] if entry.executable or entry.path in executables else modes[0]
        fd = os.open(target, flags, mode)
        try:
            _write_all(fd, entry.data)
            os.fchmod(fd, stat.S_IMODE(mode))
        finally:
            os.close(fd)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
