"""Write the closure's registry packages into the staged ``node_modules``, each where npm's lock places it.

Each tarball was read by the same hostile-input reader as a listed package (only its first folder
may have any name, as npm strips it) and extracted into the store once, however many places it goes
to (unpack.py); each place gets a copy made of hard links to that entry (store.py). The listed
packages are already staged (with their ``files`` applied) and a bundled package comes inside its
parent's tarball, so neither is written here. Install scripts never run: the ones a package declares, and
the ``node-gyp rebuild`` a ``binding.gyp`` implies, are collected for the report.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Collection, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from neuralis_build.image.archive.extract import NB1808, ArchiveRefused
from neuralis_build.image.archive.store import link
from neuralis_build.image.layout.graph import Closure
from neuralis_build.image.resolution.npmlock import LockNode
from neuralis_build.model.block import Block, block_of
from neuralis_build.npm.fields import NpmFields, npm_fields
from neuralis_build.npm.packagejson import PackageJson, read_package_json

if TYPE_CHECKING:
    from neuralis_build.image.layout.unpack import Unpacked

INSTALL_SCRIPTS = ("preinstall", "install", "postinstall")
IMPLICIT_GYP = "node-gyp rebuild"


@dataclass(frozen=True)
class PackageFacts:
    """One installed package's own facts, read once from its package.json."""

    npm: NpmFields
    is_neuralis: bool  # the discovery signal: its package.json has a neuralis key
    block: Block | None  # that block as typed values, when it is an object
    scripts: dict[str, str]  # the install scripts that were not run (an implicit node-gyp included)


def written_of(manifest: dict[str, Any], has_gyp: bool) -> PackageFacts:
    """The facts of one installed package.json object."""
    npm = npm_fields(manifest)
    block = block_of(manifest)
    return PackageFacts(npm, "neuralis" in manifest, block, install_scripts(npm, has_gyp))


@dataclass
class Materialized:
    """What the write produced: each path's facts, and the nodes whose tarball broke a rule."""

    package_facts: dict[str, PackageFacts] = field(default_factory=dict)
    refused: dict[str, ArchiveRefused] = field(default_factory=dict)


def install_scripts(npm: NpmFields, has_gyp: bool) -> dict[str, str]:
    """The install-time scripts npm would run: the declared ones, and node-gyp for a binding.gyp without them."""
    scripts = {k: script for k in INSTALL_SCRIPTS if (script := npm.script(k)) is not None}
    if has_gyp and "install" not in scripts and "preinstall" not in scripts:
        scripts["install"] = f"{IMPLICIT_GYP} (implied by binding.gyp)"
    return scripts


def read_manifest(folder: Path) -> dict[str, Any]:
    """An installed package's package.json as Node reads it; {} for a folder without one (a bundled leftover).

    ArchiveRefused (NB1808) when it cannot be read or is not JSON that Node reads to the same values (see
    ``manifest_of``).
    """
    read = read_package_json(folder)
    return {} if read.missing else manifest_of(read)


def manifest_of(read: PackageJson) -> dict[str, Any]:
    """The object of one read of a dependency's package.json; ArchiveRefused (NB1808) when Node cannot read it.

    A syntax error, ``NaN`` or nesting deeper than the toolchain reads: npm installs such a package from
    its registry metadata, but Node cannot load it, and Python's own parser would recurse past its limit
    on a deep one.
    """
    if read.error is not None:
        raise ArchiveRefused(
            NB1808,
            f"its package.json cannot be read as Node reads it: {read.error}",
            "the package is broken as published: use another version, or replace it",
        )
    return read.object or {}


def facts_of_folder(folder: Path) -> PackageFacts:
    """The facts of a package already on disk (a listed one, or a bundled one inside its parent)."""
    return written_of(read_manifest(folder), (folder / "binding.gyp").is_file())


def materialize(
    closure: Closure,
    staging: Path,
    unpacked: Mapping[str, Unpacked | ArchiveRefused],
    jobs: int,
    already: Collection[str],
    links: Mapping[str, str] | None = None,
) -> Materialized:
    """Install every placed registry node under ``staging`` as hard links to its store entry, depth by depth,
    then the ``links`` (link path -> target path, tiers.py) as relative symbolic links.

    A parent goes in before the folders nested in it: its tarball may ship a ``node_modules/<x>`` that a
    nested node then replaces, as a link replaces one.
    """
    out = Materialized()
    nodes = [p.node for path, p in sorted(closure.placed.items()) if path not in already]
    fetched = [n for n in nodes if not n.in_bundle]
    for depth in sorted({n.depth for n in fetched}):
        level = [n for n in fetched if n.depth == depth]

        def place(node: LockNode) -> None:
            got = unpacked[node.integrity or ""]
            if isinstance(got, ArchiveRefused):
                out.refused[node.path] = got
                return
            target = staging.joinpath(*node.path.split("/"))
            if target.exists():
                shutil.rmtree(target)  # a non-bundled node_modules/<x> its parent's tarball shipped (links only)
            link(got.entry, target)
            out.package_facts[node.path] = got.package_facts

        # linking many small files waits on the file system, not the CPU: more threads than cores pay off
        with ThreadPoolExecutor(max_workers=max(4, 4 * jobs)) as pool:
            list(pool.map(place, level))
    for path, target in sorted((links or {}).items()):
        at = staging.joinpath(*path.split("/"))
        if at.is_symlink() or at.is_file():
            at.unlink()
        elif at.exists():
            shutil.rmtree(at)
        at.parent.mkdir(parents=True, exist_ok=True)
        os.symlink(os.path.relpath(staging.joinpath(*target.split("/")), at.parent), at)
    for node in nodes:
        if node.in_bundle and node.path not in out.package_facts:
            try:
                out.package_facts[node.path] = facts_of_folder(staging.joinpath(*node.path.split("/")))
            except ArchiveRefused as exc:
                out.refused[node.path] = exc  # its parent's tarball shipped it so: the parent needs it
    return out
