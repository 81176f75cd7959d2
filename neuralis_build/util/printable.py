"""The one rule for printing a name a package chose (a file, a package, a path) on a terminal.

A file name may hold ESC, BEL, a newline or a bidirectional override: printed raw, it sets the
window title, clears the screen, forges a line of a listing or reorders what the reader sees. In
text output every such character is shown as an escape (``\\x1b``, ``\\n``, ``\\u202e``), and a
backslash as ``\\\\`` so that an escape never reads as the name's own text. JSON output carries
the exact name: JSON has its own escaping.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

# C0 and C1 controls and DEL, the line and paragraph separators, and the bidirectional embeddings,
# overrides and isolates (the characters "Trojan Source" reorders a line with).
_UNSAFE = re.compile("[\\\\\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_UNSAFE_TEXT = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_NAMED = {"\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match[str]) -> str:
    ch = match.group()
    if ch in _NAMED:
        return _NAMED[ch]
    if ch.isascii() or ord(ch) <= 0xFF:
        return f"\\x{ord(ch):02x}"
    return f"\\u{ord(ch):04x}"


def shown(name: str) -> str:
    """``name`` as a terminal may print it: every control character escaped, nothing else changed."""
    return _UNSAFE.sub(_escape, name)


def shown_text(text: str) -> str:
    """A message of the toolchain's own, which may quote names: lines and tabs kept, every other control escaped.

    Names inside a message are quoted with ``shown`` (or ``repr``) where it is made; this catches
    what a message passes on from elsewhere (a program's output, an OS error).
    """
    return _UNSAFE_TEXT.sub(_escape, text)


def display_path(path: Path, file: str | None = None) -> str:
    """A path as short as it can be: relative to the working directory when it sits below it (print it ``shown``)."""
    full = path / file if file else path
    try:
        rel = os.path.relpath(full)
    except ValueError:  # another drive on Windows
        return str(full)
    return str(full) if rel.startswith("..") else rel
