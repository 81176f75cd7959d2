"""The programs the toolchain runs or trusts, when they misbehave: an esbuild that prints garbage, a cached
esbuild whose bytes were changed behind the stamp that vouches for them."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from neuralis_build.ui.binary import cached_path, store, target
from neuralis_build.ui.esbuild import find_esbuild
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
