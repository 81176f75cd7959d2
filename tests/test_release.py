"""The release: the sdist and the wheel build from a clean copy of the checkout, pass `twine check`, and the wheel
installed alone runs; the release and CI workflows mean what docs/contributing.md says they do."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path
from typing import Any

import pytest

from neuralis_build import __version__
from tests.conftest import REPO

WORKFLOWS = REPO / ".github" / "workflows"
# What a checkout holds that is no part of it: set-up outputs, caches, and what a build or a demo leaves.
NOT_SOURCES = shutil.ignore_patterns(
    ".git", ".venv", "node_modules", "__pycache__", ".*_cache", "build", "dist", "site", "registry-tarballs"
)


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, f"{args} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}"
    return done


@pytest.mark.e2e
@pytest.mark.slow
def test_the_sdist_and_wheel_build_pass_twine_check_and_the_wheel_runs_alone(tmp_path: Path) -> None:
    checkout = tmp_path / "checkout"
    shutil.copytree(REPO, checkout, ignore=NOT_SOURCES, symlinks=True)
    dist = tmp_path / "dist"
    # What the release workflow runs: `build` makes the sdist, then the wheel from the sdist (so an sdist that
    # leaves out a file the wheel needs fails here), and twine judges both as PyPI would.
    _run([sys.executable, "-m", "build", "--outdir", str(dist), str(checkout)], tmp_path)
    sdist, wheel = (
        dist / f"neuralis_build-{__version__}.tar.gz",
        dist / f"neuralis_build-{__version__}-py3-none-any.whl",
    )
    assert sorted(p.name for p in dist.iterdir()) == sorted([sdist.name, wheel.name])
    checked = _run([sys.executable, "-m", "twine", "check", "--strict", str(sdist), str(wheel)], tmp_path)
    assert checked.stdout.count("PASSED") == 2, checked.stdout

    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
    assert "neuralis_build/_templates/ui-module/template.toml" in names  # the templates ship in the wheel
    assert not [n for n in names if n.startswith(("tests/", "docs/", "docsgen/"))]
    with tarfile.open(sdist) as archive:
        members = {m.name.split("/", 1)[1] for m in archive.getmembers() if "/" in m.name}
    assert {"README.md", "pyproject.toml", "templates/minimal/template.toml", "docs/index.md"} <= members

    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", str(venv)], tmp_path)
    _run([str(venv / "bin/python"), "-m", "pip", "install", "-q", "--disable-pip-version-check", str(wheel)], tmp_path)
    # Run from a folder with no checkout in sight, with nothing but the venv's scripts on PATH.
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert _run([str(venv / "bin/neuralis-build"), "--version"], elsewhere).stdout == f"neuralis-build {__version__}\n"
    listed = _run([str(venv / "bin/neuralis"), "new", "--list"], elsewhere).stdout
    assert [line.split()[0] for line in listed.splitlines()] == ["minimal", "tools", "widget", "ui-module", "full"]


def _workflow(name: str) -> dict[str, Any]:
    import yaml

    loaded: dict[Any, Any] = yaml.safe_load((WORKFLOWS / name).read_text(encoding="utf-8"))
    # YAML 1.1 reads the key `on` as the boolean true; GitHub reads it as "on".
    if True in loaded:
        loaded["on"] = loaded.pop(True)
    return loaded


def _step(job: dict[str, Any], text: str) -> dict[str, Any]:
    """The one step of ``job`` whose name, ``uses`` or ``run`` holds ``text``."""
    found = [s for s in job["steps"] if any(text in str(s.get(k, "")) for k in ("name", "uses", "run"))]
    assert len(found) == 1, f"{text!r}: {found}"
    return found[0]


def test_the_release_workflow_publishes_a_version_tag_by_trusted_publishing() -> None:
    release = _workflow("release.yml")
    assert release["on"] == {"push": {"tags": ["v*"]}}  # a version tag, nothing else
    assert release["permissions"] == {"contents": "read"}  # every job starts read-only
    jobs = release["jobs"]
    assert set(jobs) == {"build", "test", "publish", "github-release"}

    build = jobs["build"]
    assert "permissions" not in build
    assert _step(build, "python -m build")["run"] == "python -m build --outdir dist"
    assert _step(build, "twine check")["run"] == "python -m twine check --strict dist/*"
    assert _step(build, "upload-artifact")["with"]["path"] == "dist/"
    assert jobs["test"] == {"uses": "./.github/workflows/ci.yml"}  # the whole CI, before anything is published

    publish = jobs["publish"]
    assert publish["needs"] == ["build", "test"]
    assert publish["environment"]["name"] == "pypi"  # the environment PyPI's trusted publisher names
    assert publish["permissions"] == {"id-token": "write"}  # the OIDC token, and nothing else
    uses = _step(publish, "pypa/gh-action-pypi-publish")
    assert uses["uses"] == "pypa/gh-action-pypi-publish@release/v1"
    assert "with" not in uses  # no password or token: trusted publishing
    assert _step(publish, "download-artifact")["with"]["name"] == "dist"  # the files build checked

    github = jobs["github-release"]
    assert (github["needs"], github["permissions"]) == ("publish", {"contents": "write"})
    attach = _step(github, "gh release create")["run"]
    assert 'gh release create "$GITHUB_REF_NAME" dist/*.whl dist/*.tar.gz' in attach

    # what docs/contributing.md tells a maintainer to set up on PyPI and GitHub is what the workflow uses
    releasing = (REPO / "docs/contributing.md").read_text(encoding="utf-8").split("## Releasing", 1)[1]
    for said in ("a tag `v*`", "`id-token: write`", "environment `pypi`", "`release.yml`", "twine check --strict"):
        assert said in " ".join(releasing.split()), said


@pytest.mark.parametrize(
    ("tag", "ok"), [(f"v{__version__}", True), ("v99.0.0", False), (__version__, False), (f"v{__version__}.1", False)]
)
def test_the_release_refuses_a_tag_that_is_not_the_version(tag: str, ok: bool, tmp_path: Path) -> None:
    """The build job's first check, run as GitHub runs a step: bash -e in the checkout."""
    step = _step(_workflow("release.yml")["jobs"]["build"], "The tag names the version")
    done = subprocess.run(
        ["bash", "-e", "-c", step["run"]],
        cwd=REPO,
        env={"PATH": os.environ["PATH"], "GITHUB_REF_NAME": tag},
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert (done.returncode == 0) is ok, done.stdout + done.stderr
    if not ok:
        assert done.stdout == (
            f"::error::the tag {tag} does not name the version in neuralis_build/__init__.py (v{__version__})\n"
        )


def test_ci_runs_the_ci_script_on_pushes_pull_requests_and_for_the_release() -> None:
    ci = _workflow("ci.yml")
    assert ci["on"] == {"push": {"branches": ["main"]}, "pull_request": None, "workflow_call": None}
    assert ci["permissions"] == {"contents": "read"}
    (job,) = ci["jobs"].values()
    assert job["container"]["image"].endswith("-bookworm")  # Debian: scripts/setup installs Debian's chromium
    assert job["container"]["options"] == "--privileged"  # the image build's sandbox makes namespaces
    assert _step(job, ".ci/run")["run"] == ".ci/run"
    assert (REPO / ".ci/run").stat().st_mode & 0o111
