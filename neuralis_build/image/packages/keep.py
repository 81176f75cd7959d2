"""What an unchanged rerun may keep from the last build: its ``node_modules``, its SBOM, node's verdicts on its tree.

Each is kept only when everything it was made from is provably the same, and is otherwise made again:
- the tree, when the toolchain, host profile, limits and platform are the same, every listed package
  is the same bytes with a cached verdict, npm's lock places the same packages with the same
  integrity, the last build refused nothing out of the tree, and a listing of every file, folder and
  link under ``node_modules`` (size, mtime, mode) is the one that build committed: nobody touched it;
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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from neuralis_build import __version__
from neuralis_build.hostprofile import HostProfile
from neuralis_build.image.archive.extract import Limits
from neuralis_build.image.layout.graph import this_platform
from neuralis_build.image.packages.cache import Cache, listing_digest
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


@dataclass(frozen=True)
class Kept:
    """The last build's tree, kept: the plan it was installed from and the digest of its listing."""

    plan: list[list[str]]
    listing: str


def kept_tree(cache: Cache, out: Path, works: list[Listed], fingerprint: str) -> Kept | None:
    """The last build's tree when it can be kept as it is; None to stage it afresh."""
    last = cache.image
    if last is None or last.get("fingerprint") != fingerprint or last.get("pruned") is not False:
        return None
    if last.get("listed") != listed(works) or not all(w.cached for w in works if w.alive):
        return None
    plan = last.get("plan")
    if not isinstance(plan, list) or not all(isinstance(p, list) and len(p) == 2 for p in plan):
        return None
    digest = listing_digest(out / NODE_MODULES)
    if digest is None or digest != last.get("listing"):
        return None
    return Kept([[str(a), str(b)] for a, b in plan], digest)


def sbom_key(data: Any) -> str:
    return _hash([__version__, data])


def kept_sbom(cache: Cache, out: Path, key: str, file: str) -> str | None:
    """The last build's SBOM text when its inputs hash to ``key`` and the file is the one it wrote."""
    last = (cache.image or {}).get("sbom")
    if not isinstance(last, dict) or last.get("key") != key:
        return None
    try:
        data = (out / file).read_bytes()
    except OSError:
        return None
    if hashlib.sha256(data).hexdigest() != last.get("sha256"):
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def sbom_record(key: str, text: str) -> dict[str, str]:
    return {"key": key, "sha256": hashlib.sha256(text.encode("utf-8")).hexdigest()}


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


def kept_node_verdicts(cache: Cache, key: str, count: int) -> tuple[list[str | None], list[bool | None]] | None:
    """node's verdicts from the last build, for a kept tree whose check inputs hash to ``key``."""
    last = (cache.image or {}).get("node")
    if not isinstance(last, dict) or last.get("key") != key:
        return None
    edges, peers = last.get("edges"), last.get("peers")
    if not isinstance(edges, list) or len(edges) != count or not isinstance(peers, list):
        return None
    if not all(e is None or isinstance(e, str) for e in edges) or not all(p in (None, True, False) for p in peers):
        return None
    return edges, peers
