"""Tarballs the image accepted although the docs say refused: sparse files, case collisions, malformed
headers, hidden gzip members, names that are not UTF-8."""

from __future__ import annotations

import gzip
import io
import shutil
import tarfile
from pathlib import Path

import pytest

from neuralis_build.image.archive.extract import ArchiveRefused, Entry, read_tarball
from tests.image.conftest import file_info, raw_tgz
from tests.pack.packtools import npm_pack

MANIFEST = file_info("package/package.json", b'{"name": "x", "version": "1.0.0"}')


def refusal(data: bytes) -> tuple[str, str]:
    with pytest.raises(ArchiveRefused) as caught:
        read_tarball(data)
    return caught.value.rule.id, caught.value.message


def block(name: str, body: bytes, *, size_field: bytes | None = None) -> bytes:
    """One ustar header and its padded body; ``size_field`` overwrites the 12-byte size (checksum fixed)."""
    info, _ = file_info(name, body)
    info.size = len(body)
    header = bytearray(info.tobuf(tarfile.USTAR_FORMAT))
    if size_field is not None:
        header[124:136] = size_field
        header[148:156] = b" " * 8
        header[148:156] = b"%06o\0 " % sum(header)
    return bytes(header) + body + b"\0" * (-len(body) % 512)


END = b"\0" * 1024


def test_a_gnu_sparse_0_1_entry_is_refused_before_it_expands():
    info, body = file_info("package/s.bin", b"hello")
    info.pax_headers = {
        "GNU.sparse.size": "50000000",
        "GNU.sparse.numblocks": "1",
        "GNU.sparse.offset": "49999995",
        "GNU.sparse.numbytes": "5",
        "GNU.sparse.map": "49999995,5",
    }
    assert refusal(raw_tgz([MANIFEST, (info, body)])) == (
        "NB1804",
        "the entry 'package/s.bin' is a sparse file; a package installs regular files only",
    )


def test_a_gnu_sparse_1_0_entry_is_refused_before_it_expands():
    info, _ = file_info("package/s.bin", b"")
    info.pax_headers = {
        "GNU.sparse.major": "1",
        "GNU.sparse.minor": "0",
        "GNU.sparse.name": "package/s.bin",
        "GNU.sparse.realsize": "50000000",
    }
    body = b"1\n49999995\n5\n".ljust(512, b"\0") + b"hello"
    assert refusal(raw_tgz([MANIFEST, (info, body)]))[0] == "NB1804"


@pytest.mark.parametrize(
    ("first", "second", "message"),
    [
        (
            "package/Lib",
            "package/lib/x.js",
            "package/lib/ and package/Lib differ only in case or Unicode normalisation",
        ),
        (
            "package/lib/x.js",
            "package/LIB",
            "package/LIB and package/lib/ differ only in case or Unicode normalisation",
        ),
        ("package/A/b.js", "package/a/c.js", "package/a/ and package/A/ differ only in case or Unicode normalisation"),
    ],
)
def test_a_file_and_a_folder_that_differ_only_in_case_collide(first: str, second: str, message: str):
    members = [MANIFEST, file_info(first, b"1"), file_info(second, b"2")]
    if first.endswith("b.js"):  # two folders differing in case are no collision on their own, only their files
        members.append(file_info("package/a/b.js", b"3"))
        message = "package/a/b.js and package/A/b.js differ only in case or Unicode normalisation"
    assert refusal(raw_tgz(members)) == ("NB1805", message)


@pytest.mark.parametrize(
    ("key", "value"), [("size", "abc"), ("size", "-1"), ("size", "1e3"), ("mtime", "zz"), ("uid", "0x10")]
)
def test_a_malformed_pax_number_is_refused(key: str, value: str):
    info, body = file_info("package/a.js", b"abc")
    info.pax_headers = {key: value}
    assert refusal(raw_tgz([MANIFEST, (info, body)])) == (
        "NB1807",
        f"the tar stream has a malformed pax header at 'package/a.js': {key}={value!r}",
    )


@pytest.mark.parametrize("field", [b"0000000000x\0", b"00000000009\0", b"3 garbage\0\0\0"])
def test_a_size_field_that_is_not_octal_is_refused(field: bytes):
    data = block("package/package.json", MANIFEST[1]) + block("package/a.js", b"abc", size_field=field) + END
    assert refusal(gzip.compress(data)) == (
        "NB1807",
        "the tar stream has an unreadable header at byte 1,024 (invalid header)",
    )


def test_a_header_cut_short_is_refused():
    data = block("package/package.json", MANIFEST[1]) + block("package/a.js", b"abc")[:300]
    assert refusal(gzip.compress(data)) == ("NB1807", "the tar stream ends in the middle of a header at byte 1,024")


def test_a_last_header_that_fails_its_checksum_is_refused():
    header = bytearray(block("package/a.js", b"")[:512])
    header[8] = ord("b")  # package/b.js, the checksum still that of package/a.js
    data = block("package/package.json", MANIFEST[1]) + bytes(header)
    assert refusal(gzip.compress(data)) == (
        "NB1807",
        "the tar stream has an unreadable header at byte 1,024 (bad checksum)",
    )


def test_an_archive_without_its_end_marker_is_read_as_gnu_tar_reads_it():
    data = block("package/package.json", MANIFEST[1]) + block("package/a.js", b"abc")
    assert [e.path for e in read_tarball(gzip.compress(data))] == ["package.json", "a.js"]


def test_every_gzip_member_is_read():
    first = gzip.compress(block("package/package.json", MANIFEST[1]))
    second = gzip.compress(block("package/hidden.js", b"evil") + END)
    assert read_tarball(first + second) == [
        Entry("package.json", MANIFEST[1]),
        Entry("hidden.js", b"evil"),
    ]


def test_a_tar_header_split_across_gzip_members_is_read():
    tar = block("package/package.json", MANIFEST[1]) + END
    assert [e.path for e in read_tarball(gzip.compress(tar[:200]) + gzip.compress(tar[200:]))] == ["package.json"]


def test_bytes_after_the_last_gzip_member_are_refused_unless_zero_padding():
    tgz = gzip.compress(block("package/package.json", MANIFEST[1]) + END)
    assert refusal(tgz + b"garbage") == (
        "NB1807",
        "the file holds bytes after gzip member 1 that are not another gzip member",
    )
    assert [e.path for e in read_tarball(tgz + b"\0" * 100)] == ["package.json"]


def test_an_entry_name_that_is_not_utf8_is_refused():
    header = bytearray(block("package/ab.js", b"x"))
    header[8] = 0xFF  # package/\xffb.js
    header[148:156] = b" " * 8
    header[148:156] = b"%06o\0 " % sum(header[:512])
    data = block("package/package.json", MANIFEST[1]) + bytes(header) + END
    assert refusal(gzip.compress(data)) == (
        "NB1803",
        "the entry 'package/\ufffdb.js' is not UTF-8; a package path is Unicode text",
    )


def test_a_name_longer_than_a_file_system_allows_is_refused():
    assert refusal(raw_tgz([MANIFEST, file_info("package/" + "a" * 256 + ".js", b"x")]))[0] == "NB1806"


TOOLS = Path(__file__).resolve().parent.parent / "tools" / "node_modules"
REAL = ["ajv", "argparse", "async", "bcryptjs", "@verdaccio/config", "body-parser"]


@pytest.mark.e2e
@pytest.mark.parametrize("name", REAL)
def test_the_tarballs_npm_packs_from_real_packages_are_read_whole(tmp_path: Path, name: str):
    # the stricter header rules must not refuse what npm (node-tar) writes: pax headers, long names, modes
    if not (TOOLS / name / "package.json").is_file():
        pytest.skip("tests/tools is not installed (scripts/setup --test)")
    root = shutil.copytree(TOOLS / name, tmp_path / "src", ignore=shutil.ignore_patterns("node_modules"))
    tgz = npm_pack(root, tmp_path / "out").tgz
    with tarfile.open(fileobj=io.BytesIO(tgz)) as archive:
        expected = [(m.name.removeprefix("package/"), archive.extractfile(m).read()) for m in archive if m.isfile()]
    assert [(e.path, e.data) for e in read_tarball(tgz)] == expected
