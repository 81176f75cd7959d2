"""Every subprocess runs through one runner: a timeout, a clear failure, nothing left running.

A hung registry must not hang CI: the real npm against a registry that accepts connections and never
answers is stopped at its timeout and reported in one line (the image's npm runner, the one every
npm call of the image build goes through).
"""

from __future__ import annotations

import socket
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from neuralis_build.image.resolution.npmcli import NpmFailed, run_npm
from neuralis_build.util.errors import SubprocessError, ToolMissingError
from neuralis_build.util.process import run, which


@pytest.fixture
def silent_registry() -> Iterator[str]:
    """A registry on loopback that accepts every connection and never says a word."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                continue
            held.append(conn)

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.getsockname()[1]}/"
    stop.set()
    thread.join()
    for conn in held:
        conn.close()
    server.close()


def test_a_finished_program_says_what_it_printed(tmp_path: Path) -> None:
    done = run(
        [sys.executable, "-c", "import sys; print('out'); print('err', file=sys.stderr); sys.exit(3)"], timeout=60
    )
    assert (done.returncode, done.stdout, done.stderr) == (3, "out\n", "err\n")
    echoed = run([sys.executable, "-c", "import sys; sys.stdout.write(sys.stdin.read())"], input="é", timeout=60)
    assert echoed.stdout == "é"


def test_a_program_that_never_ends_is_stopped_at_its_timeout() -> None:
    command = [sys.executable, "-c", "import time\nprint('started', flush=True)\nwhile True: time.sleep(1)"]
    with pytest.raises(SubprocessError) as err:
        run(command, timeout=1)
    assert err.value.message.endswith("did not finish within 1 s and was stopped")
    assert err.value.command == command
    assert "started" in err.value.output  # what it printed before it was stopped


def test_a_program_that_cannot_start_is_a_missing_tool(tmp_path: Path) -> None:
    with pytest.raises(ToolMissingError, match="cannot run"):
        run([str(tmp_path / "nope")], timeout=60)
    with pytest.raises(ToolMissingError, match="nope-tool is not on PATH"):
        which("nope-tool", "install it")


def test_npm_against_a_registry_that_never_answers_is_stopped(silent_registry: str, tmp_path: Path) -> None:
    args = ["pack", "left-pad@1.3.0", "--json", f"--registry={silent_registry}", "--cache", str(tmp_path / "c")]
    with pytest.raises(NpmFailed) as err:
        run_npm(args, tmp_path, timeout=3)
    assert (err.value.code, err.value.exit_code) == ("ETIMEOUT", 2)
    assert err.value.message == "npm pack did not finish within 3 s"
