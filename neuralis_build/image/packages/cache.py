"""The content-hash cache under ``DIR/.neuralis-cache``: an unchanged package is neither re-extracted nor re-checked.

It lives inside the output folder so that deleting the image deletes its cache and a CI cache of the
folder carries both. ``state.json`` keeps each package's own verdict by a key (the source's content
hash, the install class and trust, the host profile and the toolchain version), and what the last
build committed (``image``: the planned tree, a digest of its listing, the SBOM's and node's inputs),
so an unchanged rerun can keep ``node_modules`` as it is. A state file that cannot be read, or a
record of the wrong shape, is ignored with a note: the cache only ever saves work.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from neuralis_build import __version__
from neuralis_build.hostprofile import HostProfile
from neuralis_build.util import atomic
from neuralis_build.util.limits import MAX_PATH_DEPTH
from neuralis_build.util.regularfile import read_regular

CACHE_DIR = ".neuralis-cache"
STATE = "state.json"
STATE_VERSION = 1
MAX_STATE_BYTES = 64 * 1024 * 1024


def cache_key(*parts: Any, host: HostProfile) -> str:
    """A stable hash of everything a package's verdict depends on."""
    blob = json.dumps([__version__, STATE_VERSION, host.to_json(), *parts], sort_keys=True, ensure_ascii=True)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def listing_digest(root: Path) -> str | None:
    """A hash of every file, folder and link under ``root`` with its size, mtime and mode; None when it is absent.

    What tells an untouched install apart: a file added, removed, rewritten or touched changes it.
    """
    digest = hashlib.sha256()
    try:
        if not stat.S_ISDIR(os.lstat(root).st_mode):
            return None
    except OSError:
        return None
    stack = [("", str(root))]
    while stack:
        rel, folder = stack.pop()
        with os.scandir(folder) as found:
            entries = sorted(found, key=lambda e: e.name)
        for entry in entries:
            st = entry.stat(follow_symlinks=False)
            path = f"{rel}{entry.name}"
            line = f"{path}\0{st.st_mode:o}\0{st.st_size}\0{st.st_mtime_ns}\n"
            digest.update(line.encode("utf-8", "surrogateescape"))
            if stat.S_ISDIR(st.st_mode):
                stack.append((path + "/", entry.path))
    return digest.hexdigest()


def tree_hash(root: Path, skip_top: frozenset[str] = frozenset()) -> str:
    """A content hash of a source folder (names, modes and bytes; links by target), skipping node_modules and .git.

    Folders deeper than a package path may be are not entered (pack refuses what it would take from
    them, NB1717), so a tree thousands of levels deep costs as much as one 64 levels deep.
    """
    digest = hashlib.sha256()
    stack = [(".", str(root), 0)]
    while stack:
        rel, folder, depth = stack.pop()
        with os.scandir(folder) as found:
            entries = sorted(found, key=lambda e: e.name)
        for entry in entries:
            name = entry.name
            path = name if rel == "." else f"{rel}/{name}"
            if entry.is_dir(follow_symlinks=False):
                if name in (".git", "node_modules") or (rel == "." and name in skip_top):
                    continue
                if depth + 1 >= MAX_PATH_DEPTH:
                    digest.update(f"{path}/\0too deep\0".encode("utf-8", "surrogateescape"))
                    continue
                stack.append((path, entry.path, depth + 1))
                continue
            digest.update(f"{rel}/{name}\0".encode("utf-8", "surrogateescape"))
            if entry.is_symlink():
                digest.update(b"L" + os.readlink(entry.path).encode("utf-8", "surrogateescape"))
                continue
            st = entry.stat(follow_symlinks=False)
            if not stat.S_ISREG(st.st_mode):  # a FIFO or a device is never opened (it could block forever)
                digest.update(b"S" + oct(st.st_mode).encode())
                continue
            digest.update(b"F" + str(st.st_mode & 0o111).encode())
            digest.update(hashlib.sha256(read_regular(entry.path, follow_symlinks=False)).digest())
    return digest.hexdigest()


@dataclass(frozen=True)
class SbomRecord:
    key: str
    sha256: str


@dataclass(frozen=True)
class NodeRecord:
    """node's verdicts on a tree's edges and peer ranges, and the key of what they were asked of."""

    key: str
    edges: tuple[str | None, ...]
    peers: tuple[bool | None, ...]


@dataclass(frozen=True)
class LastBuild:
    """What the last build committed, as the next one reads it (``DIR/.neuralis-cache/state.json``, ``image``)."""

    fingerprint: str
    listed: tuple[tuple[str, str], ...]  # (path, integrity) of each listed package in the tree
    plan: tuple[tuple[str, str], ...]  # (path, integrity) of each placed package
    pruned: bool  # a refusal took packages out of the tree
    listing: str | None  # the digest of the tree's listing (cache.listing_digest)
    registries: Any  # npm's registry settings the tree was held to (registries.Registries.to_json)
    sbom: SbomRecord | None = None
    node: NodeRecord | None = None

    @classmethod
    def parse(cls, data: Any) -> LastBuild | None:
        """The record, or None when there is none or it is not of the shape this version writes."""
        if not isinstance(data, dict):
            return None
        try:
            sbom, node = data.get("sbom"), data.get("node")
            return cls(
                fingerprint=_str(data["fingerprint"]),
                listed=_pairs(data["listed"]),
                plan=_pairs(data["plan"]),
                pruned=_bool(data["pruned"]),
                listing=None if data.get("listing") is None else _str(data["listing"]),
                registries=data.get("registries"),
                sbom=SbomRecord(_str(sbom["key"]), _str(sbom["sha256"])) if isinstance(sbom, dict) else None,
                node=_node(node) if isinstance(node, dict) else None,
            )
        except (KeyError, TypeError, ValueError):
            return None

    def to_json(self) -> dict[str, Any]:
        return {
            "fingerprint": self.fingerprint,
            "listed": [list(p) for p in self.listed],
            "plan": [list(p) for p in self.plan],
            "pruned": self.pruned,
            "listing": self.listing,
            "registries": self.registries,
            "sbom": {"key": self.sbom.key, "sha256": self.sbom.sha256} if self.sbom is not None else None,
            "node": (
                {"key": self.node.key, "edges": list(self.node.edges), "peers": list(self.node.peers)}
                if self.node is not None
                else None
            ),
        }


def _str(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError("a string")
    return value


def _bool(value: Any) -> bool:
    if not isinstance(value, bool):
        raise TypeError("a boolean")
    return value


def _pairs(value: Any) -> tuple[tuple[str, str], ...]:
    if not isinstance(value, list) or not all(isinstance(p, list) and len(p) == 2 for p in value):
        raise TypeError("a list of pairs")
    return tuple((_str(a), _str(b)) for a, b in value)


def _node(value: dict[str, Any]) -> NodeRecord:
    edges, peers = value["edges"], value["peers"]
    if not isinstance(edges, list) or not all(e is None or isinstance(e, str) for e in edges):
        raise TypeError("edges")
    if not isinstance(peers, list) or not all(p in (None, True, False) for p in peers):
        raise TypeError("peers")
    return NodeRecord(_str(value["key"]), tuple(edges), tuple(peers))


class Cache:
    """The records of the last build in one output folder, keyed by cache key, and what that build committed."""

    def __init__(self, out: Path) -> None:
        self.folder = out / CACHE_DIR
        self.records: dict[str, dict[str, Any]] = {}
        self.fresh: dict[str, dict[str, Any]] = {}
        self.last: LastBuild | None = None  # what the last build committed (keep.py)
        self.fresh_image: LastBuild | None = None
        self.notes: list[str] = []
        if os.path.lexists(self.folder) and not (self.folder.is_dir() and not self.folder.is_symlink()):
            atomic.remove(self.folder)  # ours to replace (a file, or a link that could lead anywhere)
            self.notes.append(f"{self.folder} was not a folder: it is replaced, and every package is checked again")
            return
        path = self.folder / STATE
        if not os.path.lexists(path):
            return
        try:
            data = json.loads(read_regular(path, limit=MAX_STATE_BYTES))
        except (OSError, ValueError, RecursionError) as exc:
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else "not JSON"
            self.notes.append(f"{path} is ignored ({why}): every package is checked again")
            return
        records = data.get("records") if isinstance(data, dict) else None
        if not isinstance(data, dict) or data.get("version") != STATE_VERSION or not isinstance(records, dict):
            self.notes.append(
                f"{path} is ignored (not a version {STATE_VERSION} state): every package is checked again"
            )
            return
        self.records = {str(k): v for k, v in records.items() if isinstance(v, dict)}
        self.last = LastBuild.parse(data.get("image"))

    def note_bad_record(self, key: str) -> None:
        """A record that does not have the shape this version writes: dropped, and said once."""
        self.records.pop(key, None)
        if not any("records of the wrong shape" in n for n in self.notes):
            self.notes.append(f"{self.folder / STATE} has records of the wrong shape: those packages are checked again")

    @property
    def npm(self) -> Path:
        """Where npm: sources are packed to (a version never changes, so a tarball here is reused as is)."""
        return self.folder / "npm"

    def put(self, key: str, record: dict[str, Any]) -> None:
        self.fresh[key] = record

    def save(self) -> None:
        """Keep exactly the records of this build (old keys are dropped), written atomically."""
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.folder / STATE
        if path.is_dir() and not path.is_symlink():
            atomic.remove(path)  # a folder where the state belongs: ours to replace
        data: dict[str, Any] = {"version": STATE_VERSION, "records": self.fresh}
        if self.fresh_image is not None:
            data["image"] = self.fresh_image.to_json()
        atomic.write_text(path, json.dumps(data, sort_keys=True))
