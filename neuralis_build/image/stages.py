"""The per-package stages of the image build: fetch, build a folder, stage with the files whitelist, check, resolve."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from neuralis_build import folderlock
from neuralis_build.diagnostics import Diagnostic, code
from neuralis_build.errors import NeuralisError, UsageError
from neuralis_build.hostprofile import HostProfile
from neuralis_build.image import install
from neuralis_build.image.cache import Cache, tree_hash
from neuralis_build.image.discover import judge_staged
from neuralis_build.image.extract import ArchiveRefused, Limits, read_tarball
from neuralis_build.image.fetch import NB1801, NB1802, FetchFailed, integrity_of, npm_pack, read_tarball_file
from neuralis_build.image.materialize import read_manifest
from neuralis_build.image.work import (
    Work,
    cached_verdict,
    in_source,
    key_of,
    refused,
    refused_by,
    source_diag,
    unreadable,
)
from neuralis_build.npm.names import name_problems
from neuralis_build.npm.packagejson import MANIFEST
from neuralis_build.package import Package, load_package, parse_manifest

NB1809 = code("NB1809", "package-name-invalid", "the installed package has no valid npm name or version")
NB1810 = code("NB1810", "not-resolvable", "node cannot resolve '<name>/package.json' from the image")
NB1811 = code("NB1811", "name-taken", "another SPEC entry already installs a package of this name or id")

Finish = Callable[[Work], None]


def acquire(work: Work, cache: Cache, host: HostProfile, limits: Limits, finish: Finish) -> None:
    """Read a source: a folder's manifest, or a tarball's bytes (integrity, cache, hostile-input rules)."""
    spec = work.spec
    try:
        if spec.kind == "directory":
            assert spec.path is not None
            try:
                work.source_package = load_package(spec.path)
            except UsageError as exc:  # the folder's package.json could not be read: this package's problem
                work.refuse(source_diag(work, NB1801.id, exc.message, exc.hint))
                finish(work)
                return
            _name_version(work)
            return
        if spec.kind == "npm":
            assert spec.npm_name is not None and spec.npm_version is not None
            work.tarball = npm_pack(spec.npm_name, spec.npm_version, cache.npm)
        else:
            assert spec.path is not None
            work.tarball = spec.path
        data = read_tarball_file(work.tarball)
        work.integrity = integrity_of(data)
        if spec.integrity is not None and spec.integrity != work.integrity:
            work.refuse(
                source_diag(
                    work,
                    NB1802.id,
                    f"the source's integrity is {work.integrity}, the image spec pins {spec.integrity}",
                    "the bytes changed since the SPEC was written: check where they come from, then update integrity",
                )
            )
            finish(work)
            return
        work.key = key_of(work, work.integrity, host, limits.__dict__)
        if cached_verdict(work, cache):
            work.data = data  # read again only if it is staged (an unchanged image keeps its installed files)
            finish(work)
            return
        work.entries = read_tarball(data, limits)
        raw = next(e.data for e in work.entries if e.path == MANIFEST)
        work.source_package = parse_manifest(raw, Path(spec.source))  # read once; judged where it is staged
        _name_version(work)
        if spec.kind == "npm" and (work.outcome.name, work.outcome.version) != (spec.npm_name, spec.npm_version):
            work.refuse(
                source_diag(
                    work,
                    NB1801.id,
                    f"npm returned {work.outcome.name}@{work.outcome.version} for {spec.npm_name}@{spec.npm_version}",
                    "check the registry npm is configured for",
                )
            )
    except ArchiveRefused as exc:
        work.refuse(source_diag(work, exc.rule.id, exc.message, exc.hint))
    except FetchFailed as exc:
        work.refuse(source_diag(work, NB1801.id, exc.message, exc.hint))
    except NeuralisError as exc:
        diagnostics = getattr(exc, "diagnostics", None)
        if diagnostics and exc.exit_code == 1:
            work.outcome.status = "refused"
            work.outcome.diagnostics.extend(diagnostics)
        else:
            raise
    if not work.alive:
        finish(work)


def _name_version(work: Work) -> None:
    package = work.source_package
    assert package is not None
    name, version = package.name, package.version
    problems = name_problems(name) if name is not None else ["package.json has no name"]
    if problems:
        work.refuse(
            Diagnostic(
                "error",
                NB1809.id,
                MANIFEST,
                "/name",
                f"the package cannot be installed under node_modules: {'; '.join(problems)}",
                "give package.json a valid npm name",
            )
        )
        return
    assert name is not None
    work.outcome.name = name
    ident = package.declared.id if package.declared is not None else None
    work.outcome.id = ident or name
    if not version:
        work.refuse(
            Diagnostic(
                "error",
                NB1809.id,
                MANIFEST,
                "/version",
                "package.json has no version",
                'set "version" to a version string' if package.npm.has_version else 'add "version"',
            )
        )
        return
    work.outcome.version = version


def refuse_taken_names(works: list[Work]) -> None:
    """Two SPEC entries cannot install the same name (or claim the same id): the later entry is refused."""
    names: dict[str, str] = {}
    ids: dict[str, str] = {}
    for w in works:
        o = w.outcome
        if not w.alive or o.name is None:
            continue
        taken = names.get(o.name)
        pointer = "/name"
        if taken is None and o.id is not None and o.id in ids:
            taken, pointer = ids[o.id], "/neuralis/id"
        if taken is not None:
            w.refuse(
                Diagnostic(
                    "error",
                    NB1811.id,
                    MANIFEST,
                    pointer,
                    f"{o.name} ({o.id}) is already installed from {taken}, listed earlier in the SPEC",
                    "list each package once",
                )
            )
            continue
        names[o.name] = w.spec.source
        if o.id is not None:
            ids[o.id] = w.spec.source


def declared_publications(works: list[Work]) -> dict[str, str]:
    """Module id → publishing package name, from the manifests of the image's first-party packages."""
    out: dict[str, str] = {}
    for w in works:
        if not w.alive or w.outcome.trust != "first-party" or w.outcome.name is None:
            continue
        if w.facts is not None:
            ids = w.facts.published
        else:  # not judged yet (the folder is about to be built): what it declares, first-party as it is
            module = w.source_package.module if w.source_package is not None else None
            ids = module.provides if module is not None else ()
        for module_id in ids:
            out.setdefault(module_id, w.outcome.name)
    return out


def _builds_outputs(package: Package, trust: str) -> bool:
    """A first-party folder's UI module and events are rebuilt by the image (other tiers have them dropped)."""
    return trust == "first-party" and (package.module is not None or _declares_events(package))


def _declares_events(package: Package) -> bool:
    return package.declared is not None and package.declared.has_events


def _build_directory(package: Package, host: HostProfile, published: dict[str, str]) -> None:
    """Rebuild a folder's outputs before it is packed: the UI module when it declares app.module, its events.

    A refused build raises DiagnosedError (the package is refused); a missing esbuild is a usage error.
    """
    from neuralis_build.ui.build import build_ui
    from neuralis_build.ui.events import compile_events, has_sources

    if package.module is not None:
        build_ui(package, host=host, published=published)
    if _declares_events(package) and has_sources(package):
        compile_events(package)


def prepare(
    work: Work,
    cache: Cache,
    host: HostProfile,
    published: dict[str, str],
    limits: Limits,
    finish: Finish,
) -> None:
    """Build and pack a folder (or reuse its verdict): what ``write`` stages. A tarball was read by ``acquire``."""
    if not work.alive or work.spec.kind != "directory":
        return
    from neuralis_build.pack.tarball import pack_package

    o = work.outcome
    package = work.source_package
    assert package is not None and o.name is not None
    try:
        with folderlock.hold(package.root):  # no `ui` or `pack` of this folder runs meanwhile
            own = set(work.facts.published if work.facts else ())
            externals = {k: v for k, v in sorted(published.items()) if v != o.name and k not in own}
            builds = _builds_outputs(package, o.trust)
            skip = frozenset({"dist"}) if builds else frozenset()
            work.key = key_of(work, tree_hash(package.root, skip), host, externals, limits.__dict__)
            packed = pack_package(package) if work.key in cache.records else None
            if packed is not None and packed.integrity == cache.records[work.key].get("integrity"):
                cached_verdict(work, cache)  # the folder's last build is still its dist/: no rebuild
                finish(work)
                if not work.alive:
                    return
            if not work.cached:
                if builds:
                    _build_directory(package, host, externals)  # writes dist/, never package.json
                packed = pack_package(package)  # npm's file list, in memory; then read like any tarball
        assert packed is not None
        work.integrity = packed.integrity
        work.tgz = packed.tgz
        work.entries = read_tarball(packed.tgz, limits)
    except ArchiveRefused as exc:
        refused(work, source_diag(work, exc.rule.id, exc.message, exc.hint), finish)
    except NeuralisError as exc:
        refused_by(work, exc, finish)
    except OSError as exc:
        if not in_source(work, exc):
            raise
        refused(work, unreadable(work, exc), finish)


def write(work: Work, root: Path, host: HostProfile, limits: Limits, finish: Finish) -> None:
    """Stage the package as ``root/node_modules/<name>`` with its files whitelist, and check it unless cached."""
    if not work.alive:
        return
    from neuralis_build.pack.packlist import packlist

    o = work.outcome
    assert o.name is not None
    try:
        if work.entries is None:  # a cached tarball: its bytes were kept, not read
            assert work.data is not None
            work.entries = read_tarball(work.data, limits)
        work.staged = install.stage(work.entries, root, o.name)
        if work.spec.kind != "directory":
            # the files whitelist, as npm pack selects it from the same tree
            source = work.source_package
            manifest = source.manifest if source is not None else read_manifest(work.staged)
            # npm's pack takes the bundled dependencies' folders as they are
            bundled = install.bundled_folders(work.staged, manifest)
            install.keep_only(work.staged, set(packlist(work.staged, manifest)), bundled)
        work.entries = work.data = None  # the bytes are on disk from here on
    except ArchiveRefused as exc:
        refused(work, source_diag(work, exc.rule.id, exc.message, exc.hint), finish)
        return
    except NeuralisError as exc:
        refused_by(work, exc, finish)
        return
    if not work.cached:
        source = work.source_package
        work.facts = judge_staged(o, source.moved_to(work.staged) if source is not None else work.staged, host)


def installed_at(work: Work, out: Path) -> None:
    """Take the package's installed folder in ``out`` as it is (an unchanged image is not staged again)."""
    assert work.outcome.name is not None
    work.staged = install.package_dir(out, work.outcome.name)
    work.entries = work.data = None


def placed(work: Work) -> None:
    """Where the package is in the image, once staged or kept."""
    if work.alive and work.outcome.name is not None:
        work.outcome.path = f"node_modules/{work.outcome.name}"
        work.outcome.chain = (work.outcome.name,)


def resolve(works: list[Work], staging: Path) -> None:
    """Refuse each staged package whose ``<name>/package.json`` the real node cannot resolve."""
    pending = [w for w in works if w.alive and w.staged is not None and not w.cached]
    pairs = [(w.outcome.name or "", staging) for w in pending]
    verdicts = install.resolve_all(pairs)
    for w, pair in zip(pending, pairs, strict=True):
        problem = verdicts[pair]
        if problem is not None:
            w.refuse(
                Diagnostic(
                    "error",
                    NB1810.id,
                    MANIFEST,
                    "/exports",
                    f"the host could not resolve require.resolve('{w.outcome.name}/package.json'): {problem}",
                    'keep "./package.json": "./package.json" in the exports map',
                )
            )
