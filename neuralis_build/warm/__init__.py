"""The warm build server: `ui` served by a resident process with its imports done; a build costs esbuild and a few ms.

A cold ``neuralis-build ui`` pays some 50 ms of interpreter start-up and imports before esbuild starts
(``bench/ui_bench.py --parts``), however small the package; `build:ui` runs on every change an author
makes. Gradle's daemon and Nx's are the model. The first ``ui`` run from a terminal starts a server in
the background. Later ones connect to it over a Unix socket in a folder only this user can enter, hand
it their arguments, folder, environment, umask, resource limits and their own stdin, stdout and stderr
(``SCM_RIGHTS``), and the server forks a worker that runs exactly what the cold path runs, writing to
the caller's own terminal. The caller forwards Ctrl-C and ends with the worker's exit status; a caller
that is killed takes its worker with it. A served build and a cold one give the same output, the same
bytes and the same exit code (tests/ui/test_warm.py).

- Used whenever one runs for this installation, unless ``NEURALIS_BUILD_SERVER=0``.
- Started after a cold ``ui`` whose stderr is a terminal when ``CI`` is not set, or always with
  ``NEURALIS_BUILD_SERVER=1``.
- Ends after ``NEURALIS_BUILD_SERVER_IDLE`` seconds without a build (900), when its own code changes on
  disk (it answers "stale" and the caller builds cold), or on ``neuralis-build server stop``.

This module is on the client's path, which runs before every `ui`: only modules the interpreter has
loaded at start (``os``, ``stat``, ``sys``, ``marshal``). The command (launcher/neuralis-build) does not
import ``re`` as pip's console_scripts wrapper does; tests/ui/test_warm.py pins what a served caller loads.
"""

from __future__ import annotations

import marshal
import os
import stat
import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up); mypy knows the name
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any

PROTOCOL = 1
"""Raised whenever the request or a reply changes shape; a server answers only its own protocol."""

IDLE_SECONDS = 900.0
MAX_FRAME = 16 << 20
"""A frame is a 4-byte big-endian length and a marshal'ed value; anything longer is not ours."""

_OFF = frozenset({"0", "off", "false", "no"})
_ON = frozenset({"1", "on", "true", "yes"})


def _setting(environ: Mapping[str, str]) -> str:
    return environ.get("NEURALIS_BUILD_SERVER", "").strip().lower()


def may_use(environ: Mapping[str, str]) -> bool:
    """May `ui` hand its build to a running server? Yes unless NEURALIS_BUILD_SERVER turns it off."""
    return _setting(environ) not in _OFF


def should_start(environ: Mapping[str, str], interactive: bool) -> bool:
    """Start a server after a cold `ui`? For a person at a terminal (not CI), or when asked for by name."""
    setting = _setting(environ)
    if setting in _OFF:
        return False
    if setting in _ON:
        return True
    return interactive and environ.get("CI", "").strip().lower() in ("", "0", "false")


def idle_seconds(environ: Mapping[str, str]) -> float:
    """How long a server waits for the next build before it ends (NEURALIS_BUILD_SERVER_IDLE, seconds)."""
    try:
        value = float(environ.get("NEURALIS_BUILD_SERVER_IDLE", ""))
    except ValueError:
        return IDLE_SECONDS
    return value if 0 < value < 86400 * 7 else IDLE_SECONDS


def folder(environ: Mapping[str, str]) -> str:
    """Where the sockets live: NEURALIS_BUILD_SERVER_DIR, else $XDG_RUNTIME_DIR/neuralis-build, else /tmp."""
    explicit = environ.get("NEURALIS_BUILD_SERVER_DIR")
    if explicit:
        return os.path.abspath(explicit)
    runtime = environ.get("XDG_RUNTIME_DIR", "")
    if os.path.isabs(runtime):
        return os.path.join(runtime, "neuralis-build")
    tmp = environ.get("TMPDIR", "")
    return os.path.join(tmp if os.path.isabs(tmp) else "/tmp", f"neuralis-build-{os.getuid()}")


def private(path: str) -> bool:
    """Is ``path`` a folder (not a link) of this user's that nobody else may enter? Only then is a socket in it ours."""
    try:
        st = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISDIR(st.st_mode) and st.st_uid == os.getuid() and not st.st_mode & 0o077


def identity() -> str:
    """This installation (environment, package folder, version): a server serves the `ui` of its own code only.

    The environment is ``sys.prefix`` (the virtual environment), not the interpreter's name: ``python``
    and ``python3`` of one environment are one installation. FNV-1a (64 bits) of the three, in hex:
    short enough for a socket path, and no hashlib on the client's path.
    """
    from neuralis_build import __version__

    text = "\0".join((sys.prefix, os.path.dirname(os.path.dirname(os.path.abspath(__file__))), __version__))
    digest = 0xCBF29CE484222325
    for byte in text.encode("utf-8", "surrogateescape"):
        digest = ((digest ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return f"{digest:016x}"


def socket_path(environ: Mapping[str, str]) -> str:
    """The socket of this installation's server."""
    return os.path.join(folder(environ), f"ui-{identity()}.sock")


def frame(value: Any) -> bytes:
    """One message: its length, then the value (marshal: plain data only, from a peer of the same user)."""
    data = marshal.dumps(value)
    return len(data).to_bytes(4, "big") + data


class FrameReader:
    """Reads frames off a stream socket, keeping what arrives early for the next one."""

    def __init__(self, recv: Callable[[int], bytes]) -> None:
        self._recv = recv
        self._buffer = b""

    def take(self, first: bytes = b"") -> object | None:
        """The next frame's value; None at the end of the stream (or when what came is not a frame)."""
        self._buffer += first
        while True:
            if len(self._buffer) >= 4:
                size = int.from_bytes(self._buffer[:4], "big")
                if size > MAX_FRAME:
                    return None
                if len(self._buffer) >= 4 + size:
                    data, self._buffer = self._buffer[4 : 4 + size], self._buffer[4 + size :]
                    try:
                        value: object = marshal.loads(data)
                        return value
                    except (EOFError, ValueError, TypeError):
                        return None
            chunk = self._recv(65536)
            if not chunk:
                return None
            self._buffer += chunk
