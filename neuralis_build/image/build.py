"""Build one host image from a SPEC: check the listed packages, resolve their closure with npm, install, judge.

One build at a time holds the image folder (``folderlock``); a build killed half-way is rolled back
by the next one (``commit.recover``). Everything is staged in ``DIR/.neuralis-staging-<pid>-<random>``:
the listed packages (checked, with their ``files`` applied) in its ``node_modules``, npm's resolution,
then the closure's registry packages written where npm's lock places them. Every ``neuralis``
package of the tree is judged and takes part in the contests; a refused one takes out whatever needs
it. The report, the locks and the SBOM are written beside the staged tree, and only then is the
whole image swapped in, as one transaction (``commit``): a failure anywhere leaves the previous image.
An unchanged rerun keeps the installed ``node_modules`` instead of staging it again (``keep``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from neuralis_build.hostprofile import HostProfile
from neuralis_build.image.archive.extract import Limits
from neuralis_build.image.archive.store import Store
from neuralis_build.image.judge import natives
from neuralis_build.image.judge.conflicts import installed_of
from neuralis_build.image.judge.report import REPORT, ImageResult
from neuralis_build.image.judge.sizes import measure
from neuralis_build.image.layout.unpack import Prefetch
from neuralis_build.image.output.commit import commit, recover
from neuralis_build.image.output.sbom import SBOM, render_sbom
from neuralis_build.image.packages import depsources, install, keep, stages
from neuralis_build.image.packages.cache import CACHE_DIR, Cache, listing_digest
from neuralis_build.image.packages.listed import Listed, record_of
from neuralis_build.image.packages.spec import ImageSpec
from neuralis_build.image.packages.work import PackageFinished, Work
from neuralis_build.image.resolution.imagelock import (
    LOCK,
    Locked,
    installed_differences,
    lock_differences,
    read_lock,
    render_lock,
)
from neuralis_build.image.resolution.npmcli import Runner, run_npm
from neuralis_build.image.resolution.npmlock import NPM_LOCK
from neuralis_build.image.resolution.outfiles import write_npm_files
from neuralis_build.image.resolution.registrytarballs import TarballStore
from neuralis_build.image.resolution.resolve import (
    AHEAD_DIR,
    MANIFEST,
    RESOLUTION,
    RESOLVE_DIR,
    TARBALLS,
    Admitted,
    Ahead,
    previous_inputs,
)
from neuralis_build.image.tree.across import closure_facts, judge_modules, owners, settle
from neuralis_build.image.tree.staged import Diverged, Tree, admitted_of
from neuralis_build.util import atomic, folderlock
from neuralis_build.util.errors import UsageError

__all__ = ["BuildInterrupted", "PackageFinished", "build_image"]

STAGING_PREFIX = ".neuralis-staging-"
# The image's entries, in the order the commit swaps them in: the tree first, the report last.
ENTRIES = (install.NODE_MODULES, TARBALLS, RESOLUTION, MANIFEST, NPM_LOCK, SBOM, LOCK, REPORT)
_LEGACY = re.compile(r"^\.(?:neuralis-staging|.+\.old-\d+)$")  # what builds before the transaction left
_FETCHING = re.compile(r"^\.(?:fetch|npm-pack)-")  # the scratch folders of npm pack (fetch.py, registrytarballs.py)


class BuildInterrupted(KeyboardInterrupt):
    """Ctrl-C during a build: ``kept`` says what the image folder holds now."""

    def __init__(self, kept: str) -> None:
        super().__init__(kept)
        self.kept = kept


@dataclass
class _Run:
    """One call of build_image, across its attempts: what was announced, said and committed."""

    spec: ImageSpec
    out: Path
    host: HostProfile
    jobs: int
    frozen: bool
    limits: Limits
    npm: Runner
    on_event: Callable[[PackageFinished], None] | None
    notes: list[str] = field(default_factory=list)
    announced: set[int] = field(default_factory=set)
    committed: bool = False

    def finish(self, work: Work) -> None:
        """Announce a package's own verdict (once)."""
        if self.on_event is not None and work.spec.index not in self.announced:
            self.announced.add(work.spec.index)
            self.on_event(PackageFinished(work.spec.index, len(self.spec.packages), work.own))

    def settled(self, listed: Listed) -> Listed:
        """Announce a package as soon as a stage settles its own verdict (refused, or the cache's)."""
        if listed.settled:
            self.finish(Work.of(listed))
        return listed

    def done(self) -> None:
        self.committed = True

    def each(self, stage: Callable[[Listed], Listed], items: Iterable[Listed]) -> list[Listed]:
        """Run one per-package stage over every package (``--jobs`` at a time), in SPEC order; announce the settled."""
        items = list(items)
        if self.jobs <= 1 or len(items) <= 1:
            return [self.settled(stage(one)) for one in items]
        pool = ThreadPoolExecutor(max_workers=self.jobs)
        try:
            return list(pool.map(lambda one: self.settled(stage(one)), items))
        finally:
            pool.shutdown(wait=True, cancel_futures=True)  # Ctrl-C: what has not started never starts


def build_image(
    spec: ImageSpec,
    out: Path,
    *,
    host: HostProfile,
    jobs: int = 2,
    frozen: bool = False,
    limits: Limits | None = None,
    on_event: Callable[[PackageFinished], None] | None = None,
    npm: Runner = run_npm,
) -> ImageResult:
    """Build the image into ``out``; raises UsageError when it cannot be built at all (exit 2)."""
    out = prepare_out(out)
    run = _Run(spec, out, host, jobs, frozen, limits or Limits(), npm, on_event)
    try:
        with folderlock.hold(out):  # a second build into the same folder waits for this one
            run.notes.extend(recover(out))
            _sweep(out)
            try:
                return _attempt(run, keep_tree=True)
            except Diverged:
                return _attempt(run, keep_tree=False)
    except KeyboardInterrupt:
        raise BuildInterrupted(_what_is_kept(run)) from None
    except OSError as exc:
        raise _environment(exc, run) from None


def prepare_out(out: Path) -> Path:
    """The image folder, made if missing; a file in the way is a usage error naming it."""
    out = Path(os.path.abspath(out))
    try:
        out.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        blocker = next((p for p in (out, *out.parents) if p.exists() and not p.is_dir()), out)
        raise UsageError(
            f"--out {out}: {blocker} is a file, not a folder",
            hint="pass a folder for the image (it is made if missing), or move that file",
        ) from None
    except OSError as exc:
        raise UsageError(f"--out {out}: cannot make the folder ({exc.strerror})") from None
    return out


def _sweep(out: Path) -> None:
    """Remove what killed builds left in ``out``: staging folders, temp files, the fixed names of older versions.

    The cache is written by image builds only, under the same lock, so any fetch folder in it is a leftover.
    """
    atomic.sweep(out)
    cache = out / CACHE_DIR
    for folder, pattern in (
        (out, _LEGACY),
        (cache, _FETCHING),
        (cache / "npm", _FETCHING),
        (cache / "registry", _FETCHING),
        (cache / "store", _FETCHING),  # an entry being written carries its pid: atomic.sweep removes it
    ):
        atomic.sweep(folder)
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            if pattern.match(entry.name):
                atomic.remove(Path(entry.path))


def _attempt(run: _Run, *, keep_tree: bool) -> ImageResult:
    out, host, limits = run.out, run.host, run.limits
    cache = Cache(out)
    staging = atomic.staging_dir(out, STAGING_PREFIX)
    ahead: Ahead | None = None
    prefetch: Prefetch | None = None
    try:
        if run.frozen:  # the lock names every registry tarball: they come in while the listed packages are checked
            prefetch = Prefetch(
                previous_inputs(out) / NPM_LOCK,
                TarballStore(out / CACHE_DIR / "registry"),
                Store(out / CACHE_DIR / "store"),
                run.jobs,
                limits=limits,
            )
        # 1. the listed packages, each a value through its own stages: fetch and read (hostile-input rules),
        # build and pack folders, stage with the files whitelist, check; then node resolves each
        entries = [Listed(p) for p in run.spec.packages]
        stages.prefetch(entries, cache, run.jobs)
        entries = run.each(lambda one: stages.acquire(one, cache, host, limits), entries)
        entries = stages.refuse_taken_names(entries)
        entries = depsources.refuse_unregistered(entries)  # before npm: a file, folder, git or URL dependency
        ahead = _ahead(entries, staging, run)  # npm waits on the registry while the packages are checked
        published = stages.declared_publications(entries)
        entries = run.each(lambda one: stages.prepare(one, cache, host, published, limits), entries)
        fingerprint, listed = keep.fingerprint(host, limits), keep.listed(entries)
        kept = keep.kept_tree(cache, out, entries, fingerprint) if keep_tree else None
        root = out if kept is not None else staging
        if kept is None:
            entries = run.each(lambda one: stages.write(one, staging, host, limits), entries)
        else:
            entries = [stages.installed_at(one, out) if one.alive else one for one in entries]
        entries = stages.resolve([stages.placed(one) for one in entries], root)
        works = [Work.of(one) for one in entries]  # each report row made once, from its stages' value
        for w in works:
            run.finish(w)
        locked = [Locked(w.spec.source, w.own.name, w.own.version, w.integrity) for w in works]
        old_installed: list[dict[str, object]] = []
        if run.frozen:
            old_packages, old_installed = read_lock(out / LOCK)
            _frozen(lock_differences(old_packages, locked))
        # 2. npm resolves their closure; it is written where the lock places it; its neuralis packages judged
        plan = kept.plan if kept is not None else None
        tree = Tree(works, root, staging / RESOLVE_DIR, out, host, run.jobs, limits, run.npm, plan)
        tree.prefetch = prefetch
        tree.resolve(run.frozen, ahead)
        tree.install()
        tree.discover()
        # 3. across packages: namespaces in id order, then tool names; 4. the UI modules; 5. node's view
        registry, contests = settle(works, tree, run.spec, host)
        judge_modules(works, tree, host)
        conflicts, node_record = closure_facts(works, tree, host, cache if kept is not None else None)
        # 6. npm's engine check against the host's Node; each package whose install script never ran, loaded once
        runs = natives.at_run_time(tree.closure, tree.package_facts, tree.root, host, run.jobs)
        conflicts += runs.conflicts
        if runs.loaded.note is not None:
            run.notes.append(runs.loaded.note)
        # the report's rows, made once: each package's own verdict and what the rules across packages added
        outcomes = [w.outcome for w in works] + [f.outcome for f in tree.found]
        installed = installed_of(tree.closure, tree.package_facts)
        run.notes.extend(n for n in cache.notes if n not in run.notes)
        result = ImageResult(
            out,
            host,
            outcomes,
            contests,
            registry.providers(),
            installed,
            conflicts,
            run.notes,
            loads=runs.loads,
            node=runs.node,
            owners=owners(works, tree, run.spec, host),
            sizes=measure(tree.root, tree.closure.placed),
        )
        # 7. the lock, --frozen, the SBOM and the report, staged beside the tree; then the swap
        closure_rows = [i.to_toml() for i in installed]
        if run.frozen:
            _frozen(installed_differences(old_installed, closure_rows))
        npm_sources = frozenset(f"node_modules/{w.outcome.name}" for w in works if w.spec.kind == "npm")
        sbom_key = keep.sbom_key(
            [[i.to_json() for i in installed], sorted(tree.closure.listed), tree.closure.edges, sorted(npm_sources)]
        )
        sbom = keep.kept_sbom(cache, out, sbom_key, SBOM) or render_sbom(result, tree.closure, npm_sources)
        atomic.write_text(staging / SBOM, sbom)
        atomic.write_text(staging / LOCK, render_lock(locked, closure_rows))
        atomic.write_text(staging / REPORT, result.render())
        # npm's files describe the image built: what a refusal took out of the tree is out of them too
        assert tree.lock is not None
        in_image = [Admitted(w.own.name or "", w.integrity or "", None) for w in tree.admitted()]
        write_npm_files(staging / RESOLVE_DIR, staging, tree.lock, in_image, tree.outside_npm)
        if kept is None:
            (staging / install.NODE_MODULES).mkdir(exist_ok=True)
        cache.fresh_image = {
            "fingerprint": fingerprint,
            "listed": listed,
            "plan": tree.plan,
            "pruned": bool(tree.blocked),
            "listing": kept.listing if kept is not None else listing_digest(staging / install.NODE_MODULES),
            "sbom": keep.sbom_record(sbom_key, sbom),
            "node": node_record,
        }
        for w in works:
            record = record_of(w.listed, w.outcome)
            if w.listed.key is not None and record is not None:
                cache.put(w.listed.key, record)
        runs.verify(tree.root)  # before anything is kept: the tree is as the loads found it, or nothing is
        cache.save()  # verdicts only: true of the packages' bytes whether or not the swap below succeeds
        commit(staging, out, [n for n in ENTRIES if kept is None or n != install.NODE_MODULES], run.done)
        if kept is None:
            tree.store.prune(tree.in_store())  # the image holds its own links: the entries it does not use go
        return result
    finally:
        if ahead is not None:
            ahead.wait()  # its npm writes under staging
        if prefetch is not None:
            prefetch.wait()  # it writes into the cache
        atomic.remove(staging)


def _ahead(entries: list[Listed], staging: Path, run: _Run) -> Ahead | None:
    """Start npm's resolution of the packages alive so far, when each is a tarball already read (see ``Ahead``)."""
    alive = [e for e in entries if e.alive]
    if run.frozen or not alive or any(e.spec.kind == "directory" or not e.integrity for e in alive):
        return None  # --frozen runs no npm; a folder is packed (and its integrity known) only when it is built
    return Ahead([admitted_of(e) for e in alive], staging / AHEAD_DIR, run.out, run.npm)


def _frozen(differences: list[str]) -> None:
    if differences:
        raise UsageError(
            "--frozen: the image would differ from neuralis-image.lock:\n  " + "\n  ".join(differences),
            hint="rebuild without --frozen to update the lock, or restore the SPEC and sources it records",
        )


def _what_is_kept(run: _Run) -> str:
    if run.committed:
        return f"the new image was written to {run.out} before the interrupt"
    if (run.out / REPORT).is_file():
        return f"nothing of this build was kept: {run.out} holds the previous image, as it was"
    return f"nothing of this build was kept: {run.out} holds no image"


def _environment(exc: OSError, run: _Run) -> UsageError:
    """An OSError that escaped the build is the machine's state (a full disk, a read-only folder): exit 2."""
    where = exc.filename if isinstance(exc.filename, str) else str(run.out)
    if Path(where).name.startswith(STAGING_PREFIX):
        where = str(run.out)  # the staging folder's name means nothing to the reader
    state = "the new image was written" if run.committed else f"the image in {run.out} is as it was"
    return UsageError(
        f"cannot build the image: {where}: {exc.strerror or exc}",
        hint=f"{state}; free some space or fix the permissions of {run.out}, then build again",
    )
