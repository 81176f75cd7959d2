"""Helpers of the fault tests: the real CLI in a subprocess (with a fault injected at a chosen moment), image snapshots.

A fault at a moment is injected by a small driver script that patches one function of the toolchain
in the child process and then runs the real ``neuralis-build`` main: the child kills itself (SIGKILL),
interrupts itself (SIGINT) or fails (an OSError) exactly there, so no test waits on a clock.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

CLI = str(Path(sys.executable).parent / "neuralis-build")
HANG_GUARD = 300  # seconds: only a hang reaches it; no test asserts on how long anything takes

# The driver: MOMENT names what to patch, K which call of it faults, SIG how (KILL, INT or an OSError).
DRIVER = r"""
import errno, os, signal, sys
moment, k, how = os.environ["FAULT_MOMENT"], int(os.environ["FAULT_AT"]), os.environ["FAULT_HOW"]
calls = [0]

def fault():
    calls[0] += 1
    if calls[0] != k:
        return
    if how == "OSError":
        raise OSError(errno.EIO, "Input/output error (injected)", "injected")
    os.kill(os.getpid(), getattr(signal, how))

def around(owner, name):
    real = getattr(owner, name)
    def patched(*a, **kw):
        fault()
        return real(*a, **kw)
    setattr(owner, name, patched)

import neuralis_build.image.build as build
import neuralis_build.image.packages.install as install
if moment == "staging":
    around(install, "stage")  # writing a listed package into the staging folder
elif moment == "sbom":
    around(build.atomic, "write_text")  # the SBOM, the lock and the report written beside the staged tree
elif moment == "cleanup":  # deleting the old image the swap set aside, after the new one is in
    import neuralis_build.util.atomic as atomic
    real_remove = atomic.remove
    def remove(path):
        if path.name.startswith(".neuralis-old-"):
            fault()
        real_remove(path)
    atomic.remove = remove
elif moment == "commit":
    real_commit, real_replace = build.commit, os.replace
    def replace(a, b):
        fault()
        real_replace(a, b)
    def commit(*a, **kw):
        os.replace = replace  # every rename of the swap, the journal's and the done mark's included
        return real_commit(*a, **kw)
    build.commit = commit
from neuralis_build.cli.build import main
sys.exit(main(sys.argv[1:]))
"""


@dataclass(frozen=True)
class Done:
    code: int
    out: str
    err: str


def _run(argv: list[str], env: dict[str, str] | None, **kw: Any) -> Done:
    done = subprocess.run(
        argv,
        capture_output=True,
        text=True,
        env=env,
        stdin=subprocess.DEVNULL,
        timeout=HANG_GUARD,
        check=False,
        **kw,
    )
    return Done(done.returncode, done.stdout, done.stderr)


def cli(*args: str | Path, env: dict[str, str] | None = None, **kw: Any) -> Done:
    """Run the installed ``neuralis-build`` to the end."""
    return _run([CLI, *map(str, args)], env, **kw)


def cli_with_fault(moment: str, at: int, how: str, *args: str | Path) -> Done:
    """``neuralis-build ARGS`` with a fault at the ``at``-th call of ``moment`` (``how``: SIGKILL, SIGINT, OSError)."""
    env = dict(os.environ, FAULT_MOMENT=moment, FAULT_AT=str(at), FAULT_HOW=how)
    return _run([sys.executable, "-c", DRIVER, *map(str, args)], env)


class Lines:
    """A child's stream read line by line in a thread, so a test can wait for one line without blocking forever."""

    def __init__(self, stream: IO[str]) -> None:
        self.seen: list[str] = []
        self._queue: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._pump, args=(stream,), daemon=True).start()

    def _pump(self, stream: IO[str]) -> None:
        for line in stream:
            self._queue.put(line)
        self._queue.put("")

    def wait_for(self, wanted: Callable[[str], bool]) -> str:
        while True:
            line = self._queue.get(timeout=HANG_GUARD)
            self.seen.append(line)
            if not line:
                raise AssertionError("the stream ended before the line came:\n" + "".join(self.seen))
            if wanted(line):
                return line

    def rest(self) -> str:
        while True:
            line = self._queue.get(timeout=HANG_GUARD)
            if not line:
                return "".join(self.seen)
            self.seen.append(line)


def image_files(out: Path) -> dict[str, bytes]:
    """Every file of the image folder with its bytes, hidden leftovers included; the cache is not the image."""
    files = {}
    for path in sorted(out.rglob("*")):
        rel = path.relative_to(out).as_posix()
        if rel.startswith(".neuralis-cache") or not path.is_file():
            continue
        files[rel] = path.read_bytes()
    return files


def leftovers(out: Path) -> list[str]:
    """Hidden entries of the image folder that are neither the cache, the listed tarballs nor npm's resolution."""
    return sorted(p.name for p in out.iterdir() if p.name.startswith(".") and p.name not in _OWN)


_OWN = {".neuralis-cache", ".neuralis-tarballs", ".neuralis-resolution"}


def package_folders(modules: Path) -> list[str]:
    """Every package folder under ``node_modules`` (nested ones included), as a ``node_modules/…`` path."""
    found = []
    for manifest in modules.rglob("package.json"):
        folder = manifest.parent
        parent = folder.parent
        if parent.name == "node_modules" or (parent.name.startswith("@") and parent.parent.name == "node_modules"):
            found.append(folder.relative_to(modules.parent).as_posix())
    return sorted(found)


def assert_consistent(out: Path) -> None:
    """The report, the lock and the SBOM describe exactly the package folders on disk."""
    report = json.loads((out / "neuralis-image.json").read_text("utf-8"))
    lock = tomllib.loads((out / "neuralis-image.lock").read_text("utf-8"))
    sbom = json.loads((out / "sbom.cdx.json").read_text("utf-8"))
    on_disk = package_folders(out / "node_modules")
    assert sorted(c["path"] for c in report["closure"]) == on_disk
    assert sorted(i["path"] for i in lock["installed"]) == on_disk
    assert sorted(c["bom-ref"] for c in sbom.get("components", [])) == on_disk
