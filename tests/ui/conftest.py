"""Fixtures of the UI build tests: the real esbuild, package folders, example copies, React from npm."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest

from neuralis_build.hostprofile import HostProfile, default_host_profile
from neuralis_build.package import load_package
from neuralis_build.ui.build import UiBuildResult, build_ui
from neuralis_build.ui.esbuild import Esbuild, find_esbuild
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
    """Run the library build on a folder with the real esbuild."""

    def run(root: Path, host: HostProfile | None = None, **kw: Any) -> UiBuildResult:
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
