"""npm's package folder and workspaces: every command finds its package as npm does, and check, ui and pack
work on the members of an npm workspaces root with --workspace/--workspaces, as npm selects them.

The fast tests cover the walk up and the root's advice; the end-to-end test makes a workspaces root with three
members (two made by `neuralis new` inside it, one plain npm package), installs it with the real npm and runs the
commands from the root and from a member's subfolder, then the root workflow's steps for each member.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
import yaml

from neuralis_build.scaffold.monorepo import ROOT_WORKFLOW, plan_root_workflow
from neuralis_build.workspaces import package_root

from .conftest import build_file_tree, requires_node

BIN = Path(sys.executable).parent
ROOT = {"name": "acme", "private": True, "workspaces": ["packages/*"]}


def test_the_package_folder_is_the_nearest_one_up_with_a_package_json(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    build_file_tree(tmp_path, {"pkg": {"package.json": {"name": "pkg"}, "src": {"app": {}}}})
    monkeypatch.chdir(tmp_path / "pkg/src/app")
    assert package_root() == Path("../..")
    monkeypatch.chdir(tmp_path / "pkg")
    assert package_root() == Path(".")


def test_a_node_modules_folder_stops_the_walk_as_it_stops_npms(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """npm's local prefix is the first folder up holding a package.json *or* a node_modules folder."""
    build_file_tree(tmp_path, {"pkg": {"package.json": {"name": "pkg"}, "sub": {"node_modules": {}, "deep": {}}}})
    monkeypatch.chdir(tmp_path / "pkg/sub/deep")
    assert package_root() == Path("..")
    if node_available():
        npm = subprocess.run(["npm", "prefix"], capture_output=True, text=True, timeout=120)
        assert Path(npm.stdout.strip()) == (tmp_path / "pkg/sub").resolve()


def node_available() -> bool:
    from shutil import which

    return which("npm") is not None


def _neuralis_build(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}", "NO_COLOR": "1"}
    env.update(npm_config_audit="false", npm_config_fund="false", npm_config_update_notifier="false")
    return subprocess.run(
        [str(BIN / "neuralis-build"), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=600
    )


def test_commands_run_in_a_subfolder_work_on_the_package(tmp_path: Path) -> None:
    build_file_tree(tmp_path, {"package.json": {"name": "acme-plain", "version": "1.0.0", "neuralis": {}}})
    (tmp_path / "docs/notes").mkdir(parents=True)
    done = _neuralis_build("check", "--trust", "untrusted", cwd=tmp_path / "docs/notes")
    assert done.returncode == 0, done.stderr
    assert "✓ acme-plain" in done.stdout


@pytest.mark.parametrize("command", ["check", "pack", "ui"])
def test_at_a_workspaces_root_a_command_says_how_to_name_the_members(command: str, tmp_path: Path) -> None:
    build_file_tree(tmp_path, {"package.json": ROOT})
    args = [command, "--trust", "untrusted"] if command != "ui" else [command]
    done = _neuralis_build(*args, cwd=tmp_path)
    assert done.returncode == 2
    assert "this folder is an npm workspaces root (packages/*), not a Neuralis package" in done.stderr
    assert f"neuralis-build {command} --workspaces" in done.stderr and "--workspace NAME" in done.stderr
    assert "add" not in done.stderr.split("hint:")[0]  # not "add a neuralis block", not "add a version"


def test_the_root_workflow_gets_one_line_per_package(tmp_path: Path) -> None:
    first = plan_root_workflow(tmp_path, tmp_path / "packages/board", "first-party")
    assert first.action == "new" and first.content is not None
    (tmp_path / ROOT_WORKFLOW).parent.mkdir(parents=True)
    (tmp_path / ROOT_WORKFLOW).write_bytes(first.content)
    second = plan_root_workflow(tmp_path, tmp_path / "packages/tools", "untrusted")
    assert second.action == "add a line" and second.content is not None
    (tmp_path / ROOT_WORKFLOW).write_bytes(second.content)
    matrix = yaml.safe_load(second.content)["jobs"]["package"]["strategy"]["matrix"]["include"]
    assert matrix == [
        {"folder": "packages/board", "trust": "first-party"},
        {"folder": "packages/tools", "trust": "untrusted"},
    ]
    assert plan_root_workflow(tmp_path, tmp_path / "packages/tools", "untrusted").action == "listed"
    (tmp_path / ROOT_WORKFLOW).write_text("name: ours\non: push\njobs: {}\n")
    assert plan_root_workflow(tmp_path, tmp_path / "packages/x", "trusted").action == "yours"


def _neuralis(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1", "npm_config_update_notifier": "false"}
    return subprocess.run([str(BIN / "neuralis"), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


def test_new_with_no_root_workflow_writes_nothing_at_the_root(tmp_path: Path) -> None:
    build_file_tree(tmp_path, {"package.json": ROOT})
    done = _neuralis("new", "@acme/a", "--dir", "packages/a", "--no-input", "--no-root-workflow", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "No root workflow written (--no-root-workflow)" in done.stdout
    assert not (tmp_path / ".github").exists() and not (tmp_path / "packages/a/.github").exists()


def test_init_at_a_workspaces_root_is_refused_and_names_the_way_out(tmp_path: Path) -> None:
    build_file_tree(tmp_path, {"package.json": ROOT})
    before = (tmp_path / "package.json").read_bytes()
    done = _neuralis("init", "--template", "tools", cwd=tmp_path)
    assert done.returncode == 1, done.stdout
    assert f"{tmp_path / 'package.json'} declares workspaces: this folder is an npm workspaces root" in done.stderr
    assert "neuralis new <name> here to make a new member" in done.stderr
    assert (tmp_path / "package.json").read_bytes() == before
    assert sorted(tmp_path.iterdir()) == [tmp_path / "package.json"]


def test_init_in_a_member_adds_its_line_to_the_root_workflow(tmp_path: Path) -> None:
    build_file_tree(tmp_path, {"package.json": ROOT})
    assert _neuralis("new", "@acme/a", "--dir", "packages/a", "--no-input", cwd=tmp_path).returncode == 0
    build_file_tree(tmp_path / "packages/b", {"package.json": {"name": "@acme/b", "version": "1.0.0"}})
    done = _neuralis("init", "--template", "tools", cwd=tmp_path / "packages/b")
    assert done.returncode == 0, done.stderr
    assert "Adds the package to the npm workspaces root's" in done.stdout
    assert not (tmp_path / "packages/b/.github").exists()
    assert "`../../.github/workflows/neuralis-packages.yml` reads" in (tmp_path / "packages/b/README.md").read_text()
    matrix = yaml.safe_load((tmp_path / ROOT_WORKFLOW).read_text())["jobs"]["package"]["strategy"]["matrix"]
    assert matrix["include"] == [
        {"folder": "packages/a", "trust": "untrusted"},
        {"folder": "packages/b", "trust": "untrusted"},
    ]


# ----------------------------------------------------------------------------------------------------- end to end


def _ok(done: subprocess.CompletedProcess[str]) -> subprocess.CompletedProcess[str]:
    assert done.returncode == 0, f"{done.args}:\n{done.stdout}\n{done.stderr}"
    return done


def _run(args: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}", "NO_COLOR": "1", **env}
    environ.update(npm_config_audit="false", npm_config_fund="false", npm_config_update_notifier="false")
    return subprocess.run(args, cwd=cwd, env=environ, capture_output=True, text=True, timeout=900)


def _names(done: subprocess.CompletedProcess[str]) -> list[str]:
    return [element["package"] for element in json.loads(done.stdout)]


@pytest.mark.e2e
@requires_node
def test_a_workspaces_root_with_three_members(tmp_path: Path) -> None:
    root = tmp_path / "acme"
    build_file_tree(root, {"package.json": ROOT, "packages": {"util": {"package.json": {"name": "@acme/util"}}}})
    for name, template in (("board", "ui-module"), ("tools", "tools")):
        made = _ok(_run([str(BIN / "neuralis"), "new", f"@acme/{name}", "-t", template, "--no-input",
                         "--dir", f"packages/{name}"], root))  # fmt: skip
        assert "no .github/workflows of the package's own" in made.stdout
        assert not (root / "packages" / name / ".github").exists()
        # the member's README names the workflow that builds it: the root's, from the member's folder
        readme = (root / "packages" / name / "README.md").read_text()
        assert "`../../.github/workflows/neuralis-packages.yml` reads" in readme
        assert ".github/workflows/package.yml" not in readme
        assert "is not a member" not in made.stderr  # npm counts it as one of packages/*
    workflow = yaml.safe_load((root / ROOT_WORKFLOW).read_text())
    matrix = workflow["jobs"]["package"]["strategy"]["matrix"]["include"]
    assert matrix == [
        {"folder": "packages/board", "trust": "first-party"},
        {"folder": "packages/tools", "trust": "untrusted"},
    ]
    _ok(_run(["npm", "install"], root))
    nb = str(BIN / "neuralis-build")

    # From the root: the members by name, by folder, by a glob of folders, every one
    built = _ok(_run([nb, "ui", "--workspaces", "--format", "json"], root))
    assert _names(built) == ["@acme/board"]  # tools has nothing to build, util is no Neuralis package
    assert "without a UI module, events or routes to build: @acme/tools" in built.stderr
    assert "without a neuralis block: @acme/util" in built.stderr
    checked = _ok(_run([nb, "check", "--workspaces", "--trust", "first-party", "--format", "json"], root))
    assert [e["package"] for e in json.loads(checked.stdout)] == ["@acme/board", "@acme/tools"]
    by_name = _ok(_run([nb, "check", "-w", "@acme/tools", "--trust", "untrusted", "--format", "json"], root))
    assert _names(by_name) == ["@acme/tools"]
    by_folder = _ok(_run([nb, "check", "--workspace", "packages/board", "--trust", "first-party"], root))
    assert "✓ @acme/board (packages/board, first-party)" in by_folder.stdout
    by_glob = _run([nb, "check", "-w", "pack*", "--trust", "first-party", "--format", "json"], root)
    assert [e["package"] for e in json.loads(by_glob.stdout)] == ["@acme/board", "@acme/tools", "@acme/util"]
    assert by_glob.returncode == 1  # named, util is checked: it has no neuralis block
    unknown = _run([nb, "check", "-w", "@acme/nope", "--trust", "untrusted"], root)
    assert unknown.returncode == 2 and "No workspaces found: --workspace=@acme/nope" in unknown.stderr
    packed = _ok(_run([nb, "pack", "--workspaces", "--trust", "first-party", "--out", "out"], root))
    assert packed.stdout.split() == ["acme-board-0.1.0.tgz", "acme-tools-0.1.0.tgz"]
    with tarfile.open(root / "out/acme-board-0.1.0.tgz") as tgz:
        assert "package/dist/app/host.js" in tgz.getnames()

    # From a member's subfolder: the member, as npm finds it; members by name still as npm takes them
    deep = root / "packages/board/src/app"
    assert "✓ @acme/board" in _ok(_run([nb, "check", "--trust", "first-party"], deep)).stdout
    assert "built @acme/board for production" in _ok(_run([nb, "ui"], deep)).stdout
    assert _ok(_run([nb, "pack", "--trust", "first-party", "--dry-run"], deep)).stdout.strip() == (
        "acme-board-0.1.0.tgz"
    )
    other = _ok(_run([nb, "check", "-w", "@acme/tools", "--trust", "untrusted", "--format", "json"], deep))
    assert _names(other) == ["@acme/tools"]
    assert _ok(_run(["npm", "prefix"], deep)).stdout.strip() == str(root.resolve())  # npm: the root, as a workspace

    # The root workflow's steps, for each line of its matrix, as GitHub runs them (the install step aside)
    steps = [s for s in workflow["jobs"]["package"]["steps"] if "run" in s][1:]
    assert [s["name"] for s in steps] == ["npm install", "Build", "Check", "Pack"]
    for entry in matrix:
        output = tmp_path / f"output-{entry['trust']}"
        output.touch()
        for step in steps:
            command = re.sub(r"\$\{\{ matrix\.(\w+) \}\}", lambda m, e=entry: e[m.group(1)], step["run"])
            cwd = root / step.get("working-directory", entry["folder"])
            done = _ok(_run(["bash", "-eo", "pipefail", "-c", command], cwd, GITHUB_OUTPUT=str(output)))
            if step["name"] == "Pack":
                # the Build step built it; once is enough
                assert not re.search(r"^> \S+ prepack$", done.stderr, re.M), done.stderr
        tarball = output.read_text().removeprefix("tarball=").strip()
        assert tarball == f"acme-{Path(entry['folder']).name}-0.1.0.tgz"
        assert (root / entry["folder"] / "packed" / tarball).is_file()


# A program that, run, leaves a marker beside the tree and then does what the real one would: the tree's
# stand-ins for node and sh on a member's PATH (npm exec puts the member's node_modules/.bin first) and
# the shell a project .npmrc names as npm's script-shell.
_PLANTED = '#!/bin/sh\necho ran >> {marker}\nexec {real} "$@"\n'
# What check (and pack, which checks first) says of the member at --trust untrusted.
_EVENTS_DROPPED = (
    "  packages/board/package.json:5:5 /neuralis/events\n"
    '    warning NB0701 "events" is honored for first-party packages only; the host drops it at load\n'
    "    hint: remove it, or install the package as first-party\n"
    "explain a code: neuralis-build explain NB0701\n"
)


@pytest.mark.e2e
@requires_node
def test_selecting_members_runs_nothing_of_the_tree(tmp_path: Path) -> None:
    """--workspaces asks npm which members it selects without running a program of the tree: not the node
    or sh a member ships in node_modules/.bin, nor the script-shell its .npmrc names."""
    from shutil import which

    root = tmp_path / "acme"
    markers = {name: tmp_path / f"ran-{name}" for name in ("node", "sh", "script-shell")}
    # the script-shell hands over to the sh it finds on PATH: under npm exec, the member's
    real = {"node": which("node"), "sh": which("sh"), "script-shell": "sh"}
    planted = {name: _PLANTED.format(marker=markers[name], real=real[name]) for name in markers}
    subject = 'export const subject = "board";\nexport function visible(): boolean {\n  return true;\n}\n'
    event = {"id": "board.moved", "title": "Board moved", "subject": "board"}
    build_file_tree(root, {
        "package.json": ROOT,
        ".npmrc": f"script-shell={root / 'tools/shell'}\n",
        "tools": {"shell": planted["script-shell"]},
        "packages/board": {
            "package.json": {"name": "@acme/board", "version": "1.0.0", "neuralis": {"events": [event]}},
            "src/events/board.ts": subject,
            "node_modules/.bin": {"node": planted["node"], "sh": planted["sh"]},
        },
    })  # fmt: skip
    for program in ("tools/shell", "packages/board/node_modules/.bin/node", "packages/board/node_modules/.bin/sh"):
        (root / program).chmod(0o755)
    nb = str(BIN / "neuralis-build")

    built = _run([nb, "ui", "--workspaces"], root)
    assert (built.returncode, built.stderr) == (0, "")
    assert re.sub(r" in \d+ ms$", "", built.stdout, flags=re.M) == (
        "built @acme/board for production\n  dist/src/events/board.js  exports subject, visible\n"
    )
    checked = _run([nb, "check", "--trust", "untrusted", "--workspaces"], root)
    assert (checked.returncode, checked.stderr) == (0, "")
    assert checked.stdout == "✓ @acme/board (packages/board, untrusted): 1 warning\n" + _EVENTS_DROPPED
    # a reviewer packs with --ignore-scripts (docs/security.md): the package's own scripts are another matter
    packed = _run([nb, "pack", "--dry-run", "--ignore-scripts", "--trust", "untrusted", "--workspaces"], root)
    assert (packed.returncode, packed.stdout) == (0, "acme-board-1.0.0.tgz\n")
    sizes_and_sums = r"\b\d+ B$|(?<=shasum         )\w+$|(?<=integrity      )\S+$"
    assert re.sub(sizes_and_sums, "…", packed.stderr, flags=re.M) == _EVENTS_DROPPED + (
        "📦 @acme/board@1.0.0\n"
        "  dist/src/events/board.js           …\n"
        "  dist/src/events/build-inputs.json  …\n"
        "  src/events/board.ts                …\n"
        "  package.json                       …\n"
        "judged at      untrusted\n"
        "filename       acme-board-1.0.0.tgz (dry run: not written)\n"
        "package size   …\n"
        "unpacked size  …\n"
        "total files    4\n"
        "shasum         …\n"
        "integrity      …\n"
    )
    assert [name for name, marker in markers.items() if marker.exists()] == []
