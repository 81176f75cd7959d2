"""A package under review builds nothing on the dev page: its stylesheet tools (a PostCSS config and its
plugins, which the UI build runs in Node) never run below first-party, where the host drops app.module and
events anyway. The author's own package builds for the page, whose development build is not reported as a
finding there (NB1617 is for check and pack)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from neuralis_build.dev.guard import KEY_HEADER
from tests.conftest import build_file_tree, requires_node
from tests.dev.test_dev import stop_cleanly
from tests.dev.test_security import call

pytestmark = [pytest.mark.e2e, requires_node]

REALWORLD = Path(__file__).resolve().parents[1] / "ui" / "realworld" / "node_modules"
BIN = Path(sys.executable).parent


def styled_package(root: Path, marker: Path) -> Path:
    """A first-party UI module with a stylesheet and a PostCSS config that writes ``marker`` when Node loads it."""
    build_file_tree(
        root,
        {
            "package.json": {
                "name": "acme-styled",
                "version": "1.0.0",
                "devDependencies": {"react": "19.2.0", "postcss": "*"},
                "neuralis": {"app": {"module": {"entry": "dist/app/host.js", "css": "dist/app/host.css"}}},
            },
            "postcss.config.cjs": (
                f'require("fs").writeFileSync({json.dumps(str(marker))}, "ran");\nmodule.exports = {{ plugins: [] }};\n'
            ),
            "src/app/style.css": ".acme { color: rgb(1, 2, 3); }\n",
            "src/app/host.tsx": (
                'import "./style.css";\n'
                "export function installAcmeStyledHostComponents(host: unknown): void {\n  void host;\n}\n"
            ),
        },
    )
    os.symlink(REALWORLD, root / "node_modules")
    return root


def diagnostics_of(dev) -> list[str]:
    headers = {"Origin": dev.origin, KEY_HEADER: dev.key, "Content-Type": "application/json"}
    status, _, body = call(dev.origin + "/__neuralis/state", "POST", headers, b"{}")
    assert status == 200
    return [d["code"] for d in json.loads(body)["diagnostics"]]


@pytest.mark.skipif(not (REALWORLD / "postcss").is_dir(), reason="the real-world fixture is not installed")
def test_a_package_under_review_runs_none_of_its_stylesheet_tools(tmp_path, dev_server):
    marker = tmp_path / "ran"
    pkg = styled_package(tmp_path / "pkg", marker)
    # the fixture is live: the author's own build runs the config in Node
    done = subprocess.run([str(BIN / "neuralis-build"), "ui", str(pkg)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert marker.read_text() == "ran"
    marker.unlink()
    (pkg / "dist" / "app" / "build-inputs.json").unlink()

    dev = dev_server(pkg, "--trust", "untrusted")  # serves once its first judgement is done
    assert "NB0401" in diagnostics_of(dev)  # app.module is dropped below first-party
    assert not marker.exists()
    assert not (pkg / "dist" / "app" / "build-inputs.json").exists()  # nothing was built
    stop_cleanly(dev)


@pytest.mark.skipif(not (REALWORLD / "postcss").is_dir(), reason="the real-world fixture is not installed")
def test_the_authors_own_package_builds_for_the_page_without_a_development_build_finding(tmp_path, dev_server):
    marker = tmp_path / "ran"
    pkg = styled_package(tmp_path / "pkg", marker)
    dev = dev_server(pkg)
    assert marker.read_text() == "ran"
    record = json.loads((pkg / "dist" / "app" / "build-inputs.json").read_text())
    assert record["mode"] == "development"
    assert "NB1617" not in diagnostics_of(dev)
    check = subprocess.run(
        [str(BIN / "neuralis-build"), "check", str(pkg), "--trust", "first-party", "--format", "json"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert "NB1617" in {d["code"] for d in json.loads(check.stdout)[0]["diagnostics"]}
    stop_cleanly(dev)
