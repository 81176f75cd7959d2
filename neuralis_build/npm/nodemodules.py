"""The node_modules walk Node's resolver does: the folders it searches, the packages in them, and a name's folder."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from neuralis_build.npm.packagejson import MANIFEST


def node_modules_dirs(start: Path) -> Iterator[Path]:
    """The ``node_modules`` folders Node searches from ``start``, nearest first."""
    for folder in (start, *start.parents):
        if folder.name != "node_modules":
            candidate = folder / "node_modules"
            if candidate.is_dir():
                yield candidate


def package_dirs(node_modules: Path) -> Iterator[tuple[str, Path]]:
    """(name, folder) of every package folder in one ``node_modules``, scoped ones included, sorted by name."""
    try:
        entries = sorted(os.scandir(node_modules), key=lambda e: e.name)
    except OSError:
        return
    for entry in entries:
        if entry.name.startswith("."):
            continue
        if entry.name.startswith("@"):
            try:
                scoped = sorted(os.scandir(entry.path), key=lambda e: e.name)
            except OSError:
                continue
            for inner in scoped:
                if not inner.name.startswith("."):
                    yield f"{entry.name}/{inner.name}", Path(inner.path)
        else:
            yield entry.name, Path(entry.path)


def resolve_package(start: Path, name: str) -> Path | None:
    """The folder of package ``name`` as Node resolves it from ``start``."""
    for node_modules in node_modules_dirs(start):
        folder = node_modules / name
        if (folder / MANIFEST).is_file():
            return folder
    return None


def package_name_of(module_id: str) -> str:
    """The package part of a bare module id: ``@a/b/c`` → ``@a/b``, ``react/x`` → ``react``."""
    parts = module_id.split("/")
    return "/".join(parts[:2]) if module_id.startswith("@") else parts[0]
