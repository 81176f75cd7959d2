"""Fixtures of the UI build tests: the real esbuild, package folders, example copies, React from npm."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest

from neuralis_build.esbuild.runner import Esbuild, find_esbuild
from neuralis_build.hostprofile import HostProfile, default_host_profile
from neuralis_build.package import load_package
from neuralis_build.ui.build import UiBuildResult, build_ui
from tests.ui.ui_helpers import REACT_VERSION, build_file_tree, copy_example, link_package, npm


@pytest.fixture(scope="session")
def esbuild() -> Esbuild:
    """The real pinned esbuild (fetched once per machine into the user cache by scripts/setup)."""
    return find_esbuild()


@pytest.fixture
def make_pkg(tmp_path: Path) -> Callable[..., Path]:
    """Write a package tree into a fresh folder: ``make_pkg({"package.json": ..., "src/app/host.tsx": ...})``."""
    counter = iter(range(10_000))

    def make(tree: Mapping[str, Any], name: str | None = None) -> Path:
        root = tmp_path / (name or f"pkg{next(counter)}")
        root.mkdir(parents=True)
        return build_file_tree(root, tree)

    return make


@pytest.fixture
def build(esbuild: Esbuild) -> Callable[..., UiBuildResult]:
    """Run the library build on a folder with the real esbuild; unminified unless asked (``minify=True``), since
    most tests read the bundle's text (the library's own default, minified, is pinned in test_build.py)."""

    def run(root: Path, host: HostProfile | None = None, **kw: Any) -> UiBuildResult:
        kw.setdefault("minify", False)
        return build_ui(load_package(root), host=host or default_host_profile(), esbuild=esbuild, **kw)

    return run


@pytest.fixture
def examples(tmp_path: Path) -> Callable[[], tuple[Path, Path]]:
    """Scratch copies of acme-charts and acme-reports side by side, charts linked into reports."""

    def make() -> tuple[Path, Path]:
        charts = copy_example("acme-charts", tmp_path)
        reports = copy_example("acme-reports", tmp_path)
        link_package(reports, charts, "@acme/charts")
        return charts, reports

    return make


@pytest.fixture(scope="session")
def react_modules(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A node_modules with react and react-dom installed from npm (browser test, React-major tests)."""
    folder = tmp_path_factory.mktemp("react")
    (folder / "package.json").write_text(json.dumps({"name": "react-fixture", "private": True}))
    npm(["install", "--no-package-lock", f"react@{REACT_VERSION}", f"react-dom@{REACT_VERSION}"], folder)
    return folder / "node_modules"


REALWORLD = Path(__file__).resolve().parent / "realworld"
REALWORLD_PROJECTS = (REALWORLD, REALWORLD / "tailwind3", REALWORLD / "slider")
"""The npm projects of the real-world fixtures, each pinned by its package-lock.json: the shared one,
Tailwind v3's own (the shared one holds Tailwind v4), and react-slick's (a CommonJS component library)."""


def install_realworld() -> None:
    """``npm ci`` each fixture project whose node_modules is not of its current lockfile (scripts/setup --test
    does it up front; the copy of the lockfile in node_modules says which one was installed)."""
    for folder in REALWORLD_PROJECTS:
        lock = (folder / "package-lock.json").read_bytes()
        stamp = folder / "node_modules" / ".fixture-lock.json"
        if stamp.is_file() and stamp.read_bytes() == lock:
            continue
        subprocess.run(
            ["npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"],
            cwd=folder,
            check=True,
            timeout=900,
        )
        stamp.write_bytes(lock)


@pytest.fixture(scope="session")
def realworld_modules() -> Path:
    """The pinned libraries of tests/ui/realworld, installed once."""
    install_realworld()
    return REALWORLD / "node_modules"


@pytest.fixture
def realworld(tmp_path: Path, realworld_modules: Path) -> Callable[[str], Path]:
    """A scratch copy of a fixture package with its pinned node_modules beside it (its own, when it has one)."""

    def make(name: str) -> Path:
        root = tmp_path / name
        shutil.copytree(REALWORLD / name, root, ignore=shutil.ignore_patterns("dist", "node_modules"))
        own = REALWORLD / name / "package-lock.json"
        os.symlink(own.parent / "node_modules" if own.is_file() else realworld_modules, root / "node_modules")
        return root

    return make
