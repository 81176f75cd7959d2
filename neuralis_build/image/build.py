"""Build one host image from a SPEC: check the listed packages, resolve their closure with npm, install, judge.

Everything is staged in ``DIR/.neuralis-staging``: the listed packages (checked, with their ``files``
applied) in its ``node_modules``, npm's resolution in ``resolve/``, then the closure's registry
packages written where npm's lock places them. Every ``neuralis`` package of the tree is judged and
takes part in the contests; a refused one takes out whatever needs it. Only a complete, judged tree
is swapped in as ``DIR/node_modules``, with the report, the locks and the SBOM written beside it.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from neuralis_build import atomic
from neuralis_build.errors import UsageError
from neuralis_build.hostprofile import HostProfile
from neuralis_build.image import install, stages
from neuralis_build.image.cache import Cache
from neuralis_build.image.closure import NB1812, Tree
from neuralis_build.image.conflicts import Conflict, closure_conflicts, installed_of
from neuralis_build.image.contests import Facts, Registry, ToolContest, settle_tools, shadow_warnings
from neuralis_build.image.extract import Limits
from neuralis_build.image.judge import reported
from neuralis_build.image.lock import LOCK, Locked, installed_differences, lock_differences, read_lock, render_lock
from neuralis_build.image.nodecheck import check_with_node
from neuralis_build.image.npm import Runner, run_npm
from neuralis_build.image.report import REPORT, ImageResult, PackageOutcome
from neuralis_build.image.resolve import commit_files
from neuralis_build.image.sbom import SBOM, render_sbom
from neuralis_build.image.spec import ImageSpec
from neuralis_build.image.work import PackageFinished, Work, record_of

__all__ = ["PackageFinished", "build_image"]


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
    limits = limits or Limits()
    out = out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    cache = Cache(out)
    staging = out / install.STAGING
    shutil.rmtree(staging, ignore_errors=True)
    install.sweep_aside(out)  # what a build killed in the middle of a swap left behind
    works = [
        Work(p, PackageOutcome(source=p.source, install_class=p.install_class, trust=p.trust)) for p in spec.packages
    ]
    total = len(works)
    done: set[int] = set()

    def finish(work: Work) -> None:
        if on_event is not None and work.spec.index not in done:
            done.add(work.spec.index)
            on_event(PackageFinished(work.spec.index, total, work.outcome))

    def parallel(fn: Callable[[Work], None], items: Iterable[Work]) -> None:
        items = list(items)
        if jobs <= 1 or len(items) <= 1:
            for w in items:
                fn(w)
            return
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            for _ in pool.map(fn, items):
                pass

    try:
        # 1. the listed packages: fetch and read (hostile-input rules), stage with their files, check, resolve
        parallel(lambda w: stages.acquire(w, cache, host, limits, finish), works)
        stages.refuse_taken_names(works)
        published = stages.declared_publications(works)
        parallel(lambda w: stages.stage_and_check(w, staging, cache, host, published, limits, finish), works)
        stages.resolve(works, staging)
        for w in works:
            finish(w)
        locked = [Locked(w.spec.source, w.outcome.name, w.outcome.version, w.integrity) for w in works]
        if frozen:
            old_packages, old_installed = read_lock(out / LOCK)
            _frozen(lock_differences(old_packages, locked))
        # 2. npm resolves their closure; it is written where the lock places it; its neuralis packages judged
        tree = Tree(works, staging, out, host, jobs, limits, npm)
        tree.resolve(frozen)
        tree.install()
        tree.discover()
        # 3. across packages: namespaces in id order, then tool names; 4. the UI modules; 5. node's view
        registry, contests = _settle(works, tree, spec, host)
        _judge_modules(works, tree, staging, host)
        conflicts = _closure_facts(works, tree, host)
        outcomes = [w.outcome for w in works] + [f.outcome for f in tree.found]
        installed = installed_of(tree.closure, tree.written)
        result = ImageResult(out, host, outcomes, contests, registry.providers(), installed, conflicts)
        # 6. the lock, --frozen, then the swap into node_modules
        closure_rows = [i.to_toml() for i in installed]
        if frozen:
            _frozen(installed_differences(old_installed, closure_rows))
        _write(staging / REPORT, result.render())
        _write(staging / LOCK, render_lock(locked, closure_rows))
        npm_sources = frozenset(f"node_modules/{w.outcome.name}" for w in works if w.spec.kind == "npm")
        _write(staging / SBOM, render_sbom(result, tree.closure, npm_sources))
        _commit(staging, out, tree)
        for w in works:
            record = record_of(w)
            if w.key is not None and record is not None:
                cache.put(w.key, record)
        cache.save()
        return result
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _frozen(differences: list[str]) -> None:
    if differences:
        raise UsageError(
            "--frozen: the image would differ from neuralis-image.lock:\n  " + "\n  ".join(differences),
            hint="rebuild without --frozen to update the lock, or restore the SPEC and sources it records",
        )


def _write(path: Path, text: str) -> None:
    atomic.write_text(path, text)


def _loaded(works: list[Work], tree: Tree) -> list[tuple[PackageOutcome, Facts]]:
    pairs = [(w.outcome, w.facts) for w in works] + [(f.outcome, f.facts) for f in tree.found]
    return [(o, f) for o, f in pairs if f is not None and o.status == "loaded"]


def _settle(works: list[Work], tree: Tree, spec: ImageSpec, host: HostProfile) -> tuple[Registry, list[ToolContest]]:
    """Admit the loaded packages (listed and discovered) into the namespaces in id order, then settle tool names.

    A package refused here takes out whatever needs it, like any refused package.
    """
    registry = Registry(host.platform_config_keys)
    losers: list[PackageOutcome] = []
    for outcome, facts in sorted(_loaded(works, tree), key=lambda pair: pair[0].id or ""):
        problems = registry.conflicts(facts)
        if problems:
            outcome.status = "refused"
            outcome.diagnostics.extend(problems)
            losers.append(outcome)
        else:
            registry.claim(facts)
    tree.refuse_found([f for f in tree.found if f.outcome in losers])
    listed = {
        f"node_modules/{w.outcome.name}": (f"{w.outcome.name}@{w.outcome.version}", "it lost a contest")
        for w in works
        if w.outcome in losers and w.staged is not None
    }
    if listed:
        tree.refuse(listed, NB1812.id)
    loaded = _loaded(works, tree)
    contests = settle_tools([f for _, f in loaded], host.platform_tools, [(m.server, m.tools) for m in spec.mcp])
    for outcome, facts in loaded:
        outcome.diagnostics.extend(shadow_warnings(facts, contests))
    return registry, contests


def _judge_modules(works: list[Work], tree: Tree, staging: Path, host: HostProfile) -> None:
    """Each loaded UI module's verdict (check's, handed on) against the host and the ids the loaded packages publish."""
    from neuralis_build.ui.verdict import judge_module

    loaded = _loaded(works, tree)
    available = {i for _, f in loaded for i in f.published}
    for outcome, facts in loaded:
        if facts.module is not None and outcome.path is not None:
            verdict = facts.verdict
            if verdict is None:  # a cache record written before verdicts were handed on: judge from disk once
                where = staging.joinpath(*outcome.path.split("/"))
                verdict = judge_module(where, facts.module, host, set(), package_id=facts.id)
            outcome.module = reported(verdict, host, available)


def _closure_facts(works: list[Work], tree: Tree, host: HostProfile) -> list[Conflict]:
    """Ask the real node about every edge and peer range, then name the closure's conflicts."""
    closure = tree.closure
    edges = [
        (tree.staging.joinpath(*src.split("/")), name, tree.staging.joinpath(*dst.split("/")))
        for src, targets in sorted(closure.edges.items())
        if src in closure.placed
        for name, dst in sorted(targets.items())
    ]
    react = {"react", "react-dom"}
    peers = sorted({(p.path, p.name, p.range) for p in closure.host_peers if p.name in react})
    verdicts = check_with_node(edges, [(r, host.react_major) for _, _, r in peers])
    conflicts = [
        Conflict("resolution", name, "error", f"{src.relative_to(tree.staging).as_posix()} → {name}: {problem}")
        for (src, name, _), problem in zip(edges, verdicts.edges, strict=True)
        if problem is not None
    ]
    listed = {w.outcome.name: w.outcome.version or "" for w in works if w.alive and w.outcome.name}
    conflicts += closure_conflicts(
        closure, listed, tree.host_names, host.react_major, dict(zip(peers, verdicts.peers, strict=True))
    )
    return conflicts


def _commit(staging: Path, out: Path, tree: Tree) -> None:
    """Swap the staged node_modules in, then the files that describe it (npm's lock, the report, the locks)."""
    modules = staging / install.NODE_MODULES
    modules.mkdir(exist_ok=True)
    target = out / install.NODE_MODULES
    aside = out / f".{install.NODE_MODULES}.old-{os.getpid()}"
    if target.exists() or target.is_symlink():
        os.replace(target, aside)
    os.replace(modules, target)
    commit_files(tree.resolve_dir, out)
    for name in (REPORT, LOCK, SBOM):
        os.replace(staging / name, out / name)
    if aside.exists():
        shutil.rmtree(aside, ignore_errors=True)
