"""The image is a transaction: a failure, kill -9 or Ctrl-C at any moment leaves the previous image or the new one.

Each case starts from the same built image (one package), runs the real CLI on a SPEC of two packages
with a fault injected at one moment, and checks what the folder holds then, and after the next build.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from neuralis_build.image.output.commit import recover
from tests.conftest import manifest, requires_node
from tests.image.conftest import package_tgz, spec_text, write_tgz
from tests.image.faultkit import assert_consistent, cli, cli_with_fault, image_files, leftovers

pytestmark = [pytest.mark.e2e, requires_node]

# the renames of the swap, counted from 1: the journal (1), then each entry set aside and renamed in
# (node_modules 2-3, the tarballs 4-5, package.json 6-7, npm's lock 8-9, the SBOM 10-11, the lock 12-13,
# the report 14-15), then the mark that the commit is done (16)
SWAP_MOMENTS = [1, 3, 9, 16]


@dataclass(frozen=True)
class Images:
    one: Path  # SPEC of one package
    two: Path  # SPEC of two packages
    old: Path  # the image of ``one``
    new: dict[str, bytes]  # the files of the image of ``two`` built over ``old``


@pytest.fixture(scope="module")
def images(tmp_path_factory: pytest.TempPathFactory) -> Images:
    root = tmp_path_factory.mktemp("transaction")
    write_tgz(root / "tgz", "a.tgz", package_tgz(manifest(name="acme-a"), {"lib/a.js": "a"}))
    write_tgz(root / "tgz", "b.tgz", package_tgz(manifest(name="@acme/b"), {"b.js": "b"}))
    one, two = root / "one.toml", root / "two.toml"
    one.write_text(spec_text({"source": "tgz/a.tgz"}))
    two.write_text(spec_text({"source": "tgz/a.tgz"}, {"source": "tgz/b.tgz"}))
    assert cli("image", one, "--out", root / "old").code == 0
    shutil.copytree(root / "old", root / "new", symlinks=True)
    assert cli("image", two, "--out", root / "new").code == 0
    return Images(one, two, root / "old", image_files(root / "new"))


def _old_copy(images: Images, tmp_path: Path) -> tuple[Path, dict[str, bytes]]:
    out = tmp_path / "out"
    shutil.copytree(images.old, out, symlinks=True)
    return out, image_files(out)


def _without_staging(files: dict[str, bytes]) -> dict[str, bytes]:
    return {k: v for k, v in files.items() if not k.startswith(".neuralis-staging-")}


def _next_build_gives_the_new_image(images: Images, out: Path) -> None:
    done = cli("image", images.two, "--out", out, "--jobs", "1")
    assert done.code == 0, done.err
    assert image_files(out) == images.new
    assert leftovers(out) == []
    assert_consistent(out)


@pytest.mark.parametrize(
    ("moment", "at"), [("staging", 2), ("sbom", 2), *(("commit", k) for k in SWAP_MOMENTS), ("cleanup", 1)]
)
def test_a_build_killed_at_any_moment_leaves_the_old_image_or_the_new_one(
    images: Images, tmp_path: Path, moment: str, at: int
) -> None:
    out, before = _old_copy(images, tmp_path)
    done = cli_with_fault(moment, at, "SIGKILL", "image", images.two, "--out", out, "--jobs", "1")
    assert done.code == -signal.SIGKILL, done.err
    # the next build holds the folder's lock, then finishes or undoes what the killed one left
    recover(out)
    assert _without_staging(image_files(out)) == (images.new if moment == "cleanup" else before)
    _next_build_gives_the_new_image(images, out)


def test_a_kill_in_the_middle_of_the_swap_is_rolled_back_by_the_next_build(images: Images, tmp_path: Path) -> None:
    out, _ = _old_copy(images, tmp_path)
    assert cli_with_fault("commit", 9, "SIGKILL", "image", images.two, "--out", out).code == -signal.SIGKILL
    assert sorted(p.name for p in (out / "node_modules").iterdir()) == ["@acme", "acme-a"]  # half swapped
    done = cli("image", images.two, "--out", out)
    assert "note: rolled back the image a killed build (pid " in done.err
    assert image_files(out) == images.new and leftovers(out) == []


@pytest.mark.parametrize(("moment", "at"), [("staging", 1), ("sbom", 3)])
def test_ctrl_c_before_the_swap_keeps_the_old_image_and_says_so(
    images: Images, tmp_path: Path, moment: str, at: int
) -> None:
    out, before = _old_copy(images, tmp_path)
    done = cli_with_fault(moment, at, "SIGINT", "image", images.two, "--out", out, "--jobs", "1")
    assert done.code == 130
    assert f"interrupted: nothing of this build was kept: {out} holds the previous image, as it was" in done.err
    assert image_files(out) == before and leftovers(out) == []


def test_ctrl_c_during_the_swap_waits_for_it_and_says_the_new_image_was_written(images: Images, tmp_path: Path) -> None:
    out, _ = _old_copy(images, tmp_path)
    done = cli_with_fault("commit", 5, "SIGINT", "image", images.two, "--out", out, "--jobs", "1")
    assert done.code == 130
    assert f"interrupted: the new image was written to {out} before the interrupt" in done.err
    assert image_files(out) == images.new and leftovers(out) == []
    assert_consistent(out)


def test_ctrl_c_into_an_empty_folder_says_there_is_no_image(images: Images, tmp_path: Path) -> None:
    done = cli_with_fault("staging", 1, "SIGINT", "image", images.two, "--out", tmp_path / "out", "--jobs", "1")
    assert done.code == 130
    assert f"interrupted: nothing of this build was kept: {tmp_path / 'out'} holds no image" in done.err
    assert image_files(tmp_path / "out") == {}


@pytest.mark.parametrize(("moment", "at"), [("commit", 3), ("commit", 15), ("sbom", 1)])
def test_a_failed_rename_or_write_rolls_back_to_the_old_image(
    images: Images, tmp_path: Path, moment: str, at: int
) -> None:
    out, before = _old_copy(images, tmp_path)
    done = cli_with_fault(moment, at, "OSError", "image", images.two, "--out", out, "--jobs", "1")
    assert done.code == 2, done.err
    assert "error: cannot build the image: injected: Input/output error (injected)" in done.err
    assert f"the image in {out} is as it was" in done.err
    assert image_files(out) == before and leftovers(out) == []
    assert_consistent(out)


@pytest.mark.skipif(os.geteuid() != 0, reason="chattr +i needs root")
def test_a_rename_the_file_system_refuses_rolls_back_to_the_old_image(images: Images, tmp_path: Path) -> None:
    out, before = _old_copy(images, tmp_path)
    report = out / "neuralis-image.json"  # swapped in last: every other entry is rolled back
    if subprocess.run(["chattr", "+i", str(report)], capture_output=True, check=False).returncode != 0:
        pytest.skip("this file system has no immutable flag")
    try:
        done = cli("image", images.two, "--out", out)
    finally:
        subprocess.run(["chattr", "-i", str(report)], check=True)
    assert done.code == 2
    assert f"error: cannot build the image: {report}: Operation not permitted" in done.err
    assert image_files(out) == before and leftovers(out) == []
    _next_build_gives_the_new_image(images, out)
