"""`pack` runs prepack, prepare and postpack as `npm pack` does, then judges what they left (issue 24).

The order and the environment are compared with the pinned npm (tests/tools) running the same
package; the rest runs the real command on real folders with real scripts (sh, node).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from packtools import REFERENCE, REFERENCE_NPM, needs_npm

from neuralis_build.cli.build import main
from neuralis_build.pack.lifecycle import bin_dirs, package_envs

Tree = Callable[..., Path]

# Each script records that it ran, its environment and its folder, and says something on stdout and stderr.
RECORD_JS = """\
const fs = require("fs");
const event = process.argv[2];
fs.appendFileSync("order.txt", event + "\\n");
fs.writeFileSync(`env-${event}.json`, JSON.stringify({ env: process.env, cwd: process.cwd() }));
console.log(`out-${event}`);
console.error(`err-${event}`);
"""
PROBE = {
    "package.json": {
        "name": "@acme/probe",
        "version": "1.2.3",
        "bin": "./cli.js",
        "files": ["cli.js", "lib"],
        "config": {"port": 8080, "nested": {"on": True, "off": False, "none": None}, "list": ["x", 2]},
        "engines": {"node": ">=20"},
        "scripts": {
            "preprepack": "node record.js preprepack",
            "prepack": "node record.js prepack",
            "postprepack": "node record.js postprepack",
            "prepare": "node record.js prepare",
            "postpack": "node record.js postpack",
            "prepublishOnly": "node record.js prepublishOnly",
        },
        "neuralis": {},
    },
    "cli.js": "#!/usr/bin/env node\n",
    "record.js": RECORD_JS,
}
# What run-script and npm pack set, compared key by key (npm's own npm_config_* are npm's; docs/packing.md)
COMPARED = ("npm_command", "INIT_CWD", "NODE", "npm_node_execpath", "npm_config_dry_run")


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out = capsys.readouterr()
    return code, out.out, out.err


def recorded(root: Path) -> tuple[list[str], dict[str, Any]]:
    """The events that ran, in order, and what each recorded; the records are removed for the next run."""
    order = (root / "order.txt").read_text().split() if (root / "order.txt").exists() else []
    found = {}
    for event in order:
        found[event] = json.loads((root / f"env-{event}.json").read_text())
        (root / f"env-{event}.json").unlink()
    (root / "order.txt").unlink(missing_ok=True)
    return order, found


def ours_of(env: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in env.items() if k.startswith(("npm_package_", "npm_lifecycle_")) or k in COMPARED}


def script_path(env: dict[str, str]) -> list[str]:
    """What a run put before the caller's PATH (npm's node-gyp-bin left out: it is npm's own)."""
    entries = env["PATH"].split(os.pathsep)
    first = os.environ["PATH"].split(os.pathsep)[0]
    return [p for p in entries[: entries.index(first)] if "node-gyp-bin" not in p]


@needs_npm
def test_the_scripts_run_in_npms_order_and_environment(
    tree: Tree, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tree(PROBE)
    started = root / "sub"
    started.mkdir()
    npm = subprocess.run(
        [*REFERENCE_NPM, "pack", "..", "--dry-run", "--json"], cwd=started, capture_output=True, text=True, timeout=300
    )
    assert npm.returncode == 0, npm.stderr
    npm_order, npm_runs = recorded(root)

    monkeypatch.chdir(started)
    code, out, err = run(["pack", "..", "--trust", "first-party", "--dry-run", "--json"], capsys)
    assert code == 0, err
    order, runs = recorded(root)
    assert order == npm_order == ["prepack", "prepare", "postpack"]  # never pre/post of these, nor prepublishOnly
    (packed,) = json.loads(out)  # stdout is the JSON alone, whatever the scripts printed

    for event in order:
        theirs, ours = npm_runs[event]["env"], runs[event]["env"]
        assert runs[event]["cwd"] == npm_runs[event]["cwd"] == str(root)
        if event == "postpack":  # the integrity of each one's own tarball (the gzip bytes differ: packing.md)
            assert theirs.pop("npm_package_integrity").startswith("sha512-")
            assert ours.pop("npm_package_integrity") == packed["integrity"]
        assert ours_of(ours) == ours_of(theirs), event
        assert script_path(ours) == script_path(theirs) == bin_dirs(root)
    env = runs["prepack"]["env"]
    assert env["npm_package_bin_probe"] == "cli.js" and env["npm_package_config_nested_off"] == ""
    assert env["npm_package_config_list_1"] == "2" and env["npm_config_dry_run"] == "true"
    assert runs["prepare"]["env"]["npm_package_integrity"] == "null"  # npm's value before the tarball exists
    assert runs["postpack"]["env"]["npm_package_from"] == f"file:{root}"
    if shutil.which("npm") and os.path.realpath(shutil.which("npm") or "").endswith("npm-cli.js"):
        assert env["npm_execpath"] == os.path.realpath(shutil.which("npm") or "")

    # the output of each script, after npm's banner, on stderr
    assert "\n> @acme/probe@1.2.3 prepack\n> node record.js prepack\n\nout-prepack\nerr-prepack\n" in err
    assert err.index("out-prepack") < err.index("out-prepare") < err.index("out-postpack")


@needs_npm
def test_ignore_scripts_runs_none_as_npm_does_and_notes_each(tree: Tree, capsys: pytest.CaptureFixture[str]) -> None:
    root = tree(PROBE)
    npm = subprocess.run(
        [*REFERENCE_NPM, "pack", "--dry-run", "--ignore-scripts"], cwd=root, capture_output=True, timeout=300
    )
    assert npm.returncode == 0 and recorded(root) == ([], {})
    code, out, _ = run(["pack", str(root), "--trust", "first-party", "--dry-run", "--ignore-scripts"], capsys)
    assert (code, out, recorded(root)) == (0, "acme-probe-1.2.3.tgz\n", ([], {}))
    code, out, _ = run(["pack", str(root), "--trust", "first-party", "--dry-run", "--ignore-scripts", "--json"], capsys)
    assert code == 0 and json.loads(out)[0]["name"] == "@acme/probe"
    # in text, each script left out is a note at its line
    assert main(["pack", str(root), "--trust", "first-party", "--dry-run", "--ignore-scripts"]) == 0
    err = capsys.readouterr().err
    for event, line in (("prepack", 26), ("prepare", 28), ("postpack", 29)):
        assert f'package.json:{line}:5 /scripts/{event}\n    note NB1711 the "{event}" script was not run ' in err


@needs_npm
def test_npms_own_ignore_scripts_setting_is_honoured(tree: Tree, capsys: pytest.CaptureFixture[str]) -> None:
    root = tree({**PROBE, ".npmrc": "ignore-scripts=true\n"})
    code, _, err = run(["pack", str(root), "--trust", "first-party", "--dry-run"], capsys)
    assert (code, recorded(root)) == (0, ([], {}))
    assert 'note NB1711 the "prepack" script was not run (npm\'s ignore-scripts setting is true)' in err


def test_stdout_is_the_file_name_alone(tree: Tree, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tree(PROBE)
    code, out, err = run(["pack", str(root), "--trust", "first-party", "--out", str(tmp_path / "out")], capsys)
    assert (code, out) == (0, "acme-probe-1.2.3.tgz\n")
    assert "out-prepack" in err and "err-postpack" in err
    # postpack ran after the tarball was written, as in npm
    assert (tmp_path / "out/acme-probe-1.2.3.tgz").is_file()
    assert recorded(root)[0] == ["prepack", "prepare", "postpack"]


def test_what_the_scripts_built_is_judged_and_packed(tree: Tree, capsys: pytest.CaptureFixture[str]) -> None:
    manifest = {
        "name": "@acme/built",
        "version": "1.0.0",
        "files": ["lib"],
        "exports": {".": "./lib/index.js", "./package.json": "./package.json"},
        "scripts": {"prepack": "mkdir -p lib && echo 'module.exports = 1;' > lib/index.js"},
        "neuralis": {},
    }
    root = tree({"package.json": manifest})
    code, out, err = run(["pack", str(root), "--trust", "first-party", "--dry-run", "--json"], capsys)
    assert code == 0, err
    assert [f["path"] for f in json.loads(out)[0]["files"]] == ["lib/index.js", "package.json"]
    # without the script the same folder is packed as it is: lib/ was never built
    (root / "lib/index.js").unlink()
    code, out, _ = run(["pack", str(root), "--trust", "first-party", "--dry-run", "--ignore-scripts", "--json"], capsys)
    assert code == 0 and [f["path"] for f in json.loads(out)[0]["files"]] == ["package.json"]


FAILING = {
    "name": "@acme/failing",
    "version": "1.0.0",
    "neuralis": {},
    "scripts": {
        "prepack": "touch prepack-ran",
        "prepare": "touch prepare-ran",
        "postpack": "touch postpack-ran",
    },
}


@pytest.mark.parametrize(("event", "line"), [("prepack", 6), ("prepare", 7)])
def test_a_failing_script_stops_pack_and_leaves_the_earlier_tarball(
    event: str, line: int, tree: Tree, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scripts = {**FAILING["scripts"], event: "echo building; echo 'broken: line 3' >&2; exit 3"}  # type: ignore[dict-item]
    root = tree({"package.json": {**FAILING, "scripts": scripts}})
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    earlier = out_dir / "acme-failing-1.0.0.tgz"
    earlier.write_bytes(b"the earlier tarball")
    code, out, err = run(["pack", str(root), "--trust", "first-party", "--out", str(out_dir), "--json"], capsys)
    assert code == 1
    (element,) = json.loads(out)
    error = element["error"]
    assert (error["kind"], error["exitCode"]) == ("input", 1)
    assert error["message"] == f"@acme/failing was not packed: its {event} script failed"
    assert error["command"] == ["sh", "-c", scripts[event]]
    assert error["output"] == "building\nbroken: line 3\n"
    assert [(d["code"], d["pointer"], d["line"], d["message"]) for d in error["diagnostics"]] == [
        ("NB1718", f"/scripts/{event}", line, f'the "{event}" script exited 3: {scripts[event]}')
    ]
    assert "building\nbroken: line 3\n" in err  # shown as it ran
    assert earlier.read_bytes() == b"the earlier tarball" and sorted(os.listdir(out_dir)) == [earlier.name]
    assert (root / "prepack-ran").exists() == (event == "prepare")  # what ran before the failure ran
    assert not (root / "postpack-ran").exists()


def test_a_failing_postpack_comes_after_the_tarball(
    tree: Tree, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tree({"package.json": {**FAILING, "scripts": {"postpack": "exit 4"}}})
    code, out, err = run(["pack", str(root), "--trust", "first-party", "--out", str(tmp_path)], capsys)
    assert (code, out) == (1, "")
    written = tmp_path / "acme-failing-1.0.0.tgz"
    assert written.is_file()  # as npm: the tarball was written before postpack ran
    assert f'error NB1718 the "postpack" script exited 4: exit 4; the tarball was written: {written}' in err


def test_a_script_ended_by_a_signal_is_named(tree: Tree, capsys: pytest.CaptureFixture[str]) -> None:
    root = tree({"package.json": {**FAILING, "scripts": {"prepack": "kill -TERM $$"}}})
    code, _, err = run(["pack", str(root), "--trust", "first-party", "--dry-run"], capsys)
    assert code == 1 and 'error NB1718 the "prepack" script was ended by SIGTERM: kill -TERM $$' in err


def test_no_script_runs_for_a_package_npm_would_not_pack(tree: Tree, capsys: pytest.CaptureFixture[str]) -> None:
    manifest = {"name": "@acme/unversioned", "neuralis": {}, "scripts": {"prepack": "touch prepack-ran"}}
    root = tree({"package.json": manifest})
    code, _, err = run(["pack", str(root), "--trust", "first-party", "--dry-run"], capsys)
    assert code == 1 and "NB1701" in err and not (root / "prepack-ran").exists()


@needs_npm
@pytest.mark.parametrize(
    "manifest",
    [
        {"name": "a", "version": "1.0.0"},
        {"name": "@s/a", "version": "0.0.1-rc.1", "config": {"a": {"b": [1, {"c": None}, [True, False]]}, "n": 1.5}},
        {"engines": {"node": ">=20", "npm": "*"}, "config": {"empty": {}, "list": [], "s": "x y"}},
        {"name": "a", "bin": {"a": "cli.js", "b": "bin/b.js"}, "config": 3},
    ],
)
def test_package_envs_are_run_scripts(manifest: dict[str, Any], tmp_path: Path) -> None:
    """npm_package_* of a (normalised) manifest, compared with run-script's own package-envs.js."""
    module = REFERENCE / "npm/node_modules/@npmcli/run-script/lib/package-envs.js"
    probe = f"console.log(JSON.stringify(require({json.dumps(str(module))})({json.dumps(manifest)})))"
    done = subprocess.run(["node", "-e", probe], capture_output=True, text=True, timeout=60, check=True)
    assert package_envs(manifest, tmp_path) == json.loads(done.stdout)
