"""Run a command on a real pseudo-terminal of a given width, or with its output in pipes."""

from __future__ import annotations

import fcntl
import os
import pty
import struct
import subprocess
import termios
from pathlib import Path


def on_terminal(args: list[str], *, cwd: Path, columns: int = 200, env: dict[str, str] | None = None) -> str:
    """Run with stdout and stderr on a pseudo-terminal of ``columns`` columns; everything it printed."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, columns, 0, 0))
    environment = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "COLUMNS", "FORCE_COLOR", "TERM")}
    environment.update({"TERM": "xterm-256color", **(env or {})})
    with subprocess.Popen(args, stdin=slave, stdout=slave, stderr=slave, cwd=cwd, env=environment) as proc:
        os.close(slave)
        chunks = []
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the child closed the terminal
                break
            if not chunk:
                break
            chunks.append(chunk)
        proc.wait(timeout=120)
    os.close(master)
    return b"".join(chunks).decode().replace("\r\n", "\n")


def piped(args: list[str], *, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "COLUMNS", "FORCE_COLOR")}
    return subprocess.run(
        args, cwd=cwd, capture_output=True, text=True, timeout=120, env={**environment, **(env or {})}
    )
