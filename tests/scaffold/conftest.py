"""Helpers for the scaffold tests: run `neuralis` in-process and read back the folder it wrote."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from neuralis_build.cli.new import main

BIN = Path(sys.executable).parent
"""Where this environment's console scripts are (neuralis, neuralis-build)."""


@dataclass(frozen=True)
class Run:
    code: int
    out: str
    err: str


NewRunner = Callable[..., Run]


@pytest.fixture
def new(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> NewRunner:
    """Run ``neuralis <args>`` in-process from ``tmp_path``; return the exit code and both outputs."""
    monkeypatch.chdir(tmp_path)

    def run(*args: str) -> Run:
        capsys.readouterr()
        code = main(list(args))
        captured = capsys.readouterr()
        return Run(code, captured.out, captured.err)

    return run


def read_tree(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` (relative POSIX path → bytes), ``.git`` left out."""
    files = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != ".git"]
        for name in filenames:
            path = Path(dirpath, name)
            files[path.relative_to(root).as_posix()] = path.read_bytes()
    return dict(sorted(files.items()))


def listing(root: Path) -> list[str]:
    """Every file and folder under ``root``, folders with a trailing slash (to see stray folders too)."""
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        rel = Path(dirpath).relative_to(root)
        found += [(rel / d).as_posix() + "/" for d in dirnames]
        found += [(rel / f).as_posix() for f in filenames]
    return sorted(found)


def workflow_steps(pkg: Path) -> list[tuple[str, str]]:
    """(name, command) of each ``run`` step of the package's generated CI workflow, in order."""
    import yaml

    workflow = yaml.safe_load((pkg / ".github/workflows/package.yml").read_text())
    return [
        (step.get("name", step["run"]), step["run"]) for step in workflow["jobs"]["package"]["steps"] if "run" in step
    ]


def pack_step(trust: str, *, built: bool = False) -> str:
    """The generated workflow's pack step: pack, then hand the tarball's name (pack's last line) to the upload.

    After the template's build steps (``built``) it packs with --ignore-scripts: prepack would build again."""
    flags = " --ignore-scripts" if built else ""
    return (
        f'tarball="$(neuralis-build pack --trust {trust}{flags} --out packed | tail -n 1)"\n'
        'echo "tarball=$tarball" >> "$GITHUB_OUTPUT"\n'
    )
