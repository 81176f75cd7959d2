"""The caller's side of the warm build server: hand `ui` to the server, forward signals, end as its worker ended.

Runs before every ``ui`` and must cost almost nothing when no server runs (one ``lstat`` and a refused
``connect``): the C modules ``_socket``, ``_signal``, marshal and resource only; ``socket``, ``signal``
(which import ``enum``), ``array`` and ``subprocess`` cost more than the whole exchange. Whatever goes wrong
before the worker has started gives None, and the caller builds cold: the server is a speed-up, never a new
way to fail.
"""

from __future__ import annotations

import os
import sys

from neuralis_build import warm

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up); mypy knows the name
if TYPE_CHECKING:
    import signal  # the same functions and numbers; typeshed has no stub for _signal
else:
    import _signal as signal  # the C module, loaded at interpreter start; signal itself imports enum

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
    try:
        for fd in (0, 1, 2):  # checked before the socket is made, which would otherwise take a closed one's number
            os.fstat(fd)
    except OSError:
        return None  # a closed stdin, stdout or stderr: the worker could not take it on; build cold
    import _socket

    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.connect(os.path.join(where, f"ui-{warm.identity()}.sock"))
        data = warm.frame(request(args))
        fds = b"".join(fd.to_bytes(4, sys.byteorder) for fd in (0, 1, 2))  # three C ints
        sent = sock.sendmsg([data], [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, fds)])
        if sent < len(data):  # a large environment: the descriptors went with the first part
            sock.sendall(data[sent:])
    except OSError:  # no server (no socket, or one that a dead server left), a closed stdin: build cold
        sock.close()
        return None
    signals = _Forwarder()
    reader = warm.FrameReader(sock.recv)
    try:
        started = reader.take()
    except OSError:
        started = None
    if not (isinstance(started, tuple) and len(started) == 2 and started[0] == "pid"):
        sock.close()  # "stale" (its code changed on disk), "refused" (this process cannot be taken on): cold
        return signals.restore()
    signals.to(int(started[1]))
    try:
        status = reader.take()
    except OSError:
        status = None
    finally:
        sock.close()
    return _ended(status, int(started[1]))


class _Forwarder:
    """The signals a terminal sends (Ctrl-C, a hang-up), passed on to the worker; held while its pid is not known."""

    def __init__(self) -> None:
        self.pid = 0
        self.held: list[int] = []
        self.previous = {
            number: signal.signal(number, self.forward) for number in (getattr(signal, n) for n in FORWARDED)
        }

    def forward(self, signum: int, _frame: object) -> None:
        if not self.pid:
            self.held.append(signum)
            return
        try:
            os.kill(self.pid, signum)
        except OSError:
            pass  # it has ended already: its status is on its way

    def to(self, pid: int) -> None:
        self.pid = pid
        for signum in self.held:
            self.forward(signum, None)

    def restore(self) -> int | None:
        """No worker runs this build: the signals are this process's again; 130 if Ctrl-C came meanwhile."""
        for number, handler in self.previous.items():
            signal.signal(number, handler)
        if not self.held:
            return None  # build cold
        if self.held[0] == signal.SIGINT:
            print("interrupted", file=sys.stderr)
            return 130
        os.kill(os.getpid(), self.held[0])  # its own default action now (ends this process)
        return 128 + self.held[0]


def _ended(status: object, pid: int) -> int:
    """The caller's exit code for the worker's wait status; a worker that died by a signal ends the caller alike."""
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
