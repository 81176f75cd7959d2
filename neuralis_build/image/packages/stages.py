"""The per-package stages of the image build: fetch, build a folder, stage with the files whitelist, check, resolve.

Each stage takes a listed package (``Listed``) and returns the next value; a refusal is a value with
its diagnostics. A stage never reports progress: the build announces a package once its own verdict
is settled.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

from neuralis_build.hostprofile import HostProfile
from neuralis_build.image.archive.extract import ArchiveRefused, Limits, read_tarball
from neuralis_build.image.archive.integrity import integrity_of
from neuralis_build.image.judge.dependencies import judge_staged
from neuralis_build.image.layout.materialize import read_manifest
from neuralis_build.image.packages import install
from neuralis_build.image.packages.cache import Cache, tree_hash
from neuralis_build.image.packages.listed import Listed, cached_verdict, in_source, key_of, unreadable
from neuralis_build.image.resolution.fetch import (
    NB1801,
    NB1802,
    FetchFailed,
    npm_pack,
    npm_pack_many,
    read_tarball_file,
)
from neuralis_build.image.resolution.resolve import held
from neuralis_build.npm.fields import npm_fields
from neuralis_build.npm.names import name_problems
from neuralis_build.npm.packagejson import MANIFEST
from neuralis_build.package import Package, load_package, parse_manifest
from neuralis_build.util import folderlock
from neuralis_build.util.diagnostics import Diagnostic, code
from neuralis_build.util.errors import NeuralisError, UsageError

NB1809 = code("NB1809", "package-name-invalid", "the installed package has no valid npm name or version")
NB1810 = code("NB1810", "not-resolvable", "node cannot resolve '<name>/package.json' of a package the host loads")
NB1811 = code("NB1811", "name-taken", "another SPEC entry already installs a package of this name or id")


def prefetch(entries: list[Listed], cache: Cache, jobs: int) -> None:
    """Pack the ``npm:`` sources the image does not hold yet, several to an npm call, before ``acquire`` reads them."""
    out = cache.folder.parent
    wanted = [
        (e.spec.npm_name, e.spec.npm_version)
        for e in entries
        if e.spec.npm_name and e.spec.npm_version and held(out, e.spec.npm_name, e.spec.integrity) is None
    ]
    npm_pack_many(wanted, cache.npm, jobs)


def acquire(listed: Listed, cache: Cache, host: HostProfile, limits: Limits) -> Listed:
    """Read a source: a folder's manifest, or a tarball's bytes (integrity, cache, hostile-input rules)."""
    spec = listed.spec
    try:
        if spec.kind == "directory":
            assert spec.path is not None
            try:
                package = load_package(spec.path)
            except UsageError as exc:  # the folder's package.json could not be read: this package's problem
                return listed.refused(listed.at_source(NB1801.id, exc.message, exc.hint))
            return _name_version(replace(listed, package=package))
        if spec.kind == "npm":
            assert spec.npm_name is not None and spec.npm_version is not None
            # a pinned tarball the image already holds (a lock's own, as npm ci reads it) is not fetched again
            mine = held(cache.folder.parent, spec.npm_name, spec.integrity)
            listed = replace(listed, tarball=mine or npm_pack(spec.npm_name, spec.npm_version, cache.npm))
        else:
            assert spec.path is not None
            listed = replace(listed, tarball=spec.path)
        assert listed.tarball is not None
        data = read_tarball_file(listed.tarball)
        listed = replace(listed, integrity=integrity_of(data))
        if spec.integrity is not None and spec.integrity != listed.integrity:
            return replace(listed, unobtainable=True).refused(
                listed.at_source(
                    NB1802.id,
                    f"the source's integrity is {listed.integrity}, the image spec pins {spec.integrity}",
                    "the bytes changed since the SPEC was written: check where they come from, then update integrity",
                )
            )
        assert listed.integrity is not None
        listed = replace(listed, key=key_of(listed, listed.integrity, host, limits.__dict__))
        cached = cached_verdict(listed, cache)
        if cached is not None:
            return replace(cached, data=data)  # read again only if it is staged (an unchanged image keeps its files)
        entries = tuple(read_tarball(data, limits))
        raw = next(e.data for e in entries if e.path == MANIFEST)
        package = parse_manifest(raw, Path(spec.source))  # read once; judged where it is staged
        listed = _name_version(replace(listed, entries=entries, package=package))
        if spec.kind == "npm" and (listed.name, listed.version) != (spec.npm_name, spec.npm_version):
            listed = replace(listed, unobtainable=True).refused(
                listed.at_source(
                    NB1801.id,
                    f"npm returned {listed.name}@{listed.version} for {spec.npm_name}@{spec.npm_version}",
                    "check the registry npm is configured for",
                )
            )
        return listed
    except ArchiveRefused as exc:
        return listed.refused(listed.at_source(exc.rule.id, exc.message, exc.hint))
    except FetchFailed as exc:  # no such name or version, or a file gone: the SPEC names what is not there
        return replace(listed, unobtainable=True).refused(listed.at_source(NB1801.id, exc.message, exc.hint))
    except NeuralisError as exc:
        return listed.refused_by(exc)


def _name_version(listed: Listed) -> Listed:
    """The package's npm name, neuralis id and version, from its package.json; refused without a valid one."""
    package = listed.package
    assert package is not None
    name, version = package.name, package.version
    problems = name_problems(name) if name is not None else ["package.json has no name"]
    if problems:
        return listed.refused(
            Diagnostic(
                "error",
                NB1809.id,
                MANIFEST,
                "/name",
                f"the package cannot be installed under node_modules: {'; '.join(problems)}",
                "give package.json a valid npm name",
            )
        )
    assert name is not None
    ident = package.declared.id if package.declared is not None else None
    listed = replace(listed, name=name, id=ident or name)
    if not version:
        return listed.refused(
            Diagnostic(
                "error",
                NB1809.id,
                MANIFEST,
                "/version",
                "package.json has no version",
                'set "version" to a version string' if package.npm.has_version else 'add "version"',
            )
        )
    return replace(listed, version=version)


def unobtainable(listed: list[Listed], out: Path) -> UsageError | None:
    """The error of a SPEC whose sources cannot all be had (a name or version the registry does not have, bytes
    that are not the pinned ones): the image cannot be built as written, so none is (exit 2), and the image
    folder keeps the image it holds."""
    bad = [one for one in listed if one.unobtainable]
    if not bad:
        return None
    lines = [f"{one.spec.source}: {d.message}" for one in bad for d in one.diagnostics if d.severity == "error"]
    kept = (
        "the image folder keeps the image it holds"
        if (out / "neuralis-image.json").is_file()
        else "nothing was written"
    )
    return UsageError(
        "the SPEC cannot be built as written: " + (lines[0] if len(lines) == 1 else "\n  " + "\n  ".join(lines)),
        hint=f"fix the SPEC's source or pin, or the registry npm is configured for; {kept}",
    )


def refuse_taken_names(listed: list[Listed]) -> list[Listed]:
    """Two SPEC entries cannot install the same name (or claim the same id): the later entry is refused."""
    names: dict[str, str] = {}
    ids: dict[str, str] = {}
    out = []
    for one in listed:
        if not one.alive or one.name is None:
            out.append(one)
            continue
        taken = names.get(one.name)
        pointer = "/name"
        if taken is None and one.id is not None and one.id in ids:
            taken, pointer = ids[one.id], "/neuralis/id"
        if taken is not None:
            message = f"{one.name} ({one.id}) is already installed from {taken}, listed earlier in the SPEC"
            out.append(
                one.refused(Diagnostic("error", NB1811.id, MANIFEST, pointer, message, "list each package once"))
            )
            continue
        names[one.name] = one.spec.source
        if one.id is not None:
            ids[one.id] = one.spec.source
        out.append(one)
    return out


def declared_publications(listed: list[Listed]) -> dict[str, str]:
    """Module id → publishing package name, from the manifests of the image's first-party packages."""
    out: dict[str, str] = {}
    for one in listed:
        if not one.alive or one.spec.trust != "first-party" or one.name is None:
            continue
        if one.facts is not None:
            ids = one.facts.published
        else:  # not judged yet (the folder is about to be built): what it declares, first-party as it is
            module = one.package.module if one.package is not None else None
            ids = module.provides if module is not None else ()
        for module_id in ids:
            out.setdefault(module_id, one.name)
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


def prepare(listed: Listed, cache: Cache, host: HostProfile, published: dict[str, str], limits: Limits) -> Listed:
    """Build and pack a folder (or reuse its verdict): what ``write`` stages. A tarball was read by ``acquire``."""
    if not listed.alive or listed.spec.kind != "directory":
        return listed
    from neuralis_build.pack.tarball import pack_package

    package = listed.package
    name = listed.name
    assert package is not None and name is not None
    try:
        with folderlock.hold(package.root):  # no `ui` or `pack` of this folder runs meanwhile
            own = set(listed.facts.published if listed.facts else ())
            externals = {k: v for k, v in sorted(published.items()) if v != name and k not in own}
            builds = _builds_outputs(package, listed.spec.trust)
            skip = frozenset({"dist"}) if builds else frozenset()
            listed = replace(
                listed, key=key_of(listed, tree_hash(package.root, skip), host, externals, limits.__dict__)
            )
            assert listed.key is not None
            packed = pack_package(package) if listed.key in cache.records else None
            if packed is not None and packed.integrity == cache.records[listed.key].get("integrity"):
                # the folder's last build is still its dist/: no rebuild
                listed = cached_verdict(listed, cache) or listed
                if not listed.alive:
                    return listed
            if not listed.cached:
                if builds:
                    _build_directory(package, host, externals)  # writes dist/, never package.json
                packed = pack_package(package)  # npm's file list, in memory; then read like any tarball
        assert packed is not None
        entries = tuple(read_tarball(packed.tgz, limits))
        return replace(listed, integrity=packed.integrity, tgz=packed.tgz, entries=entries)
    except ArchiveRefused as exc:
        return listed.refused(listed.at_source(exc.rule.id, exc.message, exc.hint))
    except NeuralisError as exc:
        return listed.refused_by(exc)
    except OSError as exc:
        if not in_source(listed, exc):
            raise
        return listed.refused(unreadable(listed, exc))


def write(listed: Listed, root: Path, host: HostProfile, limits: Limits) -> Listed:
    """Stage the package as ``root/node_modules/<name>`` with its files whitelist, and check it unless cached."""
    if not listed.alive:
        return listed
    from neuralis_build.pack.packlist import packlist

    assert listed.name is not None
    staged: Path | None = None
    try:
        entries = listed.entries
        if entries is None:  # a cached tarball: its bytes were kept, not read
            assert listed.data is not None
            entries = tuple(read_tarball(listed.data, limits))
        staged = install.stage(entries, root, listed.name)
        if listed.spec.kind != "directory":
            # the files whitelist, as npm pack selects it from the same tree; the npm pack port reads
            # package.json as npm does
            manifest = listed.package.manifest if listed.package is not None else read_manifest(staged)
            # npm's pack takes the bundled dependencies' folders as they are
            bundled = install.bundled_folders(staged, npm_fields(manifest))
            install.keep_only(staged, set(packlist(staged, manifest)), bundled)
    except ArchiveRefused as exc:
        # a refusal after the folder was written (its ``files`` npm cannot read) keeps where it is: the tree's one
        # removal of refused packages takes it out, as it does for every later refusal
        gone = replace(listed, staged=staged, entries=None, data=None)
        return gone.refused(listed.at_source(exc.rule.id, exc.message, exc.hint))
    except NeuralisError as exc:
        return replace(listed, staged=staged, entries=None, data=None).refused_by(exc)
    listed = replace(listed, staged=staged, entries=None, data=None)  # the bytes are on disk from here on
    if listed.cached:
        return listed
    source = listed.package
    verdict = judge_staged(source.moved_to(staged) if source is not None else staged, listed.spec.trust, host)
    return replace(
        listed, status=verdict.status, diagnostics=listed.diagnostics + verdict.diagnostics, facts=verdict.facts
    )


def installed_at(listed: Listed, out: Path) -> Listed:
    """Take the package's installed folder in ``out`` as it is (an unchanged image is not staged again)."""
    assert listed.name is not None
    return replace(listed, staged=install.package_dir(out, listed.name), entries=None, data=None)


def placed(listed: Listed) -> Listed:
    """Where the package is in the image, once staged or kept."""
    if listed.alive and listed.name is not None:
        return replace(listed, path=f"node_modules/{listed.name}")
    return listed


def resolve(listed: list[Listed], staging: Path) -> list[Listed]:
    """Refuse each staged package the host loads (a ``neuralis`` package) whose ``<name>/package.json`` the real
    node cannot resolve: the host finds its packages by that path. Any other package is installed as npm installs
    it, with a note: what its ``exports`` hide is its own affair (openai, stripe and helmet hide theirs)."""
    pending = [one for one in listed if one.alive and one.staged is not None and not one.cached]
    pairs = {one.spec.index: (one.name or "", staging) for one in pending}
    verdicts = install.resolve_all(list(pairs.values()))
    prefix = os.path.realpath(staging) + os.sep  # the image's own paths: the same tree gives the same words
    out = []
    for one in listed:
        pair = pairs.get(one.spec.index)
        problem = verdicts[pair] if pair is not None else None
        if problem is None:
            out.append(one)
            continue
        problem = problem.replace(prefix, "")
        message = f"the host could not resolve require.resolve('{one.name}/package.json'): {problem}"
        if one.package is not None and one.package.npm.declares_neuralis:
            fix = 'keep "./package.json": "./package.json" in the exports map'
            out.append(one.refused(Diagnostic("error", NB1810.id, MANIFEST, "/exports", message, fix)))
            continue
        note = (
            f"{message}; the host loads only packages with a neuralis block, so it is installed as npm installs "
            "it, and a package that needs its package.json reads it by path"
        )
        out.append(
            replace(one, diagnostics=(*one.diagnostics, Diagnostic("note", NB1810.id, MANIFEST, "/exports", note)))
        )
    return out
