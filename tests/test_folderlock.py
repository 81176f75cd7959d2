"""One writer per folder: the lock `image`, `ui` and `pack` hold, and `ui` and `pack` of one package twice at once."""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import sys
import tarfile
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from neuralis_build.util import folderlock
from neuralis_build.util.errors import UsageError
from tests.conftest import requires_node
from tests.image.faultkit import CLI, HANG_GUARD, Lines
from tests.ui.ui_helpers import HOST_TSX, build_file_tree, ui_manifest

HOLDER = (
    "import sys\nfrom pathlib import Path\nfrom neuralis_build.util import folderlock\n"
    "with folderlock.hold(Path(sys.argv[1])):\n    print('held', flush=True)\n    sys.stdin.read()\n"
)


def test_the_lock_is_reentrant_in_one_thread(tmp_path: Path) -> None:
    with folderlock.hold(tmp_path), folderlock.hold(tmp_path), folderlock.hold(tmp_path / "."):
        assert folderlock.holder_of(os.stat(tmp_path)) == f"pid {os.getpid()}{folderlock._command(str(os.getpid()))}"
    assert folderlock.holder_of(os.stat(tmp_path)) is None


def test_the_holder_is_named_by_its_pid_and_command_and_released_when_it_dies(tmp_path: Path) -> None:
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(tmp_path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert holder.stdout is not None and holder.stdin is not None
    assert holder.stdout.readline() == "held\n"
    command = " ".join(" ".join([os.path.basename(sys.executable), "-c", HOLDER, str(tmp_path)]).split())
    assert folderlock.holder_of(os.stat(tmp_path)) == f"pid {holder.pid} ({command[:160]})"
    holder.kill()
    holder.wait()
    holder.stdout.close()
    holder.stdin.close()
    assert folderlock.holder_of(os.stat(tmp_path)) is None
    with folderlock.hold(tmp_path):  # the kernel dropped the dead holder's lock: nothing is stale
        pass


def test_a_missing_folder_is_an_os_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError), folderlock.hold(tmp_path / "missing"):
        pass


def _ui_package(root: Path) -> Path:
    return build_file_tree(root, {"package.json": ui_manifest(), "src/app/host.tsx": HOST_TSX})


def _plain_package(root: Path) -> Path:
    tree = {
        "package.json": {"name": "acme-pack", "version": "1.0.0", "neuralis": {}},
        "index.js": "module.exports = 1;\n",
    }
    return build_file_tree(root, tree)


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _waits_for_the_test(args: list[str | Path], folder: Path) -> str:
    """Run ``neuralis-build ARGS`` while this test holds ``folder``: it must wait, say for whom, then finish."""
    with folderlock.hold(folder):
        proc = subprocess.Popen([CLI, *map(str, args)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        assert proc.stderr is not None
        err = Lines(proc.stderr)
        line = err.wait_for(lambda text: text.startswith("waiting for"))
        assert line.startswith(f"waiting for pid {os.getpid()} (") and line.endswith(f"to finish with {folder}…\n")
    assert proc.wait(timeout=HANG_GUARD) == 0
    rest = err.rest()
    proc.stderr.close()
    return rest


@pytest.mark.e2e
def test_ui_waits_for_another_writer_of_its_package(tmp_path: Path) -> None:
    root = _ui_package(tmp_path / "pkg")
    _waits_for_the_test(["ui", root], root)
    assert (root / "dist/app/host.js").is_file()


@pytest.mark.e2e
def test_two_ui_builds_of_one_package_at_once_both_succeed_and_leave_one_build(tmp_path: Path) -> None:
    root = _ui_package(tmp_path / "pkg")
    alone = _ui_package(tmp_path / "alone")
    assert subprocess.run([CLI, "ui", alone], capture_output=True, timeout=HANG_GUARD).returncode == 0
    procs = [subprocess.Popen([CLI, "ui", root], stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(3)]
    outputs = [p.communicate(timeout=HANG_GUARD) for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0], [o[1] for o in outputs]
    assert _files(root / "dist") == _files(alone / "dist")  # no staging folder left, nothing half swapped


@pytest.mark.e2e
@requires_node
def test_pack_waits_for_another_writer_of_its_package(tmp_path: Path) -> None:
    root = _plain_package(tmp_path / "pkg")
    _waits_for_the_test(["pack", root, "--out", root, "--trust", "untrusted"], root)
    assert (root / "acme-pack-1.0.0.tgz").is_file()


@pytest.mark.e2e
@requires_node
def test_two_packs_into_the_package_folder_at_once_never_pack_each_others_temp_file(tmp_path: Path) -> None:
    root = _plain_package(tmp_path / "pkg")
    procs = [
        subprocess.Popen(
            [CLI, "pack", root, "--out", root, "--trust", "untrusted"], stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        for _ in range(3)
    ]
    outputs = [p.communicate(timeout=HANG_GUARD) for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0], [o[1] for o in outputs]
    with tarfile.open(root / "acme-pack-1.0.0.tgz") as archive:
        names = sorted(archive.getnames())
    # npm packs a tarball a previous pack left in the folder, never a temp file of one still writing
    assert [n for n in names if n != "package/acme-pack-1.0.0.tgz"] == ["package/index.js", "package/package.json"]
    assert sorted(p.name for p in root.iterdir()) == ["acme-pack-1.0.0.tgz", "index.js", "package.json"]


OTHER_UID = 65534  # nobody
FLOCKER = (
    "import fcntl, os, sys; fd = os.open(sys.argv[1], os.O_RDONLY); fcntl.flock(fd, fcntl.LOCK_EX); "
    "print('held', flush=True); sys.stdin.read()"
)
REFUSAL_GUARD = 120  # seconds: the refusal is at once; a build that waits for the other user reaches this and fails


@pytest.fixture
def shared(tmp_path: Path) -> Iterator[Path]:
    """A folder under /tmp that another uid can reach and read (pytest's own tmp_path is the test user's only)."""
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("runs a process as another uid through setpriv, which needs root")
    folder = Path(tempfile.mkdtemp(prefix="neuralis-lock-"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder)


@contextmanager
def held_as(uid: int, folder: Path) -> Iterator[subprocess.Popen[str]]:
    """A process of ``uid`` that holds ``folder``'s flock until the block ends."""
    argv = ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", sys.executable, "-c", FLOCKER, str(folder)]
    holder = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None and holder.stdin is not None
    try:
        assert holder.stdout.readline() == "held\n"
        yield holder
    finally:
        holder.kill()
        holder.wait()
        holder.stdout.close()
        holder.stdin.close()


def _refusal(folder: Path, holder: subprocess.Popen[str]) -> list[str]:
    command = folderlock._command(str(holder.pid))
    return [
        f"error: {folder} is locked by another user: uid {OTHER_UID} ({pwd.getpwuid(OTHER_UID).pw_name}), "
        f"pid {holder.pid}{command}; not waiting for a process this user cannot stop",
        "hint: ask them to end it, or build in a folder other users cannot read (anyone who can open a folder "
        "can lock it)",
    ]


def test_pack_refuses_at_once_a_folder_another_user_holds_naming_them(shared: Path) -> None:
    root = _plain_package(shared / "pkg")
    with held_as(OTHER_UID, root) as holder:
        done = subprocess.run(
            [CLI, "pack", root, "--out", shared, "--trust", "untrusted"],
            capture_output=True,
            text=True,
            timeout=REFUSAL_GUARD,
        )
        assert (done.returncode, done.stderr.splitlines()) == (2, _refusal(root, holder))
    assert not list(shared.glob("*.tgz"))


def attempt(folder: Path) -> BaseException | None:
    """Hold ``folder`` in a thread; what it raised. A hold that waits past REFUSAL_GUARD fails the test instead."""
    raised: list[BaseException] = []

    def run() -> None:
        try:
            with folderlock.hold(folder):
                pass
        except BaseException as exc:  # handed to the test, which asserts on it
            raised.append(exc)

    thread = threading.Thread(target=run, daemon=True)  # released when the test ends its holder
    thread.start()
    thread.join(REFUSAL_GUARD)
    assert not thread.is_alive(), f"still waiting for {folder} after {REFUSAL_GUARD} s"
    return raised[0] if raised else None


def test_the_library_refuses_a_folder_another_user_holds_and_names_the_holder_s_uid(shared: Path) -> None:
    with held_as(OTHER_UID, shared) as holder:
        command = folderlock._command(str(holder.pid))
        assert folderlock._holder(os.stat(shared)) == folderlock.Holder(holder.pid, OTHER_UID, command)
        refused, expected = attempt(shared), _refusal(shared, holder)
    assert isinstance(refused, UsageError) and refused.exit_code == 2
    assert [f"error: {refused.message}", f"hint: {refused.hint}"] == expected


def test_a_holder_that_cannot_be_named_is_waited_for_a_bounded_time_then_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(tmp_path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert holder.stdout is not None and holder.stdin is not None
    try:
        assert holder.stdout.readline() == "held\n"
        unnamed = folderlock.Holder(holder.pid, None, "")  # as when /proc hides it, or its pid namespace differs
        monkeypatch.setattr(folderlock, "_holder", lambda st: unnamed, raising=False)
        monkeypatch.setattr(folderlock, "UNKNOWN_HOLDER_WAIT", 0.0, raising=False)
        refused = attempt(tmp_path)
    finally:
        holder.kill()
        holder.wait()
        holder.stdout.close()
        holder.stdin.close()
    assert isinstance(refused, UsageError)
    assert (refused.message, refused.hint) == (
        f"{tmp_path} is still locked by pid {holder.pid}, whose owner cannot be read, after 0 s of waiting",
        "if it is a build of yours (in another container, say), run again once it ends; if it is not, build in a "
        "folder other users cannot read",
    )
