"""Real published packages through the whole image build, on a local verdaccio that holds them unchanged.

Each case is one an operator met on the public registry: a healthy tarball npm installs and the image
refused, two ranges that meet reported as if they did not, native modules that work or fail without
their install scripts, a dependency that is not on a registry.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import manifest, requires_node
from tests.image.conftest import LocalRegistry, Run, package_tgz, spec_text, write_tgz

pytestmark = [pytest.mark.e2e, pytest.mark.registry, pytest.mark.slow, requires_node]

RunImage = Callable[..., Run]


def node_in(folder: Path, code: str) -> str:
    """Run ``code`` with the real node in ``folder``; its stdout."""
    done = subprocess.run(["node", "-e", code], cwd=folder, capture_output=True, text=True, check=True, timeout=60)
    return done.stdout


def test_proxy_agent_installs_as_npm_installs_it(
    tmp_path: Path, realworld_registry: LocalRegistry, run_image: RunImage
) -> None:
    """proxy-agent@6.5.0's tarball holds dist/index.js twice (once as package/./dist/index.js): npm installs
    it, and so does the image, with its real closure (pac-proxy-agent, socks-proxy-agent, quickjs, …)."""
    data = manifest(name="acme-fetcher", dependencies={"proxy-agent": "6.5.0"}, main="index.js")
    write_tgz(
        tmp_path / "tgz", "fetcher.tgz", package_tgz(data, {"index.js": "module.exports = require('proxy-agent');\n"})
    )
    run = run_image(spec_text({"source": "tgz/fetcher.tgz"}))
    assert run.code == 0, run.err + run.out
    assert run.package("acme-fetcher")["status"] == "loaded"
    proxy = next(c for c in run.report["closure"] if c["name"] == "proxy-agent")
    assert (proxy["path"], proxy["version"]) == ("node_modules/acme-fetcher/node_modules/proxy-agent", "6.5.0")
    assert len(run.report["closure"]) == 28  # the listed package and proxy-agent's 27 packages
    loaded = node_in(run.image, "console.log(typeof require('./node_modules/acme-fetcher').ProxyAgent)")
    assert loaded == "function\n"


def test_two_ranges_that_meet_are_not_reported_as_a_conflict_of_ranges(
    tmp_path: Path, realworld_registry: LocalRegistry, run_image: RunImage
) -> None:
    """ "1.6.0" and "^1.6.0" meet at 1.6.0; npm resolves each listed package's tree on its own and takes
    1.6.1 for "^1.6.0". The report says that, where it used to say the ranges do not meet."""
    for name, wanted in (("acme-a", "1.6.0"), ("acme-b", "^1.6.0")):
        data = manifest(name=name, dependencies={"@colors/colors": wanted})
        write_tgz(tmp_path / "tgz", f"{name}.tgz", package_tgz(data))
    run = run_image(spec_text({"source": "tgz/acme-a.tgz"}, {"source": "tgz/acme-b.tgz"}))
    assert run.code == 0, run.err
    assert [c["message"] for c in run.report["conflicts"] if c["kind"] == "versions"] == [
        "@colors/colors is installed at 2 versions (1.6.0 for acme-a (1.6.0); 1.6.1 for acme-b (^1.6.0)): the "
        "ranges meet (1.6.0 satisfies every one), but npm resolves the dependencies of each listed package under "
        "it, apart from the other listed packages' (nothing is shared between them), and chose a version for each "
        "range there"
    ]
