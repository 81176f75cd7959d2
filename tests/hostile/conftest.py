"""Helpers of the hostile-input tests: package trees written as raw text, and the real CLI in a subprocess.

Every case builds its hostile input in a temporary folder. Cases whose failure on an unfixed toolchain
is a hang, a crash in the output encoder or a run that takes minutes drive the installed command in
a subprocess with a generous timeout; the tests never assert on how long anything took.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

CLI = str(Path(sys.executable).parent / "neuralis-build")
TIMEOUT = 240  # seconds: far above what any case needs, so only a hang (or minutes of work) reaches it


@dataclass(frozen=True)
class Done:
    """One finished command: exit code, and stdout and stderr decoded as strict UTF-8."""

    code: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)

    def report(self) -> Any:
        """The one element of a ``--format json`` array (check, ui and pack print one per PATH)."""
        data = self.json()
        assert isinstance(data, list) and len(data) == 1, data
        return data[0]

    def diagnostics(self) -> list[Any]:
        """The diagnostics of a ``check --format json`` report, or of a ``pack``/``ui`` refusal's error."""
        element = self.report()
        found: list[Any] = element["diagnostics"] if "diagnostics" in element else element["error"]["diagnostics"]
        return found

    def codes(self) -> list[str]:
        return [d["code"] for d in self.diagnostics()]


def cli(*args: str | Path, cwd: Path | None = None, env: dict[str, str] | None = None) -> Done:
    """Run the installed ``neuralis-build``; its output must be valid UTF-8 whatever the input held."""
    done = subprocess.run(
        [CLI, *map(str, args)], capture_output=True, cwd=cwd, env=env, timeout=TIMEOUT, stdin=subprocess.DEVNULL
    )
    return Done(done.returncode, done.stdout.decode("utf-8"), done.stderr.decode("utf-8"))


def write_package(root: Path, manifest_text: str, files: dict[str, str | bytes] | None = None) -> Path:
    """A package folder whose package.json is exactly ``manifest_text`` (hostile JSON is written as is)."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "package.json").write_text(manifest_text, encoding="utf-8")
    for rel, content in (files or {}).items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return root


def package_json(neuralis: Any = None, **extra: Any) -> str:
    data: dict[str, Any] = {"name": "acme-hostile", "version": "1.0.0", **extra}
    data["neuralis"] = {} if neuralis is None else neuralis
    return json.dumps(data, indent=2)


def environ(**overrides: str) -> dict[str, str]:
    env = {**os.environ, **overrides}
    env.pop("NEURALIS_TRUST", None)
    return env


@pytest.fixture
def pkg(tmp_path: Path) -> Path:
    return tmp_path / "pkg"
