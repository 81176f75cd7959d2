"""Build one host image from a SPEC, as a short list of named phases, each taking one value and returning the next.

``read`` the listed packages (fetch, read as hostile input, build and pack folders; npm's resolution
starts meanwhile) → ``resolve`` their closure with npm → ``plan`` what this build keeps of the last
one (its tree, decided here and nowhere later) → ``check`` the listed packages where they are staged →
``install`` the closure where npm's lock places it (hard links to the store) → ``judge`` every package
across the image (its ``neuralis`` dependencies, contests, UI modules, node's view, the loads of
packages with install scripts) → ``report`` (the report, the locks, the SBOM, npm's files, beside the
staged tree) → ``commit`` (the whole image swapped in as one transaction: a failure anywhere leaves
the previous image). ``--timings`` prints each phase's time.

One build at a time holds the image folder (``folderlock``); a build killed half-way is rolled back
by the next one (``commit.recover``). Everything is staged in ``DIR/.neuralis-staging-<pid>-<random>``.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from neuralis_build.hostprofile import HostProfile
from neuralis_build.image.archive.extract import Limits
from neuralis_build.image.judge import natives
from neuralis_build.image.judge.conflicts import installed_of
from neuralis_build.image.judge.report import REPORT, ImageResult
from neuralis_build.image.judge.sizes import measure
from neuralis_build.image.layout.unpack import Prefetch
from neuralis_build.image.output.commit import commit, recover
from neuralis_build.image.output.sbom import SBOM, render_sbom
from neuralis_build.image.packages import depsources, keep, stages
from neuralis_build.image.packages import install as install_step
from neuralis_build.image.packages.cache import CACHE_DIR, Cache, LastBuild, NodeRecord, listing_digest
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
from neuralis_build.image.tree.staged import (
    Resolution,
    StagedTree,
    Stores,
    admitted_of,
    install,
    judge_dependencies,
    planned_walk,
    resolve_closure,
)
from neuralis_build.util import atomic, folderlock
from neuralis_build.util.errors import UsageError

__all__ = ["BuildInterrupted", "PackageFinished", "build_image"]

STAGING_PREFIX = ".neuralis-staging-"
# The image's entries, in the order the commit swaps them in: the tree first, the report last.
ENTRIES = (install_step.NODE_MODULES, TARBALLS, RESOLUTION, MANIFEST, NPM_LOCK, SBOM, LOCK, REPORT)
_LEGACY = re.compile(r"^\.(?:neuralis-staging|.+\.old-\d+)$")  # what builds before the transaction left
_FETCHING = re.compile(r"^\.(?:fetch|npm-pack)-")  # the scratch folders of npm pack (fetch.py, registrytarballs.py)


class BuildInterrupted(KeyboardInterrupt):
    """Ctrl-C during a build: ``kept`` says what the image folder holds now."""

    def __init__(self, kept: str) -> None:
        super().__init__(kept)
        self.kept = kept


@dataclass
class _Run:
    """One call of build_image: its inputs, and what was announced, said, timed and committed."""

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
    timings: list[tuple[str, float]] = field(default_factory=list)
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

    @contextmanager
    def phase(self, name: str) -> Iterator[None]:
        """Time one phase (``--timings``)."""
        start = time.perf_counter()
        try:
            yield
        finally:
            self.timings.append((name, time.perf_counter() - start))


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
            return _build(run)
    except KeyboardInterrupt:
        raise BuildInterrupted(_what_is_kept(run)) from None
    except OSError as exc:
        raise _environment(exc, run) from None


# -- the values the phases hand on -------------------------------------------------------------------------


@dataclass(frozen=True)
class Read:
    """The listed packages, each to its own verdict so far: fetched, read, built and packed (or refused)."""

    entries: list[Listed]
    ahead: Ahead | None  # npm's resolution, started while they were read
    prefetch: Prefetch | None  # --frozen: the lock's registry tarballs, downloaded meanwhile


@dataclass(frozen=True)
class Plan:
    """What this build keeps of the last one, decided before anything is written, and what the next one reads."""

    fingerprint: str
    listed: list[list[str]]
    kept: str | None  # the listing digest of the last build's tree, when this build keeps it (None: staged)

    @property
    def keeps_tree(self) -> bool:
        return self.kept is not None


@dataclass(frozen=True)
class Checked:
    """The listed packages checked where they are staged (or kept), each with its report row, and the image lock's
    rows of them."""

    works: list[Work]
    root: Path
    locked: list[Locked]
    old_installed: list[dict[str, object]]  # --frozen: the last lock's closure rows


@dataclass(frozen=True)
class Judged:
    """The image judged: the report's value, and what the next build keeps of node's answers."""

    result: ImageResult
    tree: StagedTree
    works: list[Work]
    node: NodeRecord
    loads: natives.AtRunTime


# -- the phases -------------------------------------------------------------------------------------------


def _build(run: _Run) -> ImageResult:
    cache = Cache(run.out)
    staging = atomic.staging_dir(run.out, STAGING_PREFIX)
    read: Read | None = None
    try:
        with run.phase("read"):
            read = _read(run, cache, staging)
        with run.phase("resolve"):
            resolution = _resolve(run, read, staging)
        with run.phase("plan"):
            plan = _plan(run, read, resolution, cache.last)
        with run.phase("check"):
            checked = _check(run, read, plan, staging)
        with run.phase("install"):
            tree = _install(run, checked, resolution, plan, read.prefetch)
        with run.phase("judge"):
            judged = _judge(run, checked, tree, cache, plan)
        with run.phase("report"):
            _report(run, judged, checked, resolution, plan, cache, staging)
        with run.phase("commit"):
            _commit(run, judged, plan, cache, staging)
        judged.result.timings = list(run.timings)
        return judged.result
    finally:
        if read is not None and read.ahead is not None:
            read.ahead.wait()  # its npm writes under staging
        if read is not None and read.prefetch is not None:
            read.prefetch.wait()  # it writes into the cache
        atomic.remove(staging)


def _read(run: _Run, cache: Cache, staging: Path) -> Read:
    """Each listed package through its own stages, as far as its bytes alone decide: fetch and read (the
    hostile-input rules), refuse a taken name or a dependency from outside a registry, build and pack a folder."""
    out, host, limits = run.out, run.host, run.limits
    prefetch = None
    if run.frozen:  # the lock names every registry tarball: they come in while the listed packages are read
        prefetch = Prefetch(previous_inputs(out) / NPM_LOCK, *Stores.of(out).pair(), run.jobs, limits=limits)
    entries = [Listed(p) for p in run.spec.packages]
    stages.prefetch(entries, cache, run.jobs)
    entries = run.each(lambda one: stages.acquire(one, cache, host, limits), entries)
    unobtainable = stages.unobtainable(entries, out)
    if unobtainable is not None:
        raise unobtainable
    entries = stages.refuse_taken_names(entries)
    entries = depsources.refuse_unregistered(entries)  # before npm: a file, folder, git or URL dependency
    ahead = _ahead(entries, staging, run)  # npm waits on the registry while the packages are built and packed
    published = stages.declared_publications(entries)
    entries = run.each(lambda one: stages.prepare(one, cache, host, published, limits), entries)
    return Read(entries, ahead, prefetch)


def _resolve(run: _Run, read: Read, staging: Path) -> Resolution:
    """npm resolves the closure of the packages alive so far (a package refused later is left out of the walk);
    with --frozen, the listed packages must be the lock's before its closure is taken."""
    if run.frozen:
        old_packages, _ = read_lock(run.out / LOCK)
        _frozen(lock_differences(old_packages, [_locked(one) for one in read.entries]))
    alive = [one for one in read.entries if one.alive and one.integrity]
    known = read.prefetch.registries() if read.prefetch is not None else None
    return resolve_closure(
        alive, staging / RESOLVE_DIR, run.out, frozen=run.frozen, npm=run.npm, ahead=read.ahead, known=known
    )


def _plan(run: _Run, read: Read, resolution: Resolution, last: LastBuild | None) -> Plan:
    """Keep the last build's tree when it is provably this build's (keep.py), else stage it afresh."""
    fingerprint, listed = keep.fingerprint(run.host, run.limits), keep.listed(read.entries)
    alive = [one for one in read.entries if one.alive]
    walked = planned_walk(resolution, alive, run.host)
    kept = keep.keeps_tree(last, run.out, read.entries, fingerprint, walked, resolution.registries.to_json())
    return Plan(fingerprint, listed, kept)


def _check(run: _Run, read: Read, plan: Plan, staging: Path) -> Checked:
    """Stage each listed package with its files whitelist and check it (or take the kept tree's), then node
    resolves each; every package's report row is made here, once, and announced."""
    root = run.out if plan.keeps_tree else staging
    if plan.keeps_tree:
        entries = [stages.installed_at(one, run.out) if one.alive else one for one in read.entries]
    else:
        entries = run.each(lambda one: stages.write(one, staging, run.host, run.limits), read.entries)
    entries = stages.resolve([stages.placed(one) for one in entries], root)
    works = [Work.of(one) for one in entries]
    for w in works:
        run.finish(w)
    locked = [Locked(w.spec.source, w.own.name, w.own.version, w.integrity) for w in works]
    old_installed: list[dict[str, object]] = []
    if run.frozen:
        old_packages, old_installed = read_lock(run.out / LOCK)
        _frozen(lock_differences(old_packages, locked))  # again: a package refused while staged is not the lock's
    return Checked(works, root, locked, old_installed)


def _locked(one: Listed) -> Locked:
    """A listed package's row of the image lock, from what its bytes say (its name and version, as its row)."""
    return Locked(one.spec.source, one.name, one.version, one.integrity)


def _install(run: _Run, checked: Checked, resolution: Resolution, plan: Plan, prefetch: Prefetch | None) -> StagedTree:
    """The closure the admitted packages reach, written where npm's lock places it (or the kept tree, read)."""
    tree = StagedTree(checked.works, checked.root, resolution, run.host, kept=plan.keeps_tree)
    tree.start()
    install(tree, Stores.of(run.out), run.limits, run.jobs, run.npm, prefetch)
    judge_dependencies(tree, run.host)
    return tree


def _judge(run: _Run, checked: Checked, tree: StagedTree, cache: Cache, plan: Plan) -> Judged:
    """Across the image: namespaces in id order and tool names, the UI modules, node's view of the tree, npm's
    engine check against the host's Node, and each package whose install script never ran, loaded once."""
    works, host = checked.works, run.host
    registry, contests = settle(works, tree, run.spec, host)
    judge_modules(works, tree, host)
    conflicts, node = closure_facts(works, tree, host, cache.last if plan.keeps_tree else None)
    loads = natives.at_run_time(tree.closure, tree.package_facts, tree.root, host, run.jobs)
    conflicts += loads.conflicts
    if loads.loaded.note is not None:
        run.notes.append(loads.loaded.note)
    outcomes = [w.outcome for w in works] + [f.outcome for f in tree.found]  # each row made once, here
    run.notes.extend(n for n in cache.notes if n not in run.notes)
    result = ImageResult(
        run.out,
        host,
        outcomes,
        contests,
        registry.providers(),
        installed_of(tree.closure, tree.package_facts),
        conflicts,
        run.notes,
        loads=loads.loads,
        node=loads.node,
        owners=owners(works, tree, run.spec, host),
        sizes=measure(tree.root, tree.closure.placed),
    )
    return Judged(result, tree, works, node, loads)


def _report(
    run: _Run, judged: Judged, checked: Checked, resolution: Resolution, plan: Plan, cache: Cache, staging: Path
) -> None:
    """The image lock, the SBOM, the report and npm's files, staged beside the tree; the record of this build."""
    result, tree, works = judged.result, judged.tree, judged.works
    closure_rows = [i.to_toml() for i in result.installed]
    if run.frozen:
        _frozen(installed_differences(checked.old_installed, closure_rows))
    npm_sources = frozenset(f"node_modules/{w.outcome.name}" for w in works if w.spec.kind == "npm")
    sbom_key = keep.sbom_key(
        [[i.to_json() for i in result.installed], sorted(tree.closure.listed), tree.closure.edges, sorted(npm_sources)]
    )
    sbom = keep.kept_sbom(cache.last, run.out, sbom_key, SBOM) or render_sbom(result, tree.closure, npm_sources)
    atomic.write_text(staging / SBOM, sbom)
    atomic.write_text(staging / LOCK, render_lock(checked.locked, closure_rows))
    atomic.write_text(staging / REPORT, result.render())
    # npm's files describe the image built: what a refusal took out of the tree is out of them too
    in_image = [Admitted(w.own.name or "", w.integrity or "", None) for w in tree.admitted()]
    outside = resolution.outside_npm({f"node_modules/{w.own.name}" for w in tree.admitted()})
    write_npm_files(staging / RESOLVE_DIR, staging, resolution.lock, in_image, outside)
    if not plan.keeps_tree:
        (staging / install_step.NODE_MODULES).mkdir(exist_ok=True)
    cache.fresh_image = LastBuild(
        fingerprint=plan.fingerprint,
        listed=tuple((a, b) for a, b in plan.listed),
        plan=tuple(tree.plan()),
        pruned=bool(tree.blocked),
        listing=plan.kept if plan.kept is not None else listing_digest(staging / install_step.NODE_MODULES),
        registries=resolution.registries.to_json(),
        sbom=keep.sbom_record(sbom_key, sbom),
        node=judged.node,
    )
    for w in works:
        record = record_of(w.listed, w.outcome)
        if w.listed.key is not None and record is not None:
            cache.put(w.listed.key, record)


def _commit(run: _Run, judged: Judged, plan: Plan, cache: Cache, staging: Path) -> None:
    """Prove the tree is as the loads found it, keep the verdicts, swap the image in, prune the store."""
    judged.loads.verify(judged.tree.root)  # before anything is kept: the tree is as the loads found it, or nothing is
    cache.save()  # verdicts only: true of the packages' bytes whether or not the swap below succeeds
    entries = [n for n in ENTRIES if not plan.keeps_tree or n != install_step.NODE_MODULES]
    commit(staging, run.out, entries, run.done)
    if not plan.keeps_tree:
        Stores.of(run.out).extracted.prune(judged.tree.in_store())  # the image holds its own links: the rest goes


def _ahead(entries: list[Listed], staging: Path, run: _Run) -> Ahead | None:
    """Start npm's resolution of the packages alive so far, when each is a tarball already read (see ``Ahead``)."""
    alive = [e for e in entries if e.alive]
    if run.frozen or not alive or any(e.spec.kind == "directory" or not e.integrity for e in alive):
        return None  # --frozen runs no npm; a folder is packed (and its integrity known) only when it is built
    return Ahead([admitted_of(e) for e in alive], staging / AHEAD_DIR, run.out, run.npm)


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
