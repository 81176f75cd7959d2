"""`image` under faults: two builds into one folder, a full disk, a file limit, a read-only or misplaced --out,
a corrupt cache, hostile folders, a rerun that keeps the installed tree; the real CLI in subprocesses."""

from __future__ import annotations

import contextlib
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from neuralis_build.image.packages.listed import record_of
from neuralis_build.util import folderlock
from tests.conftest import manifest, requires_node
from tests.image.conftest import package_tgz, spec_text, write_tgz
from tests.image.faultkit import CLI, DRIVER, HANG_GUARD, Lines, assert_consistent, cli, image_files, leftovers

pytestmark = [pytest.mark.e2e, requires_node]


def _two_packages(tmp_path: Path, **big: bytes) -> Path:
    """A SPEC of two tarball packages (``big`` adds files to the second); returns the SPEC."""
    write_tgz(tmp_path / "tgz", "a.tgz", package_tgz(manifest(name="acme-a"), {"lib/a.js": "a"}))
    write_tgz(tmp_path / "tgz", "b.tgz", package_tgz(manifest(name="@acme/b"), {"b.js": "b", **big}))
    spec = tmp_path / "image.toml"
    spec.write_text(spec_text({"source": "tgz/a.tgz"}, {"source": "tgz/b.tgz"}))
    return spec


def _one_package(tmp_path: Path) -> Path:
    write_tgz(tmp_path / "tgz", "a.tgz", package_tgz(manifest(name="acme-a"), {"lib/a.js": "a"}))
    spec = tmp_path / "one.toml"
    spec.write_text(spec_text({"source": "tgz/a.tgz"}))
    return spec


# --- group 1: one build at a time in a folder ---------------------------------------------------------


def test_a_second_build_into_the_same_folder_waits_and_says_for_whom(tmp_path: Path) -> None:
    spec, out = _two_packages(tmp_path), tmp_path / "out"
    out.mkdir()
    with folderlock.hold(out):
        proc = subprocess.Popen(
            [CLI, "image", spec, "--out", out], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
        )
        assert proc.stderr is not None
        err = Lines(proc.stderr)
        line = err.wait_for(lambda text: text.startswith("waiting for"))
        assert line.startswith(f"waiting for pid {os.getpid()} (") and line.endswith(f"to finish with {out}…\n")
        assert not (out / "neuralis-image.json").exists()  # nothing was written while it waited
    assert proc.wait(timeout=HANG_GUARD) == 0
    assert f"to finish with {out}: done in" in err.rest()
    proc.stderr.close()
    assert_consistent(out)


def test_a_lock_whose_holder_was_killed_does_not_hold_anyone(tmp_path: Path) -> None:
    spec, out = _two_packages(tmp_path), tmp_path / "out"
    out.mkdir()
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys\nfrom pathlib import Path\nfrom neuralis_build.util import folderlock\n"
            "with folderlock.hold(Path(sys.argv[1])):\n    print('held', flush=True)\n    sys.stdin.read()\n",
            str(out),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None and holder.stdout.readline() == "held\n"
    holder.kill()
    holder.wait()
    holder.stdout.close()
    assert holder.stdin is not None
    holder.stdin.close()
    done = cli("image", spec, "--out", out)
    assert done.code == 0 and "waiting for" not in done.err


def test_a_build_started_while_another_is_half_way_waits_for_it(tmp_path: Path) -> None:
    spec, out = _two_packages(tmp_path), tmp_path / "out"
    first = subprocess.Popen(
        [sys.executable, "-c", DRIVER, "image", spec, "--out", out, "--jobs", "1"],
        env=dict(os.environ, FAULT_MOMENT="staging", FAULT_AT="2", FAULT_HOW="SIGSTOP"),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    _, status = os.waitpid(first.pid, os.WUNTRACED)  # it stopped itself half-way through staging
    assert os.WIFSTOPPED(status)
    second = subprocess.Popen(
        [CLI, "image", spec, "--out", out], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    assert second.stderr is not None
    err = Lines(second.stderr)
    assert err.wait_for(lambda text: text.startswith("waiting for")).startswith(f"waiting for pid {first.pid} (")
    os.kill(first.pid, signal.SIGCONT)
    assert first.wait(timeout=HANG_GUARD) == 0
    assert second.wait(timeout=HANG_GUARD) == 0, err.rest()
    err.rest()
    second.stderr.close()
    assert_consistent(out)
    assert leftovers(out) == []


def test_two_builds_at_once_both_succeed_and_cache_no_false_refusal(tmp_path: Path) -> None:
    spec, out = _two_packages(tmp_path), tmp_path / "out"
    procs = [
        subprocess.Popen([CLI, "image", spec, "--out", out], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        for _ in range(2)
    ]
    results = [p.communicate(timeout=HANG_GUARD) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], [r[1] for r in results]
    assert_consistent(out)
    assert leftovers(out) == []
    rerun = cli("image", spec, "--out", out)
    assert rerun.code == 0 and "refused" not in rerun.err and rerun.err.count("(cached)") == 2


def test_a_node_that_fails_is_an_environment_error_and_no_verdict_is_cached(tmp_path: Path) -> None:
    spec, out = _two_packages(tmp_path), tmp_path / "out"
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "node").write_text("#!/bin/sh\necho 'node: cannot start' >&2\nexit 3\n")
    (bin_dir / "node").chmod(0o755)
    broken = cli("image", spec, "--out", out, env={**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"})
    assert broken.code == 2
    # npm, the first program of the build that runs on node, says how its node ended
    assert "error: npm install failed: node: cannot start; it exited with 3" in broken.err
    assert not (out / ".neuralis-cache" / "state.json").exists()
    fine = cli("image", spec, "--out", out)
    assert fine.code == 0 and "(cached)" not in fine.err


def test_a_package_the_host_never_loads_may_hide_its_package_json_and_its_verdict_is_kept(tmp_path: Path) -> None:
    # not a neuralis package (openai, stripe and helmet do this): npm installs it and Node loads it, so the image
    # installs it with a note, and the note is its bytes' own verdict, kept for the next build
    hidden = {"name": "acme-hidden", "version": "1.0.0", "exports": {".": "./index.js"}}
    write_tgz(tmp_path / "tgz", "h.tgz", package_tgz(hidden, {"index.js": "module.exports = 1;\n"}))
    spec = tmp_path / "image.toml"
    spec.write_text(spec_text({"source": "tgz/h.tgz"}))
    first = cli("image", spec, "--out", tmp_path / "out")
    assert first.code == 0 and "(cached)" not in first.err
    [row] = json.loads((tmp_path / "out/neuralis-image.json").read_text())["packages"]
    assert [(d["severity"], d["code"]) for d in row["diagnostics"]] == [("note", "NB1810")]
    again = cli("image", spec, "--out", tmp_path / "out")
    assert again.code == 0 and "(cached)" in again.err
    assert (tmp_path / "out/node_modules/acme-hidden/index.js").is_file()


def test_record_of_keeps_no_verdict_from_the_environment() -> None:
    from neuralis_build.image.packages.listed import Listed
    from neuralis_build.image.packages.spec import PackageSpec
    from neuralis_build.image.packages.work import Work
    from neuralis_build.util.diagnostics import Diagnostic

    def refused(code: str) -> Work:
        spec = PackageSpec(0, "a.tgz", "tarball", "host-dependency", "first-party", None, None)
        diagnostic = Diagnostic("error", code, "package.json", "", "no", None)
        return Work.of(Listed(spec, name="a").refused(diagnostic))

    assert [record_of(w.listed, w.outcome) is None for w in map(refused, ("NB1801", "NB1810", "NB1812", "NB0101"))] == [
        True,
        True,
        True,
        False,
    ]


# --- the environment: exit 2 with the path and the cause, the old image kept --------------------------


@contextlib.contextmanager
def _tmpfs(where: Path, options: str) -> Iterator[None]:
    where.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root")
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(where)], capture_output=True)
    if mounted.returncode != 0:
        pytest.skip(f"this machine does not allow mount -t tmpfs: {mounted.stderr.decode().strip()}")
    try:
        yield
    finally:
        subprocess.run(["umount", "-l", str(where)], check=True)


def test_a_full_disk_is_an_environment_error_and_keeps_the_old_image(tmp_path: Path) -> None:
    disk = tmp_path / "disk"
    with _tmpfs(disk, "size=1m"):
        out = disk / "out"
        assert cli("image", _one_package(tmp_path), "--out", out).code == 0
        before = image_files(out)
        spec = _two_packages(tmp_path, **{"data.bin": os.urandom(2 * 1024 * 1024)})
        done = cli("image", spec, "--out", out)
        assert done.code == 2
        assert "error: cannot build the image: " in done.err and ": No space left on device" in done.err
        assert f"hint: the image in {out} is as it was; free some space" in done.err
        assert "internal error" not in done.err
        assert image_files(out) == before and leftovers(out) == []
        assert_consistent(out)


def test_a_file_size_limit_is_an_environment_error_and_keeps_the_old_image(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert cli("image", _one_package(tmp_path), "--out", out).code == 0
    before = image_files(out)
    spec = _two_packages(tmp_path, **{"data.bin": os.urandom(300 * 1024)})

    def limit() -> None:  # ulimit -f 100 (KiB): a larger write fails, or kills a process that does not ignore SIGXFSZ
        resource.setrlimit(resource.RLIMIT_FSIZE, (100 * 1024, 100 * 1024))

    done = subprocess.run(
        [CLI, "image", spec, "--out", out], capture_output=True, text=True, preexec_fn=limit, timeout=HANG_GUARD
    )
    assert done.returncode == 2, done.stderr
    assert "error: cannot build the image: " in done.stderr and ": File too large" in done.stderr
    assert image_files(out) == before and leftovers(out) == []


@pytest.mark.parametrize("where", ["a file", "under a file"])
def test_an_out_that_is_a_file_or_under_one_is_a_usage_error(tmp_path: Path, where: str) -> None:
    blocker = tmp_path / "taken"
    blocker.write_text("not a folder")
    out = blocker if where == "a file" else blocker / "image"
    done = cli("image", _one_package(tmp_path), "--out", out)
    assert done.code == 2
    assert f"error: --out {out}: {blocker} is a file, not a folder" in done.err
    assert blocker.read_text() == "not a folder"


def test_a_read_only_out_is_an_environment_error(tmp_path: Path) -> None:
    out = tmp_path / "out"
    spec = _one_package(tmp_path)
    with _read_only(out):
        done = cli("image", spec, "--out", out)
    assert done.code == 2
    assert f"error: cannot build the image: {out}: " in done.err
    assert "Read-only file system" in done.err or "Permission denied" in done.err
    assert "internal error" not in done.err


@contextlib.contextmanager
def _read_only(out: Path) -> Iterator[None]:
    if os.geteuid() == 0:  # root writes through a 0555 folder: a read-only mount it cannot
        with _tmpfs(out, "ro,size=64k"):
            yield
        return
    out.mkdir()
    out.chmod(0o555)
    try:
        yield
    finally:
        out.chmod(0o755)


# --- a corrupt cache is a note, never a crash ---------------------------------------------------------


@pytest.mark.parametrize("corrupt", ["not JSON", "not an object", "a folder", "records missing fields", "no folder"])
def test_a_corrupt_cache_state_is_ignored_with_a_note(tmp_path: Path, corrupt: str) -> None:
    spec, out = _two_packages(tmp_path), tmp_path / "out"
    first = cli("image", spec, "--out", out, "--format", "json")
    assert first.code == 0
    state = out / ".neuralis-cache" / "state.json"
    if corrupt == "not JSON":
        state.write_text("{ truncated")
    elif corrupt == "not an object":
        state.write_text("[1, 2, 3]")
    elif corrupt == "a folder":
        state.unlink()
        (state / "inside").mkdir(parents=True)
    elif corrupt == "no folder":  # the cache folder itself is a file
        shutil.rmtree(state.parent)
        state.parent.write_text("not a folder")
        state = state.parent
    else:
        data = json.loads(state.read_text())
        data["records"] = {key: {"name": 3} for key in data["records"]}
        state.write_text(json.dumps(data))
    done = cli("image", spec, "--out", out, "--format", "json")
    assert done.code == 0, done.err
    assert f"note: {state} " in done.err and "checked again" in done.err
    assert "(cached)" not in done.err
    assert done.out == first.out
    assert json.loads((out / ".neuralis-cache" / "state.json").read_text())["records"]  # written afresh


# --- one bad package is refused on its own --------------------------------------------------------------


def test_hostile_folders_are_refused_on_their_own_and_the_good_package_is_installed(tmp_path: Path) -> None:
    deep = tmp_path / "deep"
    deep.mkdir()
    (deep / "package.json").write_text(json.dumps(manifest(name="acme-deep")))
    _deep_folders(deep, 1500)  # more than Python's stack lets a recursive walk go, and a path longer than PATH_MAX
    nested = tmp_path / "nested"
    nested.mkdir()
    (nested / "package.json").write_text(
        '{"name": "acme-nested", "version": "1.0.0", "x": ' + "[" * 600 + "]" * 600 + "}"
    )
    write_tgz(tmp_path / "tgz", "good.tgz", package_tgz(manifest(name="acme-good")))
    spec = tmp_path / "image.toml"
    spec.write_text(spec_text({"source": "tgz/good.tgz"}, {"source": "deep"}, {"source": "nested"}))
    done = cli("image", spec, "--out", tmp_path / "out", "--format", "json")
    assert done.code == 1, done.err
    report = json.loads(done.out)
    verdicts = {p["source"]: (p["status"], sorted({d["code"] for d in p["diagnostics"]})) for p in report["packages"]}
    assert verdicts == {
        "tgz/good.tgz": ("loaded", []),
        "deep": ("refused", ["NB1717"]),
        "nested": ("refused", ["NB0006"]),
    }
    assert_consistent(tmp_path / "out")
    assert (tmp_path / "out" / "node_modules" / "acme-good" / "package.json").is_file()
    _deep_folders(deep, 0)  # pytest's clean-up walks by recursion


def _deep_folders(root: Path, depth: int) -> None:
    """Make ``root/a/a/…/a/x.js`` ``depth`` folders deep, or (``depth`` 0) remove such a chain, by changing folder."""
    home = os.getcwd()
    os.chdir(root)
    try:
        if depth:
            for _ in range(depth):
                os.mkdir("a")
                os.chdir("a")
            Path("x.js").write_text("1")
            return
        levels = 0
        while os.path.isdir("a"):
            os.chdir("a")
            levels += 1
        for name in os.listdir("."):
            os.unlink(name)
        for _ in range(levels):
            os.chdir("..")
            os.rmdir("a")
    finally:
        os.chdir(home)


# --- an unchanged rerun keeps the installed tree ------------------------------------------------------


def test_an_unchanged_rerun_keeps_node_modules_and_a_touched_one_is_installed_afresh(tmp_path: Path) -> None:
    spec, out = _two_packages(tmp_path), tmp_path / "out"
    first = cli("image", spec, "--out", out, "--format", "json")
    installed = out / "node_modules" / "acme-a" / "lib" / "a.js"
    inode = installed.stat().st_ino
    rerun = cli("image", spec, "--out", out, "--format", "json")
    assert rerun.code == 0 and rerun.out == first.out and rerun.err.count("(cached)") == 2
    assert installed.stat().st_ino == inode  # the very same file: the tree was kept, not staged again
    files = image_files(out)
    installed.write_text("tampered")
    healed = cli("image", spec, "--out", out, "--format", "json")
    assert healed.code == 0 and healed.out == first.out
    assert installed.read_text() == "a" and installed.stat().st_ino != inode
    assert image_files(out) == files
    assert_consistent(out)


def test_an_error_reading_the_package_s_own_folder_refuses_it_and_a_machine_error_does_not(tmp_path: Path) -> None:
    import errno

    from neuralis_build.image.packages.listed import Listed, in_source, unreadable
    from neuralis_build.image.packages.spec import PackageSpec

    folder = tmp_path / "pkg"
    spec = PackageSpec(0, "pkg", "directory", "host-dependency", "first-party", None, None, path=folder)
    work = Listed(spec)
    denied = OSError(errno.EACCES, "Permission denied", str(folder / "lib" / "x.js"))
    assert in_source(work, denied)
    assert unreadable(work, denied).to_json() == {
        "severity": "error",
        "code": "NB1801",
        "file": "pkg",
        "pointer": "",
        "message": "cannot read lib/x.js: Permission denied",
        "hint": "make every file of the package folder readable (or leave it out of the package)",
        "line": None,
        "column": None,
    }
    assert not in_source(work, OSError(errno.ENOSPC, "No space left on device", str(folder / "x.js")))
    assert not in_source(work, OSError(errno.EACCES, "Permission denied", str(tmp_path / "out" / "x.js")))


def test_what_killed_builds_left_in_the_folder_and_its_cache_is_swept(tmp_path: Path) -> None:
    spec, out = _two_packages(tmp_path), tmp_path / "out"
    assert cli("image", spec, "--out", out).code == 0
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    pid = int(dead.stdout)
    cache = out / ".neuralis-cache"
    left = [
        out / f".neuralis-staging-{pid}-0123456789",  # a folder being staged
        out / f".neuralis-image.json.{pid}-0123456789.tmp",  # a file being written
        out / ".neuralis-staging",  # what a build before the transaction used
        out / f".node_modules.old-{pid}",  # and set aside
        cache / f".state.json.{pid}-0123456789.tmp",
        cache / "registry" / f".sha512-00.tgz.{pid}-0123456789.tmp",
        cache / "registry" / ".npm-pack-x1y2",
        cache / "npm" / ".fetch-x1y2",
    ]
    for path in left:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.mkdir() if not path.name.endswith(".tmp") else path.write_text("partial")
    assert cli("image", spec, "--out", out).code == 0
    assert [p for p in left if os.path.lexists(p)] == []
    assert leftovers(out) == []


def test_a_lone_surrogate_in_a_tarball_s_version_refuses_that_package_and_the_image_stays_consistent(
    tmp_path: Path,
) -> None:
    from tests.image.conftest import file_info, raw_tgz

    out = tmp_path / "out"
    assert cli("image", _one_package(tmp_path), "--out", out).code == 0
    raw = b'{"name": "acme-odd", "version": "1.0.0-\\udcff", "neuralis": {}}'
    write_tgz(tmp_path / "tgz", "odd.tgz", raw_tgz([file_info("package/package.json", raw)]))
    spec = tmp_path / "image.toml"
    spec.write_text(spec_text({"source": "tgz/a.tgz"}, {"source": "tgz/odd.tgz"}))
    done = cli("image", spec, "--out", out, "--format", "json")
    assert done.code == 1, done.err
    odd = json.loads(done.out)["packages"][1]
    assert (odd["status"], [d["code"] for d in odd["diagnostics"]]) == ("refused", ["NB0007"])
    assert "internal error" not in done.err
    assert_consistent(out)
    assert leftovers(out) == []
    assert sorted(p.name for p in (out / "node_modules").iterdir()) == ["acme-a"]
