"""The templates' scripts/neuralis-build.mjs, which npm scripts run: it stays the parent of neuralis-build, passes
on a SIGTERM sent to it alone, and stops neuralis-build when npm goes without passing anything on, so
`npm run dev` (or a watch) never leaves a process behind."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import REPO, build_file_tree
from tests.ui.ui_helpers import HOST_TSX, ui_manifest

pytestmark = [pytest.mark.e2e, pytest.mark.skipif(shutil.which("node") is None, reason="needs node")]

WRAPPER = REPO / "templates" / "widget" / "scripts" / "neuralis-build.mjs"


def package(tmp_path: Path) -> Path:
    root = build_file_tree(tmp_path / "pkg", {"package.json": ui_manifest(), "src/app/host.tsx": HOST_TSX})
    (root / "scripts").mkdir()
    shutil.copy(WRAPPER, root / "scripts" / "neuralis-build.mjs")
    return root


def env() -> dict[str, str]:
    return {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}


def watchers(root: Path) -> list[int]:
    """The pids of `neuralis-build ui --watch` processes on ``root``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                argv = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if b"--watch" in argv and str(root).encode() in argv and any(a.endswith(b"neuralis-build") for a in argv):
                found.append(int(entry.name))
    return found


def wait_until(condition, seconds: float = 30) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.1)
    return False


def test_the_templates_share_one_wrapper():
    for template in ("ui-module", "full"):
        assert (REPO / "templates" / template / "scripts" / "neuralis-build.mjs").read_bytes() == WRAPPER.read_bytes()


def _without_the_tool(root: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """``npm run``'s view of the wrapper when neuralis-build is not on PATH: only node's folder is."""
    node_dir = Path(shutil.which("node") or "/usr/bin/node").parent
    return subprocess.run(
        ["node", "scripts/neuralis-build.mjs", "check", "--trust", "untrusted"],
        cwd=root,
        env={"PATH": f"{node_dir}{os.pathsep}/bin", "HOME": str(root), **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_without_the_tool_the_wrapper_names_the_spec_package_json_pins(tmp_path):
    root = package(tmp_path)
    manifest = json.loads((root / "package.json").read_text())
    manifest["config"] = {"neuralisBuildInstall": "neuralis-build==9.8.7"}
    (root / "package.json").write_text(json.dumps(manifest))
    done = _without_the_tool(root)
    assert done.returncode == 127
    assert done.stderr.splitlines() == [
        'neuralis-build is not installed (or not on PATH): install it with `pipx install "neuralis-build==9.8.7"` '
        '(or `uv tool install "neuralis-build==9.8.7"`); the spec is package.json\'s config.neuralisBuildInstall '
        "(NEURALIS_BUILD_INSTALL overrides it); see README.md, Install the toolchain."
    ]
    # the environment overrides package.json (one machine, or a CI variable)
    wheel = "/tmp/dist/neuralis_build-9.9.0-py3-none-any.whl"
    assert f'`pipx install "{wheel}"`' in _without_the_tool(root, NEURALIS_BUILD_INSTALL=wheel).stderr
    # no pin (a package.json without config): the package itself, unpinned
    del manifest["config"]
    (root / "package.json").write_text(json.dumps(manifest))
    assert '`pipx install "neuralis-build"`' in _without_the_tool(root).stderr


@contextlib.contextmanager
def watching(root: Path, command: list[str]) -> Iterator[subprocess.Popen[str]]:
    """``command`` in its own session, once its `ui --watch` says it is watching; its group is killed after."""
    proc = subprocess.Popen(
        command,
        cwd=root,
        env=env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
    )
    try:
        assert proc.stdout is not None
        while "watching" not in proc.stdout.readline():
            pass
        assert len(watchers(root)) == 1
        yield proc
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()


def test_a_sigterm_to_the_wrapper_alone_stops_neuralis_build(tmp_path):
    root = package(tmp_path)
    with watching(root, ["node", "scripts/neuralis-build.mjs", "ui", "--watch", str(root)]) as proc:
        proc.send_signal(signal.SIGTERM)  # to the wrapper only, as npm passes on a kill
        assert proc.wait(timeout=30) == -signal.SIGTERM  # it ends as neuralis-build ended
        assert wait_until(lambda: not watchers(root))


def test_a_wrapper_whose_parent_is_gone_stops_neuralis_build(tmp_path):
    """npm killed without passing the signal on: the wrapper is left to init, and ends the build itself."""
    root = package(tmp_path)
    with watching(root, ["sh", "-c", f'node scripts/neuralis-build.mjs ui --watch "{root}" & wait']) as parent:
        parent.kill()  # SIGKILL: nothing is passed on
        parent.wait(timeout=30)
        assert wait_until(lambda: not watchers(root))
