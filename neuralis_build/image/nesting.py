"""The image's layout of npm's lock: nothing but the listed packages at the image root.

npm places the peers of a top-level package beside it, at the root (``node_modules/rxjs`` for
``@nestjs/core``), and dedupes other packages' dependencies onto them. At the root of an image,
every listed package would resolve them, whatever its trust: a first-party package could
``require`` what an untrusted one brought in. So the image moves each such package (a *top*)
under every listed package whose closure reaches it, as it nests every other dependency
(``node_modules/@nestjs/core/node_modules/rxjs``), the top's own nested folders with it.

A folder moved deeper resolves a name differently only where a folder on its new way up holds a
package of that name: the listed package's own nested copy of a name the top found at the root.
Each such edge gets a copy of the package npm chose, nested where it asks for it, and the layout
is checked again until every edge under the listed package finds a copy of the very package npm
chose (the node at the same lock path). An edge npm resolved to another listed package cannot be
served by a copy (a listed package is installed once, at the root): the tops that listed package
reaches are left at the root, where npm put them.

npm itself cannot describe this layout: it resolves a peer only beside the package that declares it
(from its parent's folder), so a lock with ``@nestjs/core/node_modules/rxjs`` is "out of sync" for
``npm ci``. The image folder's npm files therefore keep npm's placement (outfiles.py).
"""

from __future__ import annotations

from collections import deque
from dataclasses import replace

from neuralis_build.image.npmlock import MODULES, LockNode, NpmLock

_NESTED = "/" + MODULES
_ROUNDS = 64  # each round nests copies one level deeper; real trees settle in one or two


def top_of(path: str) -> str:
    """The root-level folder a path is inside: ``node_modules/a`` for ``node_modules/a/node_modules/b``."""
    cut = path.find(_NESTED)
    return path if cut < 0 else path[:cut]


def _names(node: LockNode) -> list[str]:
    return sorted({*node.dependencies, *node.optional_dependencies, *node.peer_dependencies})


class _Cannot(Exception):
    """An edge of a moved top can only be served by another listed package's folder."""


def nest(lock: NpmLock) -> NpmLock:
    """npm's lock with every top moved under each listed package that reaches it (see the module docstring)."""
    listed = frozenset(f"{MODULES}{n}" for n in lock.root_dependencies if f"{MODULES}{n}" in lock.nodes)
    by_top: dict[str, list[str]] = {}
    for path in sorted(lock.nodes):
        by_top.setdefault(top_of(path), []).append(path)
    tops = {top: paths for top, paths in by_top.items() if top not in listed}
    if not tops:
        return lock
    layout = {p: p for top in sorted(listed) for p in by_top.get(top, [])}  # image path -> npm's path
    stay: set[str] = set()
    for root in sorted(listed):
        reached = _reached(lock, root, listed, tops)
        if not reached:
            continue
        try:
            layout.update(_Under(lock, root, by_top[root], listed, tops).place(reached))
        except _Cannot:
            stay |= reached
    layout.update((p, p) for top in sorted(stay) for p in tops[top])
    nodes = {path: replace(lock.nodes[origin], path=path) for path, origin in sorted(layout.items())}
    return NpmLock(lock.root_dependencies, nodes, lock.text)


def _reached(lock: NpmLock, root: str, listed: frozenset[str], tops: dict[str, list[str]]) -> set[str]:
    """The tops the closure of one listed package reaches in npm's layout (a walk stops at a listed one)."""
    seen, queue, found = {root}, deque([root]), set()
    while queue:
        path = queue.popleft()
        for name in _names(lock.nodes[path]):
            target = lock.find(path, name)
            if target is None or target.path in seen or target.path in listed:
                continue
            seen.add(target.path)
            queue.append(target.path)
            if top_of(target.path) in tops:
                found.add(top_of(target.path))
    return found


class _Under:
    """The folders under one listed package: its own (as npm placed them) and the copies of tops put there."""

    def __init__(
        self, lock: NpmLock, root: str, own: list[str], listed: frozenset[str], tops: dict[str, list[str]]
    ) -> None:
        self.lock, self.root, self.listed, self.tops = lock, root, listed, tops
        self.view = {p: p for p in own}  # image path -> npm's path, for every folder under root
        self.added: dict[str, str] = {}

    def place(self, reached: set[str]) -> dict[str, str]:
        """The copies (image path -> npm's path) that make every edge under root find what npm chose."""
        for top in sorted(reached):
            at = f"{self.root}/{top}"
            if at not in self.view:  # else root has its own package of that name: the top goes deeper, below
                self._copy(top, at)
        for _ in range(_ROUNDS):
            wrong = self._wrong()
            if not wrong:
                return self.added
            for path, name, expected in wrong:
                if expected not in self.tops:  # another listed package (or, never in npm's layout, a nested one)
                    raise _Cannot(f"{path} needs {expected}")
                self._copy(expected, f"{path}/{MODULES}{name}")
        raise _Cannot(f"the copies under {self.root} do not settle")

    def _copy(self, top: str, at: str) -> None:
        if at in self.view:
            raise _Cannot(f"{at} is taken")
        for origin in self.tops[top]:
            path = at + origin[len(top) :]
            self.view[path] = self.added[path] = origin

    def _find(self, start: str, name: str) -> str | None:
        """The npm path of what ``require(name)`` finds from ``start`` in this layout."""
        here = start
        while here:
            path = f"{here}/{MODULES}{name}"
            if path in self.view:
                return self.view[path]
            cut = here.rfind(_NESTED)
            here = "" if cut < 0 else here[:cut]
        top = f"{MODULES}{name}"
        return top if top in self.listed else None

    def _wrong(self) -> list[tuple[str, str, str]]:
        """Every edge under root that does not find the package npm chose: (from, name, npm's path)."""
        wrong = []
        for path, origin in sorted(self.view.items()):
            for name in _names(self.lock.nodes[origin]):
                expected = self.lock.find(origin, name)
                if expected is not None and self._find(path, name) != expected.path:
                    wrong.append((path, name, expected.path))
        return wrong
