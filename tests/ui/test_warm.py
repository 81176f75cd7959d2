"""The warm build server (neuralis_build/warm): a served `ui` is the cold `ui` in all but its start-up.

Every test runs the real console script against a real server started in a private folder of its own
(conftest turns servers off for the rest of the suite), and compares with the same command built cold.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from neuralis_build import warm
from neuralis_build.folderlock import hold
from tests.ui.ui_helpers import HOST_TSX, snapshot, ui_manifest

pytestmark = pytest.mark.e2e

BIN = Path(sys.executable).parent
CLI = str(BIN / "neuralis-build")


class Server:
    """A real server in a private folder; ``run`` gives the console script the environment that uses it."""

    def __init__(self, folder: Path, env: dict[str, str]) -> None:
        self.folder = folder
        self.env = env
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "neuralis_build.warm.server"], env=self.env, start_new_session=True, cwd="/"
        )
        deadline = time.monotonic() + 30
        while self.status() is None:
            assert self.proc.poll() is None, "the server ended at start"
            assert time.monotonic() < deadline, "the server did not answer within 30 s"
            time.sleep(0.05)

    def status(self) -> dict[str, object] | None:
        done = subprocess.run(
            [CLI, "server", "--format", "json"], env=self.env, capture_output=True, text=True, timeout=60
        )
        found = json.loads(done.stdout)
        return found if found["running"] else None

    def served(self) -> int:
        status = self.status()
        assert status is not None
        return int(status["buildsServed"])  # type: ignore[call-overload]

    def run(self, *args: str | Path, cwd: Path | None = None, **kw: object) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [CLI, *map(str, args)], env=self.env, cwd=cwd, capture_output=True, text=True, timeout=300, **kw
        )

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


@pytest.fixture
def server_env() -> Iterator[dict[str, str]]:
    """The environment of a served `ui`: a private folder under /tmp (a socket path must stay short)."""
    folder = tempfile.mkdtemp(prefix="nbw-", dir="/tmp")
    try:
        yield {**os.environ, "NEURALIS_BUILD_SERVER": "1", "NEURALIS_BUILD_SERVER_DIR": folder}
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def server(server_env: dict[str, str]) -> Iterator[Server]:
    running = Server(Path(server_env["NEURALIS_BUILD_SERVER_DIR"]), server_env)
    running.start()
    try:
        yield running
    finally:
        running.stop()


def cold_env() -> dict[str, str]:
    return {**os.environ, "NEURALIS_BUILD_SERVER": "0"}


def cold(*args: str | Path, cwd: Path | None = None, **kw: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [CLI, *map(str, args)], env=cold_env(), cwd=cwd, capture_output=True, text=True, timeout=300, **kw
    )


def same(done: subprocess.CompletedProcess[str]) -> tuple[int, str, str]:
    """What a run showed, its timing and the name of its staging folder aside (``in 12 ms``, ``.app-PID-RANDOM``)."""

    def steady(text: str) -> str:
        return re.sub(r"\.app-\d+-[0-9a-f]+", ".app-N", re.sub(r"in \d+ ms", "in N ms", text))

    return done.returncode, steady(done.stdout), steady(done.stderr)


CASES = {
    "text": ("ui", "{charts}"),
    "relative, from the package": ("ui", "."),
    "json": ("ui", "{reports}", "--format", "json"),
    "github": ("ui", "{reports}", "--format=github"),
    "minify": ("ui", "{charts}", "--minify", "--sourcemap"),
    "a folder that is not there": ("ui", "{charts}/nope"),
    "help (typer's path)": ("ui", "--help"),
    "a usage error": ("ui", "--format", "yaml"),
}


@pytest.mark.parametrize("case", CASES)
def test_a_served_build_is_the_cold_build(case, server, examples):
    charts, reports = examples()
    args = [a.format(charts=charts, reports=reports) for a in CASES[case]]
    before = server.served()
    built_cold = cold(*args, cwd=charts)
    cold_tree = snapshot(charts / "dist") if (charts / "dist").exists() else {}
    served = server.run(*args, cwd=charts)
    assert same(served) == same(built_cold)
    assert (snapshot(charts / "dist") if (charts / "dist").exists() else {}) == cold_tree
    assert server.served() == before + 1


def test_a_served_refusal_is_the_cold_refusal(server, make_pkg):
    root = make_pkg({"package.json": ui_manifest(), "src/app/host.tsx": "export const x = 1;\n"})
    built_cold = cold("ui", root)
    assert built_cold.returncode == 1
    assert same(server.run("ui", root)) == same(built_cold)
    broken = make_pkg({"package.json": ui_manifest(), "src/app/host.tsx": 'import x from "./nope";\n' + HOST_TSX})
    assert same(server.run("ui", broken)) == same(cold("ui", broken))
    assert server.served() == 2


def _small_files() -> None:
    resource_limit(2000)


def resource_limit(size: int) -> None:
    import resource

    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))


def test_the_worker_takes_on_the_callers_limits_and_environment(server, make_pkg):
    """``ulimit -f`` stops a served build as it stops a cold one; the caller's PATH and cache are the worker's."""
    big = "export const blob = " + json.dumps("x" * 50_000) + ";\n"
    root = make_pkg({"package.json": ui_manifest(), "src/app/host.tsx": big + HOST_TSX})
    served = server.run("ui", root, preexec_fn=_small_files)
    assert served.returncode == 2 and "file too large" in served.stderr
    assert same(served) == same(cold("ui", root, preexec_fn=_small_files))
    # an esbuild cache that is empty, and no npm on PATH to fill it: the caller's environment decides
    small = make_pkg({"package.json": ui_manifest(), "src/app/host.tsx": HOST_TSX})
    empty = small.parent / "empty-cache"
    empty.mkdir()
    env = {**server.env, "NEURALIS_BUILD_CACHE": str(empty), "PATH": "/nonexistent"}
    served = subprocess.run([CLI, "ui", small], env=env, capture_output=True, text=True, timeout=120)
    assert served.returncode == 2 and "npm" in served.stderr
    env["NEURALIS_BUILD_SERVER"] = "0"
    assert same(served) == same(subprocess.run([CLI, "ui", small], env=env, capture_output=True, text=True))
    assert server.served() == 2


def _wait_for_line(stream, text: str, timeout: float = 60) -> str:
    """Read ``stream`` until a line with ``text`` (the build waiting for the folder lock)."""
    deadline = time.monotonic() + timeout
    seen = ""
    while time.monotonic() < deadline:
        line = stream.readline()
        seen += line
        if text in line:
            return seen
        assert line, f"ended without {text!r}: {seen!r}"
    raise AssertionError(f"no {text!r} within {timeout} s: {seen!r}")


@pytest.mark.parametrize("served", [False, True], ids=["cold", "served"])
def test_ctrl_c_stops_a_served_build_as_a_cold_one(served, server, make_pkg):
    """SIGINT to the caller reaches the worker (waiting for a folder this test holds): exit 130, nothing written."""
    root = make_pkg({"package.json": ui_manifest(), "src/app/host.tsx": HOST_TSX})
    env = server.env if served else cold_env()
    with hold(root):
        proc = subprocess.Popen([CLI, "ui", root], env=env, stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert proc.stderr is not None
        _wait_for_line(proc.stderr, "waiting for")
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    assert (proc.returncode, out) == (130, "")
    assert "interrupted" in err
    assert not (root / "dist").exists()
    assert server.served() == (1 if served else 0)


def test_a_killed_caller_takes_its_worker_with_it(server, make_pkg):
    root = make_pkg({"package.json": ui_manifest(), "src/app/host.tsx": HOST_TSX})
    with hold(root), subprocess.Popen([CLI, "ui", root], env=server.env, stderr=subprocess.PIPE, text=True) as proc:
        assert proc.stderr is not None
        _wait_for_line(proc.stderr, "waiting for")
        proc.kill()
        proc.wait(timeout=30)
        deadline = time.monotonic() + 30
        while (server.status() or {}).get("buildsRunning") != 0:
            assert time.monotonic() < deadline, "the worker outlived its caller"
            time.sleep(0.05)
    time.sleep(0.2)
    assert not (root / "dist").exists()  # the worker died waiting: it never built


def test_a_server_whose_code_changed_answers_stale_and_ends(server_env, make_pkg, tmp_path):
    """An upgrade (here: a touched module of a copy of the package) is never served by the old code."""
    copy = tmp_path / "site"
    shutil.copytree(
        Path(warm.__file__).parent.parent, copy / "neuralis_build", ignore=shutil.ignore_patterns("__pycache__")
    )
    env = {**server_env, "PYTHONPATH": str(copy)}
    running = Server(Path(server_env["NEURALIS_BUILD_SERVER_DIR"]), env)
    running.start()
    try:
        root = make_pkg({"package.json": ui_manifest(), "src/app/host.tsx": HOST_TSX})
        script = [sys.executable, "-c", "import sys; from neuralis_build.cli.entry import main; sys.exit(main())"]
        first = subprocess.run([*script, "ui", "."], env=env, cwd=root, capture_output=True, text=True, timeout=300)
        assert first.returncode == 0 and running.served() == 1
        module = copy / "neuralis_build" / "ui" / "run.py"
        os.utime(module, ns=(module.stat().st_atime_ns, module.stat().st_mtime_ns + 10**9))
        quiet = {**env, "NEURALIS_BUILD_SERVER": ""}  # used if it answers; none started after (not a terminal)
        again = subprocess.run([*script, "ui", "."], env=quiet, cwd=root, capture_output=True, text=True, timeout=300)
        assert same(again) == same(first)  # built cold, with the same result
        assert running.proc is not None
        running.proc.wait(timeout=30)  # the stale server ended
        assert not list(Path(server_env["NEURALIS_BUILD_SERVER_DIR"]).glob("*.sock"))
    finally:
        running.stop()


def test_an_idle_server_ends_and_takes_its_socket_along(server_env):
    running = Server(Path(server_env["NEURALIS_BUILD_SERVER_DIR"]), {**server_env, "NEURALIS_BUILD_SERVER_IDLE": "1"})
    running.start()
    assert running.proc is not None
    assert running.proc.wait(timeout=30) == 0
    assert not list(running.folder.glob("*.sock"))


def test_a_folder_others_may_enter_is_never_used(server, make_pkg):
    root = make_pkg({"package.json": ui_manifest(), "src/app/host.tsx": HOST_TSX})
    server.folder.chmod(0o755)
    try:
        assert server.run("ui", root).returncode == 0
    finally:
        server.folder.chmod(0o700)
    assert server.served() == 0  # built cold: a socket in a folder others can write to may not be ours
    assert stat.S_IMODE(server.folder.stat().st_mode) == 0o700


def test_a_second_server_leaves_the_first_alone(server):
    second = subprocess.run([sys.executable, "-m", "neuralis_build.warm.server"], env=server.env, timeout=60)
    assert second.returncode == 0
    assert server.status() is not None


def test_the_server_command_starts_reports_and_stops(server_env):
    def cmd(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([CLI, "server", *args], env=server_env, capture_output=True, text=True, timeout=60)

    assert cmd().stdout.startswith("no server runs")
    started = cmd("start")
    assert started.returncode == 0 and started.stdout.startswith("server pid ")
    status = json.loads(cmd("--format", "json").stdout)
    assert status["running"] is True and status["buildsServed"] == 0 and status["socket"].endswith(".sock")
    stopped = cmd("stop")
    assert stopped.stdout.startswith("no server runs")
    deadline = time.monotonic() + 30
    while Path(f"/proc/{status['pid']}").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not Path(f"/proc/{status['pid']}").exists() or "Z" in Path(f"/proc/{status['pid']}/stat").read_text()


PRELOAD_PROBE = """
import sys
from neuralis_build.warm.server import PRELOAD
import importlib
for name in PRELOAD:
    importlib.import_module(name)
before = set(sys.modules)
from neuralis_build.cli.entry import run
for args in {runs!r}:
    run(args)
print(sorted(m for m in set(sys.modules) - before if m.startswith(("neuralis_build", "rich", "typer", "click"))))
"""


def test_the_server_preloads_what_a_build_imports(make_pkg, examples):
    """What a worker would import at its build (an ok one, a refusal, an esbuild error, JSON) the server has."""
    charts, _ = examples()
    refused = make_pkg({"package.json": ui_manifest(), "src/app/host.tsx": "export const x = 1;\n"})
    broken = make_pkg({"package.json": ui_manifest(), "src/app/host.tsx": 'import x from "./nope";\n' + HOST_TSX})
    runs = [["ui", str(charts)], ["ui", str(refused)], ["ui", str(broken)], ["ui", str(charts), "--format", "json"]]
    done = subprocess.run(
        [sys.executable, "-c", PRELOAD_PROBE.format(runs=runs)], capture_output=True, text=True, timeout=300
    )
    assert done.stdout.strip().splitlines()[-1] == "[]"


@pytest.mark.parametrize(
    ("env", "interactive", "starts", "used"),
    [
        ({}, True, True, True),
        ({}, False, False, True),
        ({"CI": "true"}, True, False, True),
        ({"CI": "false"}, True, True, True),
        ({"NEURALIS_BUILD_SERVER": "1", "CI": "true"}, False, True, True),
        ({"NEURALIS_BUILD_SERVER": "0"}, True, False, False),
        ({"NEURALIS_BUILD_SERVER": "off"}, True, False, False),
    ],
)
def test_when_a_server_is_started_and_used(env, interactive, starts, used):
    assert warm.should_start(env, interactive) is starts
    assert warm.may_use(env) is used


def test_where_the_socket_lives():
    assert warm.folder({"NEURALIS_BUILD_SERVER_DIR": "/x/y"}) == "/x/y"
    assert warm.folder({"XDG_RUNTIME_DIR": "/run/user/7"}) == "/run/user/7/neuralis-build"
    assert warm.folder({"XDG_RUNTIME_DIR": "relative"}) == f"/tmp/neuralis-build-{os.getuid()}"
    assert warm.idle_seconds({"NEURALIS_BUILD_SERVER_IDLE": "30"}) == 30
    assert warm.idle_seconds({"NEURALIS_BUILD_SERVER_IDLE": "soon"}) == warm.IDLE_SECONDS
    assert len(warm.socket_path({"XDG_RUNTIME_DIR": "/run/user/1000"})) < 100  # a Unix socket path is at most 107


def test_frames_round_trip_and_garbage_is_no_frame():
    chunks = [warm.frame(("pid", 42)) + warm.frame(("exit", 3))]
    reader = warm.FrameReader(lambda _n: chunks.pop(0) if chunks else b"")
    assert reader.take() == ("pid", 42)
    assert reader.take() == ("exit", 3)
    assert reader.take() is None
    huge = [(warm.MAX_FRAME + 1).to_bytes(4, "big")]
    assert warm.FrameReader(lambda _n: huge.pop(0) if huge else b"").take() is None


def test_a_large_environment_and_a_closed_stdin(server, make_pkg):
    """An environment past one socket read (256 KiB) is served whole; a caller without fd 0 builds cold."""
    root = make_pkg({"package.json": ui_manifest(), "src/app/host.tsx": HOST_TSX})
    big = {**server.env, **{f"NEURALIS_TEST_PADDING_{i}": "x" * 64_000 for i in range(4)}}  # 128 KiB a variable at most
    served = subprocess.run([CLI, "ui", root, "--format", "json"], env=big, capture_output=True, text=True, timeout=300)
    assert served.returncode == 0 and server.served() == 1
    assert same(served) == same(cold("ui", root, "--format", "json"))
    # used if it answers, none started after (with =1 the cold build started a second server, which outlived
    # the test by up to a minute, its folder gone)
    used_not_started = {**server.env, "NEURALIS_BUILD_SERVER": ""}
    closed = subprocess.run(
        [CLI, "ui", root],
        env=used_not_started,
        capture_output=True,
        text=True,
        timeout=300,
        preexec_fn=lambda: os.close(0),
    )
    assert closed.returncode == 0, closed.stderr
    assert server.served() == 1  # built cold: there was no stdin to hand over


HEAVY = {"re", "enum", "signal", "socket", "array", "subprocess", "threading", "typing", "json", "pathlib", "rich"}
"""Modules a served caller must never import: each costs more than the whole hand-over (bench/ui_bench.py)."""


def test_a_served_caller_imports_nothing_heavy(server, make_pkg):
    """The installed command itself (launcher/neuralis-build, not pip's console_scripts wrapper, which imports re
    first) hands a `ui` to the server with builtin modules and its own client only."""
    script = BIN / "neuralis-build"
    root = make_pkg({"package.json": ui_manifest(), "src/app/host.tsx": HOST_TSX})
    done = subprocess.run(
        [sys.executable, "-X", "importtime", str(script), "ui", root],
        env=server.env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0 and server.served() == 1, done.stderr
    imported = {line.split("|")[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")} - {
        "package"
    }
    assert "neuralis_build.warm.client" in imported
    assert imported & HEAVY == set(), sorted(imported)
    assert not any(name.startswith(("neuralis_build.ui", "neuralis_build.cli.ui")) for name in imported)
