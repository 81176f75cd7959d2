"""npm's ``package-lock.json`` (version 3), read once into typed nodes: what npm resolved, where it placed it.

Only what the image build uses is kept. The lock is npm's output, so a malformed one is an
environment error (exit 2), never a package's fault.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from neuralis_build.util.errors import UsageError
from neuralis_build.util.limits import MAX_LOCK_BYTES
from neuralis_build.util.regularfile import TooLarge, read_regular
from neuralis_build.util.strictjson import parse

NPM_LOCK = "package-lock.json"
MODULES = "node_modules/"


@dataclass(frozen=True)
class LockNode:
    """One ``packages`` entry: a package folder at ``path`` (``node_modules/a/node_modules/b``)."""

    path: str
    name: str  # the folder name, which require() goes by
    package_name: str  # the name in its package.json (differs only for an npm: alias)
    version: str
    resolved: str | None = None
    integrity: str | None = None
    license: str | None = None
    dependencies: dict[str, str] = field(default_factory=dict)
    optional_dependencies: dict[str, str] = field(default_factory=dict)
    peer_dependencies: dict[str, str] = field(default_factory=dict)
    optional_peers: frozenset[str] = frozenset()
    in_bundle: bool = False
    has_install_script: bool = False
    peer: bool = False
    optional: bool = False
    dev: bool = False
    link: bool = False
    os: tuple[str, ...] = ()
    cpu: tuple[str, ...] = ()
    libc: tuple[str, ...] = ()
    engines_node: str | None = None  # the range its ``engines.node`` declares, as npm records it in the lock

    @property
    def parent_path(self) -> str:
        """The folder this one is nested in: ``""`` (the image root) for a top-level package."""
        cut = self.path.rfind("/" + MODULES)
        return "" if cut < 0 else self.path[:cut]

    @property
    def depth(self) -> int:
        return self.path.count(MODULES)


@dataclass(frozen=True)
class NpmLock:
    """The root's dependencies and every package node, keyed by path."""

    root_dependencies: dict[str, str]
    nodes: dict[str, LockNode]
    text: str

    def find(self, start: str, name: str) -> LockNode | None:
        """The node ``require(name)`` finds from the folder ``start``, walking up the tree as node does."""
        here = start
        while True:
            node = self.nodes.get(f"{here}/{MODULES}{name}" if here else f"{MODULES}{name}")
            if node is not None:
                return node
            if not here:
                return None
            cut = here.rfind("/" + MODULES)
            here = "" if cut < 0 else here[:cut]


def _strings(value: Any) -> dict[str, str]:
    return {str(k): str(v) for k, v in value.items()} if isinstance(value, dict) else {}


def _list(value: Any) -> tuple[str, ...]:
    return tuple(str(v) for v in value) if isinstance(value, list) else ()


def _name_of(path: str) -> str:
    return path[path.rfind(MODULES) + len(MODULES) :]


def parse_npm_lock(text: str, where: Path) -> NpmLock:
    """Read a v2/v3 lock's ``packages`` map; anything else is a usage error naming the file."""
    try:
        data = parse(text)
    except ValueError as exc:
        raise UsageError(f"{where}: not JSON ({exc})", hint="delete it and build without --frozen") from None
    packages = data.get("packages") if isinstance(data, dict) else None
    if not isinstance(packages, dict) or not isinstance(packages.get(""), dict):
        raise UsageError(
            f"{where}: not an npm lockfile of version 2 or 3 (no packages map)",
            hint="delete it and build without --frozen",
        )
    nodes: dict[str, LockNode] = {}
    for path, entry in packages.items():
        if not path or not isinstance(entry, dict) or entry.get("extraneous"):
            continue  # the root, or a folder npm found in a tarball that no dependency names
        if not path.startswith(MODULES):
            raise UsageError(f"{where}: the entry {path!r} is not inside node_modules (a workspace or a link)")
        meta = entry.get("peerDependenciesMeta")
        optional_peers = frozenset(
            k for k, v in (meta.items() if isinstance(meta, dict) else ()) if isinstance(v, dict) and v.get("optional")
        )
        license = entry.get("license")
        engines = entry.get("engines")
        node_range = engines.get("node") if isinstance(engines, dict) else None
        nodes[path] = LockNode(
            path=path,
            name=_name_of(path),
            package_name=str(entry["name"]) if isinstance(entry.get("name"), str) else _name_of(path),
            version=str(entry.get("version", "")),
            resolved=entry.get("resolved") if isinstance(entry.get("resolved"), str) else None,
            integrity=entry.get("integrity") if isinstance(entry.get("integrity"), str) else None,
            license=license if isinstance(license, str) else None,
            dependencies=_strings(entry.get("dependencies")),
            optional_dependencies=_strings(entry.get("optionalDependencies")),
            peer_dependencies=_strings(entry.get("peerDependencies")),
            optional_peers=optional_peers,
            in_bundle=bool(entry.get("inBundle")),
            has_install_script=bool(entry.get("hasInstallScript")),
            peer=bool(entry.get("peer")),
            optional=bool(entry.get("optional")),
            dev=bool(entry.get("dev")),
            link=bool(entry.get("link")),
            os=_list(entry.get("os")),
            cpu=_list(entry.get("cpu")),
            libc=_list(entry.get("libc")),
            engines_node=node_range if isinstance(node_range, str) else None,
        )
    root = packages[""]
    return NpmLock(_strings(root.get("dependencies")), nodes, text)


def read_npm_lock(path: Path) -> NpmLock:
    try:  # a file past the cap is never read whole
        text = read_regular(path, limit=MAX_LOCK_BYTES).decode("utf-8")
    except FileNotFoundError:
        raise UsageError(f"{path}: no npm lock to build from", hint="build once without --frozen") from None
    except TooLarge as exc:
        raise UsageError(
            f"{path}: npm's lock is {exc.strerror}; it was not read",
            hint="delete it and build without --frozen; a tree that needs a larger lock is past what the image holds",
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: cannot read the npm lock ({exc})") from None
    return parse_npm_lock(text, path)
