"""The programs the toolchain runs or trusts, when they misbehave: an esbuild that prints garbage, a cached
esbuild whose bytes were changed behind the stamp that vouches for them."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from neuralis_build.esbuild.binary import cached_path, store, target
from neuralis_build.esbuild.runner import find_esbuild
from tests.hostile.conftest import cli, environ

pytestmark = pytest.mark.e2e


def test_an_esbuild_override_that_prints_bytes_not_utf8_is_a_missing_tool(tmp_path: Path):
    fake = tmp_path / "esbuild"
    fake.write_bytes(b"#!/bin/sh\nprintf '\\377\\376 0.28.2'\n")
    fake.chmod(0o755)
    done = cli("doctor", "--json", env=environ(NEURALIS_ESBUILD_BINARY=str(fake)))
    assert done.code == 2, done.err
    esbuild = next(t for t in done.json()["tools"] if t["name"] == "esbuild")
    assert esbuild["ok"] is False
    assert esbuild["note"].startswith(f"NEURALIS_ESBUILD_BINARY={fake} is esbuild \ufffd\ufffd 0.28.2;")


@pytest.fixture
def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A cache folder holding a verified copy of the real pinned esbuild and its stamp."""
    real = find_esbuild().path.read_bytes()
    monkeypatch.setenv("NEURALIS_BUILD_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("NEURALIS_ESBUILD_BINARY", raising=False)
    store(target(), real)
    return tmp_path / "cache"


def doctor_esbuild(cache: Path) -> tuple[int, dict]:
    env = environ(NEURALIS_BUILD_CACHE=str(cache))
    env.pop("NEURALIS_ESBUILD_BINARY", None)
    done = cli("doctor", "--json", env=env)
    return done.code, next(t for t in json.loads(done.out)["tools"] if t["name"] == "esbuild")


def test_doctor_hashes_the_cached_binary_itself(private_cache: Path):
    code, esbuild = doctor_esbuild(private_cache)
    assert code == 0 and esbuild["ok"] is True
    assert esbuild["note"].endswith("cached, sha256 of the bytes verified now")


def test_doctor_catches_bytes_changed_behind_the_stamp(private_cache: Path):
    binary = cached_path(target())
    before = binary.stat()
    data = bytearray(binary.read_bytes())
    data[len(data) // 2] ^= 0xFF  # same size; then the same mtime, so the stamp still matches
    binary.write_bytes(bytes(data))
    os.utime(binary, ns=(before.st_atime_ns, before.st_mtime_ns))
    code, esbuild = doctor_esbuild(private_cache)
    assert code == 2
    assert esbuild["ok"] is False
    assert "cached binary does not match the sha256 esbuild publishes" in esbuild["note"]
    assert esbuild["note"].endswith("delete it and run neuralis-build doctor --fetch")


def fake_node(folder: Path, printed: str) -> Path:
    """A `node` on PATH that prints ``printed`` and exits 0, whatever it is asked."""
    fake = folder / "node"
    folder.mkdir(parents=True, exist_ok=True)
    fake.write_text(f"#!/bin/sh\nprintf '%s' '{printed}'\n")
    fake.chmod(0o755)
    return folder


@pytest.fixture
def host_page_cache(tmp_path: Path) -> Path:
    """A cache whose host-page builds are its own (so node is asked), sharing esbuild, React and the lexer."""
    from neuralis_build.hostpage.react import HOST_TOOLS, lexer_file, pinned_react
    from neuralis_build.hostprofile import default_host_profile
    from neuralis_build.util.cachedir import cache_root

    lexer_file()
    pinned_react(default_host_profile())
    cache = tmp_path / "cache"
    cache.mkdir()
    for name in ("esbuild", HOST_TOOLS.name):
        (cache / name).symlink_to(cache_root() / name)
    return cache


@pytest.mark.parametrize(
    ("printed", "fault"),
    [
        ("garbage \\377", "printed something that is not JSON"),
        ('{"react": 1}', "printed JSON without the fields expected"),
        ("[]", "printed JSON without the fields expected"),
    ],
)
def test_a_node_that_prints_garbage_is_an_environment_error_of_dev(
    tmp_path: Path, host_page_cache: Path, printed: str, fault: str
):
    from tests.ui.ui_helpers import copy_example

    root = copy_example("hello-declarative", tmp_path)
    bin_dir = fake_node(tmp_path / "bin", printed)
    env = environ(NEURALIS_BUILD_CACHE=str(host_page_cache), PATH=f"{bin_dir}:{os.environ['PATH']}")
    done = cli("dev", root, env=env)
    assert done.code == 2, done.err
    assert f"error: node {fault} when asked to list React's exports" in done.err
    assert f"command: {bin_dir / 'node'} -e" in done.err
    assert printed in done.err  # what it printed
    assert "Traceback" not in done.err and "internal error" not in done.err


@pytest.mark.parametrize("printed", ["not json", '{"edges": []}', '{"edges": "x", "peers": []}'])
def test_a_node_that_prints_garbage_is_an_environment_error_of_the_closure_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, printed: str
):
    from neuralis_build.image.judge.nodecheck import check_with_node
    from neuralis_build.image.packages.install import resolve_all
    from neuralis_build.util.errors import SubprocessError

    monkeypatch.setenv("PATH", f"{fake_node(tmp_path / 'bin', printed)}:{os.environ['PATH']}")
    with pytest.raises(SubprocessError) as closure:
        check_with_node([(tmp_path, "dep", tmp_path)], [])
    assert closure.value.exit_code == 2
    assert closure.value.message.startswith("node printed ")
    assert closure.value.message.endswith(" when asked to run the closure check")
    assert closure.value.output == printed
    with pytest.raises(SubprocessError) as resolution:
        resolve_all([("dep", tmp_path)])
    assert resolution.value.message.endswith(" when asked to run the resolution check")


def test_a_lock_nested_ten_thousand_deep_is_a_located_refusal(tmp_path: Path):
    from neuralis_build.image.resolution.imagelock import read_lock
    from neuralis_build.util.errors import UsageError

    lock = tmp_path / "neuralis-image.lock"
    lock.write_text('version = 1\n\n[[package]]\nsource = "./a"\nname = ' + "[" * 10_000 + "]" * 10_000 + "\n")
    with pytest.raises(UsageError) as refused:
        read_lock(lock)
    assert refused.value.exit_code == 2
    assert refused.value.message == (
        f"{lock}:5:108: cannot read the lock (arrays or inline tables nest deeper than 100)"
    )
