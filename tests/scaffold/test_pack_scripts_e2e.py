"""A fresh scaffold, as an author has it (issue 24, items 2 and 3): `neuralis new`, `npm install` of its real
dependencies, then `pack` builds it through its own prepack; a `ui --watch` build is named and refused; a
failing prepack stops pack with its output and leaves the earlier tarball and dist/ as they were.

The installed console scripts, npm, node, tsc and esbuild, all real.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import tarfile
from pathlib import Path

import pytest

from ..conftest import requires_node
from .conftest import BIN

pytestmark = [pytest.mark.e2e, requires_node]

NAME = "@e2e/reports"
TARBALL = "e2e-reports-0.1.0.tgz"
ENTRY = "/neuralis/app/module/entry"


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    env.update(npm_config_audit="false", npm_config_fund="false", npm_config_update_notifier="false")
    return env


def _run(args: list[str], cwd: Path, ok: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(args, cwd=cwd, env=_env(), capture_output=True, text=True, timeout=600)
    assert (done.returncode == 0) == ok, f"{args} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    return done


def _build(args: list[str], cwd: Path, ok: bool = True) -> subprocess.CompletedProcess[str]:
    return _run([str(BIN / "neuralis-build"), *args], cwd, ok)


def _record(pkg: Path) -> dict[str, object]:
    data: dict[str, object] = json.loads((pkg / "dist/app/build-inputs.json").read_text())
    return data


def _watch_once(pkg: Path) -> None:
    """`ui --watch` until its first build, then Ctrl-C, as an author leaves it."""
    with subprocess.Popen(
        [str(BIN / "neuralis-build"), "ui", "--watch"],
        cwd=pkg,
        env=_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    ) as proc:
        assert proc.stdout is not None
        try:
            first = proc.stdout.readline()
            assert " ok (development): " in first, first
        finally:
            proc.send_signal(signal.SIGINT)
            proc.wait(timeout=60)


@pytest.fixture(scope="module")
def scaffold(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("scaffold")
    pkg = where / "reports"
    _run([str(BIN / "neuralis"), "new", NAME, "--template", "ui-module", "--dir", str(pkg), "--no-input"], where)
    _run(["npm", "install"], pkg)
    return pkg


def test_pack_builds_a_fresh_scaffold_through_its_prepack(scaffold: Path) -> None:
    pkg = scaffold
    assert not (pkg / "dist").exists()
    _build(["check", "--trust", "first-party"], pkg, ok=False)  # unbuilt: check says so (NB1601)

    done = _build(["pack", "--trust", "first-party"], pkg)
    assert done.stdout == f"{TARBALL}\n"
    assert f"\n> {NAME}@0.1.0 prepack\n> npm run build\n" in done.stderr
    assert "built @e2e/reports for production (minified)" in done.stderr  # npm run build:ui, inside prepack
    assert "NB1711" not in done.stderr and "warning" not in done.stderr
    with tarfile.open(pkg / TARBALL) as tar:
        names = sorted(tar.getnames())
        host = tar.extractfile("package/dist/app/host.js")
        assert host is not None
        shipped = host.read().decode()
    assert "package/dist/app/host.js" in names and "package/dist/app/shared-imports.json" in names
    assert "\n  " not in shipped  # minified
    assert _record(pkg)["mode"] == "production"


def test_a_watch_build_is_named_by_check_and_refused_by_pack_until_rebuilt(scaffold: Path) -> None:
    pkg = scaffold
    if not (pkg / TARBALL).exists():
        _build(["pack", "--trust", "first-party"], pkg)
    earlier = (pkg / TARBALL).read_bytes()

    _watch_once(pkg)
    assert _record(pkg)["mode"] == "development"
    (report,) = json.loads(_build(["check", "--trust", "first-party", "--format", "json"], pkg).stdout)
    assert report["ok"] is True
    assert [(d["severity"], d["code"], d["pointer"]) for d in report["diagnostics"]] == [("warning", "NB1617", ENTRY)]

    done = _build(["pack", "--trust", "first-party", "--ignore-scripts", "--json"], pkg, ok=False)
    (element,) = json.loads(done.stdout)
    found = [(d["severity"], d["code"], d["pointer"]) for d in element["error"]["diagnostics"]]
    assert found == [("note", "NB1711", "/scripts/prepack"), ("error", "NB1617", ENTRY)]
    assert (pkg / TARBALL).read_bytes() == earlier

    # without --ignore-scripts the prepack builds for production first, and the same bytes come out
    done = _build(["pack", "--trust", "first-party"], pkg)
    assert _record(pkg)["mode"] == "production"
    assert (pkg / TARBALL).read_bytes() == earlier


def test_a_failing_prepack_stops_pack_and_keeps_what_was_there(scaffold: Path) -> None:
    pkg = scaffold
    if not (pkg / TARBALL).exists():
        _build(["pack", "--trust", "first-party"], pkg)
    earlier = (pkg / TARBALL).read_bytes()
    dist = {p.relative_to(pkg).as_posix(): p.read_bytes() for p in (pkg / "dist").rglob("*") if p.is_file()}
    host = pkg / "src/app/host.tsx"
    good = host.read_text()
    host.write_text(good + 'export const broken: number = "x";\n')
    try:
        done = _build(["pack", "--trust", "first-party", "--json"], pkg, ok=False)
    finally:
        host.write_text(good)
    assert done.returncode == 1
    (element,) = json.loads(done.stdout)
    error = element["error"]
    assert [(d["code"], d["pointer"], d["message"]) for d in error["diagnostics"]] == [
        ("NB1718", "/scripts/prepack", 'the "prepack" script exited 1: npm run build')
    ]
    assert "error TS2322" in error["output"] and "error TS2322" in done.stderr
    assert (pkg / TARBALL).read_bytes() == earlier
    assert {p.relative_to(pkg).as_posix(): p.read_bytes() for p in (pkg / "dist").rglob("*") if p.is_file()} == dist
