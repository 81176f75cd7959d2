"""A package under review that ships its own `react` (bundleDependencies, an npm alias) whose code would
run if Node required it: `dev` never runs it, uses it only for a first-party package, and never serves its
bundle for another package, since the vendor cache is keyed by the bytes it was built from."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from neuralis_build.hostpage.react import HOST_TOOLS, lexer_file, pinned_react
from neuralis_build.hostprofile import default_host_profile
from neuralis_build.util.cachedir import cache_root
from tests.conftest import requires_node
from tests.dev.test_dev import stop_cleanly
from tests.dev.test_security import call
from tests.ui.ui_helpers import copy_example

pytestmark = [pytest.mark.e2e, requires_node]

POISON = "NEURALIS-POISON-7f3a"


def poisoned_package(tmp_path: Path, marker: Path) -> Path:
    """hello-declarative carrying react and react-dom 19.2.0 in node_modules, react's entry poisoned."""
    pkg = copy_example("hello-declarative", tmp_path / "poisoned")
    pinned = pinned_react(default_host_profile()).node_modules
    for name in ("react", "react-dom", "scheduler"):
        shutil.copytree(pinned / name, pkg / "node_modules" / name)
    entry = pkg / "node_modules/react/index.js"
    # esbuild leaves eval("require") alone, so the file bundles; run by Node, it writes the marker
    payload = (
        'if (typeof process === "object" && process.versions && process.versions.node) '
        f'{{ eval("require")("fs").writeFileSync({json.dumps(str(marker))}, "ran"); }}\n'
        f'globalThis.poisoned = "{POISON}";\n'
    )
    entry.write_text(payload + entry.read_text())
    manifest = json.loads((pkg / "package.json").read_text())
    manifest["dependencies"] = {"react": "npm:not-react@19.2.0", "react-dom": "19.2.0"}
    manifest["bundleDependencies"] = ["react", "react-dom"]
    (pkg / "package.json").write_text(json.dumps(manifest, indent=2))
    return pkg


@pytest.fixture
def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A cache of its own for the host page's builds, sharing the toolchain's esbuild, React and lexer."""
    lexer_file()
    pinned_react(default_host_profile())
    shared = cache_root()
    cache = tmp_path / "cache"
    cache.mkdir()
    for name in ("esbuild", HOST_TOOLS.name):
        (cache / name).symlink_to(shared / name)
    monkeypatch.setenv("NEURALIS_BUILD_CACHE", str(cache))
    return cache


def vendor_of(dev) -> str:
    status, _, body = call(dev.origin + "/__neuralis/vendor/vendor.js")
    assert status == 200
    return body.decode()


def test_a_poisoned_react_never_runs_in_node_and_its_bundle_serves_no_other_package(
    tmp_path, private_cache, dev_server
):
    marker = tmp_path / "ran"
    pkg = poisoned_package(tmp_path, marker)
    # the fixture is live: Node requiring it runs the payload
    done = subprocess.run(["node", "-e", f"require({json.dumps(str(pkg / 'node_modules/react'))})"], timeout=120)
    assert done.returncode == 0 and marker.read_text() == "ran"
    marker.unlink()

    # under review: the toolchain's pinned React, and nothing of the package's runs
    dev = dev_server(pkg, "--trust", "untrusted")
    assert POISON not in vendor_of(dev)
    stop_cleanly(dev)
    assert not marker.exists()

    # the author's own package: its React is bundled for the browser, still never run in Node
    dev = dev_server(pkg)
    assert POISON in vendor_of(dev)
    stop_cleanly(dev)
    assert not marker.exists()

    # a clean package with no React of its own gets the pinned React, though both say 19.2.0
    clean = copy_example("hello-declarative", tmp_path / "clean")
    dev = dev_server(clean)
    assert POISON not in vendor_of(dev)
    stop_cleanly(dev)
    builds = sorted(p.name for p in (private_cache / "hostpage").iterdir())
    assert len(builds) == 2 and all(b.startswith("react-") and "-development-" in b for b in builds), builds
    assert not marker.exists()


def test_the_host_pages_tools_are_pinned_with_their_integrity():
    """The versions the code names are the ones the shipped lockfile installs, each with an integrity npm checks."""
    from neuralis_build.hostpage.react import LEXER, LEXER_VERSION, PINNED_REACT

    lock = json.loads((HOST_TOOLS / "package-lock.json").read_text())["packages"]
    wanted = {"react": PINNED_REACT[19], "react-dom": PINNED_REACT[19], LEXER: LEXER_VERSION}
    for name, version in wanted.items():
        entry = lock[f"node_modules/{name}"]
        assert entry["version"] == version and entry["integrity"].startswith("sha512-")
    installed = pinned_react(default_host_profile()).node_modules
    assert json.loads((installed / "react" / "package.json").read_text())["version"] == PINNED_REACT[19]
    assert lexer_file().is_file()
