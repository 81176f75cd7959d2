"""A static copy of the host page for a set of built packages: a folder any HTTP server can serve.

Only what the host serves is copied: each accepted module's ``dist/app/`` tree and each iframe
surface's served files (the entry alone for ``self-contained``, the whole root for ``bundle``), so
a request for anything else is a 404 there too.
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from neuralis_build.hostpage.model import PagePackage, judge_packages, served_files
from neuralis_build.hostpage.page import ASSETS, DATA, PAGE_FILES, VENDOR, render_page
from neuralis_build.hostpage.react import ReactSource, find_react
from neuralis_build.hostpage.vendor import Mode, SharedModules, build_shared_modules
from neuralis_build.hostprofile import HostProfile, default_host_profile
from neuralis_build.package import load_package
from neuralis_build.util import atomic
from neuralis_build.util.trust import Trust

if TYPE_CHECKING:
    from neuralis_build.esbuild.runner import EsbuildRunner


PAGE = "index.html"


@dataclass(frozen=True)
class HostSite:
    """A written host page: its folder, the page's path in it, the packages as judged, the shared modules."""

    folder: Path
    packages: tuple[PagePackage, ...]
    shared: SharedModules
    page: str = PAGE

    def url(self, origin: str) -> str:
        """The page's URL under ``origin`` (``http://127.0.0.1:8000``)."""
        return origin.rstrip("/") + "/" + self.page


def write_host_site(
    out: Path,
    roots: Sequence[Path | str],
    *,
    host: HostProfile | None = None,
    trust: Trust | Sequence[Trust] = Trust.FIRST_PARTY,
    mode: Mode = "production",
    react: ReactSource | None = None,
    esbuild: EsbuildRunner | None = None,
) -> HostSite:
    """Judge the packages at ``roots`` together (in that order) and write their host page into ``out``.

    ``trust`` is one tier for all, or one per root (the page's header shows the last one).
    ``react`` defaults to the React the last package resolves (when it fits the host and every
    package is first-party), else the toolchain's pinned copy. ``out`` is replaced wholesale: the
    site is written beside it and swapped in, so a failure leaves the previous site as it was.
    """
    from neuralis_build.check import check_package

    profile = host or default_host_profile()
    packages = [load_package(r) for r in roots]
    tiers = [trust] * len(packages) if isinstance(trust, str) else list(trust)
    if len(tiers) != len(packages):
        raise ValueError("write_host_site: one trust tier per package")
    judged = judge_packages([check_package(p, t, profile) for p, t in zip(packages, tiers, strict=True)], profile)
    lowest = Trust.FIRST_PARTY if all(t == Trust.FIRST_PARTY for t in tiers) else Trust.UNTRUSTED
    source = react or find_react(packages[-1].root if packages else Path.cwd(), profile, lowest)
    staged = atomic.staging_dir(out.parent, f".{out.name}-")
    try:
        vendor = Path(ASSETS.strip("/"), "vendor")
        shared = build_shared_modules(staged / vendor, source, mode=mode, esbuild=esbuild)
        for name in PAGE_FILES:
            shutil.copyfile(DATA / name, staged / ASSETS.strip("/") / name)
        for pkg in judged:
            folder = staged / pkg.base.strip("/")
            for rel, path in served_files(pkg).items():
                target = folder / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(path, target)
        shown = Trust(trust) if isinstance(trust, str) else (trust[-1] if trust else Trust.FIRST_PARTY)
        text = render_page(judged, profile, shown, shared.import_map(VENDOR), shared.exports)
        (staged / PAGE).write_text(text, encoding="utf-8")
        atomic.swap_in(staged, out)
    except BaseException:
        atomic.remove(staged)
        raise
    return HostSite(out, tuple(judged), replace(shared, folder=out / vendor))
