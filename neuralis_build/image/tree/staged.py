"""The image's dependency closure as it is staged: npm's lock, the placed packages, and refusals that cascade.

A package that cannot be installed (a hostile registry tarball, a ``neuralis`` dependency refused by
its own checks or by a contest) takes every listed package that needs it out of the image, and
their closures with them: a refused package is never in the image, and neither is anything that
would ``require`` it. The lock keeps npm's whole resolution; the image installs the part the
admitted packages reach, as ``--omit`` does.
"""

from __future__ import annotations

import shutil
from collections.abc import Collection, Mapping
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

NB1812 = code("NB1812", "dependency-refused", "a package this one needs is refused, so this one is not installed")
NB1813 = code("NB1813", "dependency-archive", "a dependency's registry tarball breaks a hostile-input rule")

STORE_FOLDER = STORE.removeprefix(MODULES).rstrip("/")  # ".store": the tiers' folder at the root
REGISTRY_ONLY = "the image installs registry packages only"
_REFUSED_HINT = "fix or replace that dependency: the image installs nothing that requires a refused package"
_OUTSIDE_HINT = (
    "depend on a version of it published to your registry (publish it there if need be), or replace the package "
    "that asks for it: the image installs nothing that requires a package from outside a registry"
)


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


class Diverged(Exception):
    """The kept ``node_modules`` would not be what this build installs: build it afresh instead."""


class Tree:
    """The staged ``node_modules``: resolved by npm, written by us, shrunk by refusals.

    ``root`` holds the ``node_modules`` the tree is read from: the staging folder, or, when the last
    build's tree is kept (``kept``), the image folder itself, which this build must then never change.
    """

    def __init__(
        self,
        works: list[Work],
        root: Path,
        resolve_dir: Path,
        out: Path,
        host: HostProfile,
        jobs: int,
        limits: Limits,
        npm: Runner,
        kept: list[list[str]] | None = None,
    ) -> None:
        self.works = works
        self.by_name = {w.own.name: w for w in works if w.own.name}
        self.root = root
        self.resolve_dir = resolve_dir
        self.kept = kept  # the plan of the kept tree; None when the tree is staged
        self.plan: list[list[str]] = []
        self.out = out
        self.host = host
        self.host_names = host_package_names(host.shared_modules)
        self.jobs = jobs
        self.limits = limits
        self.npm = npm
        self.tarballs = TarballStore(out / ".neuralis-cache" / "registry")
        self.store = Store(out / ".neuralis-cache" / "store")
        self.lock: NpmLock | None = None  # npm's lock, as npm wrote it
        self.layout: Layout | None = None  # where the image installs what npm resolved (tiers.py)
        self.closure = Closure()
        self.blocked: dict[str, tuple[str, str]] = {}  # path -> (what is refused, why)
        # the layout's packages that do not come from a registry (path -> what, why): an optional edge into one is
        # left out, any other refuses whoever has it (NB1812); and the same entries of npm's own lock
        self.outside: dict[str, tuple[str, str]] = {}
        self.outside_npm: frozenset[str] = frozenset()
        self.package_facts: dict[str, PackageFacts] = {}
        self.found: list[FoundDependency] = []
        self.prefetch: Prefetch | None = None  # --frozen: the lock's tarballs, fetched while the packages are checked

    def admitted(self) -> list[Work]:
        return [w for w in self.works if w.alive and w.staged is not None and w.integrity]

    def resolve(self, frozen: bool, ahead: Ahead | None = None) -> None:
        """npm resolves the closure of the admitted packages (or, with ``frozen``, the lock is taken as it is).

        ``ahead``: a resolution started before the packages were checked, used when it resolved the same ones.
        """
        self._drop_refused()
        admitted = [admitted_of(w.listed) for w in self.admitted()]
        early = ahead.take(admitted, self.resolve_dir) if ahead is not None and not frozen else None
        self.lock = early or resolve(admitted, self.resolve_dir, self.out, frozen=frozen, npm=self.npm)
        self.layout = layout_of(self.lock, {w.own.name or "": w.own.trust for w in self.admitted()})
        self._refuse_refused_listed()
        known = ahead.registries if early is not None and ahead is not None else None
        if known is None and self.prefetch is not None:
            known = self.prefetch.registries()  # read from the same lock, while the packages were checked
        self._refuse_unregistered(known)

    def _refuse_refused_listed(self) -> None:
        """A listed package refused while npm resolved (or, with --frozen, since the lock was made) is still in npm's
        lock, and the layout puts it where the others find their dependencies: whatever needs it is refused, and
        its tarball is never installed as anyone's dependency."""
        assert self.layout is not None
        gone = {
            path: (f"{node.package_name}@{node.version}", "the SPEC lists it, and it is refused")
            for path, node in self.layout.nodes.items()
            if path not in self.layout.tiers and own_tarball(self.layout, node)
        }
        if gone and self._walk(gone).hits:
            self.refuse(gone, NB1812.id)

    def _refuse_unregistered(self, known: Registries | None) -> None:
        """Hold npm's lock to the registries npm is configured for: what needs a package from elsewhere is refused
        (a registry package's dependency on a URL, say), and an optional one is left out; nothing is fetched."""
        assert self.lock is not None and self.layout is not None
        scopes = scopes_of(self.lock)
        registries = known if known is not None and known.covers(scopes) else read_registries(scopes, self.npm)
        listed = {f"{MODULES}{w.own.name}" for w in self.admitted()}
        self.outside_npm = frozenset(not_from_registry(self.lock, listed, registries))
        for path, why in not_from_registry(self.layout, set(self.layout.tiers), registries).items():
            node = self.layout.nodes[path]
            self.outside[path] = (f"{node.package_name}@{node.version}", f"{why}; {REGISTRY_ONLY}")
        if self.outside and self._walk().hits:
            self.refuse({}, NB1812.id)  # refused because of another package: never cached as its own verdict

    def _walk(self, also: Collection[str] = ()) -> Closure:
        """The closure the admitted packages reach, stopping at what is refused (and ``also``) or not from a
        registry."""
        assert self.layout is not None
        blocked = {*self.blocked, *self.outside, *also}
        return walk(self.layout, self.roots(), self.host_names, blocked=blocked, left_out=self.outside)

    def roots(self) -> list[Root]:
        return [Root(w.own.name or "", w.own.trust, w.spec.install_class, w.spec.index) for w in self.admitted()]

    def install(self) -> None:
        """Walk the layout from the admitted packages, fetch what they reach and link it into the staging tree."""
        assert self.layout is not None
        self.closure = self._walk()
        self.plan = [[path, p.node.integrity or ""] for path, p in sorted(self.closure.placed.items())]
        if self.kept is not None:
            if self.plan != self.kept:
                raise Diverged("npm's lock places other packages than the kept tree holds")
            self.package_facts = self._kept_facts()
            return
        wanted = {node.integrity: Wanted.of(node) for node in self._registry_nodes() if node.integrity}
        if self.prefetch is not None:
            self.prefetch.wait()  # what it put in the store is taken from there
        unpacked = unpack_all(list(wanted.values()), self.tarballs, self.store, self.limits, self.jobs, self.npm)
        links = links_of(self.closure.edges, self.closure.placed, self.layout)
        done = materialize(self.closure, self.root, unpacked, self.jobs, self.closure.listed, links)
        self.package_facts = dict(done.package_facts)
        for path in self.closure.listed:
            self.package_facts[path] = facts_of_folder(self._at(path))
        if done.refused:
            bad = {}
            for path, exc in done.refused.items():
                node = self.closure.placed[path].node
                bad[path] = (f"{node.package_name}@{node.version}", f"its registry tarball is refused: {exc.message}")
            self.refuse(bad, NB1813.id)

    def _kept_facts(self) -> dict[str, PackageFacts]:
        """The facts of the kept tree: one read per registry tarball (its copies are links to one entry), and
        one per listed or bundled folder."""
        by_integrity: dict[str, PackageFacts] = {}
        out = {}
        for path, p in sorted(self.closure.placed.items()):
            node = p.node
            if path in self.closure.listed or node.in_bundle or not node.integrity:
                out[path] = facts_of_folder(self._at(path))
            else:
                if node.integrity not in by_integrity:
                    by_integrity[node.integrity] = facts_of_folder(self._at(path))
                out[path] = by_integrity[node.integrity]
        return out

    def _registry_nodes(self) -> list[LockNode]:
        """The placed packages that come from a registry tarball (not listed, not bundled), in path order."""
        return [
            p.node
            for path, p in sorted(self.closure.placed.items())
            if path not in self.closure.listed and not p.node.in_bundle and p.node.integrity
        ]

    def in_store(self) -> set[str]:
        """The integrities of the registry tarballs the staged tree links to (what the store keeps)."""
        return {node.integrity for node in self._registry_nodes() if node.integrity}

    def discover(self) -> None:
        """Judge every installed ``neuralis`` dependency; a refused one takes out the listed packages that need it."""
        listed_ids = {w.own.id: f"the listed {w.own.name}@{w.own.version}" for w in self.works if w.alive and w.own.id}
        self.found = discover(self.closure, self.package_facts, self.root, self.host, listed_ids)
        self.refuse_found([f for f in self.found if not f.alive])

    def refuse_found(self, refused: list[FoundDependency]) -> None:
        """Take out the listed packages that need these refused dependencies."""
        bad = {}
        for f in refused:
            reason = next((d.message for d in f.outcome.diagnostics if d.severity == "error"), "it is refused")
            for path in f.paths:
                bad[path] = (f"{f.own.name}@{f.own.version}", reason)
        if bad:
            self.refuse(bad, NB1812.id)

    def refuse(self, bad: Mapping[str, tuple[str, str]], rule: str) -> None:
        """Block these paths; every listed package whose walk reaches one is refused in turn, until none is."""
        assert self.layout is not None
        if self.kept is not None:
            raise Diverged("a refusal would take packages out of the kept tree")
        self.blocked.update(bad)
        before = set(self.closure.placed)
        while True:
            self.closure = self._walk()
            fresh = [(root, path, chain) for root, path, chain in self.closure.hits if self.by_name[root].alive]
            if not fresh:
                break
            for root, path, chain in fresh:
                work = self.by_name[root]
                if not work.alive:
                    continue
                outside = path in self.outside and path not in self.blocked
                what, why = self.outside[path] if outside else self.blocked[path]
                code_ = rule if path in bad else NB1812.id
                work.refuse(
                    Diagnostic(
                        "error",
                        code_,
                        MANIFEST,
                        "/dependencies",
                        f"it needs {what} ({' → '.join(chain)}), which is refused: {why}",
                        _OUTSIDE_HINT if outside else _REFUSED_HINT,
                    )
                )
                self.blocked[f"{MODULES}{root}"] = (f"{root}@{work.own.version}", "it is refused")
        self._prune(before - set(self.closure.placed))
        self._drop_refused()
        self.found = [f for f in self.found if not f.alive or f.paths[0] in self.closure.placed]

    def _at(self, path: str) -> Path:
        return self.root.joinpath(*path.split("/"))

    def _drop_refused(self) -> None:
        """Take each refused listed package's folder out of the tree, and whatever else sits at its root.

        The root holds the admitted listed packages and the tiers' store (tiers.py), nothing else: a folder that no
        admitted package is, whichever rule refused it and whether or not its value still says where it was
        staged, goes too.
        """
        for w in self.works:
            if not w.alive and w.staged is not None and w.staged.exists():
                self._remove_root_folder(w.staged, f"{w.own.name} is refused but installed in the kept tree")
        admitted = {w.own.name for w in self.admitted()}
        for name, folder in _root_folders(self.root / MODULES.rstrip("/")):
            if name not in admitted:
                self._remove_root_folder(folder, f"{name} is in the kept tree but not in the image")

    def _remove_root_folder(self, folder: Path, diverged: str) -> None:
        if self.kept is not None:
            raise Diverged(diverged)
        if folder.is_dir() and not folder.is_symlink():
            shutil.rmtree(folder)
        else:
            folder.unlink()
        self._remove_empty_parents(folder)

    def _prune(self, gone: set[str]) -> None:
        """Remove the folders of paths no longer placed and a tier's links to them (tiers.py)."""
        assert self.layout is not None
        linked = {real: link for link, real in self.layout.links.items() if real in gone}
        for path in sorted(gone, key=len):
            target = self._at(path)
            if target.is_dir():
                shutil.rmtree(target)
            self.package_facts.pop(path, None)
            self._remove_empty_parents(target)
            if path in linked:
                self._at(linked[path]).unlink(missing_ok=True)
                self._remove_empty_parents(self._at(linked[path]))

    def _remove_empty_parents(self, removed: Path) -> None:
        """Remove the folders a removal left empty (a scope's, a top's, a tier's), up to ``node_modules``."""
        top = self.root / MODULES.rstrip("/")
        parent = removed.parent
        while parent != top and parent.is_dir() and not any(parent.iterdir()):
            parent.rmdir()
            parent = parent.parent


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
