"""The warm build server: imports done once, one forked worker per `ui`, each one the caller in all but its start-up.

``python -m neuralis_build.warm.server`` (started by ``warm.client.start_if_wanted``). One server per
installation and folder: a lock file held for the server's life keeps a second one from starting, and
the socket's name carries the installation's identity (``warm.identity``). The server itself never
builds. It accepts a connection from its own user only (``SO_PEERCRED``), reads the request and hands
it to a spare worker forked ahead of time, whose memory is already its own (a fork's copy-on-write
faults are paid before the request comes, not during the build). The worker becomes the caller:
folder, environment, umask, resource limits, ``sys.argv`` and the caller's stdin, stdout and stderr.
Then it runs ``cli.entry.run`` as the console script would. When the worker ends, the server sends
its wait status to the caller. The worker watches the connection: a caller that goes away
(``kill -9``) takes its worker with it, as a cold process's build would have died with it. A request
after this server's code changed on disk gets "stale" (the caller builds cold), and the server ends
once its workers are done.
"""

from __future__ import annotations

import gc
import io
import os
import resource
import select
import signal
import socket
import struct
import sys
import time
from collections.abc import Sequence

from neuralis_build import warm

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NoReturn

PRELOAD = (
    "neuralis_build.cli.entry",
    "neuralis_build.cli.boundary",
    "neuralis_build.cli.ui_run",
    "neuralis_build.cli.progress",
    "neuralis_build.cli.common",
    "neuralis_build.cli.render",
    "neuralis_build.ui.run",
    "neuralis_build.ui.assets",
    "neuralis_build.ui.cjs",
    "neuralis_build.ui.metaurl",
    "neuralis_build.ui.tsconfig",
    "neuralis_build.ui.graph",
    "neuralis_build.ui.nodebuiltins",
    "neuralis_build.npmname",
    "rich.console",
    "rich._emoji_codes",
)
"""What a `ui` build imports, its error path included (tests/warm pins that a served build imports no more)."""


class Server:
    """The listening socket, the workers running and the code this server has loaded (to notice it changed)."""

    def __init__(self, where: str, idle: float) -> None:
        self.where = where
        self.idle = idle
        self.path = os.path.join(where, f"ui-{warm.identity()}.sock")
        self.listener: socket.socket | None = None
        self.inode = 0
        self.workers: dict[int, tuple[int, socket.socket]] = {}  # pidfd -> (pid, connection)
        self.spare: Spare | None = None
        self.code: dict[str, tuple[int, int]] = {}
        self.started = time.time()
        self.served = 0
        self.accepting = True
        self._lock = -1
        self._wake_r, self._wake_w = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)

    def bind(self) -> bool:
        """Take this installation's socket, unless another server holds it (then there is nothing to do)."""
        import fcntl

        os.makedirs(self.where, mode=0o700, exist_ok=True)
        if not warm.private(self.where):
            print(
                f"neuralis-build server: {self.where} is not a folder of this user's alone; not serving",
                file=sys.stderr,
            )
            return False
        lock = os.open(self.path[: -len(".sock")] + ".lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        for _ in range(100):  # a stale server ends within moments of saying so; then this one takes over
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                time.sleep(0.02)
        else:
            os.close(lock)
            return False  # held for the life of the server that has it
        self._lock = lock
        try:
            os.unlink(self.path)  # a socket that a killed server left behind
        except FileNotFoundError:
            pass
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old = os.umask(0o177)
        try:
            listener.bind(self.path)
        finally:
            os.umask(old)
        listener.listen(64)
        self.listener = listener
        self.inode = os.stat(self.path).st_ino
        return True

    def preload(self) -> None:
        """Import everything a build imports, note the files they came from, and keep them out of the GC's way."""
        import importlib

        for name in PRELOAD:
            try:
                importlib.import_module(name)
            except ImportError:
                if name.startswith("neuralis_build."):
                    raise
                # another rich than the one this list was made with: a worker imports what it needs itself
        here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        for module in list(sys.modules.values()):
            source = getattr(module, "__file__", None)
            if source and os.path.abspath(source).startswith(here + os.sep):
                st = os.stat(source)
                self.code[source] = (st.st_mtime_ns, st.st_size)
        gc.collect()
        gc.freeze()  # a forked worker then does not copy every page to count references

    def stale(self) -> bool:
        """Has a file of this server's code changed (an upgrade, an edit of an editable install), or its socket gone?"""
        for source, seen in self.code.items():
            try:
                st = os.stat(source)
            except OSError:
                return True
            if (st.st_mtime_ns, st.st_size) != seen:
                return True
        try:
            return os.stat(self.path).st_ino != self.inode
        except OSError:
            return True

    def serve(self) -> None:
        """Take builds until idle for ``idle`` seconds, stale, or stopped; then wait for the running ones."""
        assert self.listener is not None
        poller = select.poll()
        poller.register(self.listener, select.POLLIN)
        poller.register(self._wake_r, select.POLLIN)
        signal.set_wakeup_fd(self._wake_w)
        for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(signum, lambda _signum, _frame: None)  # the wake-up pipe says it; the loop stops
        self.spare = self.new_spare(poller)
        last = time.monotonic()
        while self.accepting or self.workers:
            if self.accepting:
                left = self.idle - (time.monotonic() - last) if not self.workers else 60.0
                if left <= 0:
                    self.close(poller)
                    continue
                timeout: float | None = min(left, 60.0)
            else:
                timeout = None
            events = poller.poll(None if timeout is None else int(timeout * 1000) + 1)
            for fd, _ in events:
                if fd == self._wake_r:
                    while _drain(fd):
                        pass
                    if self.accepting:
                        self.close(poller)
                elif self.listener is not None and fd == self.listener.fileno():
                    self.accept(poller)
                    last = time.monotonic()
                elif fd in self.workers:
                    self.reap(poller, fd)
                    last = time.monotonic()
                    if self.accepting and self.spare is None and not self.workers:
                        self.spare = self.new_spare(poller)  # for the next build; not during one, which it would slow
                elif self.spare is not None and fd == self.spare.pidfd:
                    self.bury(poller, self.spare)  # it died waiting (killed): the next build forks another
            if self.accepting and not events and self.stale():
                self.close(poller)

    def close(self, poller: select.poll) -> None:
        """Stop taking builds: the socket (if still ours) and the spare go; running workers end in their time."""
        self.accepting = False
        if self.spare is not None:
            os.kill(self.spare.pid, signal.SIGKILL)
            self.bury(poller, self.spare)
        if self.listener is not None:
            poller.unregister(self.listener)
            try:
                if os.stat(self.path).st_ino == self.inode:
                    os.unlink(self.path)
            except OSError:
                pass
            self.listener.close()
            self.listener = None

    def accept(self, poller: select.poll) -> None:
        assert self.listener is not None
        try:
            conn, _ = self.listener.accept()
        except OSError:
            return
        try:
            conn.settimeout(5.0)  # a caller sends its request at once; one that does not is not waited for
            peer = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
            if struct.unpack("3i", peer)[1] != os.getuid():
                conn.close()
                return
            message, fds = _receive(conn)
        except (OSError, ValueError):
            conn.close()
            return
        try:
            self.answer(poller, conn, message, fds)
        except OSError:
            conn.close()
        finally:
            for fd in fds:
                os.close(fd)

    def answer(self, poller: select.poll, conn: socket.socket, message: object, fds: list[int]) -> None:
        if not (isinstance(message, tuple) and len(message) >= 2 and message[1] == warm.PROTOCOL):
            conn.sendall(warm.frame(("refused", "another version of the protocol")))
            conn.close()
        elif message[0] == "status":
            conn.sendall(warm.frame(("status", self.status())))
            conn.close()
        elif message[0] == "stop":
            conn.sendall(warm.frame(("stopping", os.getpid())))
            conn.close()
            self.close(poller)
        elif message[0] != "build" or len(fds) != 3:
            conn.sendall(warm.frame(("refused", "not a build request")))
            conn.close()
        elif self.stale():
            conn.sendall(warm.frame(("stale", "this server's code changed on disk")))
            conn.close()
            self.close(poller)
        else:
            conn.settimeout(None)
            spare = self.spare or self.new_spare(poller)
            self.spare = None
            if not spare.take(conn, message, fds):
                os.kill(spare.pid, signal.SIGKILL)  # it cannot take the build; the caller builds cold
                self.bury(poller, spare)
                conn.close()
                return
            self.served += 1
            self.workers[spare.pidfd] = (spare.pid, conn)

    def new_spare(self, poller: select.poll) -> Spare:
        """A worker, forked now, that makes its memory its own and waits for a build."""
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        pid = os.fork()
        if pid == 0:
            ours.close()
            _spare(theirs, self._inherited())
        theirs.close()
        spare = Spare(pid, os.pidfd_open(pid), ours)
        poller.register(spare.pidfd, select.POLLIN)
        return spare

    def bury(self, poller: select.poll, spare: Spare) -> None:
        """A spare that will run no build: forget it and reap it (it has ended, or was killed)."""
        if spare is self.spare:
            self.spare = None
        poller.unregister(spare.pidfd)
        spare.control.close()
        os.waitpid(spare.pid, 0)
        os.close(spare.pidfd)

    def _inherited(self) -> list[int]:
        """The descriptors a worker must not keep: the listener, the lock, the other workers' and their callers'."""
        fds = [self._lock, self._wake_r, self._wake_w] + [fd for fd in self.workers]
        fds += [conn.fileno() for _, conn in self.workers.values()]
        if self.spare is not None:
            fds += [self.spare.pidfd, self.spare.control.fileno()]
        return fds + ([self.listener.fileno()] if self.listener is not None else [])

    def reap(self, poller: select.poll, pidfd: int) -> None:
        """A worker ended: its caller gets its wait status (an exit code, or the signal that ended it)."""
        pid, conn = self.workers.pop(pidfd)
        poller.unregister(pidfd)
        os.close(pidfd)
        _, status = os.waitpid(pid, 0)
        reply = (
            ("signal", os.WTERMSIG(status)) if os.WIFSIGNALED(status) else ("exit", os.waitstatus_to_exitcode(status))
        )
        try:
            conn.sendall(warm.frame(reply))
        except OSError:
            pass  # the caller has gone
        conn.close()

    def status(self) -> dict[str, object]:
        return {
            "pid": os.getpid(),
            "socket": self.path,
            "python": sys.executable,
            "started": self.started,
            "idleSeconds": self.idle,
            "buildsServed": self.served,
            "buildsRunning": len(self.workers),
        }


class Spare:
    """A worker forked ahead of its build: its pid, a descriptor to wait on, the line to hand it the build on."""

    def __init__(self, pid: int, pidfd: int, control: socket.socket) -> None:
        self.pid, self.pidfd, self.control = pid, pidfd, control

    def take(self, conn: socket.socket, request: object, fds: list[int]) -> bool:
        """Hand the worker the build: the request, the caller's connection and its three descriptors."""
        try:
            self.control.sendmsg(
                [warm.frame(request)],
                [(socket.SOL_SOCKET, socket.SCM_RIGHTS, struct.pack(f"{1 + len(fds)}i", conn.fileno(), *fds))],
            )
        except OSError:
            return False
        self.control.close()
        return True


def _spare(control: socket.socket, inherited: list[int]) -> NoReturn:
    """The spare worker: touch the heap now (copy-on-write), then wait for a build and run it; end if none comes."""
    try:
        for fd in inherited:
            os.close(fd)
        signal.set_wakeup_fd(-1)
        for signum in (signal.SIGTERM, signal.SIGHUP):
            signal.signal(signum, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        gc.unfreeze()
        gc.collect()  # visits every object the server loaded: their pages become this process's own now
        gc.freeze()
        message, fds = _receive(control)
        control.close()
    except BaseException:
        os._exit(0)
    if len(fds) != 4:
        os._exit(0)
    _worker(socket.socket(fileno=fds[0]), message, fds[1:])  # type: ignore[arg-type]


def _drain(fd: int) -> bool:
    try:
        return bool(os.read(fd, 512))
    except BlockingIOError:
        return False


def _receive(conn: socket.socket) -> tuple[object, list[int]]:
    """A request and the descriptors sent with its first bytes (the caller's three; the server adds the connection)."""
    fds: list[int] = []
    data, ancillary, _, _ = conn.recvmsg(65536, socket.CMSG_SPACE(4 * struct.calcsize("i")))
    for level, kind, payload in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            count = len(payload) // struct.calcsize("i")
            fds += struct.unpack(f"{count}i", payload[: count * struct.calcsize("i")])
    if not data:
        for fd in fds:
            os.close(fd)
        raise ValueError("no request")
    return warm.FrameReader(conn.recv).take(data), fds


def _become(request: Sequence[object], fds: list[int]) -> list[str]:
    """Take on the caller's state (folder, environment, umask, limits, streams); its arguments to run."""
    _, _, argv0, args, cwd, environ, umask, limits, encodings = request
    assert isinstance(args, list) and isinstance(cwd, str) and isinstance(environ, dict)
    assert (
        isinstance(argv0, str) and isinstance(umask, int) and isinstance(limits, list) and isinstance(encodings, tuple)
    )
    os.chdir(cwd)
    os.umask(umask)
    os.environ.clear()
    for key, value in environ.items():
        os.environb[key] = value
    for number, soft, hard in limits:
        if resource.getrlimit(number) != (soft, hard):
            resource.setrlimit(number, (soft, hard))  # lowering always works; raising may not: then refused
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
    streams = []
    for target, encoding in enumerate(encodings):
        # as Python sets its own up: stderr line by line with backslash escapes, stdout line by line on a terminal
        line = target == 2 or (target == 1 and os.isatty(1))
        errors = "backslashreplace" if target == 2 else "strict"
        mode = "r" if target == 0 else "w"
        raw = io.FileIO(target, mode, closefd=False)
        buffered = io.BufferedReader(raw) if target == 0 else io.BufferedWriter(raw)
        stream = io.TextIOWrapper(buffered, encoding=encoding, errors=errors, line_buffering=line)
        if target and os.environ.get("PYTHONUNBUFFERED"):
            stream.reconfigure(write_through=True)  # what -u (and PYTHONUNBUFFERED) give the caller's own streams
        streams.append(stream)
    sys.stdin, sys.stdout, sys.stderr = streams
    for name, stream in zip(("__stdin__", "__stdout__", "__stderr__"), streams, strict=True):
        setattr(sys, name, stream)  # what some libraries fall back on
    sys.argv = [argv0, *args]
    return [str(a) for a in args]


def _worker(conn: socket.socket, request: Sequence[object], fds: list[int]) -> NoReturn:
    """The worker with its build: become the caller, say so, run the console script's `run`, end with its exit code."""
    code = 2
    try:
        try:
            args = _become(request, fds)
        except (OSError, ValueError, AssertionError, TypeError) as exc:
            conn.sendall(warm.frame(("refused", f"cannot become the caller: {exc}")))
            os._exit(0)
        conn.settimeout(None)
        conn.sendall(warm.frame(("pid", os.getpid())))
        _watch(conn)
        from neuralis_build.cli.entry import run

        try:
            code = run(args)
        except SystemExit as exc:
            code = _exit_code(exc.code)
    except KeyboardInterrupt:
        code = 130
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        try:  # the caller may go at once; the server's word (after this process is gone) comes too, and is moot
            conn.sendall(warm.frame(("exit", code & 0xFF)))
        except OSError:
            pass
        os._exit(code & 0xFF)


def _exit_code(code: object) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def _watch(conn: socket.socket) -> None:
    """A caller that goes away (killed) takes the worker with it, as its own build would have died."""
    import threading

    def watch() -> None:
        try:
            gone = conn.recv(1) == b""
        except OSError:
            gone = True
        if gone:
            os.kill(os.getpid(), signal.SIGKILL)

    threading.Thread(target=watch, name="caller-watch", daemon=True).start()


def main() -> int:
    """Serve this installation's `ui` builds in the folder and for the idle time the environment names."""
    if not hasattr(os, "pidfd_open") or not hasattr(os, "fork"):
        return 2  # Linux 5.3 and later; elsewhere every `ui` builds cold
    server = Server(warm.folder(os.environ), warm.idle_seconds(os.environ))
    if not server.bind():
        return 0
    server.preload()
    server.serve()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
