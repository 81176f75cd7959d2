"""Run a program that may be hostile inside an OS sandbox: Linux namespaces, through Debian's ``bubblewrap``.

Loading a package runs its code, and a native addon is machine code that no language-level guard
(Node's permission model, a wrapped ``net.Socket``) ever sees. So the boundary is the kernel's:
``bwrap`` starts the program in new user, mount, PID, network, IPC, UTS and cgroup namespaces, with
every capability dropped and no way to make another user namespace (``--disable-userns``, where this
bwrap has it). What the program sees is only what is mounted for it:

- ``/usr`` (and the ``/bin``, ``/lib*`` that point into it) read-only, for the system's libraries;
- the node binary, read-only at ``/run/neuralis/bin/node``, wherever the build's node lives (a
  version manager's copy under the home folder included, and nothing else of that home);
- the caller's mounts (the image's tree, read-only);
- a fresh ``/proc`` of its own PID namespace (no other process, the build's included), a minimal
  ``/dev``, and size-capped tmpfs folders for ``/tmp`` and the home; the rest of the root is read-only;
- an ``/etc`` with a passwd and group naming its own user and nothing else of the machine's.

It has no network (a namespace with only its own loopback), an environment of four variables (and
``bwrap`` itself is started with no more, so its ``/proc/1/environ`` holds nothing either), its own
session (no terminal to write into), a memory cap, no core dumps, and the caller's timeout and
output cap. When the timeout passes, the whole namespace dies with ``bwrap``.

Where no sandbox can be had (no ``bwrap``, a kernel or container that refuses user namespaces, or
``NEURALIS_BWRAP`` set to an empty string), :func:`find_sandbox` says why, and the caller must not
run the code at all. Not covered: the kernel itself (no seccomp filter), CPU time beyond the timeout,
and the number of processes (a PID namespace does not cap it).
"""

from __future__ import annotations

import functools
import os
import selectors
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

BWRAP_ENV = "NEURALIS_BWRAP"
"""The bubblewrap to use (default: ``bwrap`` on PATH); an empty string turns the sandbox off."""

NODE = "/run/neuralis/bin/node"
HOME = "/home/sandbox"
UID = GID = 1000
TMPFS_BYTES = 256 * 1024 * 1024  # each of /tmp, the home and /dev/shm: what a package writes on load is small
MEMORY_BYTES = 4 * 1024 * 1024 * 1024  # RLIMIT_DATA: the heap and buffers of one load
OUTPUT_BYTES = 1024 * 1024  # what is read of each of stdout and stderr; more stops the program
PROBE_TIMEOUT = 30.0
_SYSTEM_LINKS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
_PASSWD = f"sandbox:x:{UID}:{GID}:sandbox:{HOME}:/bin/sh\n"
_GROUP = f"sandbox:x:{GID}:\n"


@dataclass(frozen=True)
class Mount:
    """A folder of the machine, read-only at ``target`` inside the sandbox."""

    source: Path
    target: str


@dataclass(frozen=True)
class Confined:
    """How a sandboxed program ended: its exit code (negative: the signal), what it printed, and why it was cut."""

    returncode: int
    out: bytes
    err: bytes
    timed_out: bool = False
    overflowed: bool = False  # it printed more than the output cap: stopped there

    @property
    def stdout(self) -> str:
        return self.out.decode("utf-8", "replace")

    @property
    def stderr(self) -> str:
        return self.err.decode("utf-8", "replace")


@dataclass(frozen=True)
class NoSandbox:
    """Why this machine gives no sandbox (the code must then not run)."""

    reason: str


@dataclass(frozen=True)
class Sandbox:
    """A bubblewrap that works here, with the flags this version of it supports, around one node binary."""

    bwrap: str
    node: str  # the real path of the node bound at NODE
    disable_userns: bool
    prlimit: str | None  # util-linux prlimit, for the memory cap and no core dumps; None where it is missing

    def command(self, args: Sequence[str], *, mounts: Sequence[Mount], cwd: str, fds: tuple[int, int]) -> list[str]:
        """``node args…`` inside the sandbox; ``fds`` are the read ends holding /etc/passwd and /etc/group."""
        argv = []
        if self.prlimit is not None:
            argv += [self.prlimit, f"--data={MEMORY_BYTES}", "--core=0", "--"]
        argv += [self.bwrap, "--unshare-all", "--unshare-user", "--die-with-parent", "--new-session"]
        argv += ["--cap-drop", "ALL", "--uid", str(UID), "--gid", str(GID), "--hostname", "sandbox"]
        if self.disable_userns:
            argv.append("--disable-userns")
        argv += ["--clearenv", *_setenv(_ENV)]
        argv += ["--ro-bind", "/usr", "/usr", *_system_links()]
        argv += ["--ro-bind-try", "/etc/ld.so.cache", "/etc/ld.so.cache"]
        argv += ["--ro-bind-data", str(fds[0]), "/etc/passwd", "--ro-bind-data", str(fds[1]), "/etc/group"]
        argv += ["--ro-bind", self.node, NODE]
        for mount in mounts:
            argv += ["--ro-bind", str(mount.source), mount.target]
        argv += ["--proc", "/proc", "--dev", "/dev"]
        for folder in ("/dev/shm", "/tmp", HOME):
            argv += ["--size", str(TMPFS_BYTES), "--tmpfs", folder]
        argv += ["--remount-ro", "/dev", "--remount-ro", "/", "--chdir", cwd, "--", NODE, *args]
        return argv

    def run(
        self,
        args: Sequence[str],
        *,
        mounts: Sequence[Mount] = (),
        cwd: str = HOME,
        timeout: float,
        output_cap: int = OUTPUT_BYTES,
    ) -> Confined:
        """Run ``node args…`` in the sandbox to its end, the timeout or the output cap, whichever comes first."""
        files = [_PASSWD.encode(), _GROUP.encode()]
        pipes = [os.pipe() for _ in files]
        try:
            for (_, write), data in zip(pipes, files, strict=True):
                os.write(write, data)  # far below a pipe's buffer: written before bwrap reads it
                os.close(write)
            reads = (pipes[0][0], pipes[1][0])
            argv = self.command(args, mounts=mounts, cwd=cwd, fds=reads)
            return _confined(argv, reads, timeout, output_cap)
        finally:
            for read, _ in pipes:
                _close(read)


_ENV = {"PATH": f"{Path(NODE).parent}:/usr/bin:/bin", "HOME": HOME, "TMPDIR": "/tmp", "LANG": "C.UTF-8"}


def _setenv(env: Mapping[str, str]) -> list[str]:
    return [part for key, value in env.items() for part in ("--setenv", key, value)]


def _system_links() -> list[str]:
    """``/bin``, ``/lib``… as they are here: a link into /usr made again, a real folder bound read-only."""
    out = []
    for folder in _SYSTEM_LINKS:
        if os.path.islink(folder):
            out += ["--symlink", os.readlink(folder), folder]
        elif os.path.isdir(folder):
            out += ["--ro-bind", folder, folder]
    return out


def _close(fd: int) -> None:
    try:
        os.close(fd)
    except OSError:
        pass


def _confined(argv: list[str], fds: tuple[int, ...], timeout: float, cap: int) -> Confined:
    """Run ``argv`` with nothing of the build's environment, reading at most ``cap`` bytes of each output."""
    proc = subprocess.Popen(
        argv,
        env={},  # bwrap (pid 1 inside) keeps its own environment, which the sandboxed program can read
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        pass_fds=fds,
        start_new_session=True,
    )
    assert proc.stdout is not None and proc.stderr is not None
    out, err = proc.stdout.fileno(), proc.stderr.fileno()
    got: dict[int, bytearray] = {out: bytearray(), err: bytearray()}
    deadline = time.monotonic() + timeout
    timed_out = overflowed = False
    with selectors.DefaultSelector() as selector:
        for stream in (proc.stdout, proc.stderr):
            selector.register(stream, selectors.EVENT_READ)
        try:
            while selector.get_map():
                left = deadline - time.monotonic()
                if left <= 0:
                    timed_out = True
                    break
                for key, _ in selector.select(left):
                    chunk = os.read(key.fd, 65536)
                    if not chunk:
                        selector.unregister(key.fileobj)
                        continue
                    got[key.fd] += chunk
                    if len(got[key.fd]) > cap:
                        overflowed = True
                if overflowed:
                    break
        finally:
            if timed_out or overflowed or selector.get_map():
                _kill(proc)
            proc.wait()
            proc.stdout.close()
            proc.stderr.close()
    # bwrap exits 128 + N when its program was killed by signal N: said as Popen says a signal, negative
    code = proc.returncode
    code = -(code - 128) if 128 < code < 128 + 65 else code
    return Confined(code, bytes(got[out][:cap]), bytes(got[err][:cap]), timed_out, overflowed)


def _kill(proc: subprocess.Popen[bytes]) -> None:
    """End bwrap and its session; the namespace's processes die with bwrap's init (``--die-with-parent``)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        pass


def _bwrap(chosen: str | None) -> str | NoSandbox:
    import shutil

    if chosen == "":
        return NoSandbox(f"{BWRAP_ENV} is set to an empty string, which turns the sandbox off")
    found = shutil.which(chosen or "bwrap")
    if found is None:
        return NoSandbox(
            f"{chosen} is not an executable" if chosen else "bubblewrap (bwrap) is not installed on this machine"
        )
    return found


def find_sandbox(node: str) -> Sandbox | NoSandbox:
    """The sandbox around ``node`` if this machine has one that works (tried once per process), else why not."""
    return _probe(node, os.environ.get(BWRAP_ENV))


@functools.cache
def _probe(node: str, chosen: str | None) -> Sandbox | NoSandbox:
    import shutil

    bwrap = _bwrap(chosen)
    if isinstance(bwrap, NoSandbox):
        return bwrap
    prlimit = shutil.which("prlimit")
    real = os.path.realpath(node)
    last = ""
    for disable in (True, False):
        box = Sandbox(bwrap, real, disable, prlimit)
        try:
            done = box.run(["-e", "process.stdout.write('ok')"], timeout=PROBE_TIMEOUT)
        except OSError as exc:
            return NoSandbox(f"{bwrap} cannot be run ({exc.strerror or exc})")
        if done.returncode == 0 and done.stdout == "ok":
            return box
        last = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else f"it exited with {done.returncode}"
        if "disable-userns" not in last:
            break  # an older bwrap says so of --disable-userns alone; anything else is the machine's refusal
    return NoSandbox(f"{bwrap} cannot make a sandbox here ({last})")
