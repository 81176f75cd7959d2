"""A react-three-fiber scene on the dev page: real @react-three/fiber 9 and three from npm (tests/dev/r3f, pinned
by its package-lock.json). r3f bundles its own React reconciler and picks its build by NODE_ENV, so it draws only
when the package is built for the mode of the page's React: `dev` builds both for development."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.browserkit import dump, requires_chromium, surface_states, wait_for_host
from tests.conftest import requires_node
from tests.dev.test_dev import open_dev_page, stop_cleanly

pytestmark = [pytest.mark.e2e, pytest.mark.browser, requires_chromium, requires_node]

BIN = Path(sys.executable).parent
FIXTURE = Path(__file__).resolve().parent / "r3f"
SCENE = "@acme/scene#widget:scene"

# The WebGL canvas drawn into a 2D one, and the pixel at its centre (the scene keeps its drawing buffer).
CENTRE_PIXEL = """() => {
  const gl = document.querySelector('[data-testid=scene] canvas');
  const copy = document.createElement('canvas');
  copy.width = gl.width;
  copy.height = gl.height;
  const ctx = copy.getContext('2d');
  ctx.drawImage(gl, 0, 0);
  return [gl.width, gl.height, ...ctx.getImageData(gl.width >> 1, gl.height >> 1, 1, 1).data];
}"""


@pytest.fixture(scope="session")
def r3f_modules() -> Path:
    """The pinned libraries, installed by ``npm ci`` when node_modules is not of the current lockfile
    (scripts/setup --test does it up front, and leaves the same stamp)."""
    lock = (FIXTURE / "package-lock.json").read_bytes()
    stamp = FIXTURE / "node_modules" / ".fixture-lock.json"
    if not stamp.is_file() or stamp.read_bytes() != lock:
        subprocess.run(
            ["npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"],
            cwd=FIXTURE,
            check=True,
            timeout=900,
        )
        stamp.write_bytes(lock)
    return FIXTURE / "node_modules"


@pytest.fixture
def scene(tmp_path: Path, r3f_modules: Path) -> Path:
    root = tmp_path / "scene"
    shutil.copytree(FIXTURE / "scene", root, ignore=shutil.ignore_patterns("dist", "node_modules"))
    os.symlink(r3f_modules, root / "node_modules")
    return root


def test_a_react_three_fiber_scene_renders_on_the_dev_page(scene, dev_server, browser_page):
    dev = dev_server(scene)
    page = browser_page.page
    status = open_dev_page(browser_page, dev.url)
    assert surface_states(status) == {SCENE: ("rendered", None)}, dump(status)
    # r3f's own frame loop has drawn the scene: its state, then the pixel
    page.wait_for_function("() => window.__scene && window.__scene.frames > 2")
    assert page.evaluate("() => [window.__scene.meshes, window.__scene.size]") == [1, [240, 160]]
    assert page.evaluate(CENTRE_PIXEL) == [240, 160, 255, 0, 0, 255]
    assert surface_states(wait_for_host(page)) == {SCENE: ("rendered", None)}
    assert browser_page.log.problems() == []
    stop_cleanly(dev)


def test_a_scene_built_for_another_mode_than_its_react_is_shown_failed(scene, host_site, browser_page):
    """What the dev page did before it built for development: a production build under a development React.
    The scene draws nothing, and the surface says why instead of "rendered"."""
    done = subprocess.run([str(BIN / "neuralis-build"), "ui", str(scene)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("built @acme/scene for production")
    served = host_site([scene], mode="development")
    page = browser_page.page
    page.goto(served.url)
    wait_for_host(page)
    page.wait_for_function("() => window.__neuralisHost.surfaces.some((s) => s.status === 'failed')")
    status = wait_for_host(page)
    assert surface_states(status) == {SCENE: ("failed", "the component threw: dispatcher.getOwner is not a function")}
    reason = page.locator('[data-surface-id="scene"] .nh-failed__reason').inner_text()
    assert reason == "the component threw: dispatcher.getOwner is not a function"
    assert browser_page.log.page_errors == ["dispatcher.getOwner is not a function"]
