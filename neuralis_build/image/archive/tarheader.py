"""Tar headers read the way GNU tar judges them: what tarfile skips or repairs quietly is refused.

Python's ``tarfile`` reads a malformed pax ``size`` as 0, stops without a word at a header that is
cut short or fails its checksum (after the first entry), and expands GNU sparse files (5 bytes in the
archive can become a 50 MB file). GNU tar calls the first two malformed and refuses them; a package
installs regular files only, so a sparse entry is refused as well. :class:`StrictHeader` records how
the header stream ended and checks the pax fields it relies on; :func:`end_of_archive` says whether the
archive ended the only acceptable way, at a zero block or at the end of the data.
"""

from __future__ import annotations

import re
import tarfile
from typing import Any, Self

_INTEGER = re.compile(r"^[0-9]+$")
_TIME = re.compile(r"^-?[0-9]+(?:\.[0-9]+)?$")
# pax keywords tarfile turns into numbers, and the form POSIX gives each (tarfile maps a bad value to 0)
_NUMERIC = {"size": _INTEGER, "uid": _INTEGER, "gid": _INTEGER, "mtime": _TIME, "atime": _TIME, "ctime": _TIME}
_STOP = "_neuralis_header_stop"
# tarfile's own header errors: not in typeshed's stubs, but part of tarfile since Python 3.2
_ENDED_WELL: tuple[type[Exception], ...] = (tarfile.EOFHeaderError, tarfile.EmptyHeaderError)  # type: ignore[attr-defined]
_CUT_SHORT: type[Exception] = tarfile.TruncatedHeaderError  # type: ignore[attr-defined]


class MalformedHeader(Exception):
    """A header GNU tar would call malformed; the message completes "the tar stream …"."""


class StrictHeader(tarfile.TarInfo):
    """A ``TarInfo`` that remembers why the header stream stopped and refuses malformed pax numbers."""

    @classmethod
    def fromtarfile(cls, tarfile_: tarfile.TarFile) -> Self:
        try:
            member = super().fromtarfile(tarfile_)
        except tarfile.HeaderError as exc:
            # TarFile.next() swallows these after the first entry and ends the iteration: keep why
            setattr(tarfile_, _STOP, exc)
            raise
        for key, pattern in _NUMERIC.items():
            value = member.pax_headers.get(key)
            if value is not None and not pattern.match(value):
                raise MalformedHeader(f"has a malformed pax header at {member.name!r}: {key}={value!r}")
        return member


def is_sparse(member: tarfile.TarInfo) -> bool:
    """A GNU sparse file, in the old header form or any of the pax forms (0.0, 0.1, 1.0)."""
    sparse: Any = getattr(member, "sparse", None)
    return sparse is not None or any(key.startswith("GNU.sparse.") for key in member.pax_headers)


def end_of_archive(archive: tarfile.TarFile) -> str | None:
    """Why the header stream ended badly (completing "the tar stream …"), or None when it ended well:
    at a zero block (the end-of-archive marker) or exactly at the end of the data."""
    stop = getattr(archive, _STOP, None)
    if stop is None or isinstance(stop, _ENDED_WELL):
        return None
    if isinstance(stop, _CUT_SHORT):
        return f"ends in the middle of a header at byte {archive.offset:,}"
    return f"has an unreadable header at byte {archive.offset:,} ({stop})"
