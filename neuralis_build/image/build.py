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
from pathlib import Path

from neuralis_build.errors import UsageError
from neuralis_build.hostprofile import HostProfile
from neuralis_build.image import install, stages
from neuralis_build.image.cache import Cache
from neuralis_build.image.contests import Registry, ToolContest, settle_tools, shadow_warnings
from neuralis_build.image.extract import Limits
from neuralis_build.image.judge import judge_module
from neuralis_build.image.lock import LOCK, Locked, lock_differences, read_lock, render_lock
from neuralis_build.image.report import REPORT, ImageResult, PackageOutcome
from neuralis_build.image.spec import ImageSpec
from neuralis_build.image.work import PackageFinished, Work, record_of
from neuralis_build.npmname import name_problems

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
        # 1. fetch: bytes and manifests (tarball and npm sources are read and checked for hostility here)
        parallel(lambda w: stages.acquire(w, out, cache, host, limits, finish), works)
        stages.refuse_taken_names(works)
        # 2. the module ids the image's first-party packages publish (what a directory's UI build may read)
        published = stages.declared_publications(works)
        # 3. per package: build a folder, apply files, stage, check
        parallel(lambda w: stages.stage_and_check(w, staging, cache, host, published, limits, finish), works)
        # 4. the real node resolves each staged package's package.json
        stages.resolve(works, staging)
        for w in works:
            finish(w)
        # 5. across packages: namespaces in id order, then tool names; 6. the UI modules
        registry, contests = _settle(works, spec, host)
        _judge_modules(works, out, host)
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
            record = record_of(w, out)
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


def _facts_id(work: Work) -> str:
    return work.facts.id if work.facts else ""


def _settle(works: list[Work], spec: ImageSpec, host: HostProfile) -> tuple[Registry, list[ToolContest]]:
    """Admit the loaded packages into the image's namespaces in id order, then settle contested tool names."""
    registry = Registry(host.platform_config_keys)
    for w in sorted((w for w in works if w.outcome.status == "loaded" and w.facts), key=_facts_id):
        assert w.facts is not None
        problems = registry.conflicts(w.facts)
        if problems:
            w.outcome.status = "refused"
            w.outcome.diagnostics.extend(problems)
        else:
            registry.claim(w.facts)
    loaded = [w.facts for w in works if w.outcome.status == "loaded" and w.facts is not None]
    contests = settle_tools(loaded, host.platform_tools, [(m.server, m.tools) for m in spec.mcp])
    for w in works:
        if w.outcome.status == "loaded" and w.facts is not None:
            w.outcome.diagnostics.extend(shadow_warnings(w.facts, contests))
    return registry, contests


def _judge_modules(works: list[Work], out: Path, host: HostProfile) -> None:
    """Judge each loaded UI module against the host and the ids the loaded packages publish."""
    loaded = [w for w in works if w.outcome.status == "loaded" and w.facts is not None]
    available = {i for w in loaded if w.facts for i in w.facts.published}
    for w in loaded:
        if w.facts is not None and w.facts.module is not None:
            where = w.staged or install.package_dir(out, w.outcome.name or "")
            w.outcome.module = judge_module(where, w.facts.module, host, available)


def _commit(works: list[Work], out: Path) -> None:
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
