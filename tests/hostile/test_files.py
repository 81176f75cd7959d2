"""Files that hung or crashed the toolchain: FIFOs, symlink loops and links out, deep trees, build leftovers."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from neuralis_build.check import check_path
from neuralis_build.pack.fields import normalize_bin
from neuralis_build.pack.packlist import packlist
from neuralis_build.package import load_package
from tests.hostile.conftest import cli, environ, package_json, write_package

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs and symlinks are POSIX")


def test_package_json_as_a_fifo_is_refused_not_waited_on(pkg: Path):
    pkg.mkdir()
    os.mkfifo(pkg / "package.json")
    for args in (
        ("check", pkg, "--trust", "untrusted", "--format", "json"),
        ("pack", pkg, "--trust", "untrusted", "--dry-run", "--json"),
    ):
        done = cli(*args)
        assert done.code == 1
        (d,) = done.diagnostics()
        assert (d["code"], d["file"]) == ("NB0005", "package.json")
        assert d["message"].startswith("package.json is a FIFO (named pipe), not a regular file")


def test_an_npmignore_fifo_is_refused_not_waited_on(pkg: Path):
    write_package(pkg, package_json())
    os.mkfifo(pkg / ".npmignore")
    done = cli("pack", pkg, "--trust", "first-party", "--dry-run", "--json")
    assert done.code == 1
    (d,) = done.diagnostics()
    assert (d["code"], d["file"], d["message"]) == (
        "NB1716",
        ".npmignore",
        ".npmignore: it is a FIFO (named pipe), not a regular file; npm pack would block reading it",
    )


def test_fifos_where_check_reads_build_outputs_and_contract_files(pkg: Path):
    module = {"app": {"module": {"entry": "dist/app/host.js"}}}
    write_package(pkg, package_json(module), {"dist/app/host.js": "export function installAcmeHostComponents() {}\n"})
    os.mkfifo(pkg / "dist/app/shared-imports.json")
    (pkg / "tools").mkdir()
    os.mkfifo(pkg / "tools/acme_tool.json")
    done = cli("check", pkg, "--trust", "first-party", "--format", "json")
    assert done.code == 1
    assert [(d["code"], d["file"], d["message"]) for d in done.diagnostics()] == [
        (
            "NB1605",
            "dist/app/shared-imports.json",
            "dist/app/shared-imports.json: cannot be read (a FIFO (named pipe))",
        )
    ]


def test_host_profile_and_spec_fifos_are_environment_errors(tmp_path: Path):
    host, spec = tmp_path / "host.json", tmp_path / "image.toml"
    os.mkfifo(host)
    os.mkfifo(spec)
    pkg = write_package(tmp_path / "pkg", package_json())
    done = cli("check", pkg, "--trust", "untrusted", "--host", host)
    assert (done.code, done.err) == (2, f"error: {host}: cannot read the host profile (a FIFO (named pipe))\n")
    done = cli("image", spec, "--out", tmp_path / "out")
    assert (done.code, done.err) == (2, f"error: {spec}: cannot read the image spec (a FIFO (named pipe))\n")


def test_a_symlink_loop_among_the_tools_is_a_located_refusal(pkg: Path):
    write_package(pkg, package_json())
    (pkg / "tools").mkdir()
    os.symlink("b.ts", pkg / "tools/a.ts")
    os.symlink("a.ts", pkg / "tools/b.ts")
    result = check_path(pkg, "untrusted")
    assert [(d.code, d.file, d.message) for d in result.diagnostics] == [
        ("NB1411", "tools/a.ts", "tools/a.ts is a symlink loop"),
        ("NB1411", "tools/b.ts", "tools/b.ts is a symlink loop"),
    ]
    assert cli("pack", pkg, "--trust", "first-party", "--dry-run").code == 1


def test_a_package_json_that_links_out_is_never_read_nor_packed(tmp_path: Path):
    outside = tmp_path / "outside.json"
    outside.write_text(json.dumps({"name": "secret-outside", "version": "9.9.9", "neuralis": {}}))
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    os.symlink(outside, pkg / "package.json")
    done = cli("check", pkg, "--trust", "untrusted", "--format", "json")
    assert done.code == 1
    assert done.report()["package"] is None and "secret-outside" not in done.out
    assert done.codes() == ["NB0005"]
    out = tmp_path / "out"
    packed = cli("pack", pkg, "--trust", "first-party", "--out", out)
    assert packed.code == 1 and "error NB0005 package.json is a symbolic link" in packed.err
    assert not out.exists() or list(out.iterdir()) == []


def test_a_bin_directory_that_links_out_is_not_walked(tmp_path: Path):
    outside = tmp_path / "usr"
    (outside / "bin").mkdir(parents=True)
    (outside / "bin" / "ls").write_text("")
    manifest = {"name": "x", "version": "1.0.0", "directories": {"bin": "lib"}}
    pkg = write_package(tmp_path / "pkg", json.dumps(manifest), {"cli.js": ""})
    os.symlink(outside, pkg / "lib")
    assert normalize_bin(manifest, pkg) == {}
    assert packlist(pkg, manifest) == ["cli.js", "package.json"]


def test_pack_dry_run_with_a_bin_directory_linked_to_usr_finishes(tmp_path: Path):
    pkg = write_package(tmp_path / "pkg", json.dumps({"name": "x", "version": "1.0.0", "directories": {"bin": "lib"}}))
    os.symlink("/usr", pkg / "lib")
    done = cli("pack", pkg, "--trust", "first-party", "--dry-run", "--json", "--trust", "untrusted")
    assert done.code == 1  # no neuralis block: check refuses it, after listing the files
    assert done.codes() == ["NB0120"]


def deep_tree(root: Path, depth: int, leaf: str = "f.js") -> str:
    """``depth`` folders named d below ``root`` with one file at the bottom; returns its relative path."""
    rel = "/".join(["d"] * depth + [leaf])
    (root / rel).parent.mkdir(parents=True)
    (root / rel).write_text("x")
    return rel


def test_pack_refuses_a_tree_600_folders_deep(pkg: Path):
    write_package(pkg, package_json())
    deep_tree(pkg, 600)
    done = cli("pack", pkg, "--trust", "first-party", "--dry-run", "--json", "--trust", "untrusted")
    assert done.code == 1
    (d,) = done.diagnostics()
    assert d["code"] == "NB1717" and d["file"] == "/".join(["d"] * 64)
    assert d["message"].endswith("holds files more than 64 segments deep; the image refuses a tarball that holds it")


def test_pack_takes_a_file_64_segments_deep_and_no_deeper(pkg: Path):
    write_package(pkg, package_json())
    rel = deep_tree(pkg, 63)
    assert rel in packlist(pkg, load_package(pkg).manifest)
    (pkg / rel).unlink()
    deep_tree(pkg / "/".join(["d"] * 63), 1)
    with pytest.raises(Exception, match="cannot list"):
        packlist(pkg, load_package(pkg).manifest)


def test_check_judges_deep_and_long_manifest_paths_without_crashing(pkg: Path):
    deep = "/".join(["dddddddd"] * 600)
    block = {
        "app": {
            "surfaces": [
                {
                    "kind": "widget",
                    "id": "w",
                    "type": "w",
                    "title": "W",
                    "component": {"renderer": "iframe", "url": f"./app/surfaces/widget/w/{deep}/index.html"},
                }
            ]
        },
        "team": [{"id": "m", "name": "M", "template": f"team2/{deep}/m.md"}],
    }
    write_package(pkg, package_json(block))
    deep_tree(pkg / "tools", 600)
    deep_tree(pkg / "app/surfaces/widget", 600)
    result = check_path(pkg, "untrusted")
    assert [(d.code, d.pointer) for d in result.diagnostics if d.severity == "error"] == [
        ("NB0507", "/neuralis/app/surfaces/0/component/url"),
        ("NB1407", "/neuralis/team/0/template"),
    ]
    assert "is longer than 1,024 bytes" in result.diagnostics[0].message


def test_pack_never_ships_the_folders_a_killed_ui_build_left(pkg: Path):
    leftovers = {
        "dist/.app-x1y2/tsconfig.json": '{"extends": "/home/builder/acme/tsconfig.json"}',
        "dist/.app-old-k3/host.js": "old",
        "dist/.server-z9/meta.json": "{}",
        "dist/src/.events-old-q1/report.js": "old",
        "dist/.routes-old-q2/a.js": "old",
    }
    write_package(pkg, package_json(files=["dist"]), {"dist/app/host.js": "x", "dist/.appendix/a.js": "a", **leftovers})
    done = cli("pack", pkg, "--trust", "first-party", "--dry-run", "--json", "--trust", "untrusted")
    assert done.code == 0, done.err
    assert [f["path"] for f in done.json()[0]["files"]] == ["dist/.appendix/a.js", "dist/app/host.js", "package.json"]


@pytest.mark.parametrize("printed", ["not json \\377", "{}", "[1, {}]", "\\377\\376"])
def test_a_node_that_prints_garbage_leaves_pack_on_its_own_order(tmp_path: Path, printed: str):
    fake = tmp_path / "bin" / "node"
    fake.parent.mkdir()
    fake.write_text(f"#!/bin/sh\nprintf '{printed}'\n")
    fake.chmod(0o755)
    pkg = write_package(tmp_path / "pkg", package_json(), {"é.js": "e", "a.js": "a"})
    done = cli(
        "pack", pkg, "--dry-run", "--trust", "untrusted", env=environ(PATH=f"{fake.parent}:{os.environ['PATH']}")
    )
    assert done.code == 0, done.err
    assert "warning NB1713 some file names are not ASCII and node is not on PATH (or did not answer)" in done.err


def test_hostile_dependencies_in_node_modules_neither_hang_nor_crash_check(pkg: Path):
    module = {"app": {"module": {"entry": "dist/app/host.js"}}}
    write_package(pkg, package_json(module), {"dist/app/host.js": "export function installAcmeHostComponents() {}\n"})
    (pkg / "node_modules" / "fifo").mkdir(parents=True)
    os.mkfifo(pkg / "node_modules" / "fifo" / "package.json")
    deep = '{"neuralis": {"app": {"module": ' + "[" * 5000 + "]" * 5000 + "}}}"
    write_package(pkg / "node_modules" / "deep", deep)
    done = cli("check", pkg, "--trust", "first-party", "--format", "json")
    assert done.code == 1  # the record was never built
    # each hostile package.json is named (a warning), never waited on, never a crash
    assert [(d["code"], d["file"]) for d in done.diagnostics()] == [
        ("NB1604", "dist/app/shared-imports.json"),
        ("NB1917", "node_modules/deep/package.json"),
        ("NB1917", "node_modules/fifo/package.json"),
    ]


def test_an_iframe_entry_that_is_a_fifo_is_named_so(pkg: Path):
    url = "./app/surfaces/widget/w/index.html"
    surface = {"kind": "widget", "id": "w", "type": "w", "title": "W", "component": {"renderer": "iframe", "url": url}}
    write_package(pkg, package_json({"app": {"surfaces": [surface]}}))
    (pkg / "app/surfaces/widget/w").mkdir(parents=True)
    os.mkfifo(pkg / "app/surfaces/widget/w/index.html")
    done = cli("check", pkg, "--trust", "untrusted", "--format", "json")
    assert [(d["code"], d["message"]) for d in done.diagnostics()] == [
        ("NB0509", "the entry app/surfaces/widget/w/index.html is not a regular file")
    ]
