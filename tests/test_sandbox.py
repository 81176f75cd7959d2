"""The OS sandbox, run for real: what a program inside it can see, reach and change of the machine around it."""

from __future__ import annotations

import json
import os
import shutil
import socket
from pathlib import Path

import pytest

from neuralis_build.util.sandbox import HOME, Mount, NoSandbox, Sandbox, find_sandbox

NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="node is needed")


@pytest.fixture
def box() -> Sandbox:
    assert NODE is not None
    found = find_sandbox(NODE)
    if isinstance(found, NoSandbox):
        pytest.skip(found.reason)
    return found


def node(box: Sandbox, code: str, **kw: object) -> dict[str, object]:
    done = box.run(["-e", code], timeout=30, **kw)  # type: ignore[arg-type]
    assert done.returncode == 0, done.stderr
    result: dict[str, object] = json.loads(done.stdout)
    return result


def test_the_program_sees_four_variables_its_own_processes_and_an_empty_home(
    box: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NPM_TOKEN", "secret-in-the-build")
    seen = node(
        box,
        """const fs = require("fs");
        process.stdout.write(JSON.stringify({
          env: process.env,
          pids: fs.readdirSync("/proc").filter((p) => /^\\d+$/.test(p)).length,
          init: fs.readFileSync("/proc/1/environ", "utf8"),
          home: fs.readdirSync(require("os").homedir()),
          etc: fs.readdirSync("/etc").sort(),
          user: require("os").userInfo().username,
        }));""",
    )
    assert seen["env"] == {
        "PATH": "/run/neuralis/bin:/usr/bin:/bin",
        "HOME": HOME,
        "TMPDIR": "/tmp",
        "LANG": "C.UTF-8",
        "PWD": HOME,
    }
    assert seen["pids"] == 2  # bwrap's init and node: not the build, not anything else on the machine
    assert seen["init"] == ""  # bwrap itself was started with an empty environment
    assert seen["home"] == []
    assert seen["etc"] == ["group", "ld.so.cache", "passwd"]
    assert seen["user"] == "sandbox"


def test_the_machine_s_files_are_out_of_reach_and_a_mount_is_read_only(box: Sandbox, tmp_path: Path) -> None:
    (tmp_path / "tree").mkdir()
    (tmp_path / "tree/file.js").write_text("original")
    secret = Path.home() / ".neuralis-test-secret"
    secret.write_text("token")
    try:
        seen = node(
            box,
            f"""const fs = require("fs");
            const attempt = (f) => {{ try {{ f(); return "done"; }} catch (e) {{ return e.code; }} }};
            process.stdout.write(JSON.stringify({{
              secret: attempt(() => fs.readFileSync({json.dumps(str(secret))})),
              write: attempt(() => fs.writeFileSync("/tree/file.js", "pwned")),
              remove: attempt(() => fs.unlinkSync("/tree/file.js")),
              chmod: attempt(() => fs.chmodSync("/tree/file.js", 0o777)),
              root: attempt(() => fs.writeFileSync("/new-file", "x")),
              tmp: attempt(() => fs.writeFileSync("/tmp/scratch", "x")),
              read: fs.readFileSync("/tree/file.js", "utf8"),
            }}));""",
            mounts=[Mount(tmp_path / "tree", "/tree")],
        )
    finally:
        secret.unlink()
    assert seen == {
        "secret": "ENOENT",
        "write": "EROFS",
        "remove": "EROFS",
        "chmod": "EROFS",
        "root": "EROFS",
        "tmp": "done",
        "read": "original",
    }
    assert (tmp_path / "tree/file.js").read_text() == "original"


def test_there_is_no_network_not_even_the_machine_s_loopback(box: Sandbox) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp, socket.socket() as tcp:
        udp.bind(("127.0.0.1", 0))
        udp.setblocking(False)
        tcp.bind(("127.0.0.1", 0))
        tcp.listen()
        tcp.setblocking(False)
        seen = node(
            box,
            f"""const net = require("net"), dgram = require("dgram");
            const s = dgram.createSocket("udp4");
            s.send("leak", {udp.getsockname()[1]}, "127.0.0.1", () => s.close());
            const c = net.connect({tcp.getsockname()[1]}, "127.0.0.1");
            c.on("error", (e) => process.stdout.write(JSON.stringify({{ tcp: e.code }})));
            c.on("connect", () => process.stdout.write(JSON.stringify({{ tcp: "connected" }})));""",
        )
        assert seen == {"tcp": "ECONNREFUSED"}  # its own loopback, where nothing listens
        with pytest.raises(BlockingIOError):
            udp.recv(100)
        with pytest.raises(BlockingIOError):
            tcp.accept()


def test_a_program_that_runs_too_long_or_prints_too_much_is_stopped(box: Sandbox) -> None:
    late = box.run(["-e", "setInterval(() => {}, 1000)"], timeout=1)
    assert (late.timed_out, late.returncode) == (True, -9)
    loud = box.run(["-e", "process.stdout.write('x'.repeat(3e6))"], timeout=30, output_cap=1000)
    assert (loud.overflowed, len(loud.out)) == (True, 1000)
    crash = box.run(["-e", "process.kill(process.pid, 'SIGSEGV')"], timeout=30)
    assert crash.returncode == -11


def test_an_empty_override_turns_the_sandbox_off_and_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    assert NODE is not None
    monkeypatch.setenv("NEURALIS_BWRAP", "")
    assert find_sandbox(NODE) == NoSandbox("NEURALIS_BWRAP is set to an empty string, which turns the sandbox off")
    monkeypatch.setenv("NEURALIS_BWRAP", "/nonexistent/bwrap")
    assert find_sandbox(NODE) == NoSandbox("/nonexistent/bwrap is not an executable")
    monkeypatch.setenv("NEURALIS_BWRAP", os.devnull)
    assert isinstance(find_sandbox(NODE), NoSandbox)
