"""The image's layout of npm's lock: the listed packages at the root, every other package in its trust tier's folder.

npm resolves all the listed packages together and hoists what they need to the root, where every
listed package would resolve it, whatever its trust: a first-party package could ``require`` what
an untrusted one brought in (the peers of ``@nestjs/core``, say). The image keeps npm's versions and
npm's shape, but not npm's root:

- each listed package is a real folder at the root, ``node_modules/<name>``, with the folders npm
  nested in it;
- every other package npm placed at the root (a *top*, with the folders nested in it) goes into its
  own folder of the tier, ``node_modules/.store/<tier>/<name>@<version>/node_modules/<name>``, once
  for each trust tier whose listed packages reach it, and the tier's ``node_modules/<name>`` is a
  link to it: inside a tier the packages find each other as they do at npm's root;
- a listed package reaches its tier's tops through links in its own ``node_modules``, one for each
  name its edges resolve to a top (``node_modules/express/node_modules/debug`` →
  ``../../.store/first-party/node_modules/debug``), and nothing else.

So a package resolves only what its own tier brought in, plus the listed packages at the root, and
each edge finds the very package npm chose (the layout's ``find`` is node's walk, links followed).
Node resolves a module from its real path, so a package in a tier looks up through the tier's
folder, never through the listed package that links to it.

Why a folder per top rather than the tier's ``node_modules`` holding them: npm reads a real path
under ``node_modules/.store/`` as a store entry (its own linked strategy lays them out so), and its
tree reader attaches a package reached through a link only to that link. With every top behind a
link of its own, each dependent, a listed package or a top, finds it through a link, and ``npm ls``
in the image folder reads the image as installed.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace

from neuralis_build.image.resolution.npmlock import MODULES, LockNode, NpmLock
from neuralis_build.util.trust import TRUST_TIERS, Trust

STORE = f"{MODULES}.store/"
_NESTED = "/" + MODULES
_FOLDER = MODULES.rstrip("/")


def top_of(path: str) -> str:
    """The root-level folder a path is inside: ``node_modules/a`` for ``node_modules/a/node_modules/b``."""
    cut = path.find(_NESTED)
    return path if cut < 0 else path[:cut]


def tier_folder(tier: Trust) -> str:
    """The folder of one tier: ``node_modules/.store/untrusted``; its ``node_modules`` links to its tops."""
    return f"{STORE}{tier}"


def stored(tier: Trust, name: str, version: str) -> str:
    """Where a top is installed in a tier: ``node_modules/.store/untrusted/rxjs@7.8.2/node_modules/rxjs``."""
    return f"{tier_folder(tier)}/{name.replace('/', '+')}@{version}/{MODULES}{name}"


def lookup(start: str) -> Iterator[str]:
    """The ``node_modules`` folders node searches from the folder ``start`` (``Module._nodeModulePaths``), nearest
    first: each ancestor's, skipping the ancestors that are themselves ``node_modules`` folders."""
    parts = start.split("/") if start else []
    for end in range(len(parts), -1, -1):
        if end and parts[end - 1] == _FOLDER:
            continue
        yield "/".join([*parts[:end], _FOLDER])


@dataclass(frozen=True)
class Layout(NpmLock):
    """npm's lock at the image's paths: the listed folders where npm put them, the tops once per tier, and the
    links of each tier's ``node_modules``."""

    tiers: Mapping[str, Trust] = field(default_factory=dict)  # listed path -> its tier
    links: Mapping[str, str] = field(default_factory=dict)  # a tier's node_modules/<name> -> that top's path

    def find(self, start: str, name: str) -> LockNode | None:
        """The node ``require(name)`` finds from ``start``: node's walk, following the links."""
        tier = self.tiers.get(top_of(start))
        for folder in lookup(start):
            path = f"{folder}/{name}"
            node = self.nodes.get(path)
            if node is not None:
                return node
            if path in self.links:
                return self.nodes.get(self.links[path])
            if tier is not None and folder == f"{top_of(start)}/{_FOLDER}":  # a listed package's own links
                linked = self.links.get(f"{tier_folder(tier)}/{MODULES}{name}")
                if linked is not None:
                    return self.nodes.get(linked)
        return None


def layout_of(lock: NpmLock, tiers: Mapping[str, Trust]) -> Layout:
    """npm's lock laid out for the listed packages of ``tiers`` (name -> tier): see the module docstring.

    Every top is laid out under every tier present; the walk from the listed packages (graph.py) places
    only the copies a tier reaches.
    """
    listed = {f"{MODULES}{n}": t for n, t in tiers.items() if f"{MODULES}{n}" in lock.nodes}
    present = [t for t in TRUST_TIERS if t in listed.values()]
    nodes: dict[str, LockNode] = {}
    links: dict[str, str] = {}
    for path, node in sorted(lock.nodes.items()):
        top = top_of(path)
        if top in listed:
            nodes[path] = node
            continue
        head = lock.nodes.get(top)
        if head is None:  # a nested entry whose top npm did not write: nothing can reach it
            continue
        for tier in present:
            at = stored(tier, head.name, head.version) + path[len(top) :]
            nodes[at] = replace(node, path=at)
            if path == top:
                links[f"{tier_folder(tier)}/{MODULES}{node.name}"] = at
    return Layout(lock.root_dependencies, nodes, lock.text, tiers=listed, links=links)


def links_of(edges: Mapping[str, Mapping[str, str]], placed: Mapping[str, object], layout: Layout) -> dict[str, str]:
    """The links the placed tree needs (link path -> the path it points to): a tier's link to each of its placed
    tops, and a listed package's link to its tier's link for each name an edge under it resolves to a top."""
    links = {link: real for link, real in layout.links.items() if real in placed}
    for source, targets in sorted(edges.items()):
        top = top_of(source)
        tier = layout.tiers.get(top)
        if source not in placed or tier is None:
            continue
        for name, target in sorted(targets.items()):
            link = f"{tier_folder(tier)}/{MODULES}{name}"
            if layout.links.get(link) == target and target in placed:
                links[f"{top}/{MODULES}{name}"] = link
    return dict(sorted(links.items()))


__all__ = ["STORE", "Layout", "layout_of", "links_of", "lookup", "stored", "tier_folder", "top_of"]
