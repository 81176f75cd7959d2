"""One writer per folder: the lock `image`, `ui` and `pack` hold, and `ui` and `pack` of one package twice at once."""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from neuralis_build import folderlock
from tests.conftest import requires_node
from tests.image.faultkit import CLI, HANG_GUARD, Lines
from tests.ui.ui_helpers import HOST_TSX, build_file_tree, ui_manifest

HOLDER = (
    "import sys\nfrom pathlib import Path\nfrom neuralis_build import folderlock\n"
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
