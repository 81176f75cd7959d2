"""The installed `neuralis-build ui` and `doctor` commands: output, exit codes, npm run build:ui, --watch."""

from __future__ import annotations

import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tests.conftest import judged
from tests.ui.ui_helpers import HOST_TSX, build_file_tree, copy_example, npm, snapshot, ui_manifest

pytestmark = pytest.mark.e2e

BIN = Path(sys.executable).parent
CLI = str(BIN / "neuralis-build")


def run(*args, cwd=None, env=None):
    return subprocess.run([CLI, *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=300)


def test_ui_prints_what_it_wrote(examples):
    charts, reports = examples()
    assert run("ui", str(charts)).returncode == 0
    done = run("ui", cwd=reports)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert re.fullmatch(r"built @acme/reports for production \(minified\) in \d+ ms", lines[0])
    assert lines[1:] == [
        "  dist/app/host.css             0.2 kB",
        "  dist/app/host.js              1.3 kB",
        "  dist/app/shared-imports.json  host API 1, React 19; reads @acme/charts/app/charts, @neuralis/client, "
        "react, react/jsx-runtime",
        "  dist/src/events/report.js     exports bridge, subject, visible",
    ]
    assert done.stderr == ""
    # --no-minify: the same build, readable (for debugging what ships)
    done = run("ui", "--no-minify", cwd=reports)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert re.fullmatch(r"built @acme/reports for production in \d+ ms", lines[0])
    assert lines[1:3] == ["  dist/app/host.css             0.3 kB", "  dist/app/host.js              2.2 kB"]
    assert "\n  " in (reports / "dist/app/host.js").read_text()


def test_a_refusal_exits_1_with_located_diagnostics(make_pkg):
    root = make_pkg({"package.json": ui_manifest(), "src/app/host.tsx": "export const x = 1;\n"})
    done = run("ui", str(root))
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr.splitlines() == [
        "error: the UI module was not written (1 problem)",
        "  src/app/host.tsx",
        "    error NB1610 src/app/host.tsx exports x, but no install<Name>HostComponents function",
        "    hint: add to the UI entry: export function installAcmeWidgetsHostComponents(host) { ... }",
        "explain a code: neuralis-build explain NB1610",
    ]


def test_no_npm_and_no_cached_esbuild_exits_2(make_pkg, tmp_path):
    root = make_pkg({"package.json": ui_manifest(), "src/app/host.tsx": HOST_TSX})
    env = {**os.environ, "PATH": str(tmp_path / "empty"), "NEURALIS_BUILD_CACHE": str(tmp_path / "cache")}
    env.pop("NEURALIS_ESBUILD_BINARY", None)
    done = run("ui", str(root), env=env)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "error: esbuild 0.28.2 is not cached yet and npm is not on PATH to fetch it",
        "hint: install Node.js 20 or newer (it brings npm), or set NEURALIS_ESBUILD_BINARY to an esbuild 0.28.2 binary",
    ]


def test_doctor_reports_node_npm_and_esbuild(esbuild):
    done = run("doctor", "--json")
    assert done.returncode == 0, done.stdout
    tools = {t["name"]: t for t in json.loads(done.stdout)["tools"]}
    assert sorted(tools) == ["esbuild", "esbuild-api", "node", "npm", "python", "sandbox"]
    assert all(t["ok"] for t in tools.values())
    assert tools["esbuild"]["version"] == "0.28.2" and tools["esbuild"]["path"] == str(esbuild.path)
    assert tools["node"]["version"].startswith("v")
    text = run("doctor").stdout.splitlines()
    assert text[0].startswith("neuralis-build ") and any(
        line.split()[:3] == ["ok", "esbuild", "0.28.2"] for line in text
    )


def test_doctor_without_npm_exits_2(tmp_path):
    env = {**os.environ, "PATH": str(tmp_path / "empty"), "NEURALIS_BUILD_CACHE": str(tmp_path / "cache")}
    done = run("doctor", env=env)
    assert done.returncode == 2
    assert [line.split()[:2] for line in done.stdout.splitlines()[2:]] == [
        ["MISSING", "node"],
        ["MISSING", "npm"],
        ["MISSING", "esbuild"],
        ["MISSING", "esbuild-api"],
        ["absent", "sandbox"],  # optional: without it image loads nothing, and the doctor still says why
    ]


def test_npm_run_build_ui_in_the_installed_example(tmp_path):
    """The real author flow: npm install, then the package's own build:ui script, then check."""
    copy_example("acme-charts", tmp_path)
    reports = copy_example("acme-reports", tmp_path)
    npm(["install", "--no-package-lock"], reports)
    assert (reports / "node_modules/@acme/charts").is_symlink()
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(["npm", "run", "--silent", "build:ui"], cwd=reports, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert json.loads((reports / "dist/app/shared-imports.json").read_text())["reactMajor"] == 19
    result = judged(reports, "first-party")
    assert [d for d in result.diagnostics if d.code.startswith(("NB16", "NB19"))] == []


class Lines:
    """Lines of a child's stdout, read by a thread, awaited with a deadline (no sleeps)."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        self.queue: queue.Queue[str] = queue.Queue()
        assert proc.stdout is not None
        stream = proc.stdout
        self.thread = threading.Thread(target=lambda: [self.queue.put(line) for line in stream], daemon=True)
        self.thread.start()

    def next(self) -> str:
        return self.queue.get(timeout=60).rstrip("\n")


def replace(path: Path, text: str) -> None:
    """Write a file in one step, as editors do; the temp file sits outside the watched package."""
    tmp = path.parents[3] / (path.name + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def _watch_session(root: Path, lines: Lines) -> None:
    assert re.fullmatch(r"\[\d\d:\d\d:\d\d\] ok \(development\): host\.js, 2 shared imports in \d+ ms", lines.next())
    assert lines.next().startswith("watching ")
    good = snapshot(root / "dist")

    replace(root / "src/app/host.tsx", HOST_TSX + "export const broken = ;\n")
    assert re.fullmatch(
        r'\[\d\d:\d\d:\d\d\] failed: src/app/host\.tsx:9:23: NB1900 Unexpected ";"; kept the last good output',
        lines.next(),
    )
    assert snapshot(root / "dist") == good

    replace(root / "src/app/host.tsx", HOST_TSX + "export const fixed = 2;\n")
    assert " ok (development): " in lines.next()
    assert "fixed" in (root / "dist/app/host.js").read_text()


def test_watch_rebuilds_and_keeps_the_last_good_output(make_pkg, tmp_path):
    root = make_pkg({"package.json": ui_manifest(), "src/app/host.tsx": HOST_TSX})
    with (
        (tmp_path / "stderr").open("w+") as stderr,
        subprocess.Popen([CLI, "ui", "--watch", str(root)], stdout=subprocess.PIPE, stderr=stderr, text=True) as proc,
    ):
        lines = Lines(proc)
        try:
            _watch_session(root, lines)
        finally:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                proc.kill()  # fail, not hang in Popen's exit: Ctrl-C did not stop it
                raise
            lines.thread.join(timeout=60)
        stderr.seek(0)
        said = stderr.read()
    assert proc.returncode == 0
    assert "KeyboardInterrupt" not in said  # watchfiles' own log line on Ctrl-C is not the author's business


def test_watch_leaves_alone_a_file_no_build_reads(make_pkg):
    """`ui --watch > watch.log` inside the package: its own output is a change, but not one a build reads,
    so it starts no build (which would write to the log again, forever); a source change still does."""
    root = make_pkg({"package.json": ui_manifest(), "src/app/host.tsx": HOST_TSX, "notes/todo.md": "x"})
    with subprocess.Popen(
        [CLI, "ui", "--watch", str(root)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    ) as proc:
        lines = Lines(proc)
        try:
            assert " ok (development): " in lines.next()
            assert lines.next().startswith("watching ")
            for i in range(3):
                (root / "watch.log").write_text(f"line {i}\n")
                (root / "notes/todo.md").write_text(f"edit {i}\n")
            with pytest.raises(queue.Empty):  # the watcher's debounce is 80 ms: a build would have started
                lines.queue.get(timeout=2)
            replace(root / "src/app/host.tsx", HOST_TSX + "export const fixed = 2;\n")
            assert " ok (development): " in lines.next()
            (root / "src/app/extra.ts").write_text("export const later = 1;\n")  # a new file beside the sources
            assert " ok (development): " in lines.next()
        finally:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                proc.kill()
                raise
    assert proc.returncode == 0


def test_watch_needs_a_package(tmp_path):
    build_file_tree(tmp_path, {"x.txt": ""})
    done = run("ui", "--watch", str(tmp_path / "nope"))
    assert done.returncode == 2 and "no such folder" in done.stderr


PROBE = """
import sys
from neuralis_build.cli.build import main
code = main({args!r})
print(code, sorted(m for m in ("rich", "jinja2", "jsonschema", "neuralis_build.explain") if m in sys.modules))
"""


def probe(args: list[str]) -> str:
    done = subprocess.run([sys.executable, "-c", PROBE.format(args=args)], capture_output=True, text=True, timeout=300)
    return done.stdout.strip().splitlines()[-1]


def test_a_refusal_loads_rich_only_to_report_it(make_pkg):
    root = make_pkg({"package.json": ui_manifest(), "src/app/host.tsx": HOST_TSX})
    assert probe(["ui", str(root)]) == "0 []"
    refused = make_pkg({"package.json": ui_manifest(), "src/app/host.tsx": "export const x = 1;\n"})
    assert probe(["ui", str(refused)]) == "1 ['rich']"


def test_ui_takes_options_as_every_command_does(make_pkg):
    """One grammar: ui's options are typer's, in any order and in every spelling check takes."""
    root = make_pkg({"package.json": ui_manifest(), "src/app/host.tsx": HOST_TSX})
    for args in (["--format=json", str(root)], [str(root), "-f", "json"], ["-fjson", str(root), "--minify"]):
        done = run("ui", *args)
        assert done.returncode == 0, (args, done.stderr)
        assert json.loads(done.stdout)[0]["package"] == "@acme/widgets"
    done = run("ui", str(root), "--format", "yaml")
    assert done.returncode == 2 and "Invalid value for '--format'" in done.stderr


def test_ui_format_json_and_github(make_pkg):
    root = make_pkg({"package.json": ui_manifest(), "src/app/host.tsx": HOST_TSX})
    done = run("ui", str(root), "--format", "json")
    assert (done.returncode, done.stderr) == (0, "")
    (element,) = json.loads(done.stdout)
    sizes = {o["path"]: o["size"] for o in element["outputs"]}
    assert element["package"] == "@acme/widgets" and element["mode"] == "production"
    assert sorted(sizes) == ["dist/app/host.js", "dist/app/shared-imports.json"]
    assert sizes["dist/app/host.js"] == (root / "dist/app/host.js").stat().st_size
    assert element["record"] == {
        "hostApiVersion": "1",
        "reactMajor": 19,
        "sharedImports": ["react", "react/jsx-runtime"],
    }
    assert (element["exports"], element["diagnostics"]) == ({}, [])
    refused = make_pkg({"package.json": ui_manifest(), "src/app/host.tsx": "export const x = 1;\n"})
    done = run("ui", str(refused), "--format", "github", cwd=refused.parent)
    assert done.returncode == 1
    (line,) = done.stdout.splitlines()
    assert line.startswith(f"::error file={refused.name}/src/app/host.tsx,title=NB1610::")


def test_ui_stops_quietly_when_the_reader_goes_away(make_pkg):
    root = make_pkg({"package.json": ui_manifest(), "src/app/host.tsx": HOST_TSX})
    with subprocess.Popen([CLI, "ui", str(root)], stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        proc.stdout.close()
        err = proc.stderr.read().decode()
        proc.wait(timeout=300)
    assert (proc.returncode, err) == (0, "")
    assert (root / "dist/app/host.js").is_file()


def test_the_first_esbuild_fetch_shows_progress(make_pkg, tmp_path):
    """With an empty cache the build fetches esbuild with npm pack, and says so on stderr while it does."""
    root = make_pkg({"package.json": ui_manifest(), "src/app/host.tsx": HOST_TSX})
    env = {**os.environ, "NEURALIS_BUILD_CACHE": str(tmp_path / "cache")}
    env.pop("NEURALIS_ESBUILD_BINARY", None)
    done = run("ui", str(root), env=env)
    assert done.returncode == 0, done.stderr
    first, second = done.stderr.splitlines()
    from neuralis_build.esbuild.binary import target

    assert first == f"fetching esbuild 0.28.2 with npm pack {target().package}@0.28.2 (once per machine)…"
    assert re.fullmatch(r"fetching esbuild 0\.28\.2 with npm pack \S+ \(once per machine\): done in \d+\.\d s", second)
    again = run("ui", str(root), env=env)
    assert (again.returncode, again.stderr) == (0, "")  # cached now: nothing to show
