"""What the host page shows for a set of packages: each one judged as the host would, and its surfaces.

The judging is the toolchain's own, done once by ``check`` at the page's trust tier: its effective
block (the one the host loads after drops) and its verdict on the UI module, asked again here only
with the ids the page's packages publish (``ModuleVerdict.against``). A surface the host could not
draw carries the reason in ``refused``; the page shows the host's "cannot be rendered" placeholder
with it. What only the browser can find (no install function at run time, no component registered)
the page's script adds.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from neuralis_build.hostprofile import HostProfile
from neuralis_build.judged import JudgedPackage
from neuralis_build.package import Package
from neuralis_build.record.verdict import VERDICT_CODES
from neuralis_build.util.diagnostics import Diagnostic
from neuralis_build.util.trust import Trust

if TYPE_CHECKING:
    from neuralis_build.model.block import Surface

MODULE_TREE = "dist/app"
MODULE_POINTER = "/neuralis/app/module"
PACKAGE_PREFIX = "/pkg/"


@dataclass(frozen=True)
class ServedTree:
    """One tree the host serves from a package: a folder, or one file of it (a self-contained entry)."""

    folder: str  # package-relative, no trailing slash
    only: str | None = None  # the one file served from it, package-relative


@dataclass(frozen=True)
class PageSurface:
    """A declared surface as the page shows it: how it draws, where from, or why it cannot."""

    kind: str
    id: str
    title: str
    renderer: str | None  # "react", "iframe", or None for a dock entry
    surface: Mapping[str, Any]
    src: str | None = None  # an iframe's URL on the page
    asset_mode: str | None = None
    opens: str | None = None  # a dock entry's widget type
    refused: str | None = None

    def to_json(self, origin: str = "") -> dict[str, Any]:
        """As the page's script reads it; ``origin`` goes before every URL (the package origin, if any)."""
        return {
            "kind": self.kind,
            "id": self.id,
            "title": self.title,
            "renderer": self.renderer,
            "surface": dict(self.surface),
            "src": origin + self.src if self.src else None,
            "assetMode": self.asset_mode,
            "opens": self.opens,
            "refused": self.refused,
        }


@dataclass(frozen=True)
class PageModule:
    """A package's UI module on the page: the URLs the host derives, the ids it publishes, the verdict."""

    entry: str
    url: str
    css_url: str | None
    provides: tuple[str, ...]
    refused: str | None

    def to_json(self, origin: str = "") -> dict[str, Any]:
        return {
            "entry": self.entry,
            "url": origin + self.url,
            "cssUrl": origin + self.css_url if self.css_url else None,
            "provides": list(self.provides),
            "refused": self.refused,
        }


@dataclass(frozen=True)
class PagePackage:
    """One package on the page: names, where its files are served, its verdicts and surfaces."""

    name: str
    id: str
    title: str
    root: Path
    base: str  # URL prefix of its served trees, "/pkg/<slug>/"
    trust: Trust
    diagnostics: tuple[Diagnostic, ...]
    refused: str | None  # the host would refuse the whole package (check errors)
    module: PageModule | None
    surfaces: tuple[PageSurface, ...]
    trees: tuple[ServedTree, ...] = field(default=())

    def to_json(self, origin: str = "") -> dict[str, Any]:
        """As the page's script reads it; ``origin`` goes before every URL (``base`` stays a path)."""
        return {
            "name": self.name,
            "id": self.id,
            "title": self.title,
            "base": self.base,
            "trust": self.trust,
            "refused": self.refused,
            "module": self.module.to_json(origin) if self.module else None,
            "surfaces": [s.to_json(origin) for s in self.surfaces],
            "diagnostics": [d.to_json() for d in self.diagnostics],
        }


def slug_of(name: str, taken: set[str]) -> str:
    """A URL segment for a package name (``@acme/reports`` → ``acme-reports``), unique on the page."""
    base = re.sub(r"[^a-z0-9._-]+", "-", name.lower().lstrip("@")).strip("-") or "package"
    slug, n = base, 2
    while slug in taken:
        slug, n = f"{base}-{n}", n + 1
    taken.add(slug)
    return slug


def _clean(rel: Any) -> str | None:
    if not isinstance(rel, str):
        return None
    pure = PurePosixPath(rel)
    if pure.is_absolute() or ".." in pure.parts or "\\" in rel:
        return None
    text = pure.as_posix()
    return None if text in ("", ".") else text


@dataclass
class _Judged:
    judged: JudgedPackage
    slug: str
    declared: bool  # the package.json declares app.module (the page says why it is not loaded)

    @property
    def package(self) -> Package:
        assert self.judged.package is not None
        return self.judged.package


def _module_refusal(j: _Judged, available: set[str]) -> str | None:
    """Why the host refuses the module with ``available`` ids to hand it; check's verdict, never judged again."""
    if not j.declared:
        return None
    if j.judged.was_dropped(MODULE_POINTER):
        return f"app.module is honored for first-party packages only, and this package is {j.judged.trust}"
    verdict = j.judged.module_verdict
    if j.judged.module is None or verdict is None:  # malformed: check's own error says why
        return "the package's app.module is not valid (see the diagnostics)"
    return verdict.against(available).explained


def judge_packages(judged: Sequence[JudgedPackage], host: HostProfile) -> list[PagePackage]:
    """Lay out packages already judged (``check_package`` at their tiers) as the host would load them together."""
    taken: set[str] = set()
    pages_of: list[_Judged] = []
    for result in judged:
        package = result.package
        if package is None:
            raise ValueError("judge_packages: every package must have a readable package.json")
        slug = slug_of(package.name or package.root.name, taken)
        pages_of.append(_Judged(result, slug, package.module is not None))

    # The ids a module may read: the host's, and those of every module the host accepts (to a fixed point,
    # since a refused module's ids are never declared).
    accepted = {id(j) for j in pages_of if j.judged.module is not None}
    while True:
        available = set(host.shared_modules)
        for j in pages_of:
            if id(j) in accepted:
                available.update(_provides(j))
        still = {id(j) for j in pages_of if id(j) in accepted and _module_refusal(j, available) is None}
        if still == accepted:
            break
        accepted = still

    pages = []
    for j in pages_of:
        errors = [d for d in j.judged.diagnostics if d.severity == "error" and d.code not in VERDICT_CODES]
        refused = None
        if errors:
            first = errors[0]
            more = f" (+{len(errors) - 1} more)" if len(errors) > 1 else ""
            refused = f"the host refuses the package: {first.code} {first.message}{more}"
        pages.append(_page_package(j, available, refused))
    return pages


def _provides(j: _Judged) -> list[str]:
    module = j.judged.module
    name = j.package.name or ""
    return [p for p in module.provides if p.startswith(name + "/")] if module is not None else []


def _page_package(j: _Judged, available: set[str], refused: str | None) -> PagePackage:
    package = j.package
    base = f"{PACKAGE_PREFIX}{j.slug}/"
    trees: list[ServedTree] = []
    module = None
    declared = package.module  # as written: the page shows a dropped module's placeholder with the reason
    if declared is not None:
        entry = _clean(declared.entry) or "dist/app/host.js"
        css = _clean(declared.css)
        reason = _module_refusal(j, available)
        module = PageModule(entry, base + entry, base + css if css else None, tuple(_provides(j)), reason)
        if j.judged.module is not None:
            trees.append(ServedTree(MODULE_TREE))
    surfaces = []
    for declared_surface in j.judged.surfaces:
        surface, tree = _page_surface(declared_surface, base, module)
        surfaces.append(surface)
        if tree is not None:
            trees.append(tree)
    named = package.declared.name if package.declared is not None else None
    title = named if named is not None else package.name or package.root.name
    return PagePackage(
        name=package.name or package.root.name,
        id=package.id or package.root.name,
        title=str(title),
        root=package.root,
        base=base,
        trust=j.judged.trust,
        diagnostics=tuple(j.judged.diagnostics),
        refused=refused,
        module=module,
        surfaces=tuple(surfaces),
        trees=tuple(trees),
    )


def _page_surface(declared: Surface, base: str, module: PageModule | None) -> tuple[PageSurface, ServedTree | None]:
    kind = str(declared.kind)
    sid = str(declared.id)
    raw = declared.raw
    if kind == "dock":
        opens = declared.action.widget if declared.action is not None else None
        label = declared.label
        return PageSurface(kind, sid, str(label or sid), None, raw, opens=str(opens) if opens else None), None
    block = declared.component if kind == "widget" else declared.render
    renderer = block.renderer if block is not None else None
    title = str(declared.title or declared.type or sid)
    if renderer == "react":
        why: str | None = None
        if module is None:
            why = f"this {kind} draws with React, but the package declares no app.module"
        elif module.refused:
            why = f"the UI module was refused: {module.refused}"
        return PageSurface(kind, sid, title, "react", raw, refused=why), None
    if renderer != "iframe" or block is None:
        return PageSurface(kind, sid, title, None, raw, refused=f"unknown renderer {renderer!r}"), None
    surface_id = declared.type if kind == "widget" else declared.id
    root = f"app/surfaces/{kind}/{surface_id}"
    url = _clean(block.url.removeprefix("./") if block.url is not None else None)
    mode = block.asset_mode if block.asset_mode is not None else "self-contained"
    if url is None or not url.startswith(root + "/"):
        return PageSurface(
            kind, sid, title, "iframe", raw, asset_mode=mode, refused=f"the url is not under {root}/"
        ), None
    tree = ServedTree(root, url if mode == "self-contained" else None)
    return PageSurface(kind, sid, title, "iframe", raw, src=base + url, asset_mode=mode), tree


def served_file(package: PagePackage, rel: str) -> Path | None:
    """The file the host serves at ``<base><rel>``, or None: only inside a served tree, no ``..``, no link out."""
    clean = _clean(rel)
    if clean is None:
        return None
    root = package.root.resolve()
    for tree in package.trees:
        if tree.only is not None:
            if clean != tree.only:
                continue
        elif not clean.startswith(tree.folder + "/"):
            continue
        folder = (root / tree.folder).resolve()
        path = (root / clean).resolve()
        if folder.is_relative_to(root) and path.is_relative_to(folder) and path.is_file():
            return path
    return None


def served_files(package: PagePackage) -> dict[str, Path]:
    """Every file the host serves for ``package`` (package-relative path → file), for a static copy."""
    found: dict[str, Path] = {}
    root = package.root
    for tree in package.trees:
        candidates = [tree.only] if tree.only else []
        if tree.only is None and (root / tree.folder).is_dir():
            candidates = [p.relative_to(root).as_posix() for p in sorted((root / tree.folder).rglob("*"))]
        for rel in candidates:
            path = served_file(package, rel)
            if path is not None:
                found[rel] = path
    return dict(sorted(found.items()))
