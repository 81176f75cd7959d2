"""Limits on what comes in: memory that grows with a JSON document's size (no faster), and caps on that size.

The memory cases measure the real command in a fresh process: a small wrapper runs ``neuralis-build``
and reports ``getrusage(RUSAGE_CHILDREN).ru_maxrss``, the peak resident size of the command alone
(the test process's own earlier children would otherwise be counted in its maximum).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from neuralis_build.check import check_path
from neuralis_build.image.archive.extract import ArchiveRefused
from neuralis_build.image.layout.materialize import manifest_of
from neuralis_build.image.resolution.imagelock import read_lock
from neuralis_build.image.resolution.npmlock import read_npm_lock
from neuralis_build.npm.packagejson import PackageJson, read_package_json
from neuralis_build.package import parse_manifest
from neuralis_build.record.inputs import RECORD
from neuralis_build.record.sharedimports import read_record
from neuralis_build.record.stale import read_state
from neuralis_build.util import regularfile
from neuralis_build.util.errors import DiagnosedError, UsageError
from neuralis_build.util.limits import MAX_JSON_BYTES, MAX_LOCK_BYTES
from neuralis_build.util.regularfile import TooLarge, read_regular
from tests.hostile.conftest import CLI, TIMEOUT, cli, package_json, write_package

MiB = 1024 * 1024

MEASURE = """
import json, resource, subprocess, sys
done = subprocess.run(sys.argv[2:], capture_output=True, stdin=subprocess.DEVNULL, timeout=float(sys.argv[1]))
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024  # KiB on Linux
print(json.dumps([done.returncode, peak, done.stdout.decode(), done.stderr.decode()]))
"""


@dataclass(frozen=True)
class Measured:
    """One finished ``neuralis-build`` run and the peak resident size of its process, in bytes."""

    code: int
    peak: int
    out: str
    err: str


def measured(*args: str | Path) -> Measured:
    """Run ``neuralis-build ARGS`` as the only child of a fresh wrapper, which reports its peak memory."""
    wrapper = [sys.executable, "-c", MEASURE, str(TIMEOUT), CLI, *map(str, args)]
    done = subprocess.run(wrapper, capture_output=True, text=True, timeout=TIMEOUT + 30, check=True)
    return Measured(*json.loads(done.stdout))


def one_long_string() -> str:
    """An 8 MiB package.json that is one long string: the shape that peaked at 1 GB (about 120 bytes a character)."""
    return package_json(description="x" * (8 * MiB))


def a_long_key_over_a_long_array() -> str:
    """A 16 KiB key over 16,384 values: a locator that spells out every value's pointer holds 256 MiB of them."""
    return json.dumps({"name": "acme-hostile", "version": "1.0.0", "neuralis": {}, "k" * 16384: [0] * 16384})


def a_warning_after_eight_million_lines() -> str:
    """A diagnostic to locate after 8 Mi newlines: a line table of Python ints took 36 bytes a line."""
    return '{"name": "acme-hostile", "version": "1.0.0",' + "\n" * (8 * MiB) + '"neuralis": {"bogus": 1}}'


SHAPES = {one_long_string: [], a_long_key_over_a_long_array: [], a_warning_after_eight_million_lines: ["NB0109"]}


@pytest.mark.parametrize("shape", SHAPES, ids=lambda f: f.__name__)
def test_check_reads_a_large_package_json_in_memory_linear_in_its_size(tmp_path: Path, shape):  # type: ignore[no-untyped-def]
    small = write_package(tmp_path / "small", package_json())
    big = write_package(tmp_path / "big", shape())
    size = (big / "package.json").stat().st_size
    base = measured("check", small, "--trust", "untrusted", "--format", "json")
    done = measured("check", big, "--trust", "untrusted", "--format", "json")
    assert (done.code, done.err) == (0, "")
    (report,) = json.loads(done.out)
    assert [d["code"] for d in report["diagnostics"]] == SHAPES[shape]
    # generous: the bytes, the text and the parsed value are a few times the size; the locator adds little
    assert done.peak < base.peak + 16 * MiB + 40 * size, f"{done.peak / MiB:.0f} MiB for {size / MiB:.2f} MiB"


def sparse(path: Path, size: int) -> Path:
    """A file of ``size`` bytes that takes no disk (and no memory, unless something reads it)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as fh:
        fh.truncate(size)
    return path


def test_a_package_json_over_the_cap_is_refused_from_its_size_before_it_is_read(tmp_path: Path):
    small = write_package(tmp_path / "small", package_json())
    sparse(tmp_path / "big" / "package.json", 64 * MiB)
    base = measured("check", small, "--trust", "untrusted", "--format", "json")
    done = measured("check", tmp_path / "big", "--trust", "untrusted", "--format", "json")
    assert done.code == 1
    ((d,),) = [r["diagnostics"] for r in json.loads(done.out)]
    assert (d["code"], d["file"], d["pointer"], d["line"], d["message"], d["hint"]) == (
        "NB0010",
        "package.json",
        "",
        None,
        "package.json is 64 MiB, more than the 16 MiB the toolchain reads; it was not read",
        "a package.json holds a package's metadata, well under 1 MiB: move large data (text, schemas, lists) into "
        "files of the package",
    )
    assert done.peak < base.peak + 16 * MiB  # never read: reading it would take 64 MiB at least


def test_check_says_in_text_which_package_json_is_too_large_and_by_how_much(tmp_path: Path):
    sparse(tmp_path / "pkg" / "package.json", MAX_JSON_BYTES + 1)
    done = cli("check", tmp_path / "pkg", "--trust", "untrusted")
    assert done.code == 1
    assert (
        "error NB0010 package.json is 16.0 MiB (16,777,217 bytes), more than the 16 MiB the toolchain reads; "
        "it was not read"
    ) in done.out
    assert "Traceback" not in done.out + done.err


def test_a_package_json_at_the_cap_is_read(tmp_path: Path):
    text = package_json()
    write_package(tmp_path / "pkg", text + " " * (MAX_JSON_BYTES - len(text)))
    assert (tmp_path / "pkg" / "package.json").stat().st_size == MAX_JSON_BYTES
    assert read_package_json(tmp_path / "pkg").object == json.loads(text)


def test_a_dependency_s_package_json_over_the_cap_is_a_read_error_naming_its_size(tmp_path: Path):
    path = sparse(tmp_path / "dep" / "package.json", 20 * MiB)
    read = read_package_json(tmp_path / "dep")
    assert isinstance(read.error, TooLarge) and read.raw is None
    assert read.reason == "20 MiB, more than the 16 MiB the toolchain reads"
    assert str(read.error) == f"{path} is 20 MiB, more than the 16 MiB the toolchain reads"


def test_a_file_that_grows_after_its_size_was_read_is_read_no_further_than_the_cap(tmp_path, monkeypatch):  # type: ignore[no-untyped-def]
    path = tmp_path / "grown.json"
    path.write_bytes(b"x" * 100)
    real = os.fstat
    monkeypatch.setattr(regularfile.os, "fstat", lambda fd: os.stat_result((*real(fd)[:6], 10, *real(fd)[7:])))
    with pytest.raises(TooLarge) as refused:
        read_regular(path, limit=40)
    assert (refused.value.size, refused.value.cap) == (41, 40)


def test_a_tools_json_over_the_cap_is_a_located_refusal(tmp_path: Path):
    pkg = write_package(tmp_path / "pkg", package_json())
    sparse(pkg / "tools" / "acme_big.json", 17 * MiB)
    (d,) = check_path(pkg, "untrusted").diagnostics
    assert (d.code, d.file, d.message, d.hint) == (
        "NB1415",
        "tools/acme_big.json",
        "tools/acme_big.json is 17 MiB, more than the 16 MiB the toolchain reads; it was not read",
        "a tool definition is a description and a schema, a few KiB: move large data into files the tool reads",
    )


def test_a_host_profile_over_the_cap_is_an_environment_error(tmp_path: Path):
    host = sparse(tmp_path / "host.json", 17 * MiB)
    done = cli("check", write_package(tmp_path / "pkg", package_json()), "--trust", "untrusted", "--host", host)
    assert done.code == 2
    assert done.err.splitlines() == [
        f"error: {host}: the host profile is 17 MiB, more than the 16 MiB the toolchain reads; it was not read",
        "hint: a host profile lists the platform's versions and tools, a few KiB: pass the profile itself",
    ]


def test_an_image_spec_over_the_cap_is_an_environment_error(tmp_path: Path):
    spec = sparse(tmp_path / "image.toml", 17 * MiB)
    done = cli("image", spec, "--out", tmp_path / "out")
    assert done.code == 2
    assert done.err.splitlines() == [
        f"error: {spec}: the image spec is 17 MiB, more than the 16 MiB the toolchain reads; it was not read",
        "hint: an image spec lists packages and servers, a few KiB: pass the spec itself",
    ]


def test_an_image_report_over_the_cap_is_an_environment_error(tmp_path: Path):
    old = sparse(tmp_path / "old" / "neuralis-image.json", MAX_LOCK_BYTES + 1)
    done = cli("image", "diff", old, old)
    assert done.code == 2
    assert done.err.splitlines() == [
        f"error: {old}: the image report is 128.0 MiB (134,217,729 bytes), more than the 128 MiB the toolchain "
        "reads; it was not read",
        "hint: pass the neuralis-image.json an image build wrote",
    ]


def test_npm_s_lock_and_the_image_lock_over_their_cap_are_refused_before_they_are_read(tmp_path: Path):
    npm_lock = sparse(tmp_path / "package-lock.json", MAX_LOCK_BYTES + 1)
    image_lock = sparse(tmp_path / "neuralis-image.lock", 200 * MiB)
    with pytest.raises(UsageError) as npm:
        read_npm_lock(npm_lock)
    assert (npm.value.message, npm.value.hint) == (
        f"{npm_lock}: npm's lock is 128.0 MiB (134,217,729 bytes), more than the 128 MiB the toolchain reads; "
        "it was not read",
        "delete it and build without --frozen; a tree that needs a larger lock is past what the image holds",
    )
    with pytest.raises(UsageError) as image:
        read_lock(image_lock)
    assert (image.value.message, image.value.hint) == (
        f"{image_lock}: the lock is 200 MiB, more than the 128 MiB the toolchain reads; it was not read",
        "delete it and build without --frozen",
    )


def test_a_lock_of_a_large_real_tree_is_far_under_its_cap(tmp_path: Path):
    """npm writes about 500 bytes a package: a lock of 20,000 packages is read, and far from the cap."""
    packages: dict[str, object] = {"": {"dependencies": {f"p{i}": "1.0.0" for i in range(20000)}}}
    for i in range(20000):
        packages[f"node_modules/p{i}"] = {
            "version": "1.0.0",
            "resolved": f"https://registry.npmjs.org/p{i}/-/p{i}-1.0.0.tgz",
            "integrity": "sha512-" + "A" * 86 + "==",
            "dependencies": {"a": "^1.0.0", "b": "^2.0.0"},
            "engines": {"node": ">=18"},
        }
    path = tmp_path / "package-lock.json"
    path.write_text(json.dumps({"name": "image", "lockfileVersion": 3, "packages": packages}, indent=2))
    assert path.stat().st_size < MAX_LOCK_BYTES / 10
    assert len(read_npm_lock(path).nodes) == 20000


def test_records_over_the_cap_are_unreadable_records_naming_their_size(tmp_path: Path):
    record = sparse(tmp_path / "dist" / "app" / "shared-imports.json", 17 * MiB)
    with pytest.raises(TooLarge):
        read_record(record)
    sparse(tmp_path / "dist" / "app" / RECORD, 17 * MiB)
    state = read_state(tmp_path, ["dist/app/host.js"])
    assert state.unreadable == ((f"dist/app/{RECORD}", "17 MiB, more than the 16 MiB the toolchain reads"),)


def test_a_package_json_over_the_cap_inside_a_tarball_is_refused_too():
    raw = b" " * MAX_JSON_BYTES + b"{}"
    with pytest.raises(DiagnosedError) as refused:
        parse_manifest(raw, Path("pkg"))
    ((d,),) = [refused.value.diagnostics]
    assert (d.code, d.message) == (
        "NB0010",
        "package.json is 16.0 MiB (16,777,218 bytes), more than the 16 MiB the toolchain reads; it was not read",
    )
    with pytest.raises(ArchiveRefused) as dependency:  # an installed dependency's, as the image reads it
        manifest_of(PackageJson(Path("package.json"), raw).parse())
    assert (dependency.value.rule.id, dependency.value.message) == (
        "NB1808",
        "its package.json cannot be read as Node reads it: package.json is 16.0 MiB (16,777,218 bytes), more than "
        "the 16 MiB the toolchain reads",
    )
