"""Shared test helpers: build package trees from dicts and run the real checker on them."""

from __future__ import annotations

import json
import os
import shutil
import signal
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest

from neuralis_build import api
from neuralis_build.api import JudgedPackage, Trust

# A suite started in the background of a script (`.ci/run &`) inherits SIGINT ignored, and so would every
# command it starts: `ui --watch` and `dev` would then not stop on the Ctrl-C the
# tests send them. A handler (unlike an ignore) is reset to the default in a child at exec.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Chromium and verdaccio groups are the slow ones: ``-m "not slow"`` leaves them out with the wheel's."""
    for item in items:
        if item.get_closest_marker("browser") or item.get_closest_marker("registry"):
            item.add_marker(pytest.mark.slow)


REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "example-packages"

Tree = Mapping[str, Any]


def build_file_tree(root: Path, tree: Tree) -> Path:
    """Write ``tree`` under ``root`` (copier's build_file_tree): the one tree builder of the tests.

    str/bytes are files; a value for a ``*.json`` name is written as JSON; another dict is a folder; a
    value with a ``write_to(path)`` method writes itself (a symlink, a file with a mode: tests/pack).
    """
    root.mkdir(parents=True, exist_ok=True)
    for name, content in tree.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if hasattr(content, "write_to"):
            content.write_to(path)
        elif isinstance(content, bytes):
            path.write_bytes(content)
        elif isinstance(content, str):
            path.write_text(content, encoding="utf-8")
        elif name.endswith(".json"):
            path.write_text(json.dumps(content, indent=2) + "\n", encoding="utf-8")
        elif isinstance(content, Mapping):
            path.mkdir(exist_ok=True)
            build_file_tree(path, content)
        else:
            raise TypeError(f"{name}: unsupported content {type(content).__name__}")
    return root


def manifest(neuralis: Any = None, *, name: str = "acme-pkg", version: str = "1.0.0", **extra: Any) -> dict[str, Any]:
    """A package.json with a neuralis block (an empty opt-in by default)."""
    data: dict[str, Any] = {"name": name, "version": version}
    data.update(extra)
    data["neuralis"] = {} if neuralis is None else neuralis
    return data


Findings = list[tuple[str, str, str]]


def findings(result: JudgedPackage) -> Findings:
    """(severity, code, pointer) of every manifest diagnostic: what rule tests assert on.

    Build-output findings (NB16: app.module and events not built yet) are left out: the trees here
    are never built, and tests/ui/test_outputs_rules.py pins those rules on built trees.
    """
    return [(d.severity, d.code, d.pointer) for d in result.diagnostics if not d.code.startswith("NB16")]


def judged(root: Path, trust: Trust = "first-party", host: api.HostProfile | None = None) -> JudgedPackage:
    """``check`` of the folder through the library's face; a folder it could not judge fails the test."""
    result = api.check(root, trust, host)
    assert not isinstance(result, api.Failed), result.error.message
    return result


@pytest.fixture
def check_tree(tmp_path: Path) -> Callable[..., JudgedPackage]:
    """Write a tree into a fresh folder and check it: ``check_tree({...}, trust="first-party")``."""
    counter = iter(range(10_000))

    def run(tree: Tree, trust: Trust = "first-party") -> JudgedPackage:
        root = tmp_path / f"pkg{next(counter)}"
        root.mkdir()
        build_file_tree(root, tree)
        return judged(root, trust)

    return run


@pytest.fixture
def check_block(check_tree: Callable[..., JudgedPackage]) -> Callable[..., Findings]:
    """Check a package whose only file is package.json with this neuralis block; return its findings."""

    def run(block: Any, trust: Trust = "first-party", files: Tree | None = None, **extra: Any) -> Findings:
        tree: dict[str, Any] = {"package.json": manifest(block, **extra)}
        tree.update(files or {})
        return findings(check_tree(tree, trust))

    return run


def copy_example(name: str, dest: Path) -> Path:
    """A scratch copy of an example package (tests never write into the repository)."""
    target = dest / name
    shutil.copytree(EXAMPLES / name, target, symlinks=True, ignore=shutil.ignore_patterns("node_modules", "dist"))
    return target


def node_available() -> bool:
    return shutil.which("node") is not None and shutil.which("npm") is not None


requires_node = pytest.mark.skipif(not node_available() and not os.environ.get("CI"), reason="node and npm are needed")


def sandbox_available() -> bool:
    """Whether bubblewrap makes a sandbox here (the image build loads a package's code only inside one)."""
    from neuralis_build.util.sandbox import Sandbox, find_sandbox

    node = shutil.which("node")
    return node is not None and isinstance(find_sandbox(node), Sandbox)


# CI installs bubblewrap (scripts/setup --test): there a missing sandbox fails the tests instead of skipping them
requires_sandbox = pytest.mark.skipif(
    not os.environ.get("CI") and not sandbox_available(), reason="bubblewrap cannot make a sandbox here"
)


# The browser fixtures (Playwright on Debian's chromium, served folders, the host page) for every test.
from tests.browserkit import browser_page, chromium, host_site, playwright_driver, serve_folder  # noqa: E402, F401
