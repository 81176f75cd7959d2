"""The templates really ship: build the wheel, install it in a fresh virtualenv, scaffold from it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from neuralis_build import __version__
from neuralis_build.scaffold.create import Request, create, plan

from ..conftest import REPO
from .conftest import BIN, read_tree, workflow_steps

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

TEMPLATES = ["minimal", "tools", "widget", "ui-module", "full"]


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, f"{args} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}"
    return done


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """This checkout's wheel, built once with pypa/build."""
    dist = tmp_path_factory.mktemp("dist")
    _run([sys.executable, "-m", "build", "--wheel", "--outdir", str(dist), str(REPO)], dist)
    return dist / f"neuralis_build-{__version__}-py3-none-any.whl"


def test_the_installed_wheel_scaffolds_every_template(wheel: Path, tmp_path: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        shipped = {n for n in names if n.startswith("neuralis_build/_templates/")}
    assert {f"neuralis_build/_templates/{t}/template.toml" for t in TEMPLATES} <= shipped
    # The host API's declarations and the host page's own files ship too (neuralis-build dev needs them).
    assert {
        "neuralis_build/data/types/neuralis-client.d.ts",
        "neuralis_build/data/hostpage/host-page.js",
        "neuralis_build/data/hostpage/host-page.css",
        "neuralis_build/data/hostpage/dev-client.js",
        "neuralis_build/data/hostpage/neuralis-client.js",
    } <= names
    # explain's entries ship as data, one TOML file per family of codes
    assert len({n for n in names if n.startswith("neuralis_build/data/explain/") and n.endswith(".toml")}) >= 10

    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", str(venv)], tmp_path)
    _run(
        [str(venv / "bin/python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", str(wheel)],
        tmp_path,
    )

    where = _run(
        [
            str(venv / "bin/python"),
            "-c",
            "from neuralis_build.scaffold.templates import templates_root; print(templates_root())",
        ],
        tmp_path,
    ).stdout.strip()
    assert Path(where).is_relative_to(venv) and Path(where).name == "_templates"

    listed = _run([str(venv / "bin/neuralis"), "new", "--list"], tmp_path).stdout
    assert [line.split()[0] for line in listed.splitlines()] == TEMPLATES

    for template in TEMPLATES:
        _run(
            [
                str(venv / "bin/neuralis"),
                "new",
                "@acme/reports",
                "-t",
                template,
                "--dir",
                f"wheel-{template}",
                "--no-input",
            ],
            tmp_path,
        )
        # The checkout's templates, rendered by this process: the wheel must give the very same bytes.
        create(plan(Request(name="@acme/reports", template=template, directory=tmp_path / f"repo-{template}")))
        assert read_tree(tmp_path / f"wheel-{template}") == read_tree(tmp_path / f"repo-{template}")


def _fresh_shell(command: str, cwd: Path, path: list[Path], home: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """``command`` in a login-less bash with nothing but HOME, this PATH and ``env`` (what a new terminal has)."""
    node_dir = Path(shutil.which("node") or "/usr/bin/node").parent
    environ = {"HOME": str(home), "PATH": os.pathsep.join([*map(str, path), str(node_dir), "/usr/bin", "/bin"]), **env}
    return subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", command],
        cwd=cwd,
        env=environ,
        capture_output=True,
        text=True,
        timeout=900,
    )


def test_the_ci_install_step_puts_the_toolchain_where_npm_scripts_find_it(wheel: Path, tmp_path: Path) -> None:
    """A scaffolded package's CI install step with the real pipx, NEURALIS_BUILD_INSTALL naming this wheel (what a
    repository sets before a release is on PyPI); then the package's npm scripts in a fresh shell. Without the
    tool, one clear line naming the spec package.json pins."""
    home = tmp_path / "home"
    home.mkdir()
    pipx_venv = tmp_path / "pipx-venv"
    _run([sys.executable, "-m", "venv", str(pipx_venv)], tmp_path)
    _run(
        [str(pipx_venv / "bin/python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "pipx"],
        tmp_path,
    )
    _run([str(BIN / "neuralis"), "new", "@acme/board", "--template", "widget", "--no-input"], tmp_path)
    board = tmp_path / "board"
    (name, step), *_ = workflow_steps(board)
    assert name == "Install neuralis-build"

    bin_dir = tmp_path / "bin"
    pipx = {"PIPX_HOME": str(tmp_path / "pipx"), "PIPX_BIN_DIR": str(bin_dir)}
    installed = _fresh_shell(step, board, [pipx_venv / "bin"], home, NEURALIS_BUILD_INSTALL=str(wheel), **pipx)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    assert sorted(p.name for p in bin_dir.iterdir()) == ["neuralis", "neuralis-build"]
    version = _fresh_shell("neuralis-build --version", tmp_path, [bin_dir], home)
    assert version.stdout == f"neuralis-build {__version__}\n"

    checked = _fresh_shell("npm run check", board, [bin_dir], home)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "✓ @acme/board (., untrusted): no findings" in checked.stdout

    missing = _fresh_shell("npm run check", board, [], home)
    assert missing.returncode != 0
    spec = f'"neuralis-build=={__version__}"'
    assert f"neuralis-build is not installed (or not on PATH): install it with `pipx install {spec}`" in missing.stderr
    assert "not found" not in missing.stderr
