"""The image's dependency closure: npm's resolution of it, and the staged tree as refusals shrink it.

``Resolution`` is npm's answer for the listed packages and the registry settings it is held to; it
does not change once made. The image's layout of it (tiers.py) is made for the packages admitted in
the end. ``StagedTree`` is the one thing of the build that changes as it is judged: a package that
cannot be installed (a hostile registry tarball, a ``neuralis`` dependency refused by its own checks
or by a contest, one from outside a registry) takes every listed package that needs it out of the
image, and their closures with them: a refused package is never in the image, and neither is
anything that would ``require`` it. The lock keeps npm's whole resolution; the image installs the
part the admitted packages reach, as ``--omit`` does.

A tree the build's plan keeps (the last build's, untouched) is read, never written: the plan keeps it
only when everything judged of it is what it was last time, so a refusal there is a broken promise of
the plan, raised as such.
"""

from __future__ import annotations

import shutil
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path

from neuralis_build.hostprofile import HostProfile
from neuralis_build.image.archive.extract import Limits
from neuralis_build.image.archive.store import Store
from neuralis_build.image.judge.dependencies import FoundDependency, discover
from neuralis_build.image.layout.graph import Closure, Root, walk
from neuralis_build.image.layout.materialize import PackageFacts, facts_of_folder, materialize
from neuralis_build.image.layout.tiers import STORE, Layout, layout_of, links_of
from neuralis_build.image.layout.unpack import Prefetch, unpack_all
from neuralis_build.image.packages.listed import Listed
from neuralis_build.image.packages.work import Work
from neuralis_build.image.resolution.npmcli import Runner
from neuralis_build.image.resolution.npmlock import MODULES, LockNode, NpmLock
from neuralis_build.image.resolution.registries import Registries, read_registries, scopes_of
from neuralis_build.image.resolution.registrytarballs import TarballStore, Wanted
from neuralis_build.image.resolution.resolve import Admitted, Ahead, not_from_registry, own_tarball, resolve
from neuralis_build.npm.packagejson import MANIFEST
from neuralis_build.util.diagnostics import Diagnostic, code
from neuralis_build.util.trust import Trust

NB1812 = code("NB1812", "dependency-refused", "a package this one needs is refused, so this one is not installed")
NB1813 = code("NB1813", "dependency-archive", "a dependency's registry tarball breaks a hostile-input rule")

STORE_FOLDER = STORE.removeprefix(MODULES).rstrip("/")  # ".store": the tiers' folder at the root
REGISTRY_ONLY = "the image installs registry packages only"
_REFUSED_HINT = "fix or replace that dependency: the image installs nothing that requires a refused package"
_OUTSIDE_HINT = (
    "depend on a version of it published to your registry (publish it there if need be), or replace the package "
    "that asks for it: the image installs nothing that requires a package from outside a registry"
)

Blocked = Mapping[str, tuple[str, str]]
"""Paths of the layout taken out, each with what is refused there and why."""


def host_package_names(shared_modules: tuple[str, ...]) -> frozenset[str]:
    """The packages the host provides (``react`` for ``react/jsx-runtime``): peers on them are left to the host."""
    names = set()
    for module in shared_modules:
        parts = module.split("/")
        names.add("/".join(parts[:2]) if module.startswith("@") else parts[0])
    return frozenset(names)


def admitted_of(listed: Listed) -> Admitted:
    """A listed package as npm's resolution sees it."""
    return Admitted(listed.name or "", listed.integrity or "", listed.tarball, listed.tgz, _needs(listed))


def _needs(listed: Listed) -> tuple[str, ...]:
    package = listed.package
    if package is None:  # a cached tarball: its package.json was not read again
        return ()
    names: set[str] = set()
    for key in ("dependencies", "optionalDependencies", "peerDependencies"):
        names.update(str(k) for k in package.npm.ranges(key))
    return tuple(sorted(names))


@dataclass(frozen=True)
class Resolution:
    """npm's lock for the listed packages, and npm's registry settings for the scopes it names."""

    lock: NpmLock
    registries: Registries

    def outside_npm(self, listed: Collection[str]) -> frozenset[str]:
        """The entries of npm's own lock that a registry does not serve (left out of the image's npm files);
        ``listed``: the paths of the listed packages in the image."""
        return frozenset(not_from_registry(self.lock, listed, self.registries))

    def layout(self, listed: Mapping[str, Trust]) -> tuple[Layout, dict[str, tuple[str, str]]]:
        """The image's layout of the lock for these listed packages (name -> tier), and each of its packages that a
        registry does not serve (path -> what, why)."""
        layout = layout_of(self.lock, dict(listed))
        outside = {
            path: (f"{layout.nodes[path].package_name}@{layout.nodes[path].version}", f"{why}; {REGISTRY_ONLY}")
            for path, why in not_from_registry(layout, set(layout.tiers), self.registries).items()
        }
        return layout, outside


def resolve_closure(
    listed: list[Listed],
    folder: Path,
    out: Path,
    *,
    frozen: bool,
    npm: Runner,
    ahead: Ahead | None = None,
    known: Registries | None = None,
) -> Resolution:
    """npm resolves the closure of the ``listed`` packages (with ``frozen``, the lock is taken as it is).

    ``ahead``: a resolution started while the packages were read, used when it resolved the same ones;
    ``known``: npm's registry settings read meanwhile (by ``ahead`` or the --frozen prefetch).
    """
    admitted = [admitted_of(one) for one in listed]
    early = ahead.take(admitted, folder) if ahead is not None and not frozen else None
    lock = early or resolve(admitted, folder, out, frozen=frozen, npm=npm)
    if early is not None and ahead is not None and ahead.registries is not None:
        known = ahead.registries
    scopes = scopes_of(lock)
    registries = known if known is not None and known.covers(scopes) else read_registries(scopes, npm)
    return Resolution(lock, registries)


class KeptTreeChanged(RuntimeError):
    """A refusal in the tree the plan kept: the plan promised that none could happen (a bug, never input)."""


class StagedTree:
    """The staged ``node_modules``, as refusals shrink it: the closure placed, what is blocked, each package's facts.

    ``root`` holds the ``node_modules`` the tree is read from: the staging folder, or, when the build's plan
    keeps the last build's tree (``kept``), the image folder itself, which this build never changes.
    """

    def __init__(self, works: list[Work], root: Path, resolution: Resolution, host: HostProfile, kept: bool) -> None:
        self.works = works
        self.by_name = {w.own.name: w for w in works if w.own.name}
        self.root = root
        self.resolution = resolution
        self.layout, self.outside = resolution.layout({w.own.name or "": w.own.trust for w in self.admitted()})
        self.host_names = host_package_names(host.shared_modules)
        self.kept = kept
        self.closure = Closure()
        self.blocked: dict[str, tuple[str, str]] = {}
        self.package_facts: dict[str, PackageFacts] = {}
        self.found: list[FoundDependency] = []

    def admitted(self) -> list[Work]:
        return [w for w in self.works if w.alive and w.staged is not None and w.integrity]

    def roots(self) -> list[Root]:
        return [Root(w.own.name or "", w.own.trust, w.spec.install_class, w.spec.index) for w in self.admitted()]

    def walk(self, also: Collection[str] = ()) -> Closure:
        """The closure the admitted packages reach, stopping at what is refused (and ``also``) or not from a
        registry."""
        blocked = {*self.blocked, *self.outside, *also}
        return walk(self.layout, self.roots(), self.host_names, blocked=blocked, left_out=self.outside)

    def plan(self) -> list[tuple[str, str]]:
        """(path, integrity) of every package placed: what the next build compares its own with."""
        return [(path, p.node.integrity or "") for path, p in sorted(self.closure.placed.items())]

    def start(self) -> None:
        """Take out of the walk what the resolution already refuses: a listed package refused while npm resolved
        (still in npm's lock, where the layout puts what the others need of it), and packages from outside a
        registry (an optional one is left out, any other refuses whoever needs it)."""
        self.drop_refused()
        gone = {
            path: (f"{node.package_name}@{node.version}", "the SPEC lists it, and it is refused")
            for path, node in self.layout.nodes.items()
            if path not in self.layout.tiers and own_tarball(self.layout, node)
        }
        if gone and self.walk(gone).hits:
            self.refuse(gone, NB1812.id)
        if self.outside and self.walk().hits:
            self.refuse({}, NB1812.id)  # refused because of another package: never cached as its own verdict
        self.closure = self.walk()

    def refuse_found(self, refused: list[FoundDependency]) -> None:
        """Take out the listed packages that need these refused dependencies."""
        bad = {}
        for f in refused:
            reason = next((d.message for d in f.outcome.diagnostics if d.severity == "error"), "it is refused")
            for path in f.paths:
                bad[path] = (f"{f.own.name}@{f.own.version}", reason)
        if bad:
            self.refuse(bad, NB1812.id)

    def refuse(self, bad: Blocked, rule: str) -> None:
        """Block these paths; every listed package whose walk reaches one is refused in turn, until none is."""
        if self.kept:
            raise KeptTreeChanged(f"a refusal in the kept tree ({', '.join(sorted(bad)) or 'outside a registry'})")
        self.blocked.update(bad)
        before = set(self.closure.placed)
        outside = self.outside
        while True:
            self.closure = self.walk()
            fresh = [(root, path, chain) for root, path, chain in self.closure.hits if self.by_name[root].alive]
            if not fresh:
                break
            for root, path, chain in fresh:
                work = self.by_name[root]
                if not work.alive:
                    continue
                from_outside = path in outside and path not in self.blocked
                what, why = outside[path] if from_outside else self.blocked[path]
                work.refuse(
                    Diagnostic(
                        "error",
                        rule if path in bad else NB1812.id,
                        MANIFEST,
                        "/dependencies",
                        f"it needs {what} ({' → '.join(chain)}), which is refused: {why}",
                        _OUTSIDE_HINT if from_outside else _REFUSED_HINT,
                    )
                )
                self.blocked[f"{MODULES}{root}"] = (f"{root}@{work.own.version}", "it is refused")
        self._prune(before - set(self.closure.placed))
        self.drop_refused()
        self.found = [f for f in self.found if not f.alive or f.paths[0] in self.closure.placed]

    def at(self, path: str) -> Path:
        return self.root.joinpath(*path.split("/"))

    def drop_refused(self) -> None:
        """Take each refused listed package's folder out of the tree, and whatever else sits at its root.

        The root holds the admitted listed packages and the tiers' store (tiers.py), nothing else: a folder that no
        admitted package is, whichever rule refused it and whether or not its value still says where it was
        staged, goes too.
        """
        gone = [w.staged for w in self.works if not w.alive and w.staged is not None and w.staged.exists()]
        admitted = {w.own.name for w in self.admitted()}
        gone += [folder for name, folder in _root_folders(self.root / MODULES.rstrip("/")) if name not in admitted]
        if gone and self.kept:
            raise KeptTreeChanged(f"the kept tree holds what is not in the image: {', '.join(map(str, gone))}")
        for folder in gone:
            if folder.is_dir() and not folder.is_symlink():
                shutil.rmtree(folder)
            elif folder.exists() or folder.is_symlink():
                folder.unlink()
            self._remove_empty_parents(folder)

    def _prune(self, gone: set[str]) -> None:
        """Remove the folders of paths no longer placed and a tier's links to them (tiers.py)."""
        linked = {real: link for link, real in self.layout.links.items() if real in gone}
        for path in sorted(gone, key=len):
            target = self.at(path)
            if target.is_dir():
                shutil.rmtree(target)
            self.package_facts.pop(path, None)
            self._remove_empty_parents(target)
            if path in linked:
                self.at(linked[path]).unlink(missing_ok=True)
                self._remove_empty_parents(self.at(linked[path]))

    def _remove_empty_parents(self, removed: Path) -> None:
        """Remove the folders a removal left empty (a scope's, a top's, a tier's), up to ``node_modules``."""
        top = self.root / MODULES.rstrip("/")
        parent = removed.parent
        while parent != top and parent.is_dir() and not any(parent.iterdir()):
            parent.rmdir()
            parent = parent.parent

    def registry_nodes(self) -> list[LockNode]:
        """The placed packages that come from a registry tarball (not listed, not bundled), in path order."""
        return [
            p.node
            for path, p in sorted(self.closure.placed.items())
            if path not in self.closure.listed and not p.node.in_bundle and p.node.integrity
        ]

    def in_store(self) -> set[str]:
        """The integrities of the registry tarballs the staged tree links to (what the store keeps)."""
        return {node.integrity for node in self.registry_nodes() if node.integrity}


@dataclass(frozen=True)
class Stores:
    """Where registry tarballs are kept (verified) and extracted, once each (store.py)."""

    tarballs: TarballStore
    extracted: Store

    @classmethod
    def of(cls, out: Path) -> Stores:
        return cls(TarballStore(out / ".neuralis-cache" / "registry"), Store(out / ".neuralis-cache" / "store"))

    def pair(self) -> tuple[TarballStore, Store]:
        return self.tarballs, self.extracted


def install(
    tree: StagedTree, stores: Stores, limits: Limits, jobs: int, npm: Runner, prefetch: Prefetch | None = None
) -> None:
    """Fetch what the admitted packages reach and link it into the staging tree; a kept tree is only read."""
    if tree.kept:
        tree.package_facts = _kept_facts(tree)
        return
    wanted = {node.integrity: Wanted.of(node) for node in tree.registry_nodes() if node.integrity}
    if prefetch is not None:
        prefetch.wait()  # what it put in the store is taken from there
    unpacked = unpack_all(list(wanted.values()), stores.tarballs, stores.extracted, limits, jobs, npm)
    closure = tree.closure
    links = links_of(closure.edges, closure.placed, tree.layout)
    done = materialize(closure, tree.root, unpacked, jobs, closure.listed, links)
    tree.package_facts = dict(done.package_facts)
    for path in closure.listed:
        tree.package_facts[path] = facts_of_folder(tree.at(path))
    if done.refused:
        bad = {}
        for path, exc in done.refused.items():
            node = closure.placed[path].node
            bad[path] = (f"{node.package_name}@{node.version}", f"its registry tarball is refused: {exc.message}")
        tree.refuse(bad, NB1813.id)


def _kept_facts(tree: StagedTree) -> dict[str, PackageFacts]:
    """The facts of the kept tree: one read per registry tarball (its copies are links to one entry), and one per
    listed or bundled folder."""
    by_integrity: dict[str, PackageFacts] = {}
    out = {}
    for path, p in sorted(tree.closure.placed.items()):
        node = p.node
        if path in tree.closure.listed or node.in_bundle or not node.integrity:
            out[path] = facts_of_folder(tree.at(path))
        else:
            if node.integrity not in by_integrity:
                by_integrity[node.integrity] = facts_of_folder(tree.at(path))
            out[path] = by_integrity[node.integrity]
    return out


def judge_dependencies(tree: StagedTree, host: HostProfile) -> None:
    """Judge every installed ``neuralis`` dependency; a refused one takes out the listed packages that need it."""
    listed_ids = {w.own.id: f"the listed {w.own.name}@{w.own.version}" for w in tree.works if w.alive and w.own.id}
    tree.found = discover(tree.closure, tree.package_facts, tree.root, host, listed_ids)
    tree.refuse_found([f for f in tree.found if not f.alive])


def planned_walk(resolution: Resolution, listed: list[Listed], host: HostProfile) -> list[tuple[str, str]]:
    """(path, integrity) of every package the ``listed`` packages reach in the resolution, as a tree would place
    it with nothing refused: what the plan compares with the last build's before keeping its tree."""
    roots = [Root(one.name or "", Trust(one.spec.trust), one.spec.install_class, one.spec.index) for one in listed]
    layout, outside = resolution.layout({one.name or "": Trust(one.spec.trust) for one in listed})
    names = host_package_names(host.shared_modules)
    closure = walk(layout, roots, names, blocked=set(outside), left_out=outside)
    return [(path, p.node.integrity or "") for path, p in sorted(closure.placed.items())]


def _root_folders(modules: Path) -> list[tuple[str, Path]]:
    """The packages at the root of a ``node_modules`` (``@scope/name`` inside a scope's folder), by name; a scope's
    folder with nothing in it is one too (named by the scope), and the tiers' ``.store`` is not."""
    out: list[tuple[str, Path]] = []
    try:
        tops = sorted(modules.iterdir())
    except FileNotFoundError:
        return out
    for top in tops:
        if top.name == STORE_FOLDER:
            continue
        inside = sorted(top.iterdir()) if top.name.startswith("@") and top.is_dir() and not top.is_symlink() else []
        if top.name.startswith("@") and inside:
            out.extend((f"{top.name}/{p.name}", p) for p in inside)
        else:
            out.append((top.name, top))
    return out
