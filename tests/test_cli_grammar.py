"""One CLI grammar: help, options after the subcommand, --format and its JSON shapes, completion."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import typer

from neuralis_build import __version__
from neuralis_build.cli import build, new
from tests.conftest import build_file_tree, manifest

BIN = Path(sys.executable).parent
APPS = [("neuralis-build", build.app, build.main), ("neuralis", new.app, new.main)]
COMMANDS = [(prog, name, main) for prog, app, main in APPS for name in typer.main.get_command(app).commands]  # type: ignore[attr-defined]


def run(capsys: pytest.CaptureFixture[str], main, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(("prog", "name", "main"), COMMANDS, ids=[f"{p} {n}" for p, n, _ in COMMANDS])
def test_every_help_takes_h_shows_examples_and_plain_metavars(capsys, prog, name, main):
    code, out, err = run(capsys, main, name, "-h")
    assert (code, err) == (0, "")
    assert out.startswith(f"Usage: {prog} {name} [OPTIONS]")
    examples = out[out.index("Examples:") :].splitlines()[1:]
    assert 1 <= len([line for line in examples if line.strip()]) <= 2
    assert all(line.strip().startswith(prog) for line in examples if line.strip())
    # no raw click metavars (<path>, <int range>, {spec}) or lowercase arguments in the usage line and the
    # option column, and no range annotation ([x>=1]) anywhere
    heads = [out.splitlines()[0]] + [
        re.split(r"\s{2,}", line.strip())[0] for line in out.splitlines() if line[:3] == "  -"
    ]
    raw = re.compile(r"<[a-z][a-z ]*>|\{[a-z]+\}|\[[a-z]+\](\.\.\.)?")
    assert [h for h in heads if raw.search(h)] == []
    assert "[x>=" not in out and "[x<=" not in out
    for flag in ("-h, --help", "-v, --verbose", "--version"):
        assert flag in out


@pytest.mark.parametrize(("prog", "name", "main"), COMMANDS, ids=[f"{p} {n}" for p, n, _ in COMMANDS])
def test_a_default_is_said_once(prog, name, main):
    app = dict((p, a) for p, a, _ in APPS)[prog]
    group = typer.main.get_command(app)
    command = group.commands[name]  # type: ignore[attr-defined]
    with group.make_context(prog, [name, "--help"], resilient_parsing=True) as ctx:
        for param in command.params:
            record = param.get_help_record(ctx)
            if record:
                assert record[1].lower().count("default") <= 1, record


def test_verbose_and_version_after_the_subcommand(capsys, tmp_path):
    build_file_tree(tmp_path, {"package.json": manifest()})
    assert run(capsys, build.main, "check", "--version") == (0, f"neuralis-build {__version__}\n", "")
    assert run(capsys, build.main, "pack", "-h")[0] == 0
    assert run(capsys, new.main, "new", "--version") == (0, f"neuralis {__version__}\n", "")
    code, out, _ = run(capsys, build.main, "check", str(tmp_path), "--trust", "untrusted", "--verbose", "-f", "json")
    assert code == 0 and json.loads(out)[0]["ok"] is True


def test_json_is_an_array_for_one_path_and_for_several_with_errors_in_place(capsys, tmp_path):
    good = build_file_tree(tmp_path / "good", {"package.json": manifest()})
    code, out, _ = run(capsys, build.main, "check", str(good), "--trust", "untrusted", "--format", "json")
    assert code == 0 and [e["package"] for e in json.loads(out)] == ["acme-pkg"]
    code, out, err = run(
        capsys, build.main, "check", str(tmp_path / "nope"), str(good), "--trust", "untrusted", "--format", "json"
    )
    assert code == 2  # one PATH could not be judged: the worst exit code wins
    missing, judged = json.loads(out)
    assert missing == {
        "path": str(tmp_path / "nope"),
        "error": {
            "kind": "usage",
            "exitCode": 2,
            "message": f"{tmp_path / 'nope'}: no such folder",
            "hint": "pass the folder that holds the package's package.json",
            "diagnostics": [],
            "command": None,
            "output": None,
        },
    }
    assert judged["package"] == "acme-pkg" and judged["ok"] is True
    assert err.splitlines()[0] == f"error: {tmp_path / 'nope'}: no such folder"


def test_a_usage_error_under_format_json_is_an_error_element_on_stdout(capsys):
    code, out, err = run(capsys, build.main, "check", "--bogus", "--format", "json")
    assert code == 2
    (element,) = json.loads(out)
    assert element["path"] is None
    assert (element["error"]["kind"], element["error"]["exitCode"]) == ("usage", 2)
    assert element["error"]["message"].startswith("No such option: --bogus")
    assert "Error: No such option: --bogus" in err
    # a command whose JSON is one report prints the error as that one object
    code, out, _ = run(capsys, build.main, "image", "nope.toml", "--format", "json")
    assert code == 2 and json.loads(out)["error"]["kind"] == "usage"
    code, out, _ = run(capsys, build.main, "pack", "--json", "--host", "nope.json", "--trust", "first-party")
    assert code == 2 and json.loads(out)[0]["error"]["message"].startswith("nope.json")


def test_github_format_annotates_a_path_that_cannot_be_judged(capsys, tmp_path):
    code, out, _ = run(capsys, build.main, "check", str(tmp_path / "nope"), "--trust", "untrusted", "-f", "github")
    assert code == 2
    assert out == f"::error title=neuralis-build check::{tmp_path / 'nope'}: no such folder\n"


def test_pack_format_json_equals_npms_json_flag(capsys, tmp_path):
    root = build_file_tree(tmp_path / "p", {"package.json": manifest(files=["README.md"]), "README.md": "# p\n"})
    by_flag = run(capsys, build.main, "pack", str(root), "--dry-run", "--json", "--trust", "first-party")
    by_format = run(capsys, build.main, "pack", str(root), "--dry-run", "--format", "json", "--trust", "first-party")
    assert by_flag == by_format and by_flag[0] == 0
    (report,) = json.loads(by_flag[1])
    assert (report["id"], report["entryCount"]) == ("acme-pkg@1.0.0", 2)
    two = run(capsys, build.main, "pack", str(root), str(root), "--dry-run", "--json", "--trust", "first-party")
    assert json.loads(two[1]) == [report, report]


def test_pack_format_github_prints_the_refusals_as_annotations(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    build_file_tree(tmp_path / "p", {"package.json": manifest(exports={".": "./index.js"}), "index.js": ""})
    code, out, _ = run(capsys, build.main, "pack", "p", "--dry-run", "--format", "github", "--trust", "first-party")
    assert code == 1
    (line,) = out.splitlines()
    assert line.startswith("::error file=p/package.json,line=") and ",title=NB1707::" in line


def test_doctor_formats(capsys):
    code, out, _ = run(capsys, build.main, "doctor", "--format", "json")
    data = json.loads(out)
    assert sorted(data) == ["tools", "version"]
    assert run(capsys, build.main, "doctor", "--json")[1] == out
    code, out, _ = run(capsys, build.main, "doctor", "--format", "github")
    missing = [t["name"] for t in data["tools"] if not t["ok"]]
    assert code == (2 if any(not t["ok"] and t["required"] for t in data["tools"]) else 0)
    assert [line.split("::")[2].split()[0] for line in out.splitlines()] == missing


def test_doctor_says_the_sandbox_is_absent_and_still_passes(capsys, monkeypatch):
    monkeypatch.setenv("NEURALIS_BWRAP", "")
    code, out, _ = run(capsys, build.main, "doctor", "--format", "json")
    tools = json.loads(out)["tools"]
    assert tools[-1] == {
        "name": "sandbox",
        "ok": False,
        "version": None,
        "path": None,
        "note": "NEURALIS_BWRAP is set to an empty string, which turns the sandbox off: image loads no package with "
        "an install script (each is 'not checked')",
        "required": False,
    }
    assert code == (2 if any(not t["ok"] and t["required"] for t in tools) else 0)  # the sandbox is not one
    _, out, _ = run(capsys, build.main, "doctor", "--format", "github")
    assert "::warning title=neuralis-build doctor::sandbox is missing: NEURALIS_BWRAP is set" in out


def _complete(words: str, cword: int, prog: str = "neuralis-build") -> list[str]:
    var = f"_{prog.replace('-', '_').upper()}_COMPLETE"
    env = {**os.environ, var: "complete_bash", "COMP_WORDS": words, "COMP_CWORD": str(cword)}
    done = subprocess.run([str(BIN / prog)], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_shell_completion():
    assert _complete("neuralis-build ch", 1) == ["check"]
    assert _complete("neuralis-build check --trust ", 3) == ["first-party", "trusted", "untrusted"]
    assert _complete("neuralis-build ui --wa", 2) == ["--watch"]
    assert _complete("neuralis n", 1, prog="neuralis") == ["new"]
    script = subprocess.run(
        [str(BIN / "neuralis-build"), "--show-completion", "bash"], capture_output=True, text=True, timeout=120
    )
    assert script.returncode == 0 and "_NEURALIS_BUILD_COMPLETE=complete_bash" in script.stdout


def test_install_completion_writes_the_script(tmp_path):
    env = {**os.environ, "HOME": str(tmp_path), "SHELL": "/bin/bash"}
    done = subprocess.run(
        [str(BIN / "neuralis"), "--install-completion", "bash"], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    installed = tmp_path / ".bash_completions/neuralis.sh"
    assert "_NEURALIS_COMPLETE=complete_bash" in installed.read_text()
    assert f"source '{installed}'" in (tmp_path / ".bashrc").read_text()
