"""Obtaining the pinned esbuild: npm pack, sha256 verification, the cache, the override, no npm."""

from __future__ import annotations

import shutil
import stat
from pathlib import Path

import pytest

from neuralis_build.esbuild.binary import BINARY_HASHES, ESBUILD_VERSION, cached_path, sha256_file, target
from neuralis_build.esbuild.runner import cached_esbuild, find_esbuild, parse_messages
from neuralis_build.util.errors import SubprocessError, ToolMissingError


def test_pinned_version_and_the_whole_hash_table():
    assert ESBUILD_VERSION == "0.28.2"
    assert len(BINARY_HASHES) == 23
    assert BINARY_HASHES["@esbuild/linux-x64/bin/esbuild"] == (
        "e1698a3d5c6c0798fee4fd3b5cc816651f460c63d390a7a26ea4beb0b1884100"
    )


@pytest.mark.parametrize(
    ("system", "machine", "package", "member"),
    [
        ("Linux", "x86_64", "@esbuild/linux-x64", "bin/esbuild"),
        ("Linux", "aarch64", "@esbuild/linux-arm64", "bin/esbuild"),
        ("Darwin", "arm64", "@esbuild/darwin-arm64", "bin/esbuild"),
        ("Windows", "AMD64", "@esbuild/win32-x64", "esbuild.exe"),
        ("FreeBSD", "amd64", "@esbuild/freebsd-x64", "bin/esbuild"),
    ],
)
def test_platform_packages(system, machine, package, member):
    t = target(system, machine)
    assert (t.package, t.member) == (package, member)
    assert t.sha256 == BINARY_HASHES[f"{package}/{member}"]


def test_a_machine_without_a_binary_is_told_what_to_do():
    with pytest.raises(ToolMissingError) as err:
        target("Plan9", "mips")
    assert "NEURALIS_ESBUILD_BINARY" in (err.value.hint or "")


def test_parse_visualstudio_messages():
    stderr = (
        '/p/src/a.tsx(3,21): error ES0000: Unexpected ";"\n'
        '/p/src/b.tsx(1,18): warning ES0015: Duplicate key "a" in object literal\n'
        'esbuild: error ES0000: Could not resolve "src/nope.tsx"\n'
        "1 error\n"
    )
    assert [(m.severity, m.file, m.line, m.column, m.text) for m in parse_messages(stderr)] == [
        ("error", "/p/src/a.tsx", 3, 21, 'Unexpected ";"'),
        ("warning", "/p/src/b.tsx", 1, 18, 'Duplicate key "a" in object literal'),
        ("error", None, None, None, 'Could not resolve "src/nope.tsx"'),
    ]


@pytest.fixture
def empty_cache(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    monkeypatch.setenv("NEURALIS_BUILD_CACHE", str(cache))
    monkeypatch.delenv("NEURALIS_ESBUILD_BINARY", raising=False)
    return cache


def fake_npm(folder: Path, script: str) -> str:
    """A PATH holding only a fake ``npm`` shell script (and the basic tools it uses)."""
    folder.mkdir(parents=True, exist_ok=True)
    npm = folder / "npm"
    npm.write_text("#!/bin/sh\n" + script)
    npm.chmod(npm.stat().st_mode | stat.S_IEXEC)
    return f"{folder}:/usr/bin:/bin"


@pytest.mark.e2e
def test_fetches_with_npm_pack_verifies_and_caches(empty_cache, tmp_path):
    found = find_esbuild(tmp_path)
    assert found.source == "npm" and found.version == ESBUILD_VERSION
    assert found.path == cached_path(target()) and found.path.is_relative_to(empty_cache)
    assert sha256_file(found.path) == target().sha256
    assert found.path.stat().st_mode & stat.S_IXUSR
    again = find_esbuild(tmp_path)
    assert again.source == "cache" and again.path == found.path
    # A binary changed in the cache is not trusted: the next run fetches a verified copy again.
    with found.path.open("ab") as f:
        f.write(b"\0")
    assert cached_esbuild() is None
    assert find_esbuild(tmp_path).source == "npm"
    assert sha256_file(found.path) == target().sha256


def test_a_verified_copy_in_node_modules_is_used(empty_cache, tmp_path, esbuild):
    t = target()
    project = tmp_path / "project"
    installed = project / "node_modules" / t.package / t.member
    installed.parent.mkdir(parents=True)
    shutil.copyfile(esbuild.path, installed)
    found = find_esbuild(project / "deep" / "inside")
    assert found.source == "node_modules" and sha256_file(found.path) == t.sha256


def test_a_tarball_whose_binary_does_not_match_the_pinned_hash_is_refused(empty_cache, tmp_path, monkeypatch):
    t = target()
    fixture = tmp_path / "fixture"
    binary = fixture / "package" / t.member
    binary.parent.mkdir(parents=True)
    binary.write_bytes(b"#!/bin/sh\necho not esbuild\n")
    path = fake_npm(
        tmp_path / "bin",
        f'dest="$4"\ntar czf "$dest/bad.tgz" -C "{fixture}" package\necho \'[{{"filename": "bad.tgz"}}]\'\n',
    )
    monkeypatch.setenv("PATH", path)
    with pytest.raises(ToolMissingError) as err:
        find_esbuild(tmp_path)
    assert "does not match the sha256 that esbuild publishes" in err.value.message
    assert not cached_path(t).exists()


def test_npm_failing_is_reported_with_its_output(empty_cache, tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", fake_npm(tmp_path / "bin", "echo 'npm error code E404' >&2\nexit 1\n"))
    with pytest.raises(SubprocessError) as err:
        find_esbuild(tmp_path)
    assert err.value.command[1:3] == ["pack", f"{target().package}@{ESBUILD_VERSION}"]
    assert "E404" in err.value.output and err.value.exit_code == 2


def test_no_npm_says_what_to_install(empty_cache, tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(ToolMissingError) as err:
        find_esbuild(tmp_path)
    assert err.value.exit_code == 2
    assert "npm is not on PATH" in err.value.message
    assert err.value.hint == (
        "install Node.js 20 or newer (it brings npm), or set NEURALIS_ESBUILD_BINARY to an esbuild 0.28.2 binary"
    )


def test_the_override_wins_when_it_is_the_pinned_version(empty_cache, tmp_path, monkeypatch, esbuild):
    monkeypatch.setenv("NEURALIS_ESBUILD_BINARY", str(esbuild.path))
    found = find_esbuild(tmp_path)
    assert (found.source, found.path) == ("override", esbuild.path)


def test_an_override_of_another_version_or_no_file_is_refused(empty_cache, tmp_path, monkeypatch):
    old = tmp_path / "esbuild-old"
    old.write_text("#!/bin/sh\necho 0.27.0\n")
    old.chmod(0o755)
    monkeypatch.setenv("NEURALIS_ESBUILD_BINARY", str(old))
    with pytest.raises(ToolMissingError) as err:
        find_esbuild(tmp_path)
    assert "is esbuild 0.27.0; neuralis-build drives esbuild 0.28.2" in err.value.message
    monkeypatch.setenv("NEURALIS_ESBUILD_BINARY", str(tmp_path / "nothing"))
    with pytest.raises(ToolMissingError) as err:
        find_esbuild(tmp_path)
    assert "names no file" in err.value.message
