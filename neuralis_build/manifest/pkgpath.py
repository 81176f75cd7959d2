"""Package-relative paths a manifest names: the syntax every such path must keep, checked as text."""

from __future__ import annotations

import os
import re
from pathlib import Path

_DRIVE = re.compile(r"^[A-Za-z]:")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


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
    return None


def normalize(path: str) -> str:
    """``path`` without its leading ``./`` (one or more)."""
    while path.startswith("./"):
        path = path[2:]
    return path


def has_scheme(reference: str) -> bool:
    """True when ``reference`` starts with a URL scheme (``https:``, ``data:``, ``blob:``)."""
    return bool(_SCHEME.match(reference)) and not _DRIVE.match(reference)


def resolve_inside(root: Path, relative: str) -> Path | None:
    """The real path of ``relative`` under ``root``, or ``None`` when it (or a symlink on the way) leaves it."""
    real_root = os.path.realpath(root)
    target = os.path.realpath(os.path.join(real_root, relative))
    inside = target == real_root or target.startswith(real_root.rstrip(os.sep) + os.sep)
    return Path(target) if inside else None
