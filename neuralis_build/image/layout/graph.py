"""Which of npm's locked packages the image installs, the chain that brings each in, and the tier it gets.

Nothing here chooses a version or a place: npm did (the lock). The walk follows each installed
package's dependency edges to the node ``require`` finds from its folder (``NpmLock.find``), the way
npm's own ``--omit`` filtering walks them, and stops where the image must differ from a plain
``npm install``: a peer on a package the host provides (react, react-dom, …) is left to the host, a
refused listed package brings nothing in, and an optional package for another platform is skipped.

Trust flows down the chains and never up: the listed packages are walked from the highest tier
down, a package takes the tier of the first walk that reaches it, and a walk stops at another listed
package (which has its own tier). So a package reached only through an ``installed`` or ``project``
package never becomes first-party.
"""

from __future__ import annotations

import platform
import sys
from collections import deque
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Literal

from neuralis_build.image.resolution.npmlock import MODULES, LockNode, NpmLock
from neuralis_build.util.trust import InstallClass, Trust

EdgeKind = Literal["prod", "optional", "peer"]


@dataclass(frozen=True)
class Root:
    """A listed package as the walk starts from it."""

    name: str
    trust: Trust
    install_class: InstallClass
    index: int


@dataclass(frozen=True)
class Placed:
    """An installed node: npm's entry, the chain of names from its listed package, and its tier."""

    node: LockNode
    chain: tuple[str, ...]
    trust: Trust
    install_class: InstallClass
    root: str  # the listed package whose walk reached it first

    @property
    def path(self) -> str:
        return self.node.path


@dataclass(frozen=True)
class Missing:
    """A dependency edge with no installable target (npm left it out, or it is for another platform)."""

    path: str
    chain: tuple[str, ...]
    name: str
    spec: str
    kind: EdgeKind
    reason: str


@dataclass(frozen=True)
class HostPeer:
    """A peer dependency on a package the host provides: the range is checked against the host's version."""

    path: str
    chain: tuple[str, ...]
    name: str
    range: str
    root: str


@dataclass
class Closure:
    """The installed tree: every placed node by path, the edges between them, and what the walk could not place."""

    placed: dict[str, Placed] = field(default_factory=dict)
    edges: dict[str, dict[str, str]] = field(default_factory=dict)  # path -> {dependency name: target path}
    missing: list[Missing] = field(default_factory=list)
    host_peers: list[HostPeer] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (path, why) of optional nodes left out
    listed: frozenset[str] = frozenset()  # the paths of the listed packages walked from
    hits: list[tuple[str, str, tuple[str, ...]]] = field(default_factory=list)  # (root, blocked path, chain)

    def reaching(self) -> dict[str, set[str]]:
        """For each placed path, the listed packages whose walk reaches it (a walk stops at another listed one)."""
        out: dict[str, set[str]] = {}
        for start in sorted(self.listed):
            root = start[len(MODULES) :]
            seen = {start}
            queue = deque([start])
            while queue:
                here = queue.popleft()
                out.setdefault(here, set()).add(root)
                for target in self.edges.get(here, {}).values():
                    if target in self.listed:
                        out.setdefault(target, set()).add(root)
                    elif target not in seen:
                        seen.add(target)
                        queue.append(target)
        return out


def this_platform() -> tuple[str, str, str | None]:
    """``process.platform``, ``process.arch`` and the libc family, as npm compares them with ``os``/``cpu``/``libc``."""
    os_name = {"win32": "win32", "darwin": "darwin", "cygwin": "win32"}.get(sys.platform, sys.platform)
    if os_name.startswith("linux"):
        os_name = "linux"
    machine = platform.machine().lower()
    arch = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64", "i386": "ia32", "i686": "ia32"}
    libc = None
    if os_name == "linux":
        family, _ = platform.libc_ver()
        libc = "glibc" if family == "glibc" else "musl"
    return os_name, arch.get(machine, machine), libc


def _allowed(values: tuple[str, ...], actual: str | None) -> bool:
    """npm-install-checks' rule: a list of names, ``!name`` excluding one; an empty list allows all."""
    if not values or actual is None:
        return True
    if f"!{actual}" in values:
        return False
    positive = [v for v in values if not v.startswith("!")]
    return not positive or actual in positive


def platform_problem(node: LockNode, here: tuple[str, str, str | None]) -> str | None:
    os_name, arch, libc = here
    for key, values, actual in (("os", node.os, os_name), ("cpu", node.cpu, arch), ("libc", node.libc, libc)):
        if not _allowed(values, actual):
            return f"{key} {', '.join(values)} (this machine: {actual})"
    return None


def _edges(node: LockNode) -> list[tuple[str, str, EdgeKind]]:
    edges: dict[str, tuple[str, EdgeKind]] = {}
    for name, spec in node.dependencies.items():
        edges[name] = (spec, "prod")
    for name, spec in node.optional_dependencies.items():
        edges[name] = (spec, "optional")
    for name, spec in node.peer_dependencies.items():
        edges.setdefault(name, (spec, "peer"))
    return [(name, spec, kind) for name, (spec, kind) in sorted(edges.items())]


def walk(
    lock: NpmLock,
    roots: list[Root],
    host_names: Collection[str],
    here: tuple[str, str, str | None] | None = None,
    blocked: Collection[str] = (),
    left_out: Collection[str] = (),
) -> Closure:
    """Place every node the listed ``roots`` bring in; an edge into a ``blocked`` path (refused) is a hit.

    Refused listed packages are left out of ``roots`` by the caller, and their paths are ``blocked``. An optional
    edge into a ``left_out`` path (a package the image does not install, such as one from outside a registry) is
    skipped, as npm skips an optional dependency it cannot install; any other edge into one is a hit when it is
    also ``blocked``.
    """
    here = here or this_platform()
    listed = frozenset(f"{MODULES}{r.name}" for r in roots if f"{MODULES}{r.name}" in lock.nodes)
    closure = Closure(listed=listed)
    for root in sorted(roots, key=lambda r: (Trust(r.trust).rank, r.index)):
        start = f"{MODULES}{root.name}"
        if start not in listed:
            continue
        chains: dict[str, tuple[str, ...]] = {start: (root.name,)}
        first = Placed(lock.nodes[start], chains[start], root.trust, root.install_class, root.name)
        closure.placed.setdefault(start, first)
        queue = deque([start])
        while queue:
            path = queue.popleft()
            node, chain = lock.nodes[path], chains[path]
            targets = closure.edges.setdefault(path, {})
            for name, spec, kind in _edges(node):
                if kind == "peer" and name in host_names:
                    closure.host_peers.append(HostPeer(path, chain, name, spec, root.name))
                    continue
                target = lock.find(path, name)
                optional = kind == "optional" or (kind == "peer" and name in node.optional_peers)
                if target is None or target.dev:
                    if not optional:
                        why = "it is not in npm's lock"
                        if node.in_bundle:
                            why = "npm leaves the dependencies of a bundled package to its bundle"
                        closure.missing.append(Missing(path, chain, name, spec, kind, why))
                    continue
                problem = platform_problem(target, here)
                if problem is not None:
                    if optional or target.optional:
                        closure.skipped.append((target.path, f"optional, for {problem}"))
                    else:
                        closure.missing.append(Missing(path, chain, name, spec, kind, f"it is for {problem}"))
                    continue
                if target.path in left_out and optional:
                    closure.skipped.append((target.path, "optional, not from a registry"))
                    continue
                if target.path in blocked:
                    closure.hits.append((root.name, target.path, (*chain, target.name)))
                    continue
                targets[name] = target.path
                if target.path in chains or target.path in listed:
                    continue
                chains[target.path] = (*chain, target.name)
                closure.placed.setdefault(
                    target.path, Placed(target, chains[target.path], root.trust, root.install_class, root.name)
                )
                queue.append(target.path)
    return closure
