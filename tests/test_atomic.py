"""The one atomic writer: a file or a folder is the old one or the new one; a killed writer's leftovers are swept."""

from __future__ import annotations

import errno
import os
import resource
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from neuralis_build.util import atomic


def _tree(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): p.read_text() for p in sorted(root.rglob("*")) if p.is_file()}


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


@contextmanager
def _file_size_limit(limit: int) -> Iterator[None]:
    """``ulimit -f`` for this process: a write past ``limit`` bytes fails with EFBIG (SIGXFSZ ignored)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    previous = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, previous)


def test_write_replaces_the_file_and_leaves_nothing_beside_it(tmp_path: Path) -> None:
    target = tmp_path / "report.json"
    target.write_text("old")
    atomic.write_text(target, "new ✓\n")
    atomic.write_bytes(tmp_path / "tool", b"#!/bin/sh\n", mode=0o755)
    assert target.read_bytes() == "new ✓\n".encode()
    assert (tmp_path / "tool").stat().st_mode & 0o777 == 0o755
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.json", "tool"]


def test_a_failed_write_keeps_the_old_file_and_names_the_target(tmp_path: Path) -> None:
    target = tmp_path / "state.json"
    target.write_text("old")
    with _file_size_limit(4), pytest.raises(OSError) as caught:
        atomic.write_bytes(target, b"far more than four bytes")
    assert (caught.value.errno, caught.value.filename) == (errno.EFBIG, str(target))
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["state.json"]


def test_a_folder_in_the_way_is_refused_and_kept(tmp_path: Path) -> None:
    (tmp_path / "out" / "keep").mkdir(parents=True)
    with pytest.raises(OSError) as caught:
        atomic.write_text(tmp_path / "out", "x")
    assert caught.value.filename == str(tmp_path / "out")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_a_lone_surrogate_fails_before_anything_is_written(tmp_path: Path) -> None:
    target = tmp_path / "lock"
    target.write_text("old")
    with pytest.raises(UnicodeEncodeError):
        atomic.write_text(target, "version \udcff")
    assert [p.name for p in tmp_path.iterdir()] == ["lock"]
    assert target.read_text() == "old"


def test_swap_in_replaces_a_folder_a_file_or_nothing(tmp_path: Path) -> None:
    for before in ("folder", "file", "nothing"):
        final = tmp_path / before / "app"
        final.parent.mkdir()
        if before == "folder":
            final.mkdir()
            (final / "old.js").write_text("old")
        elif before == "file":
            final.write_text("a file")
        staged = atomic.staging_dir(final.parent, ".app-")
        (staged / "host.js").write_text("new")
        atomic.swap_in(staged, final)
        assert _tree(final.parent) == {"app/host.js": "new"}, before


def test_a_refused_swap_puts_the_old_folder_back(tmp_path: Path) -> None:
    final = tmp_path / "app"
    final.mkdir()
    (final / "host.js").write_text("old")
    with pytest.raises(FileNotFoundError):
        atomic.swap_in(tmp_path / ".app-gone", final)
    assert _tree(tmp_path) == {"app/host.js": "old"}


@pytest.mark.skipif(os.geteuid() != 0, reason="chattr +i needs root")
def test_a_swap_into_an_immutable_folder_is_refused_and_changes_nothing(tmp_path: Path) -> None:
    parent = tmp_path / "dist"
    (parent / "app").mkdir(parents=True)
    (parent / "app" / "host.js").write_text("old")
    staged = atomic.staging_dir(parent, ".app-")
    (staged / "host.js").write_text("new")
    done = subprocess.run(["chattr", "+i", str(parent)], capture_output=True, check=False)
    if done.returncode != 0:
        pytest.skip(f"this file system has no immutable flag: {done.stderr.decode().strip()}")
    try:
        with pytest.raises(PermissionError):
            atomic.swap_in(staged, parent / "app")
    finally:
        subprocess.run(["chattr", "-i", str(parent)], check=True)
    assert (parent / "app" / "host.js").read_text() == "old"


def test_sweep_removes_what_dead_processes_left_and_nothing_else(tmp_path: Path) -> None:
    dead, live = _dead_pid(), os.getppid()
    names = [
        f".neuralis-image.json.{dead}-0123456789.tmp",  # a file being written
        f".app-{dead}-abcdef0123",  # a folder being built
        f".node_modules-old-{dead}-abcdef0123",  # a folder set aside
        f".app-{live}-abcdef0123",  # a live build's
        f".app-{os.getpid()}-abcdef0123",  # our own
        ".app-notapid-abcdef0123",
        "app",
        ".gitignore",
    ]
    for name in names:
        (tmp_path / name).mkdir() if "json" not in name else (tmp_path / name).write_text("x")
    assert atomic.sweep(tmp_path) == sorted(names[:3])
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(names[3:])


_KILLED_BEFORE_THE_RENAME = """
import os, signal, sys
from pathlib import Path
from neuralis_build.util import atomic
os.replace = lambda *a: os.kill(os.getpid(), signal.SIGKILL)  # killed between the write and the rename
target = Path(sys.argv[1])
if sys.argv[2] == "file":
    atomic.write_text(target, "new")
else:
    staged = atomic.staging_dir(target.parent, ".app-")
    (staged / "host.js").write_text("new")
    atomic.swap_in(staged, target)
"""


@pytest.mark.parametrize("kind", ["file", "folder"])
def test_a_writer_killed_mid_write_leaves_the_old_output_and_its_leftover_is_swept(tmp_path: Path, kind: str) -> None:
    target = tmp_path / "app"
    if kind == "file":
        target.write_text("old")
    else:
        target.mkdir()
        (target / "host.js").write_text("old")
    before = _tree(tmp_path) if kind == "folder" else {"app": "old"}
    child = subprocess.Popen([sys.executable, "-c", _KILLED_BEFORE_THE_RENAME, str(target), kind])
    assert child.wait() == -signal.SIGKILL
    leftovers = sorted(p.name for p in tmp_path.iterdir() if p.name != "app")
    assert [atomic.leftover_pid(name) for name in leftovers] == [child.pid]
    assert (target / "host.js" if kind == "folder" else target).read_text() == "old"
    assert atomic.sweep(tmp_path) == leftovers
    assert _tree(tmp_path) == before
