"""Output on a terminal, in a pipe and under NO_COLOR, and a reader that stops early: real subprocesses."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import build_file_tree, manifest
from tests.termkit import on_terminal, piped

BIN = Path(sys.executable).parent
ESC = "\x1b["
LONG = "a-folder-whose-name-is-long-enough-to-overflow-a-narrow-terminal"


@pytest.fixture
def bad(tmp_path: Path) -> Path:
    return build_file_tree(tmp_path / "bad", {"package.json": manifest({"credentials": [{"id": "a b", "label": "A"}]})})


@pytest.fixture
def deep(tmp_path: Path) -> Path:
    """A package whose listing holds a path too long for a narrow terminal."""
    return build_file_tree(
        tmp_path / "deep",
        {"package.json": manifest(files=["lib"]), f"lib/{LONG}/{LONG}/index.js": "module.exports = 1;\n"},
    )


def test_colour_on_a_terminal_none_under_no_color_or_in_a_pipe(bad, tmp_path):
    args = [str(BIN / "neuralis-build"), "check", "bad", "--trust", "untrusted"]
    coloured = on_terminal(args, cwd=tmp_path)
    assert ESC in coloured and "error NB1002" not in coloured  # severity and code are styled apart
    plain = on_terminal(args, cwd=tmp_path, env={"NO_COLOR": "1"})
    assert ESC not in plain and "\x1b" not in plain
    assert "    error NB1002 " in plain
    done = piped(args, cwd=tmp_path)
    assert "\x1b" not in done.stdout + done.stderr and done.stdout.splitlines()[2].startswith("    error NB1002 ")
    assert piped(args, cwd=tmp_path, env={"NO_COLOR": "1"}).stdout == done.stdout


def test_a_usage_error_under_no_color_on_a_terminal_has_no_escape_code(tmp_path):
    out = on_terminal(
        [str(BIN / "neuralis-build"), "check", "nope", "--trust", "untrusted"], cwd=tmp_path, env={"NO_COLOR": "1"}
    )
    assert "\x1b" not in out and out.splitlines()[0] == "error: nope: no such folder"


def test_the_pack_tree_on_a_wide_terminal_plain_lines_in_a_pipe_or_a_narrow_one(deep, tmp_path):
    args = [str(BIN / "neuralis-build"), "pack", "deep", "--dry-run", "--trust", "first-party"]
    wide = on_terminal(args, cwd=tmp_path, columns=300, env={"NO_COLOR": "1"})
    assert "└── " in wide and f"lib/{LONG}/{LONG}/index.js" not in wide
    path = f"lib/{LONG}/{LONG}/index.js"
    whole = f"  {path}  20 B"
    narrow = on_terminal(args, cwd=tmp_path, columns=60, env={"NO_COLOR": "1"})
    assert whole in narrow.splitlines() and "└── " not in narrow
    done = piped(args, cwd=tmp_path)
    assert done.returncode == 0
    assert done.stderr.splitlines()[:5] == [
        "📦 acme-pkg@1.0.0",
        whole,
        f"  {'package.json':<{len(path)}}  93 B",
        "judged at      first-party",
        "filename       " + "acme-pkg-1.0.0.tgz (dry run: not written)",
    ]


def test_diagnostics_in_a_pipe_are_never_cut(tmp_path):
    long_id = "a" * 120 + " b"
    root = build_file_tree(tmp_path / "p", {"package.json": manifest({"credentials": [{"id": long_id, "label": "A"}]})})
    done = piped(
        [str(BIN / "neuralis-build"), "check", str(root), "--trust", "untrusted"], cwd=tmp_path, env={"COLUMNS": "40"}
    )
    assert any(long_id in line for line in done.stdout.splitlines())


@pytest.mark.parametrize(
    "args",
    [
        ["neuralis-build", "schema"],
        ["neuralis-build", "check", "bad", "--trust", "untrusted", "--format", "json"],
        ["neuralis-build", "explain", "NB0507"],
        ["neuralis", "new", "--list"],
    ],
    ids=lambda a: " ".join(a[:2]),
)
def test_a_reader_that_stops_early_ends_the_run_quietly_with_0(bad, tmp_path, args):
    with subprocess.Popen(
        [str(BIN / args[0]), *args[1:]], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    ) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        proc.stdout.close()  # like `| head -0`: nobody reads stdout any more
        err = proc.stderr.read().decode()
        proc.wait(timeout=120)
    assert err == "" and proc.returncode == 0


def test_head_of_json_in_a_shell_pipeline(bad, tmp_path):
    paths = " ".join(["bad"] * 300)  # far more than a pipe holds, so the writer meets the closed pipe
    script = f"set -o pipefail; {BIN / 'neuralis-build'} check {paths} --trust untrusted -f json | head -3"
    done = subprocess.run(["bash", "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stderr == "" and done.stdout.splitlines() == ["[", "  {", '    "package": "acme-pkg",']
    assert json.loads(
        piped([str(BIN / "neuralis-build"), "check", "bad", "--trust", "untrusted", "-f", "json"], cwd=tmp_path).stdout
    )
