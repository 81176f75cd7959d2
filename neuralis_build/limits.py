"""The caps every reader of untrusted input shares, so that what one command accepts another can read.

A package is judged by ``check``, written by ``pack`` and installed by ``image``; a path or a JSON
document that one of them accepts must not be refused (or crash) in another. Each cap is far above
what a real npm package needs and far below what would exhaust Python's stack or the file system.
"""

from __future__ import annotations

MAX_JSON_DEPTH = 64
"""How many arrays and objects may nest in package.json, a tools/*.json file, a host profile or a record.

Python's ``json``, ``copy.deepcopy`` and ``jsonschema`` recurse once (or several times) per level, and
the interpreter's stack ends near 1,000 frames; real manifests nest fewer than 20 levels."""

MAX_PATH_DEPTH = 64
"""How many segments a package-relative path may have, its folders and its own name (``a/b/c.js`` has 3);
the image's tarball reader refuses deeper entries."""

MAX_PATH_BYTES = 1024
"""The longest package-relative path, in UTF-8 bytes (the image's tarball reader refuses longer)."""

MAX_SEGMENT_BYTES = 255
"""The longest file or folder name, in UTF-8 bytes: NAME_MAX on Linux, macOS and Windows."""
