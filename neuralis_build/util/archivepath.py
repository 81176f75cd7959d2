"""The rule every path inside a package tarball keeps, for the tarballs ``pack`` writes and ``image`` reads.

One rule and one code (NB1803): ``image`` refuses a tarball entry that breaks it, and ``pack``
refuses to write one, so a tarball pack made is never one image refuses.
"""

from __future__ import annotations

import re

from neuralis_build.util.diagnostics import code

NB1803 = code("NB1803", "archive-path", "a tarball entry's path is absolute, has .. or lacks the package/ prefix")

_SURROGATE = re.compile("[\ud800-\udfff]")
NOT_UTF8 = "is not UTF-8; a package path is Unicode text"


def path_problem(path: str) -> str | None:
    """What is wrong with ``path`` as a tarball entry's path (its segments; the prefix aside), or None."""
    if _SURROGATE.search(path):  # bytes that are not UTF-8, decoded as lone surrogates
        return NOT_UTF8
    if "\\" in path:
        return "has a backslash (a Windows path separator)"
    if path.startswith("/"):
        return "is an absolute path"
    if any(ord(ch) < 0x20 or ord(ch) == 0x7F for ch in path):
        return "has a control character"
    if ".." in path.split("/"):
        return "has a .. segment"
    return None
