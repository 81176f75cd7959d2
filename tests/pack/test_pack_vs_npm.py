"""Real ``npm pack`` and ``neuralis-build pack`` on the same trees: same file list, same uncompressed tar bytes."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
from pathlib import Path

import pytest
from npmcases import CASES
from packtools import REFERENCE_NPM, needs_npm, npm_pack, pkg_json, tar_listing, write_tree

from neuralis_build.pack.packlist import packlist
from neuralis_build.pack.tarball import pack_package
from neuralis_build.package import load_package

pytestmark = [pytest.mark.e2e, needs_npm]


@pytest.fixture(scope="module")
def npm_packed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, bytes, dict]]:
    """Every case packed by one ``npm pack`` run (npm accepts many folders), keyed by case name."""
    base = tmp_path_factory.mktemp("cases")
    dest = tmp_path_factory.mktemp("npm-out")
    roots = {name: write_tree(base / name, tree) for name, tree in CASES.items()}
    roots = dict(sorted(roots.items()))
    names = list(roots)
    done = subprocess.run(
        [
            *REFERENCE_NPM,
            "pack",
            "--json",
            "--ignore-scripts",
            "--pack-destination",
            str(dest),
            *(str(roots[n]) for n in names),
        ],
        cwd=base,
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "npm_config_update_notifier": "false", "npm_config_loglevel": "error"},
    )
    infos = json.loads(done.stdout)
    assert len(infos) == len(names)
    return {n: (roots[n], (dest / info["filename"]).read_bytes(), info) for n, info in zip(names, infos, strict=True)}


@pytest.mark.parametrize("case", sorted(CASES))
def test_same_tarball_as_npm(case: str, npm_packed: dict[str, tuple[Path, bytes, dict]]) -> None:
    root, npm_tgz, npm_info = npm_packed[case]
    ours = pack_package(load_package(root))

    # the file list, in npm's --json order, with sizes and modes
    assert [f["path"] for f in ours.to_npm_json()["files"]] == [f["path"] for f in npm_info["files"]]
    # every tar entry: name, type, mode, size, mtime, owner fields, content
    assert tar_listing(ours.tgz) == tar_listing(npm_tgz)
    # and the whole uncompressed stream, headers and padding included
    assert gzip.decompress(ours.tgz) == gzip.decompress(npm_tgz)
    same = {k: v for k, v in npm_info.items() if k not in ("size", "shasum", "integrity")}
    assert {k: v for k, v in ours.to_npm_json().items() if k in same} == same


@pytest.mark.parametrize("case", sorted(CASES))
def test_packlist_is_npm_tar_order(case: str, npm_packed: dict[str, tuple[Path, bytes, dict]]) -> None:
    root, npm_tgz, _ = npm_packed[case]
    names = [entry[0].removeprefix("package/") for entry in tar_listing(npm_tgz)]
    ours = packlist(root, json.loads((root / "package.json").read_text(encoding="utf-8")))
    if case == "odd-names":  # node-tar strips drive roots from names: a:b.js is packed as b.js
        ours = [p.replace("a:b.js", "b.js").replace("c:/d.js", "d.js") for p in ours]
    assert ours == names


def test_hard_links_are_written_as_regular_files(tmp_path: Path) -> None:
    """npm writes a second hard link as a Link entry that installs drop (npm/cli#7608); we write the file."""
    root = write_tree(tmp_path / "pkg", {"a.js": "same", "package.json": pkg_json()})
    os.link(root / "a.js", root / "b.js")
    npm = subprocess.run(
        [*REFERENCE_NPM, "pack", "--json", "--ignore-scripts", "--pack-destination", str(tmp_path)],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    )
    npm_tgz = (tmp_path / json.loads(npm.stdout)[0]["filename"]).read_bytes()
    npm_types = {e[0]: (e[1], e[3]) for e in tar_listing(npm_tgz)}
    assert npm_types["package/b.js"] == ("1", 0)
    ours = {e[0]: (e[1], e[3], e[7]) for e in tar_listing(pack_package(load_package(root)).tgz)}
    assert ours["package/a.js"] == ours["package/b.js"] == ("0", 4, b"same")


WORKSPACE = {
    "package.json": {"name": "root", "private": True, "workspaces": ["packages/*", "tools/cli", "!packages/skipped"]},
    ".gitignore": "coverage\n*.log\nnode_modules\n",
    "packages/.gitignore": "tmp-*\n",
    "packages/alpha/package.json": pkg_json(name="alpha"),
    "packages/alpha/index.js": "a",
    "packages/alpha/debug.log": "ignored by the root's .gitignore",
    "packages/alpha/coverage/lcov.info": "ignored by the root's .gitignore",
    "packages/alpha/tmp-notes.txt": "ignored by packages/.gitignore",
    "packages/beta/package.json": pkg_json(name="beta"),
    "packages/beta/.npmignore": "!*.log\n",  # its own rules come after the root's, and win
    "packages/beta/keep.log": "kept",
    "packages/beta/tmp-x.txt": "ignored by packages/.gitignore",
    "packages/skipped/package.json": pkg_json(name="skipped"),
    "packages/skipped/debug.log": "not a workspace (negated): packed with its own rules only",
    "tools/.npmignore": "*.txt\n",  # a folder's .npmignore hides its .gitignore
    "tools/.gitignore": "*.js\n",
    "tools/cli/package.json": pkg_json(name="cli"),
    "tools/cli/cli.js": "c",
    "tools/cli/notes.txt": "ignored by tools/.npmignore",
    "tools/cli/debug.log": "ignored by the root's .gitignore",
    "tools/other/package.json": pkg_json(name="other"),
    "tools/other/debug.log": "not a workspace: packed",
}


@pytest.mark.parametrize("member", ["packages/alpha", "packages/beta", "packages/skipped", "tools/cli", "tools/other"])
def test_a_workspace_member_packed_in_its_folder_reads_the_roots_ignore_files(member: str, tmp_path: Path) -> None:
    """``npm pack`` in a member folder finds the workspace root above it and reads the ignore files of the root
    and of each folder down to the member's parent (npm-packlist's readOutOfTreeIgnoreFiles); so does pack."""
    monorepo = write_tree(tmp_path / "repo", WORKSPACE)
    root = monorepo / member
    npm_info = npm_pack(root, tmp_path / "npm-out")
    ours = pack_package(load_package(root))
    assert [f["path"] for f in ours.to_npm_json()["files"]] == [f["path"] for f in npm_info.info["files"]]
    assert gzip.decompress(ours.tgz) == gzip.decompress(npm_info.tgz)
