"""`neuralis-build pack` end to end: written or not, npm's --json, refusals, atomic writes, same bytes twice."""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import os
import subprocess
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from packtools import needs_npm

from neuralis_build.cli.build import main
from neuralis_build.pack import tarball
from neuralis_build.pack.tarball import pack_package
from neuralis_build.package import load_package

Tree = Callable[..., Path]
GOOD = {
    "package.json": {
        "name": "@acme/reports",
        "version": "1.2.0",
        "files": ["lib"],
        "exports": {".": "./lib/index.js", "./package.json": "./package.json"},
        "neuralis": {"name": "Reports"},
    },
    "lib/index.js": "module.exports = 1;\n",
    "README.md": "# Reports\n",
}


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_writes_npms_file_name_into_out(tree: Tree, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tree(GOOD)
    code, out, err = run(["pack", "--trust", "first-party", str(root), "--out", str(tmp_path / "out")], capsys)
    assert (code, out) == (0, "acme-reports-1.2.0.tgz\n")
    assert sorted(os.listdir(tmp_path / "out")) == ["acme-reports-1.2.0.tgz"]
    assert "integrity" in err and "lib" in err and "index.js" in err
    assert "judged at      first-party" in err  # pack says the tier it judged the package at


def test_dry_run_writes_nothing(
    tree: Tree, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tree(GOOD)
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(["pack", "--trust", "first-party", str(root), "--dry-run"], capsys)
    assert (code, out) == (0, "acme-reports-1.2.0.tgz\n")
    assert not list(tmp_path.glob("*.tgz")) and not list(root.glob("*.tgz"))


def test_json_is_npms_shape(tree: Tree, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["pack", "--trust", "first-party", str(tree(GOOD)), "--dry-run", "--json"], capsys)
    assert code == 0
    (report,) = json.loads(out)
    assert list(report) == [
        "id",
        "name",
        "version",
        "size",
        "unpackedSize",
        "shasum",
        "integrity",
        "filename",
        "files",
        "entryCount",
        "bundled",
    ]
    assert report["files"] == [
        {"path": "README.md", "size": 10, "mode": 420},
        {"path": "lib/index.js", "size": 20, "mode": 420},
        {"path": "package.json", "size": len((tree(GOOD) / "package.json").read_bytes()), "mode": 420},
    ]
    assert (report["id"], report["filename"], report["entryCount"]) == (
        "@acme/reports@1.2.0",
        "acme-reports-1.2.0.tgz",
        3,
    )


def test_refusal_exits_1_and_leaves_the_earlier_tarball(
    tree: Tree, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    (out_dir / "acme-reports-1.2.0.tgz").write_bytes(b"earlier")
    bad = {**GOOD, "package.json": {**GOOD["package.json"], "exports": {".": "./lib/index.js"}}}
    code, out, err = run(["pack", "--trust", "first-party", str(tree(bad)), "--out", str(out_dir)], capsys)
    assert (code, out) == (1, "")
    assert "NB1707" in err and "/exports" in err
    assert (out_dir / "acme-reports-1.2.0.tgz").read_bytes() == b"earlier"
    root = str(tree(bad))
    code, out, _ = run(["pack", "--trust", "first-party", root, "--json"], capsys)
    (report,) = json.loads(out)  # an array, as npm pack --json prints, with the refusal as an error element
    assert (code, report["path"], report["error"]["kind"], report["error"]["exitCode"]) == (1, root, "input", 1)
    assert report["error"]["message"] == "@acme/reports was not packed (judged at first-party)"
    assert [d["code"] for d in report["error"]["diagnostics"]] == ["NB1707"]


def test_failed_write_leaves_the_earlier_tarball(
    tree: Tree, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    (out_dir / "acme-reports-1.2.0.tgz").write_bytes(b"earlier")

    def fail(*_: Any) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(tarball.os, "replace", fail)
    code, _, err = run(["pack", "--trust", "first-party", str(tree(GOOD)), "--out", str(out_dir)], capsys)
    assert code == 2 and "No space left" in err
    assert sorted(os.listdir(out_dir)) == ["acme-reports-1.2.0.tgz"]
    assert (out_dir / "acme-reports-1.2.0.tgz").read_bytes() == b"earlier"


def test_same_inputs_same_bytes(tree: Tree, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tree(GOOD)
    first = pack_package(load_package(root))
    os.utime(root / "lib/index.js", (1, 1))  # npm's fixed mtime: the clock must not matter
    (root / "lib/index.js").chmod(0o664)  # neither does a group-write umask
    second = pack_package(load_package(root))
    assert first.tgz == second.tgz and first.integrity == second.integrity
    for out in ("a", "b"):
        assert run(["pack", "--trust", "first-party", str(root), "--out", str(tmp_path / out)], capsys)[0] == 0
    assert (tmp_path / "a/acme-reports-1.2.0.tgz").read_bytes() == (tmp_path / "b/acme-reports-1.2.0.tgz").read_bytes()


def test_gzip_frame_and_hashes(tree: Tree) -> None:
    result = pack_package(load_package(tree(GOOD)))
    assert result.tgz[:10] == b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff"
    tar = gzip.decompress(result.tgz)
    assert int.from_bytes(result.tgz[-8:-4], "little") == zlib.crc32(tar)
    assert len(tar) == result.tar_size and len(tar) % 512 == 0 and tar.endswith(bytes(1024))
    assert result.shasum == hashlib.sha1(result.tgz).hexdigest()
    assert result.integrity == "sha512-" + base64.b64encode(hashlib.sha512(result.tgz).digest()).decode()


@pytest.mark.parametrize(
    ("name", "version", "json_name", "disk_name"),
    [
        ("@acme/reports", "1.2.0", "acme-reports-1.2.0.tgz", "acme-reports-1.2.0.tgz"),
        ("plain", "v1.2.3+build.5", "plain-v1.2.3+build.5.tgz", "plain-v1.2.3+build.5.tgz"),
        ("@Sc/N", "1.0.0", "Sc-N-1.0.0.tgz", "Sc-N-1.0.0.tgz"),
    ],
)
def test_file_name_rule(name: str, version: str, json_name: str, disk_name: str) -> None:
    result = tarball.build_result(name, version, [])
    assert (result.filename, result.disk_filename) == (json_name, disk_name)


@pytest.mark.e2e
@needs_npm
def test_npm_installs_our_tarball_and_node_resolves_package_json(
    tree: Tree, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["pack", "--trust", "first-party", str(tree(GOOD)), "--out", str(tmp_path)], capsys)[0] == 0
    project = tmp_path / "project"
    project.mkdir()
    (project / "package.json").write_text('{"name": "consumer", "version": "1.0.0", "private": true}\n')
    env = {**os.environ, "npm_config_update_notifier": "false", "npm_config_audit": "false", "npm_config_fund": "false"}
    subprocess.run(
        ["npm", "install", "--offline", "--ignore-scripts", str(tmp_path / "acme-reports-1.2.0.tgz")],
        cwd=project,
        check=True,
        capture_output=True,
        env=env,
    )
    done = subprocess.run(
        [
            "node",
            "-e",
            "console.log(require.resolve('@acme/reports/package.json')); console.log(require('@acme/reports'))",
        ],
        cwd=project,
        check=True,
        capture_output=True,
        text=True,
    )
    assert done.stdout.splitlines() == [str(project / "node_modules/@acme/reports/package.json"), "1"]
    installed = sorted(
        p.relative_to(project / "node_modules/@acme/reports").as_posix()
        for p in (project / "node_modules/@acme/reports").rglob("*")
        if p.is_file()
    )
    assert installed == ["README.md", "lib/index.js", "package.json"]
