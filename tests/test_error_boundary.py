"""One error boundary for every console entry point (issue 11): neuralis-build (every command, ui included, through
typer), neuralis, and python -m neuralis_build. User errors exit 1 or 2 with a message; an
environment error (an OSError) exits 2 naming the path; anything else is an "internal error" (exit 2),
with the traceback only under --verbose."""

from __future__ import annotations

import runpy
import sys
from collections.abc import Callable

import pytest

from neuralis_build import __version__
from neuralis_build.cli import build, new
from tests.conftest import build_file_tree, manifest

Main = Callable[[list[str]], int]


def module_main(argv: list[str]) -> int:
    """``python -m neuralis_build``, run in this process."""
    saved = sys.argv
    sys.argv = ["neuralis_build", *argv]
    try:
        runpy.run_module("neuralis_build", run_name="__main__")
    except SystemExit as done:
        return int(done.code or 0)
    finally:
        sys.argv = saved
    raise AssertionError("python -m neuralis_build did not exit")


def boom(*args: object, **kwargs: object) -> None:
    raise RuntimeError("boom")


def no_space(*args: object, **kwargs: object) -> None:
    raise OSError(28, "No space left on device", "/work/pkg/dist/app/host.js")


# (entry point, arguments, the library function the command calls, to break)
ENTRIES = [
    ("neuralis-build", build.main, ["check", ".", "--trust", "untrusted"], "neuralis_build.check.check_path"),
    ("neuralis-build ui", build.main, ["ui", "."], "neuralis_build.ui.run.build_path"),
    ("neuralis", new.main, ["new", "acme-x", "--no-input", "--dry-run"], "neuralis_build.scaffold.create.plan"),
    (
        "python -m neuralis_build",
        module_main,
        ["check", ".", "--trust", "untrusted"],
        "neuralis_build.check.check_path",
    ),
]
IDS = [e[0] for e in ENTRIES]


def break_it(monkeypatch: pytest.MonkeyPatch, target: str, with_: Callable[..., None]) -> None:
    module, _, name = target.rpartition(".")
    monkeypatch.setattr(
        sys.modules[module] if module in sys.modules else __import__(module, fromlist=[name]), name, with_
    )


@pytest.mark.parametrize(("label", "main", "args", "target"), ENTRIES, ids=IDS)
def test_an_unexpected_exception_is_an_internal_error_without_traceback(
    label, main, args, target, monkeypatch, capsys, tmp_path
):
    monkeypatch.chdir(tmp_path)
    break_it(monkeypatch, target, boom)
    assert main(args) == 2
    out, err = capsys.readouterr()
    assert (out, err.splitlines()) == (
        "",
        [
            "internal error: RuntimeError: boom",
            "This is a bug in neuralis-build; rerun with --verbose for the traceback and report it.",
        ],
    )


@pytest.mark.parametrize(("label", "main", "args", "target"), ENTRIES, ids=IDS)
@pytest.mark.parametrize("where", ["after", "before"])
def test_verbose_shows_the_traceback(label, main, args, target, where, monkeypatch, capsys, tmp_path):
    monkeypatch.chdir(tmp_path)
    break_it(monkeypatch, target, boom)
    argv = [*args, "--verbose"] if where == "after" else ["--verbose", *args]
    assert main(argv) == 2
    _, err = capsys.readouterr()
    assert err.startswith("Traceback (most recent call last):")
    assert err.splitlines()[-2:] == [
        "internal error: RuntimeError: boom",
        "This is a bug in neuralis-build; report it.",
    ]


@pytest.mark.parametrize(("label", "main", "args", "target"), ENTRIES, ids=IDS)
def test_an_oserror_is_the_machines_state_exit_2_naming_the_path(
    label, main, args, target, monkeypatch, capsys, tmp_path
):
    monkeypatch.chdir(tmp_path)
    break_it(monkeypatch, target, no_space)
    assert main(args) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.splitlines() == [
        "error: /work/pkg/dist/app/host.js: No space left on device",
        "hint: this is the machine's state, not the package's: check the path, its permissions and the free "
        "space (--verbose shows where it happened)",
    ]
    assert main([*args, "-v"]) == 2
    assert "Traceback" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("main", "args", "code", "first"),
    [
        (build.main, ["check", "nope", "--trust", "untrusted"], 2, "error: nope: no such folder"),
        (build.main, ["ui", "nope"], 2, "error: nope: no such folder"),
        (build.main, ["ui", "plain"], 1, "error: nothing to bundle: the package has no UI module entry"),
        (build.main, ["check", "--trust", "nobody"], 2, "Usage: neuralis-build check [OPTIONS] [PATH]..."),
        (new.main, ["new", "Acme Reports", "--no-input"], 1, 'error: "Acme Reports" is not a valid package name'),
        (module_main, ["pack", "nope", "--trust", "first-party"], 2, "error: nope: no such folder"),
    ],
)
def test_user_errors_exit_1_or_2_with_a_message_and_no_traceback(
    main, args, code, first, monkeypatch, capsys, tmp_path
):
    monkeypatch.chdir(tmp_path)
    build_file_tree(tmp_path / "plain", {"package.json": manifest()})
    assert main(args) == code
    out, err = capsys.readouterr()
    assert out == "" and err.splitlines()[0].startswith(first)
    assert "Traceback" not in err and "internal error" not in err
    assert main([*args, "--verbose"]) == code
    assert "Traceback" not in capsys.readouterr().err  # --verbose is for bugs, not for bad input


@pytest.mark.parametrize(("label", "main", "args", "target"), ENTRIES, ids=IDS)
def test_ctrl_c_exits_130_saying_so(label, main, args, target, monkeypatch, capsys, tmp_path):
    def interrupt(*a: object, **k: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.chdir(tmp_path)
    break_it(monkeypatch, target, interrupt)
    assert main(args) == 130
    assert capsys.readouterr().err == "interrupted\n"


def test_ui_reports_in_json_too(monkeypatch, capsys, tmp_path):
    monkeypatch.chdir(tmp_path)
    build_file_tree(tmp_path / "plain", {"package.json": manifest()})
    import json

    assert build.main(["ui", "plain", "--format", "json"]) == 1
    (element,) = json.loads(capsys.readouterr().out)
    assert element["path"] == "plain"
    assert (element["error"]["kind"], element["error"]["diagnostics"][0]["code"]) == ("input", "NB1902")
    break_it(monkeypatch, "neuralis_build.ui.run.build_path", boom)
    assert build.main(["ui", "plain", "-f", "json"]) == 2
    (element,) = json.loads(capsys.readouterr().out)
    assert element == {
        "path": None,
        "error": {
            "kind": "internal",
            "exitCode": 2,
            "message": "internal error: RuntimeError: boom",
            "hint": None,
            "diagnostics": [],
            "command": None,
            "output": None,
        },
    }


def test_python_m_is_the_same_program(capsys):
    assert module_main(["--version"]) == 0
    assert capsys.readouterr().out == f"neuralis-build {__version__}\n"
