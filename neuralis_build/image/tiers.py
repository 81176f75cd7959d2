"""The image's layout of npm's lock: the listed packages at the root, every other package in its trust tier's folder.

npm resolves all the listed packages together and hoists what they need to the root, where every
listed package would resolve it, whatever its trust: a first-party package could ``require`` what
an untrusted one brought in (the peers of ``@nestjs/core``, say). The image keeps npm's versions and
npm's shape, but not npm's root:

- each listed package is a real folder at the root, ``node_modules/<name>``, with the folders npm
  nested in it;
- every other package npm placed at the root (a *top*, with the folders nested in it) goes into
  ``node_modules/.store/<tier>/node_modules/``, once for each trust tier whose listed packages reach
  it; inside that folder the packages find each other as they do in npm's tree;
- a listed package reaches its tier's tops through symbolic links in its own ``node_modules``,
  one for each name its edges resolve to a top (``node_modules/express/node_modules/debug`` →
  ``../../.store/first-party/node_modules/debug``), and nothing else.

So a package resolves only what its own tier brought in, plus the listed packages at the root, and
each edge finds the very package npm chose (the layout's ``find`` is node's walk, links included).
Node resolves a module from its real path, so a package inside a tier folder looks up through that
folder, never through the listed package that links to it. The folder is named ``.store`` because
npm treats a real path under ``node_modules/.store/`` as a store entry (as its own linked install
strategy lays them out), so ``npm ls`` in the image folder reads the layout as installed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from neuralis_build.image.npmlock import MODULES, LockNode, NpmLock
from neuralis_build.trust import TRUST_TIERS, Trust

STORE = f"{MODULES}.store/"
_NESTED = "/" + MODULES


def top_of(path: str) -> str:
    """The root-level folder a path is inside: ``node_modules/a`` for ``node_modules/a/node_modules/b``."""
    cut = path.find(_NESTED)
    return path if cut < 0 else path[:cut]


def tier_folder(tier: Trust) -> str:
    """The folder whose ``node_modules`` holds one tier's tops: ``node_modules/.store/untrusted``."""
    return f"{STORE}{tier}"


@dataclass(frozen=True)
class Layout(NpmLock):
    """npm's lock at the image's paths: the listed folders where npm put them, the tops once per tier."""

    tiers: Mapping[str, Trust] = field(default_factory=dict)  # listed path -> its tier

    def find(self, start: str, name: str) -> LockNode | None:
        """The node ``require(name)`` finds from ``start``: node's walk, through a listed package's links."""
        here = start
        while True:
            node = self.nodes.get(f"{here}/{MODULES}{name}" if here else f"{MODULES}{name}")
            if node is not None:
                return node
            if not here:
                return None
            cut = here.rfind(_NESTED)
            if cut >= 0:
                here = here[:cut]
                continue
            tier = self.tiers.get(here)  # a listed package's own node_modules holds a link to its tier's top
            if tier is not None:
                node = self.nodes.get(f"{tier_folder(tier)}/{MODULES}{name}")
                if node is not None:
                    return node
            here = ""


def layout_of(lock: NpmLock, tiers: Mapping[str, Trust]) -> Layout:
    """npm's lock laid out for the listed packages of ``tiers`` (name -> tier): see the module docstring.

    Every top is laid out under every tier present; the walk from the listed packages (graph.py) places
    only the copies a tier reaches.
    """
    listed = {f"{MODULES}{n}": t for n, t in tiers.items() if f"{MODULES}{n}" in lock.nodes}
    present = [t for t in TRUST_TIERS if t in listed.values()]
    nodes: dict[str, LockNode] = {}
    for path, node in sorted(lock.nodes.items()):
        if top_of(path) in listed:
            nodes[path] = node
            continue
        for tier in present:
            at = f"{tier_folder(tier)}/{path}"
            nodes[at] = replace(node, path=at)
    return Layout(lock.root_dependencies, nodes, lock.text, tiers=listed)


def links_of(edges: Mapping[str, Mapping[str, str]], placed: Mapping[str, object], layout: Layout) -> dict[str, str]:
    """The links the listed packages need (link path -> target path): one per name an edge under a listed
    package resolves to its tier's top."""
    links: dict[str, str] = {}
    for source, targets in sorted(edges.items()):
        top = top_of(source)
        if source not in placed or top not in layout.tiers:
            continue
        for name, target in sorted(targets.items()):
            if target.startswith(STORE) and target in placed:
                links[f"{top}/{MODULES}{name}"] = target
    return links


__all__ = ["STORE", "Layout", "layout_of", "links_of", "tier_folder", "top_of"]
