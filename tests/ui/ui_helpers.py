"""Helpers of the UI build tests: package trees, whole-tree snapshots, example copies, npm."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

from tests.conftest import build_file_tree as build_file_tree  # the one tree builder, re-exported

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "example-packages"
REACT_VERSION = "19.2.0"

HOST_TSX = """\
import { useState } from "react";
export function Hello() {
  const [n] = useState(1);
  return <p className="hello">hello {n}</p>;
}
export function installAcmeWidgetsHostComponents(host: { registerWidget(t: string, c: unknown): void }) {
  host.registerWidget("acme.hello", Hello);
}
"""


def ui_manifest(module: Any = None, **extra: Any) -> dict[str, Any]:
    """package.json of a first-party UI package (app.module declares host.js only by default)."""
    data: dict[str, Any] = {
        "name": "@acme/widgets",
        "version": "1.0.0",
        "devDependencies": {"react": "^19.0.0"},
        "neuralis": {"app": {"module": module if module is not None else {"entry": "dist/app/host.js"}}},
    }
    data.update(extra)
    return data


def copy_example(name: str, dest: Path) -> Path:
    """A scratch copy of an example package (tests never write into the repository)."""
    target = dest / name
    shutil.copytree(EXAMPLES / name, target, ignore=shutil.ignore_patterns("node_modules", "dist"))
    return target


def link_package(consumer: Path, provider: Path, name: str) -> None:
    """Install ``provider`` into ``consumer``'s node_modules as ``name`` (a symlink, as npm does for file:)."""
    target = consumer / "node_modules" / name
    target.parent.mkdir(parents=True, exist_ok=True)
    os.symlink(os.path.relpath(provider, target.parent), target)


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` with its bytes (to compare whole output trees)."""
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def codes(exc: Any) -> list[tuple[str, str, str, int | None]]:
    """(code, file, pointer, line) of each diagnostic of a DiagnosedError."""
    return [(d.code, d.file, d.pointer, d.line) for d in exc.diagnostics]


def npm(args: list[str], cwd: Path) -> None:
    subprocess.run(["npm", *args, "--no-audit", "--no-fund", "--loglevel=error"], cwd=cwd, check=True, timeout=600)
