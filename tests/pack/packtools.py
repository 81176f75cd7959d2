"""Helpers for the packing tests: file trees with symlinks and modes, real npm pack, tar entry listings."""

from __future__ import annotations

import gzip
import io
import json
import os
import shutil
import subprocess
import tarfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import build_file_tree


@dataclass(frozen=True)
class Link:
    """A symlink to ``target`` (relative to the link's folder)."""

    target: str

    def write_to(self, path: Path) -> None:
        os.symlink(self.target, path)


@dataclass(frozen=True)
class Mode:
    """A file with ``content`` and the permission bits ``mode``."""

    content: str
    mode: int

    def write_to(self, path: Path) -> None:
        path.write_text(self.content, encoding="utf-8")
        path.chmod(self.mode)


class _EmptyDir:
    def write_to(self, path: Path) -> None:
        path.mkdir(exist_ok=True)


EMPTY_DIR = _EmptyDir()


write_tree = build_file_tree
"""The tests' one tree builder (tests/conftest.py), with Link, Mode and EMPTY_DIR values for packing cases."""


def pkg_json(**fields: Any) -> dict[str, Any]:
    """A package.json for packing tests (no neuralis block unless given)."""
    return {"name": "sample", "version": "1.0.0", **fields}


@dataclass(frozen=True)
class NpmPack:
    tgz: bytes
    info: dict[str, Any]


def npm_pack(root: Path, dest: Path) -> NpmPack:
    """Run the real ``npm pack --json --ignore-scripts`` and read back the tarball it wrote."""
    dest.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        [*REFERENCE_NPM, "pack", "--json", "--ignore-scripts", "--pack-destination", str(dest)],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "npm_config_update_notifier": "false", "npm_config_loglevel": "error"},
    )
    info = json.loads(done.stdout)[0]
    return NpmPack((dest / info["filename"]).read_bytes(), info)


def tar_listing(tgz: bytes) -> list[tuple[str, str, int, int, int, str, str, bytes]]:
    """Every entry: (name, type, mode, size, mtime, uname, gname, content)."""
    out = []
    with tarfile.open(fileobj=io.BytesIO(gzip.decompress(tgz)), mode="r:") as tar:
        for member in tar.getmembers():
            data = tar.extractfile(member).read() if member.isfile() else b""  # type: ignore[union-attr]
            out.append(
                (
                    member.name,
                    member.type.decode(),
                    member.mode,
                    member.size,
                    int(member.mtime),
                    member.uname,
                    member.gname,
                    data,
                )
            )
    return out


REFERENCE = Path(__file__).resolve().parents[1] / "tools" / "node_modules"
"""The reference tools at the versions tests/tools/package.json pins (scripts/setup --test installs them):
what the toolchain is compared with is a known npm and minimatch, not whatever npm is on PATH."""

REFERENCE_NPM = ["node", str(REFERENCE / "npm" / "bin" / "npm-cli.js")]
"""The pinned npm, run by the node on PATH."""


def npm_available() -> bool:
    return shutil.which("node") is not None and (REFERENCE / "npm" / "package.json").is_file()


needs_npm = pytest.mark.skipif(
    not npm_available() and not os.environ.get("CI"), reason="node and the pinned npm (scripts/setup --test) are needed"
)


def reference_minimatch() -> Path:
    """The pinned minimatch, the version npm's pack uses."""
    return REFERENCE / "minimatch"
