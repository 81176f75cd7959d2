"""`neuralis-build dev` as an author runs it: a real subprocess in its own process group, its output
read line by line, stopped with Ctrl-C (SIGINT) and checked to leave no process behind."""

from __future__ import annotations

import os
import queue
import re
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent
URL_LINE = re.compile(r"^neuralis-build dev: serving .* at (http://127\.0\.0\.1:\d+/\?key=[\w-]+) \(Ctrl-C stops\)$")
START_TIMEOUT = 300  # the first run may fetch React with npm into the cache


@dataclass
class DevProcess:
    """A running `neuralis-build dev`: its URL (with the page's key), and every line it printed so far."""

    proc: subprocess.Popen[str]
    url: str = ""

    @property
    def origin(self) -> str:
        """The page's origin, ``http://127.0.0.1:PORT`` (its URL without the path and the key)."""
        return self.url.split("/?", 1)[0]

    @property
    def port(self) -> int:
        return int(self.origin.rsplit(":", 1)[1])

    @property
    def key(self) -> str:
        return self.url.rsplit("key=", 1)[1]

    lines: list[str] = field(default_factory=list)
    _queue: queue.Queue[str | None] = field(default_factory=queue.Queue)
    reader: threading.Thread | None = None

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self._queue.put(line.rstrip("\n"))
        self._queue.put(None)

    def wait_line(self, pattern: str, timeout: float = START_TIMEOUT) -> re.Match[str]:
        """The first line from now on that matches ``pattern`` (a regex searched in each line)."""
        regex = re.compile(pattern)
        while True:
            try:
                line = self._queue.get(timeout=timeout)
            except queue.Empty:
                seen = "\n".join(self.lines)
                raise AssertionError(f"no line matching {pattern!r} within {timeout} s:\n{seen}") from None
            if line is None:
                raise AssertionError(f"dev exited ({self.proc.wait()}) before {pattern!r}:\n" + "\n".join(self.lines))
            self.lines.append(line)
            found = regex.search(line)
            if found:
                return found

    def stop(self) -> int:
        """Ctrl-C, as a terminal sends it to the foreground process group; returns the exit code."""
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGINT)
        code = self.proc.wait(timeout=60)
        while True:  # drain what it printed on the way out
            try:
                line = self._queue.get(timeout=30)
            except queue.Empty:
                break
            if line is None:
                break
            self.lines.append(line)
        return code


def group_alive(pgid: int) -> bool:
    """True while any process of the group is left."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.fixture
def dev_server() -> Iterator[Callable[..., DevProcess]]:
    """``dev_server(path, *args)`` starts `neuralis-build dev PATH --port 0 *args` and waits for its URL."""
    started: list[DevProcess] = []

    def start(path: Path, *args: str) -> DevProcess:
        env = dict(os.environ, PYTHONUNBUFFERED="1", PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")
        proc = subprocess.Popen(
            [str(BIN / "neuralis-build"), "dev", str(path), "--port", "0", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=env,
            start_new_session=True,  # its own process group: Ctrl-C reaches it and its children, as in a terminal
        )
        dev = DevProcess(proc)
        started.append(dev)
        dev.reader = threading.Thread(target=dev._read, daemon=True)
        dev.reader.start()
        dev.url = dev.wait_line(URL_LINE.pattern).group(1)
        return dev

    yield start
    for dev in started:
        if dev.proc.poll() is None:
            os.killpg(dev.proc.pid, signal.SIGKILL)
            dev.proc.wait()
        if dev.reader is not None:
            dev.reader.join(timeout=60)
        if dev.proc.stdout is not None:
            dev.proc.stdout.close()
