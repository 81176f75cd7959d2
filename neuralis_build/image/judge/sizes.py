"""How much each installed package weighs, and the whole tree: what a reviewer compares between two images.

One walk of ``node_modules``: each file counts for the deepest installed package folder that holds it
(a nested dependency is its own package, not its parent's). ``bytes`` adds every file's size, as a copy
of the tree holds them; ``disk`` counts a file once however many hard links it has, as the file system
(and a container layer) stores it.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Size:
    """Files and bytes of one package folder (its own files, not its nested dependencies')."""

    files: int = 0
    bytes: int = 0

    def to_json(self) -> dict[str, int]:
        return {"files": self.files, "bytes": self.bytes}


@dataclass(frozen=True)
class Sizes:
    """Each package's size by its path in the image, and the tree's totals."""

    packages: dict[str, Size] = field(default_factory=dict)
    files: int = 0
    bytes: int = 0
    disk: int = 0

    def total_json(self) -> dict[str, Any]:
        return {"files": self.files, "bytes": self.bytes, "disk": self.disk}


def measure(root: Path, placed: Collection[str]) -> Sizes:
    """Walk ``root/node_modules`` once and give each file to the deepest of the ``placed`` paths that holds it."""
    files = size = disk = 0
    packages: dict[str, list[int]] = {p: [0, 0] for p in placed}
    seen: set[tuple[int, int]] = set()
    stack: list[tuple[str, str | None]] = [("node_modules", None)]
    while stack:
        rel, owner = stack.pop()
        try:
            entries = list(os.scandir(root / rel))
        except OSError:
            continue
        for entry in entries:
            path = f"{rel}/{entry.name}"
            info = entry.stat(follow_symlinks=False)
            if stat.S_ISDIR(info.st_mode):
                stack.append((path, path if path in packages else owner))
            elif stat.S_ISREG(info.st_mode):
                files += 1
                size += info.st_size
                if (info.st_dev, info.st_ino) not in seen:
                    seen.add((info.st_dev, info.st_ino))
                    disk += info.st_size
                if owner is not None:
                    packages[owner][0] += 1
                    packages[owner][1] += info.st_size
    return Sizes({p: Size(n, b) for p, (n, b) in sorted(packages.items())}, files, size, disk)
