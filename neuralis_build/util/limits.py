"""The caps every reader of untrusted input shares, so that what one command accepts another can read.

A package is judged by ``check``, written by ``pack`` and installed by ``image``; a path or a JSON
document that one of them accepts must not be refused (or crash) in another. Each cap is far above
what a real npm package needs and far below what would exhaust Python's stack, the file system or the
machine's memory.
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

MAX_JSON_BYTES = 16 * 1024 * 1024
"""The largest package.json, ``tools/*.json``, host profile, tsconfig.json, record or SPEC read, in bytes (16 MiB).

Real package.json files are well under 1 MiB (a few KiB as a rule; the largest of popular packages
some hundred KiB), and the other documents are smaller still. What hurts is memory: Python holds a
string of JSON at a few times its size, but a document of empty arrays (``[[],[],…]``, a Python list
each) at about 32 times, so 16 MiB bounds one read near half a GiB in the worst shape, and ``image``
reads one package.json per installed package. A larger file is refused from its size before it is read
(and no more than the cap and one byte is read, should it grow meanwhile), naming the file, its size
and the cap."""

MAX_LOCK_BYTES = 128 * 1024 * 1024
"""The largest npm ``package-lock.json``, image lock (``neuralis-image.lock``) or image report read (128 MiB).

These list a whole dependency tree: about 500 bytes a package in npm's lock, so 2.5 MB for a tree of
5,000 packages and tens of MB for the largest monorepos; the cap is far above those and far below the
gigabytes a larger one would take to read."""
