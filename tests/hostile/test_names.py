"""Names a package chose, printed on a terminal: ESC, BEL and newlines never reach it raw (one rule,
``printable.shown``), JSON keeps them exact, and pack refuses what image refuses (NB1803, one rule)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from neuralis_build.cli.dev_cmd import report_line
from neuralis_build.dev.state import BuildReport
from neuralis_build.hostprofile import default_host_profile
from neuralis_build.util.diagnostics import Diagnostic
from neuralis_build.util.printable import shown, shown_text
from tests.hostile.conftest import cli, package_json, write_package

pytestmark = pytest.mark.e2e

TITLE = "a\x1b]0;pwned\x07b.js"  # sets the terminal window's title
CLEAR = "e\x1b[2Jf.js"  # clears the screen
FORGED = "c\n  package.json         63 B.js"  # a newline that forges a listing line


@pytest.mark.parametrize(
    ("name", "printed"),
    [
        ("plain/é name.js", "plain/é name.js"),
        (TITLE, "a\\x1b]0;pwned\\x07b.js"),
        (CLEAR, "e\\x1b[2Jf.js"),
        ("c\nd\r\t.js", "c\\nd\\r\\t.js"),
        ("x\x7f\x85y", "x\\x7f\\x85y"),
        ("evil\u202egnp.js", "evil\\u202egnp.js"),
        ("a\\x1b", "a\\\\x1b"),  # a backslash of the name itself never reads as an escape
    ],
)
def test_shown_escapes_every_control_character_and_nothing_else(name: str, printed: str):
    assert shown(name) == printed


def test_shown_text_keeps_the_lines_of_a_message():
    assert shown_text("one\ntwo\t\x1b[2J\\") == "one\ntwo\t\\x1b[2J\\"


def control_names(pkg: Path) -> Path:
    return write_package(
        pkg, package_json(files=["lib"]), {f"lib/{TITLE}": "x", f"lib/{CLEAR}": "x", f"lib/{FORGED}": "x"}
    )


def test_pack_refuses_control_characters_with_images_rule_and_prints_them_escaped(pkg: Path):
    control_names(pkg)
    done = cli("pack", pkg, "--trust", "untrusted", "--dry-run")
    assert done.code == 1, done.err
    for raw in ("\x1b", "\x07"):
        assert raw not in done.err + done.out
    assert not any(line.startswith("  package.json") for line in done.err.splitlines())  # no forged line
    for name in (TITLE, CLEAR, FORGED):
        assert f'error NB1803 the path "lib/{shown(name)}" has a control character;' in done.err, done.err
    assert "image refuses a tarball that holds it" in done.err


def test_pack_json_keeps_the_exact_names(pkg: Path):
    control_names(pkg)
    done = cli("pack", pkg, "--trust", "untrusted", "--dry-run", "--format", "json")
    assert done.code == 1
    files = sorted(d["file"] for d in done.json()[0]["error"]["diagnostics"] if d["code"] == "NB1803")
    assert files == sorted(f"lib/{n}" for n in (TITLE, CLEAR, FORGED))


def test_pack_and_image_share_the_rule_and_the_code():
    from neuralis_build.image.archive import extract
    from neuralis_build.pack import refusals
    from neuralis_build.util.archivepath import NB1803 as shared

    assert extract.NB1803 is shared and refusals.NB1803 is shared


def test_check_prints_a_package_name_and_a_message_escaped(pkg: Path):
    write_package(pkg, json.dumps({"name": "acme\x1b[2J\nfake", "version": "1.0.0", "neuralis": {}}))
    done = cli("check", pkg, "--trust", "untrusted")
    assert "\x1b" not in done.out + done.err
    assert "acme\\x1b[2J\\nfake" in done.out + done.err
    data = cli("check", pkg, "--trust", "untrusted", "--format", "json")
    assert json.loads(data.out)[0]["package"] == "acme\x1b[2J\nfake"  # exact, in JSON's own escapes
    assert "\x1b" not in data.out


def test_dev_prints_changed_files_and_errors_escaped():
    error = Diagnostic("error", "NB1900", f"src/{CLEAR}", "", "bad \x07 thing", None, 3, 4)
    failed = BuildReport(False, (f"src/{TITLE}", f"src/{FORGED}"), 0.1, "failed", (error,))
    line = report_line(failed)
    assert "\x1b" not in line and "\x07" not in line and "\n" not in line
    assert "(src/a\\x1b]0;pwned\\x07b.js, src/c\\n  package.json         63 B.js)" in line
    assert "src/e\\x1b[2Jf.js:3:4: NB1900 bad \\x07 thing" in line
    ok = report_line(BuildReport(True, (f"src/{CLEAR}",), 0.1))
    assert ok.endswith("(src/e\\x1b[2Jf.js): the page reloads")


def test_ui_prints_a_refused_file_escaped(tmp_path: Path):
    from neuralis_build.cli.ui_cmd import one_line
    from neuralis_build.package import load_package
    from neuralis_build.ui.run import BuildOptions, build_package
    from neuralis_build.ui.watch import WatchResult
    from neuralis_build.util.errors import DiagnosedError
    from tests.ui.ui_helpers import build_file_tree

    source = f"src/events/{CLEAR}".replace(".js", ".ts")
    root = build_file_tree(
        tmp_path / "pkg",
        {"package.json": {"name": "x", "version": "1.0.0", "type": "module", "neuralis": {}}, source: "let x = ;\n"},
    )
    with pytest.raises(DiagnosedError) as refused:
        build_package(load_package(root), BuildOptions(default_host_profile()))
    line = one_line(WatchResult((), None, refused.value, 0.1))
    assert "\x1b" not in line
    assert "src/events/e\\x1b[2Jf.ts" in line, line
