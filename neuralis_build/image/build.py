"""Build one host image from a SPEC: fetch, install, resolve, check, settle contests, judge modules, write the report.

The work runs in stages so that nothing reaches ``DIR/node_modules`` before every package has been
judged: each package is staged in ``DIR/.neuralis-staging/node_modules/<name>`` (where the real
node resolves it), and only the packages the image keeps are renamed into place, one atomic rename
each. A refused package writes nothing into the image.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from neuralis_build.check import check_package
from neuralis_build.diagnostics import Diagnostic, DiagnosticJSON, code, has_errors
from neuralis_build.errors import NeuralisError, UsageError
from neuralis_build.hostprofile import HostProfile
from neuralis_build.image import install
from neuralis_build.image.cache import Cache, cache_key, listing, tree_hash
from neuralis_build.image.contests import Facts, Registry, facts_of, settle_tools, shadow_warnings
from neuralis_build.image.extract import ArchiveRefused, Entry, Limits, read_tarball
from neuralis_build.image.fetch import NB1801, NB1802, FetchFailed, integrity_of, npm_pack, read_tarball_file
from neuralis_build.image.judge import judge_module, module_verdict_codes
from neuralis_build.image.lock import LOCK, Locked, lock_differences, read_lock, render_lock
from neuralis_build.image.report import REPORT, ImageResult, PackageOutcome
from neuralis_build.image.spec import ImageSpec, PackageSpec
from neuralis_build.manifest.sections.events import NB0706
from neuralis_build.npmname import name_problems
from neuralis_build.pack.packlist import packlist
from neuralis_build.pack.tarball import pack_package
from neuralis_build.package import MANIFEST, Package, load_package, parse_manifest

NB1809 = code("NB1809", "package-name-invalid", "the installed package has no valid npm name or version")
NB1810 = code("NB1810", "not-resolvable", "node cannot resolve '<name>/package.json' from the image")
NB1811 = code("NB1811", "name-taken", "another SPEC entry already installs a package of this name or id")


@dataclass(frozen=True)
class PackageFinished:
    """Progress: one package's own verdict is known (before the contests across packages)."""

    index: int
    total: int
    outcome: PackageOutcome


@dataclass
class _Work:
    """One SPEC entry on its way through the stages."""

    spec: PackageSpec
    outcome: PackageOutcome
    key: str | None = None
    integrity: str | None = None
    entries: list[Entry] | None = None
    manifest: dict[str, Any] | None = None
    source_package: Package | None = None
    staged: Path | None = None
    facts: Facts | None = None
    listing: list[list[Any]] | None = None
    cached: bool = False

    @property
    def alive(self) -> bool:
        return self.outcome.status != "refused"

    def refuse(self, diagnostic: Diagnostic) -> None:
        self.outcome.status = "refused"
        self.outcome.diagnostics.append(diagnostic)


def _source_diag(work: _Work, rule_id: str, message: str, hint: str | None) -> Diagnostic:
    return Diagnostic("error", rule_id, work.spec.source, "", message, hint or None)


def build_image(
    spec: ImageSpec,
    out: Path,
    *,
    host: HostProfile,
    jobs: int = 2,
    frozen: bool = False,
    limits: Limits | None = None,
    on_event: Callable[[PackageFinished], None] | None = None,
) -> ImageResult:
    """Build the image into ``out``; raises UsageError when it cannot be built at all (exit 2)."""
    limits = limits or Limits()
    out = out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    cache = Cache(out)
    staging = out / install.STAGING
    shutil.rmtree(staging, ignore_errors=True)
    works = [
        _Work(p, PackageOutcome(source=p.source, install_class=p.install_class, trust=p.trust)) for p in spec.packages
    ]
    total = len(works)
    done: set[int] = set()

    def finish(work: _Work) -> None:
        if on_event is not None and work.spec.index not in done:
            done.add(work.spec.index)
            on_event(PackageFinished(work.spec.index, total, work.outcome))

    def parallel(fn: Callable[[_Work], None], items: Iterable[_Work]) -> None:
        items = list(items)
        if jobs <= 1 or len(items) <= 1:
            for w in items:
                fn(w)
            return
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            for _ in pool.map(fn, items):
                pass

    try:
        # 1. fetch: bytes and manifests (tarball and npm sources are read and checked for hostility here)
        parallel(lambda w: _acquire(w, out, cache, host, limits, finish), works)
        _refuse_taken_names(works)
        # 2. the module ids the image's first-party packages publish (what a directory's UI build may read)
        published = _declared_publications(works)
        # 3. per package: build a folder, apply files, stage, check
        parallel(lambda w: _stage_and_check(w, staging, cache, host, published, limits, finish), works)
        # 4. the real node resolves each staged package's package.json
        _resolve(works, staging)
        for w in works:
            finish(w)
        # 5. across packages, in id order
        loaded = sorted((w for w in works if w.outcome.status == "loaded" and w.facts), key=_facts_id)
        registry = Registry(host.platform_config_keys)
        for w in loaded:
            assert w.facts is not None
            problems = registry.conflicts(w.facts)
            if problems:
                w.outcome.status = "refused"
                w.outcome.diagnostics.extend(problems)
            else:
                registry.claim(w.facts)
        loaded = [w for w in loaded if w.outcome.status == "loaded"]
        facts = [w.facts for w in loaded if w.facts is not None]
        contests = settle_tools(facts, host.platform_tools, [(m.server, m.tools) for m in spec.mcp])
        for w in loaded:
            assert w.facts is not None
            w.outcome.diagnostics.extend(shadow_warnings(w.facts, contests))
        # 6. judge each loaded UI module against the host and the ids the loaded packages publish
        available = {i for f in facts for i in f.published}
        for w in loaded:
            assert w.facts is not None
            if w.facts.module is not None:
                where = w.staged or install.package_dir(out, w.outcome.name or "")
                w.outcome.module = judge_module(where, w.facts.module, host, available)
        # 7. the lock, --frozen, then the swap into node_modules
        locked = [Locked(w.spec.source, w.outcome.name, w.outcome.version, w.integrity) for w in works]
        if frozen:
            differences = lock_differences(read_lock(out / LOCK), locked)
            if differences:
                raise UsageError(
                    "--frozen: the image would differ from neuralis-image.lock:\n  " + "\n  ".join(differences),
                    hint="rebuild without --frozen to update the lock, or restore the SPEC and sources it records",
                )
        _commit(works, out)
        result = ImageResult(out, host, [w.outcome for w in works], contests, registry.providers())
        _write(out / REPORT, result.render())
        _write(out / LOCK, render_lock(locked))
        for w in works:
            record = _record(w, out)
            if w.key is not None and record is not None:
                cache.put(w.key, record)
        cache.save()
        return result
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _write(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    tmp.write_text(text, "utf-8")
    os.replace(tmp, path)


def _facts_id(work: _Work) -> str:
    return work.facts.id if work.facts else ""


_ACROSS = ("NB1811", "NB1820", "NB1821", "NB1822", "NB1823")


def _record(work: _Work, out: Path) -> dict[str, Any] | None:
    """What the cache keeps of a package's own verdict; None when the verdict depends on the other packages.

    Contests are settled anew on every build; a package refused only because of another one is not
    cached (it was never installed, and the other one may be gone next time).
    """
    o = work.outcome
    own = [d for d in o.diagnostics if d.code not in _ACROSS]
    if o.status == "refused" and not has_errors(own):
        return None
    if any(d.code == "NB1811" for d in o.diagnostics):
        return None
    installed = install.package_dir(out, o.name) if o.name and o.status != "refused" else None
    return {
        "name": o.name,
        "id": o.id,
        "version": o.version,
        "integrity": work.integrity,
        "status": "refused" if has_errors(own) else o.status,
        "diagnostics": [d.to_json() for d in own],
        "facts": work.facts.to_json() if work.facts else None,
        "listing": listing(installed) if installed is not None and installed.is_dir() else None,
    }


def _from_record(work: _Work, record: dict[str, Any]) -> None:
    o = work.outcome
    o.name, o.id, o.version = record["name"], record["id"], record["version"]
    o.status = record["status"]
    o.diagnostics = [_diag(d) for d in record["diagnostics"]]
    o.cached = True
    work.integrity = record["integrity"]
    work.facts = Facts.from_json(record["facts"]) if record["facts"] else None
    work.cached = True


def _diag(d: DiagnosticJSON) -> Diagnostic:
    return Diagnostic(
        d["severity"], d["code"], d["file"], d["pointer"], d["message"], d["hint"], d["line"], d["column"]
    )


def _key(work: _Work, content: str, host: HostProfile, *extra: Any) -> str:
    s = work.spec
    return cache_key(s.kind, s.source, content, s.install_class, s.trust, *extra, host=host)


def _cached(work: _Work, cache: Cache, out: Path, finish: Callable[[_Work], None]) -> bool:
    """Reuse the last build's verdict when the key matches and the installed folder is untouched."""
    assert work.key is not None
    record = cache.records.get(work.key)
    if record is None:
        return False
    name = record.get("name")
    installed = install.package_dir(out, name) if isinstance(name, str) and not name_problems(name) else None
    if cache.get(work.key, installed) is None:
        return False
    _from_record(work, record)
    finish(work)
    return True


def _acquire(
    work: _Work, out: Path, cache: Cache, host: HostProfile, limits: Limits, finish: Callable[[_Work], None]
) -> None:
    spec = work.spec
    try:
        if spec.kind == "directory":
            assert spec.path is not None
            work.source_package = load_package(spec.path)
            work.manifest = work.source_package.manifest
            _name_version(work)
            return
        if spec.kind == "npm":
            assert spec.npm_name is not None and spec.npm_version is not None
            data = read_tarball_file(npm_pack(spec.npm_name, spec.npm_version, cache.npm))
        else:
            assert spec.path is not None
            data = read_tarball_file(spec.path)
        work.integrity = integrity_of(data)
        if spec.integrity is not None and spec.integrity != work.integrity:
            work.refuse(
                _source_diag(
                    work,
                    NB1802.id,
                    f"the source's integrity is {work.integrity}, the image spec pins {spec.integrity}",
                    "the bytes changed since the SPEC was written: check where they come from, then update integrity",
                )
            )
            finish(work)
            return
        work.key = _key(work, work.integrity, host, limits.__dict__)
        if _cached(work, cache, out, finish):
            return
        work.entries = read_tarball(data, limits)
        raw = next(e.data for e in work.entries if e.path == MANIFEST)
        work.manifest = parse_manifest(raw, Path(spec.source)).manifest
        _name_version(work)
        if spec.kind == "npm" and (work.outcome.name, work.outcome.version) != (spec.npm_name, spec.npm_version):
            work.refuse(
                _source_diag(
                    work,
                    NB1801.id,
                    f"npm returned {work.outcome.name}@{work.outcome.version} for {spec.npm_name}@{spec.npm_version}",
                    "check the registry npm is configured for",
                )
            )
    except ArchiveRefused as exc:
        work.refuse(_source_diag(work, exc.rule.id, exc.message, exc.hint))
    except FetchFailed as exc:
        work.refuse(_source_diag(work, NB1801.id, exc.message, exc.hint))
    except NeuralisError as exc:
        diagnostics = getattr(exc, "diagnostics", None)
        if diagnostics and exc.exit_code == 1:
            work.outcome.status = "refused"
            work.outcome.diagnostics.extend(diagnostics)
        else:
            raise
    if not work.alive:
        finish(work)


def _name_version(work: _Work) -> None:
    manifest = work.manifest or {}
    name, version = manifest.get("name"), manifest.get("version")
    problems = name_problems(name) if isinstance(name, str) else ["package.json has no name"]
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
    assert isinstance(name, str)
    work.outcome.name = name
    block = manifest.get("neuralis")
    ident = block.get("id") if isinstance(block, dict) else None
    work.outcome.id = ident if isinstance(ident, str) and ident else name
    if not isinstance(version, str) or not version:
        work.refuse(
            Diagnostic("error", NB1809.id, MANIFEST, "/version", "package.json has no version", 'add "version"')
        )
        return
    work.outcome.version = version


def _refuse_taken_names(works: list[_Work]) -> None:
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


def _declared_publications(works: list[_Work]) -> dict[str, str]:
    """Module id → publishing package name, from the manifests of the image's first-party packages."""
    out: dict[str, str] = {}
    for w in works:
        if not w.alive or w.outcome.trust != "first-party" or w.outcome.name is None:
            continue
        if w.facts is not None:
            ids: list[Any] = list(w.facts.published)
        else:
            block = (w.manifest or {}).get("neuralis")
            app = block.get("app") if isinstance(block, dict) else None
            module = app.get("module") if isinstance(app, dict) else None
            ids = module.get("provides", []) if isinstance(module, dict) else []
        for module_id in ids if isinstance(ids, list) else []:
            if isinstance(module_id, str):
                out.setdefault(module_id, w.outcome.name)
    return out


def _declares_module(package: Package) -> bool:
    app = (package.block or {}).get("app")
    return isinstance(app, dict) and isinstance(app.get("module"), dict)


def _builds_outputs(package: Package, trust: str) -> bool:
    """A first-party folder's UI module and events are rebuilt by the image (other tiers have them dropped)."""
    return trust == "first-party" and (_declares_module(package) or bool((package.block or {}).get("events")))


def _build_directory(package: Package, host: HostProfile, published: dict[str, str]) -> None:
    """Rebuild a folder's outputs before it is packed: the UI module when it declares app.module, its events.

    A refused build raises DiagnosedError (the package is refused); a missing esbuild is a usage error.
    """
    from neuralis_build.ui.build import build_ui
    from neuralis_build.ui.events import compile_events, has_sources

    if _declares_module(package):
        build_ui(package, host=host, published=published)
    if (package.block or {}).get("events") and has_sources(package):
        compile_events(package)


def _stage_and_check(
    work: _Work,
    staging: Path,
    cache: Cache,
    host: HostProfile,
    published: dict[str, str],
    limits: Limits,
    finish: Callable[[_Work], None],
) -> None:
    if not work.alive or work.cached:
        return
    o = work.outcome
    assert o.name is not None and work.manifest is not None
    try:
        if work.spec.kind == "directory":
            package = work.source_package
            assert package is not None
            own = set(work.facts.published if work.facts else ())
            externals = {k: v for k, v in sorted(published.items()) if v != o.name and k not in own}
            builds = _builds_outputs(package, o.trust)
            skip = frozenset({"dist"}) if builds else frozenset()
            work.key = _key(work, tree_hash(package.root, skip), host, externals, limits.__dict__)
            if _cached(work, cache, staging.parent, finish):  # the staging folder sits in the image folder
                return
            if builds:
                _build_directory(package, host, externals)
                package = load_package(package.root)
            work.manifest = package.manifest
            packed = pack_package(package)  # npm's file list, in memory; then read like any tarball
            work.integrity = packed.integrity
            work.entries = read_tarball(packed.tgz, limits)
            work.staged = install.stage(work.entries, staging, o.name)
        else:
            assert work.entries is not None
            work.staged = install.stage(work.entries, staging, o.name)
            # the files whitelist, as npm pack selects it from the same tree
            install.keep_only(work.staged, set(packlist(work.staged, work.manifest)))
        work.entries = None  # the bytes are on disk from here on
        staged = load_package(work.staged)
    except ArchiveRefused as exc:
        work.refuse(_source_diag(work, exc.rule.id, exc.message, exc.hint))
        finish(work)
        return
    except NeuralisError as exc:
        diagnostics = getattr(exc, "diagnostics", None)
        if not diagnostics or exc.exit_code != 1:
            raise
        o.status = "refused"
        o.diagnostics.extend(diagnostics)
        finish(work)
        return
    if not staged.is_neuralis:
        o.status = "not-neuralis"
        return
    if staged.reference_only:
        o.status = "reference-only"
        return
    result = check_package(staged, o.trust, host)
    # The module is judged below, against the packages this image loads; its verdict never refuses the
    # package. An installed package is its packed form: event sources stay behind (the build compiled
    # them, and check's NB1612 still requires dist/src/events/<subject>.js).
    ignored = module_verdict_codes() | {NB0706.id}
    judged = [d for d in result.diagnostics if d.code not in ignored]
    o.diagnostics.extend(judged)
    if has_errors(judged):
        o.status = "refused"
        return
    work.facts = facts_of(staged, o.trust, result.effective or {})


def _resolve(works: list[_Work], staging: Path) -> None:
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


def _commit(works: list[_Work], out: Path) -> None:
    """Swap the kept packages in and take refused or no longer listed ones out of ``node_modules``."""
    keep: set[str] = set()
    for w in works:
        name = w.outcome.name
        if name is None or not w.alive:
            continue
        keep.add(name)
        if w.staged is not None:
            install.commit(w.staged, out, name)
    previous = _previous_names(out)
    for w in works:
        name = w.outcome.name
        if name is not None and not w.alive and name not in keep:
            previous.add(name)
    for name in sorted(previous - keep):
        install.remove(out, name)


def _previous_names(out: Path) -> set[str]:
    """The packages the last build installed (from its report), which this build may have to take out."""
    try:
        data = json.loads((out / REPORT).read_text("utf-8"))
        return {
            p["name"]
            for p in data["packages"]
            if isinstance(p.get("name"), str) and not name_problems(p["name"]) and p.get("status") != "refused"
        }
    except (OSError, ValueError, KeyError, TypeError):
        return set()
