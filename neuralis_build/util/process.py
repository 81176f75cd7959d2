"""Run another program (esbuild, node, npm, git) with a timeout; the ways it can fail to run are translated here.

Every subprocess of the toolchain goes through ``run`` (pypa/build's ``SubprocessRunner`` is the
model): a program that cannot be started is a missing tool, one that outlives its timeout is killed
with everything it started and reported with its command, so a hung registry or tool never hangs a
build or a CI job. What a finished program's exit code and output mean is for the caller to say
(npm's error codes, esbuild's messages, git's conflict count). Callers that want a seam for a test
take a ``Runner`` and default to ``run``.
"""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from neuralis_build.util.errors import SubprocessError, ToolMissingError


@dataclass(frozen=True, slots=True)
class Completed:
    """A program that ran to its end: the command, its exit code and what it printed (bytes, decoded on use)."""

    command: tuple[str, ...]
    returncode: int
    out: bytes
    err: bytes

    @property
    def stdout(self) -> str:
        return self.out.decode("utf-8", "replace")

    @property
    def stderr(self) -> str:
        return self.err.decode("utf-8", "replace")


if TYPE_CHECKING:
    from typing import Protocol

    class Runner(Protocol):
        """Runs a command to its end within ``timeout`` seconds (``run``, or a stand-in in a unit test)."""

        def __call__(
            self,
            command: Sequence[str | Path],
            *,
            timeout: float,
            cwd: Path | None = None,
            input: str | bytes | None = None,
            env: Mapping[str, str] | None = None,
        ) -> Completed: ...


def which(program: str, hint: str) -> str:
    """The path of ``program`` on PATH; a missing one is a missing tool (exit 2) with ``hint``."""
    import shutil  # not at the top: it imports bz2, lzma and zlib, which `ui`'s start-up would pay

    found = shutil.which(program)
    if found is None:
        raise ToolMissingError(f"{program} is not on PATH", hint=hint)
    return found


def run(
    command: Sequence[str | Path],
    *,
    timeout: float,
    cwd: Path | None = None,
    input: str | bytes | None = None,
    env: Mapping[str, str] | None = None,
) -> Completed:
    """Run ``command`` to its end; raise ToolMissingError when it cannot start, SubprocessError past ``timeout``.

    The program runs in its own process group, so that a timeout (or Ctrl-C) ends what it started
    too: npm and node start children of their own, which would otherwise outlive it.
    """
    argv = [str(part) for part in command]
    data = input.encode("utf-8") if isinstance(input, str) else input
    try:
        proc = subprocess.Popen(
            argv,
            cwd=cwd,
            env=dict(env) if env is not None else None,
            stdin=subprocess.PIPE if data is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=hasattr(os, "killpg"),
        )
    except OSError as exc:
        raise ToolMissingError(
            f"cannot run {argv[0]}: {exc.strerror or exc}", hint="check that it is installed and executable"
        ) from None
    try:
        out, err = proc.communicate(data, timeout=timeout)
    except subprocess.TimeoutExpired:
        partial = _stop(proc)
        raise SubprocessError(
            f"{Path(argv[0]).name} did not finish within {timeout:g} s and was stopped",
            command=argv,
            output=partial,
            hint="a registry or tool that does not answer: check the network (or the proxy) and try again",
        ) from None
    except BaseException:  # Ctrl-C, or anything else: never leave the program running
        _stop(proc)
        raise
    return Completed(tuple(argv), proc.returncode, out, err)


@dataclass(frozen=True, slots=True)
class Streamed:
    """A program whose output was handed on as it came: the command, its exit code and the end of its output."""

    command: tuple[str, ...]
    returncode: int  # negative: ended by that signal
    tail: str  # the last TAIL characters it printed (stdout and stderr as they interleaved)


TAIL = 4000


def stream(
    command: Sequence[str | Path],
    *,
    cwd: Path,
    env: Mapping[str, str],
    on_output: Callable[[str], None],
) -> Streamed:
    """Run ``command`` to its end with no timeout, handing its output (stdout and stderr merged) to ``on_output``.

    For the author's own long steps (a lifecycle script that builds): npm sets them no time limit either.
    The program runs in its own process group, so Ctrl-C (or any error here) stops what it started too.
    It ends when the program exits: a daemon it left behind that still holds the pipe is not waited for.
    """
    import codecs
    import selectors

    argv = [str(part) for part in command]
    try:
        proc = subprocess.Popen(
            argv,
            cwd=cwd,
            env=dict(env),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=hasattr(os, "killpg"),
        )
    except OSError as exc:
        raise ToolMissingError(
            f"cannot run {argv[0]}: {exc.strerror or exc}", hint="check that it is installed and executable"
        ) from None
    assert proc.stdout is not None
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    tail = ""

    def take(data: bytes, final: bool = False) -> None:
        nonlocal tail
        text = decoder.decode(data, final)
        if text:
            on_output(text)
            tail = (tail + text)[-TAIL:]

    try:
        with selectors.DefaultSelector() as selector:
            selector.register(proc.stdout, selectors.EVENT_READ)
            while True:
                ready = selector.select(timeout=0.2)
                if ready:
                    data = os.read(proc.stdout.fileno(), 65536)
                    if not data:
                        break
                    take(data)
                elif proc.poll() is not None:
                    break  # exited, and whatever still holds the pipe is silent: do not wait for it
        take(b"", final=True)
        returncode = proc.wait()
    except BaseException:  # Ctrl-C, or a listener that failed: never leave the program running
        _stop(proc)
        raise
    finally:
        proc.stdout.close()
    return Streamed(tuple(argv), returncode, tail)


def _stop(proc: subprocess.Popen[bytes]) -> str:
    """Kill the program and its process group; what it printed before, as far as it can still be read."""
    try:
        if hasattr(os, "killpg"):
            os.killpg(proc.pid, signal.SIGKILL)
        else:  # pragma: no cover - Windows has no process groups to signal
            proc.kill()
    except OSError:
        proc.kill()  # the group is gone already: the program alone, if it is still there
    try:
        out, err = proc.communicate(timeout=5)
    except subprocess.TimeoutExpired:  # a grandchild that left the group still holds the pipes
        return ""
    return (err + out).decode("utf-8", "replace")[-4000:]


if TYPE_CHECKING:
    from typing import Any, TypeVar

    T = TypeVar("T")


def json_from(done: Completed, task: str, take: Callable[[Any], T]) -> T:
    """What ``done`` printed when asked to ``task`` (a verb phrase), read as JSON and passed to ``take``.

    A program that exits non-zero, prints something that is not JSON, or JSON that ``take`` cannot
    use (a missing key, a wrong type: ``take`` raises LookupError, TypeError or ValueError) is a
    SubprocessError naming the program and what it printed: an environment error (exit 2), never a
    traceback.
    """
    import json

    program = Path(done.command[0]).name if done.command else "the program"
    fault = None
    value: Any = None
    if done.returncode != 0:
        fault = f"could not {task} (it exited {done.returncode})"
    else:
        try:
            value = take(json.loads(done.stdout))
        except (ValueError, RecursionError):
            fault = f"printed something that is not JSON when asked to {task}"
        except (LookupError, TypeError, AttributeError):
            fault = f"printed JSON without the fields expected when asked to {task}"
    if fault is None:
        return value  # type: ignore[no-any-return]
    printed = (done.stderr + done.stdout).strip()
    raise SubprocessError(
        f"{program} {fault}",
        command=done.command,
        output=printed[:4000] + ("…" if len(printed) > 4000 else ""),
        hint=f"check the {program} on PATH ({program} --version): the toolchain needs Node.js 20 or newer",
    )
