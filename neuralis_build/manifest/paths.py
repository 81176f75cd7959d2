"""Paths a manifest names: their text rules, their containment once symlinks are resolved, and globs
anchored to a package's data zone."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

from neuralis_build.util.limits import MAX_PATH_BYTES, MAX_PATH_DEPTH, MAX_SEGMENT_BYTES

if TYPE_CHECKING:
    from neuralis_build.manifest.checker import Checker
    from neuralis_build.util.diagnostics import Code

_GLOB_CHAR = re.compile(r"[A-Za-z0-9._*-]")
_DRIVE = re.compile(r"^[A-Za-z]:")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")

GLOB_PATTERN = r"^(?!/)[A-Za-z0-9._*/-]+$"
"""The zone-glob charset as a JSON Schema pattern (the segment rules are the validator's)."""


def path_problem(path: str) -> str | None:
    """Why ``path`` is not a plain package-relative POSIX path (``None`` when it is one).

    A leading ``./`` is allowed; an absolute path, a backslash, a ``..`` segment, or an empty or ``.``
    segment elsewhere is not, so the text alone proves the path stays inside the package.
    """
    if not path:
        return "is empty"
    if "\\" in path:
        return "uses a backslash; package paths use forward slashes"
    if path.startswith("/") or _DRIVE.match(path) or path.startswith("~"):
        return "is an absolute path; name a path relative to the package root"
    segments = normalize(path).split("/")
    if ".." in segments:
        return 'has a ".." segment, which could leave the package'
    if any(s in ("", ".") for s in segments):
        return 'has an empty or "." segment'
    return size_problem(normalize(path))


def size_problem(path: str) -> str | None:
    """Why a package-relative path is too long or too deep to be packed, installed or opened, or None."""
    if len(path.encode("utf-8", "surrogatepass")) > MAX_PATH_BYTES:
        return f"is longer than {MAX_PATH_BYTES:,} bytes, the longest path a package may hold"
    segments = path.split("/")
    if len(segments) > MAX_PATH_DEPTH:
        return f"has {len(segments)} segments; a package path has at most {MAX_PATH_DEPTH} (its folders and its name)"
    long = next((s for s in segments if len(s.encode("utf-8", "surrogatepass")) > MAX_SEGMENT_BYTES), None)
    if long is not None:
        return f"has a name longer than {MAX_SEGMENT_BYTES} bytes ({long[:16]}…), more than file systems allow"
    return None


def normalize(path: str) -> str:
    """``path`` without its leading ``./`` (one or more)."""
    while path.startswith("./"):
        path = path[2:]
    return path


def has_scheme(reference: str) -> bool:
    """True when ``reference`` starts with a URL scheme (``https:``, ``data:``, ``blob:``)."""
    return bool(_SCHEME.match(reference)) and not _DRIVE.match(reference)


def resolve_inside(root: Path, path: str) -> Path | None:
    """``root/path`` with every symlink resolved, or None when it lies outside ``root`` (or loops)."""
    return Containment(root).resolve(path)


def file_inside(c: Checker, pointer: str, path: str, what: str, outside: Code, noun: str) -> Path | None:
    """The file a manifest path names, symlinks resolved; None when there is no package to look in, or when
    a symlink leads it out (then ``outside`` is reported at ``pointer``: the containment rule, docs/design.md)."""
    if c.package is None:
        return None
    target = resolve_inside(c.package.root, path)
    if target is None:
        c.error(
            outside,
            pointer,
            f'{what} "{path}" leads out of the package through a symlink',
            f"keep the {noun} inside the package; replace the symlink by the file itself",
        )
    return target


class Containment:
    """Containment of many paths of one package: the root is resolved once, and a path is resolved
    in full (then checked with ``is_relative_to``) only when a symlink or a ``..`` lies on it."""

    def __init__(self, root: Path) -> None:
        self.real_root = root.resolve()
        self._is_link: dict[str, bool] = {}

    def _crosses_link(self, segments: list[str]) -> bool:
        prefix = ""
        for segment in segments:
            if segment in ("", "."):
                continue
            prefix = f"{prefix}/{segment}" if prefix else segment
            link = self._is_link.get(prefix)
            if link is None:
                link = self._is_link[prefix] = os.path.islink(self.real_root / prefix)
            if link:
                return True
        return False

    def resolve(self, path: str) -> Path | None:
        """``path`` with every symlink resolved, or None when it lies outside the package (or loops)."""
        segments = path.split("/")
        if ".." not in segments and not self._crosses_link(segments):
            return self.real_root / path  # no link and no ..: resolving would change nothing
        try:
            target = (self.real_root / path).resolve()
        except (OSError, RuntimeError):  # a symlink loop: Python 3.11 raises RuntimeError, later ones OSError
            return None
        return target if target.is_relative_to(self.real_root) else None


def zone_glob_problem(glob: str) -> str | None:
    """What is wrong with a glob anchored to a package's data zone (``*`` one segment, ``**`` any depth)."""
    if not glob:
        return "is empty"
    if glob.startswith("/"):
        return "starts with /; the glob is relative to the package's own zone"
    for segment in glob.split("/"):
        if segment == "":
            return "has an empty segment (// or a trailing /)"
        if segment == "..":  # a "." segment stays where it is: the spec refuses only ".." (and empty ones)
            return "has a .. segment; the glob must stay anchored to the zone"
        bad = [ch for ch in segment if not _GLOB_CHAR.fullmatch(ch)]
        if bad:
            return f"has the character {bad[0]!r}; only letters, digits, ., _, -, * and / are allowed"
    return None
