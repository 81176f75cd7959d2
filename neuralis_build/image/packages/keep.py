"""What an unchanged rerun may keep from the last build: its ``node_modules``, its SBOM, node's verdicts on its tree.

What the last build committed is one typed record, ``LastBuild``, read once from the cache; the build's
plan (build.py) decides from it, before anything is written, what this build keeps. Each is kept only
when everything it was made from is provably the same, and is otherwise made again:
- the tree, when the toolchain, host profile, limits and platform are the same, every listed package
  is the same bytes with a cached verdict, npm's lock places the same packages with the same
  integrity, npm's registry settings are the same, the last build refused nothing out of the tree,
  and a listing of every file, folder and link under ``node_modules`` (size, mtime, mode) is the one
  that build committed: nobody touched it. Everything the build judges of a kept tree is then a
  function of what it was last time, so nothing can be refused out of it;
- the SBOM, when its inputs (every installed package's facts and the dependency graph) hash the same
  and the file on disk is the one that build wrote;
- node's resolution verdicts, when the tree is kept and the edges, peer ranges and the node binary
  (its path, size and mtime) are the same: they are a function of those alone.
Contests, the checks of every ``neuralis`` dependency and the UI module judgements run on every build.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path
from typing import Any

from neuralis_build import __version__
from neuralis_build.hostprofile import HostProfile
from neuralis_build.image.archive.extract import Limits
from neuralis_build.image.layout.graph import this_platform
from neuralis_build.image.packages.cache import LastBuild, SbomRecord, listing_digest
from neuralis_build.image.packages.install import NODE_MODULES
from neuralis_build.image.packages.listed import Listed


def _hash(data: Any) -> str:
    return hashlib.sha256(json.dumps(data, sort_keys=True, ensure_ascii=True).encode("ascii")).hexdigest()


def fingerprint(host: HostProfile, limits: Limits) -> str:
    """What the tree depends on besides its packages: the toolchain, the host profile, the limits, the platform."""
    return _hash([__version__, host.to_json(), limits.__dict__, list(this_platform())])


def listed(works: list[Listed]) -> list[list[str]]:
    """The listed packages the tree is made of: their path and the integrity of their bytes."""
    return sorted([f"node_modules/{w.name}", w.integrity or ""] for w in works if w.alive)


def keeps_tree(
    last: LastBuild | None,
    out: Path,
    works: list[Listed],
    fingerprint: str,
    plan: list[tuple[str, str]],
    registries: Any,
) -> str | None:
    """The digest of the last build's tree when this build may keep it as it is (see the module docstring), else None.

    ``plan``: the (path, integrity) of every package this build would place; ``registries``: npm's settings.
    """
    if last is None or last.fingerprint != fingerprint or last.pruned:
        return None
    if list(last.listed) != [tuple(p) for p in listed(works)] or not all(w.cached for w in works if w.alive):
        return None
    if list(last.plan) != plan or last.registries != registries:
        return None
    digest = listing_digest(out / NODE_MODULES)
    return digest if digest is not None and digest == last.listing else None


def sbom_key(data: Any) -> str:
    return _hash([__version__, data])


def kept_sbom(last: LastBuild | None, out: Path, key: str, file: str) -> str | None:
    """The last build's SBOM text when its inputs hash to ``key`` and the file is the one it wrote."""
    record = last.sbom if last is not None else None
    if record is None or record.key != key:
        return None
    try:
        data = (out / file).read_bytes()
    except OSError:
        return None
    if hashlib.sha256(data).hexdigest() != record.sha256:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def sbom_record(key: str, text: str) -> SbomRecord:
    return SbomRecord(key, hashlib.sha256(text.encode("utf-8")).hexdigest())


def node_identity() -> list[Any]:
    """The node binary on PATH (real path, size, mtime) and npm's semver beside it: what the resolution check runs."""
    from neuralis_build.image.judge.nodecheck import npm_semver

    node = shutil.which("node")
    if node is None:
        return []
    real = os.path.realpath(node)
    st = os.stat(real)
    semver = npm_semver()
    try:
        semver_mtime = os.stat(os.path.join(semver, "package.json")).st_mtime_ns
    except OSError:
        semver_mtime = 0
    return [real, st.st_size, st.st_mtime_ns, semver, semver_mtime]


def node_key(edges: list[tuple[str, str, str]], peers: list[tuple[str, int]]) -> str:
    return _hash([edges, peers, node_identity()])


def kept_node_verdicts(
    last: LastBuild | None, key: str, count: int
) -> tuple[list[str | None], list[bool | None]] | None:
    """node's verdicts from the last build, for a kept tree whose check inputs hash to ``key``."""
    record = last.node if last is not None else None
    if record is None or record.key != key or len(record.edges) != count:
        return None
    return list(record.edges), list(record.peers)
