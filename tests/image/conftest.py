"""Helpers for the image tests: tarballs crafted in the test (honest and hostile), SPEC files, and a CLI runner."""

from __future__ import annotations

import gzip
import io
import json
import tarfile
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from neuralis_build.cli.build import main

Member = tuple[str, Any]  # (name, bytes | str | TarInfo-tweaking dict)


def raw_tgz(members: Iterable[tarfile.TarInfo | tuple[tarfile.TarInfo, bytes]], *, compress: bool = True) -> bytes:
    """A tarball of exactly these members, in this order, with no sanitising at all (for hostile cases)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as archive:
        for member in members:
            if isinstance(member, tuple):
                info, data = member
                info.size = len(data)
                archive.addfile(info, io.BytesIO(data))
            else:
                archive.addfile(member)
    data = buffer.getvalue()
    return gzip.compress(data, mtime=0) if compress else data


def file_info(name: str, data: bytes) -> tuple[tarfile.TarInfo, bytes]:
    info = tarfile.TarInfo(name)
    info.mode = 0o644
    info.mtime = 499162500
    return info, data


def special(name: str, kind: bytes, linkname: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = linkname
    info.mode = 0o644
    return info


def package_tgz(manifest: Mapping[str, Any], files: Mapping[str, str | bytes] | None = None) -> bytes:
    """An npm-style package tarball: package/package.json plus ``files``, all under package/."""
    members = [file_info("package/package.json", (json.dumps(manifest, indent=2) + "\n").encode())]
    for path, content in (files or {}).items():
        members.append(file_info(f"package/{path}", content.encode() if isinstance(content, str) else content))
    return raw_tgz(members)


def write_tgz(folder: Path, name: str, data: bytes) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_bytes(data)
    return path


def spec_text(*entries: Mapping[str, str], extra: str = "") -> str:
    """A SPEC with one [[packages]] table per entry (string values only)."""
    lines: list[str] = []
    for entry in entries:
        lines.append("[[packages]]")
        lines.extend(f"{key} = {json.dumps(value)}" for key, value in entry.items())
        lines.append("")
    return "\n".join(lines) + extra


@dataclass
class Run:
    """One in-process run of ``neuralis-build``: the exit code, stdout, stderr and the parsed report."""

    code: int
    out: str
    err: str
    image: Path

    @property
    def report(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads((self.image / "neuralis-image.json").read_text("utf-8"))
        return data

    def package(self, name: str) -> dict[str, Any]:
        return next(p for p in self.report["packages"] if p["name"] == name or p["source"] == name)

    def codes(self, name: str) -> list[tuple[str, str, str]]:
        return [(d["severity"], d["code"], d["pointer"]) for d in self.package(name)["diagnostics"]]


@pytest.fixture
def run_image(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Callable[..., Run]:
    """Write a SPEC into tmp_path and run ``neuralis-build image`` on it in-process."""

    def run(spec: str, *args: str, out: Path | None = None, spec_name: str = "image.toml") -> Run:
        spec_path = tmp_path / spec_name
        spec_path.write_text(spec, "utf-8")
        image = out or tmp_path / "out"
        capsys.readouterr()
        code = main(["image", str(spec_path), "--out", str(image), "--format", "json", *args])
        captured = capsys.readouterr()
        return Run(code, captured.out, captured.err, image)

    return run


def tree_bytes(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` with its bytes (what "the same bytes" compares)."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}
