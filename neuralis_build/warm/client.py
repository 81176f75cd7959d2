"""The caller's side of the warm build server: hand `ui` to the server, forward signals, end as its worker ended.

Runs before every ``ui`` and must cost almost nothing when no server runs (one ``lstat`` and a refused
``connect``): the C socket module, marshal and array, no ``socket`` or ``subprocess`` (they cost more
than the whole exchange). Whatever goes wrong before the worker has started gives None, and the caller
builds cold: the server is a speed-up, never a new way to fail.
"""

from __future__ import annotations

import os
import sys

from neuralis_build import warm

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up); mypy knows the name
if TYPE_CHECKING:
    import _socket

LIMITS = ("RLIMIT_FSIZE", "RLIMIT_NOFILE", "RLIMIT_AS", "RLIMIT_DATA", "RLIMIT_CPU", "RLIMIT_CORE", "RLIMIT_NPROC")
"""The caller's resource limits that the worker takes on (``ulimit -f`` must stop a served build as a cold one)."""

FORWARDED = ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT")


def _limits() -> list[tuple[int, int, int]]:
    import resource

    found = []
    for name in LIMITS:
        number = getattr(resource, name, None)
        if number is not None:
            soft, hard = resource.getrlimit(number)
            found.append((number, soft, hard))
    return found


def request(args: list[str]) -> tuple[object, ...]:
    """What the worker needs to be this process: arguments, folder, environment, umask, limits, stream encodings."""
    umask = os.umask(0o022)
    os.umask(umask)
    streams = tuple(getattr(s, "encoding", None) or "utf-8" for s in (sys.stdin, sys.stdout, sys.stderr))
    return ("build", warm.PROTOCOL, sys.argv[0], args, os.getcwd(), dict(os.environb), umask, _limits(), streams)


def run_served(args: list[str]) -> int | None:
    """Run ``neuralis-build ARGS`` (``ui …``) in this installation's server; None when none can take it (build cold)."""
    environ = os.environ
    if not warm.may_use(environ):
        return None
    where = warm.folder(environ)
    if not warm.private(where):
        return None
    import _socket
    import array

    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.connect(os.path.join(where, f"ui-{warm.identity()}.sock"))
        fds = array.array("i", [0, 1, 2]).tobytes()
        sock.sendmsg([warm.frame(request(args))], [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, fds)])
    except OSError:  # no server (no socket, or one that a dead server left), a closed stdin: build cold
        sock.close()
        return None
    reader = warm.FrameReader(sock.recv)
    try:
        started = reader.take()
    except OSError:
        sock.close()
        return None
    except KeyboardInterrupt:  # before the worker said it runs: it ends with the connection, if it started
        sock.close()
        return 130
    if not (isinstance(started, tuple) and len(started) == 2 and started[0] == "pid"):
        sock.close()  # "stale" (its code changed on disk), "refused" (this process cannot be taken on): cold
        return None
    return _wait(sock, reader, int(started[1]))


def _wait(sock: _socket.socket, reader: warm.FrameReader, pid: int) -> int:
    """Forward the signals a terminal sends to the worker until its status comes; end as it ended."""
    import signal

    def forward(signum: int, _frame: object) -> None:
        try:
            os.kill(pid, signum)
        except OSError:
            pass  # it has ended already: its status is on its way

    for name in FORWARDED:
        signal.signal(getattr(signal, name), forward)
    try:
        status = reader.take()
    except OSError:
        status = None
    finally:
        sock.close()
    if isinstance(status, tuple) and len(status) == 2 and status[0] == "exit":
        return int(status[1])
    if isinstance(status, tuple) and len(status) == 2 and status[0] == "signal":
        signum = int(status[1])
        signal.signal(signum, signal.SIG_DFL)  # end by the same signal, so a shell sees what it would have seen
        os.kill(os.getpid(), signum)
        return 128 + signum
    print(
        f"neuralis-build: the build server's worker (pid {pid}) ended without an exit status; run the command "
        "again, or set NEURALIS_BUILD_SERVER=0 to build without the server",
        file=sys.stderr,
    )
    return 2


def start_if_wanted() -> None:
    """After a cold `ui`: start this installation's server in the background for the next one, where that is wanted
    (``warm.should_start``); it never holds up or fails this build."""
    if hasattr(os, "pidfd_open") and warm.should_start(os.environ, _interactive()):
        start_server()


def start_server() -> None:
    """Start this installation's server in the background, detached from this process and its terminal."""
    import subprocess

    try:
        subprocess.Popen(
            [sys.executable, "-m", "neuralis_build.warm.server"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            close_fds=True,
            cwd="/",
        )
    except OSError:
        pass


def _interactive() -> bool:
    try:
        return os.isatty(2)
    except OSError:
        return False


def ask(op: str) -> object | None:
    """Ask this installation's server for its ``status`` or to ``stop``; its answer, or None when none runs."""
    where = warm.folder(os.environ)
    if not warm.private(where):
        return None
    import _socket

    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.connect(os.path.join(where, f"ui-{warm.identity()}.sock"))
        sock.sendall(warm.frame((op, warm.PROTOCOL)))
        answer = warm.FrameReader(sock.recv).take()
    except OSError:
        return None
    finally:
        sock.close()
    return answer[1] if isinstance(answer, tuple) and len(answer) == 2 else None
