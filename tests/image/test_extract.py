"""The hostile-input-safe tarball reader: every kind of hostile tarball is refused before anything is written."""

from __future__ import annotations

import gzip
import tarfile
import unicodedata
import zlib
from pathlib import Path

import pytest

from neuralis_build.image.archive.extract import ArchiveRefused, Entry, Limits, read_tarball, write_entries
from tests.image.conftest import file_info, package_tgz, raw_tgz, special

MANIFEST = file_info("package/package.json", b'{"name": "x", "version": "1.0.0"}')


def refusal(data: bytes, limits: Limits | None = None) -> tuple[str, str]:
    with pytest.raises(ArchiveRefused) as caught:
        read_tarball(data, limits)
    return caught.value.rule.id, caught.value.message


def test_an_npm_style_tarball_is_read_in_archive_order() -> None:
    data = package_tgz({"name": "x", "version": "1.0.0"}, {"lib/a.js": "a", "bin/cli.js": "#!/usr/bin/env node\n"})
    entries = read_tarball(data)
    assert [e.path for e in entries] == ["package.json", "lib/a.js", "bin/cli.js"]
    assert entries[1] == Entry("lib/a.js", b"a", False)


def test_directory_entries_are_accepted_and_skipped() -> None:
    folder = special("package/lib/", tarfile.DIRTYPE)
    folder.mode = 0o755
    entries = read_tarball(raw_tgz([folder, MANIFEST, file_info("package/lib/a.js", b"a")]))
    assert [e.path for e in entries] == ["package.json", "lib/a.js"]


def test_the_executable_bit_survives_and_nothing_else() -> None:
    info, data = file_info("package/cli.js", b"#!")
    info.mode = 0o4777  # setuid, world-writable
    entries = read_tarball(raw_tgz([MANIFEST, (info, data)]))
    assert entries[1].executable is True


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("package/../evil.js", "has a .. segment"),
        ("../evil.js", "has a .. segment"),
        ("package/lib/../../evil.js", "has a .. segment"),
        ("/etc/evil.js", "is an absolute path"),
        ("evil.js", "does not start with package/"),
        ("other/evil.js", "does not start with package/"),
        ("package\\..\\evil.js", "has a backslash (a Windows path separator)"),
        ("package/./../evil.js", "has a .. segment"),
    ],
)
def test_a_path_outside_package_is_refused(name: str, why: str) -> None:
    rule, message = refusal(raw_tgz([MANIFEST, file_info(name, b"x")]))
    assert (rule, message) == ("NB1803", f"the entry {name!r} {why}")


def test_a_pax_path_with_dotdot_is_refused() -> None:
    info, data = file_info("package/harmless.js", b"x")
    info.pax_headers = {"path": "package/../../escape.js"}
    assert refusal(raw_tgz([MANIFEST, (info, data)]))[0] == "NB1803"


@pytest.mark.parametrize(
    ("member", "what"),
    [
        (special("package/link.js", tarfile.SYMTYPE, "/etc/passwd"), "a symbolic link"),
        (special("package/inner.js", tarfile.SYMTYPE, "package.json"), "a symbolic link"),
        (special("package/hard.js", tarfile.LNKTYPE, "package/package.json"), "a hard link"),
        (special("package/dev", tarfile.CHRTYPE), "a character device"),
        (special("package/blk", tarfile.BLKTYPE), "a block device"),
        (special("package/fifo", tarfile.FIFOTYPE), "a FIFO"),
    ],
)
def test_links_devices_and_fifos_are_refused(member: tarfile.TarInfo, what: str) -> None:
    rule, message = refusal(raw_tgz([MANIFEST, member]))
    assert rule == "NB1804"
    assert message == f"the entry {member.name!r} is {what}; a package installs regular files only"


@pytest.mark.parametrize("name", ["package/./lib/a.js", "package//lib/a.js", "package/lib/./a.js", "package/lib//a.js"])
def test_dot_and_empty_segments_are_normalised_as_npm_does(name: str) -> None:
    """node-tar resolves each entry path against the target folder, so `.` and empty segments vanish."""
    entries = read_tarball(raw_tgz([MANIFEST, file_info(name, b"a")]))
    assert [(e.path, e.data) for e in entries] == [("package.json", MANIFEST[1]), ("lib/a.js", b"a")]


def test_a_later_entry_of_the_same_path_wins_as_in_npm() -> None:
    """node-tar writes each entry in turn, so the last one of a path is what npm installs."""
    first, second = file_info("package/a.js", b"1"), file_info("package/./a.js", b"2")
    second[0].mode = 0o755
    entries = read_tarball(raw_tgz([first, MANIFEST, second, file_info("package/b.js", b"b")]))
    assert entries == [Entry("a.js", b"2", True), Entry("package.json", MANIFEST[1]), Entry("b.js", b"b")]


def test_a_later_package_json_is_the_one_read() -> None:
    again = file_info("package/package.json", b'{"name": "y", "version": "2.0.0"}')
    entries = read_tarball(raw_tgz([MANIFEST, file_info("package/a.js", b""), again]))
    assert [(e.path, e.data) for e in entries] == [("package.json", again[1]), ("a.js", b"")]


def test_the_duplicate_rule_still_sees_a_case_collision_through_a_dot_segment() -> None:
    rule, message = refusal(raw_tgz([MANIFEST, file_info("package/A.js", b"1"), file_info("package/./a.js", b"2")]))
    assert (rule, message) == ("NB1805", "package/a.js and package/A.js differ only in case or Unicode normalisation")


def test_any_root_strips_each_entry_s_first_folder_as_npm_does() -> None:
    """pacote extracts with strip: 1, whatever each entry's first folder is called."""
    members = [file_info("ms/package.json", MANIFEST[1]), file_info("other/index.js", b"i")]
    assert [e.path for e in read_tarball(raw_tgz(members), any_root=True)] == ["package.json", "index.js"]
    assert refusal(raw_tgz(members))[0] == "NB1803"  # a listed package's tarball keeps package/


def test_names_that_differ_only_in_case_are_refused() -> None:
    rule, message = refusal(raw_tgz([MANIFEST, file_info("package/Read.md", b"1"), file_info("package/read.md", b"")]))
    assert rule == "NB1805"
    assert message == "package/read.md and package/Read.md differ only in case or Unicode normalisation"


def test_names_that_differ_only_in_unicode_normalisation_are_refused() -> None:
    nfc, nfd = unicodedata.normalize("NFC", "café.js"), unicodedata.normalize("NFD", "café.js")
    assert nfc != nfd
    rule, _ = refusal(raw_tgz([MANIFEST, file_info(f"package/{nfc}", b"1"), file_info(f"package/{nfd}", b"2")]))
    assert rule == "NB1805"


def test_a_file_that_is_also_a_folder_is_refused() -> None:
    rule, message = refusal(raw_tgz([MANIFEST, file_info("package/a", b"1"), file_info("package/a/b.js", b"2")]))
    assert (rule, message) == ("NB1805", "package/a is both a file and a folder")


def test_the_entry_count_is_capped() -> None:
    members = [MANIFEST, *(file_info(f"package/f{i}.js", b"") for i in range(5))]
    assert refusal(raw_tgz(members), Limits(max_entries=5)) == ("NB1806", "the tarball has more than 5 entries")


def test_the_entry_size_is_capped_from_the_header_before_reading_it() -> None:
    data = raw_tgz([MANIFEST, file_info("package/big.bin", b"x" * 2000)])
    rule, message = refusal(data, Limits(max_entry_bytes=1000))
    assert (rule, message) == ("NB1806", "package/big.bin is 2,000 bytes; one entry may hold at most 1,000")


def test_the_total_size_is_capped() -> None:
    members = [MANIFEST, *(file_info(f"package/f{i}.bin", b"x" * 400) for i in range(4))]
    rule, message = refusal(raw_tgz(members), Limits(max_total_bytes=1000))
    assert (rule, message) == ("NB1806", "the files add up to more than 1,000 bytes")


def test_a_gzip_bomb_is_refused_while_streaming_with_the_default_caps() -> None:
    """A valid small package followed by 300 MiB of zeros: only the decompressed byte count can catch it."""
    limits = Limits()
    info, body = MANIFEST
    head = info.tobuf(tarfile.USTAR_FORMAT) + body.ljust(512, b"\0")
    squeeze = zlib.compressobj(9, zlib.DEFLATED, 31)
    start = squeeze.compress(head) + squeeze.flush(zlib.Z_FULL_FLUSH)
    # after a full flush the compressor starts afresh, so one compressed MiB of zeros can be repeated
    mebibyte = squeeze.compress(b"\0" * (1 << 20)) + squeeze.flush(zlib.Z_FULL_FLUSH)
    bomb = start + mebibyte * 300  # no trailer: the reader must give up long before it would check one
    assert len(bomb) < 1024 * 1024 < limits.max_stream_bytes < 300 * 1024 * 1024
    rule, message = refusal(bomb)
    assert rule == "NB1806"
    assert message.startswith(f"the tarball inflates past {limits.max_stream_bytes:,} bytes (a gzip bomb")


def test_data_after_the_last_entry_is_refused() -> None:
    info, body = MANIFEST
    trailing = info.tobuf(tarfile.USTAR_FORMAT) + body.ljust(512, b"\0") + b"\0" * 1024 + b"hidden"
    assert refusal(gzip.compress(trailing)) == ("NB1807", "the tar stream has data after its last readable entry")


def test_a_gzip_bomb_of_one_huge_entry_is_refused_by_its_header() -> None:
    header = tarfile.TarInfo("package/zeros.bin")
    header.size = 10 * 1024**3
    bomb = gzip.compress(MANIFEST[0].tobuf() + MANIFEST[1].ljust(512, b"\0") + header.tobuf() + b"\0" * (1 << 20))
    assert refusal(bomb)[0] == "NB1806"


def test_gzip_stream_cap_message() -> None:
    members = [MANIFEST, file_info("package/zeros.bin", b"\0" * 200_000)]
    limits = Limits(max_total_bytes=1000, max_entries=1)
    rule, message = refusal(raw_tgz(members), limits)
    assert rule == "NB1806"
    assert "gzip bomb" in message and "nothing was extracted" in message


def test_a_plain_tar_is_refused() -> None:
    assert refusal(raw_tgz([MANIFEST], compress=False)) == ("NB1807", "the file is not gzip-compressed")


def test_a_truncated_tarball_is_refused() -> None:
    data = package_tgz({"name": "x"}, {"a.js": "a" * 10_000})
    assert refusal(data[: len(data) // 2])[0] == "NB1807"


def test_a_tarball_without_package_json_is_refused() -> None:
    rule, message = refusal(raw_tgz([file_info("package/index.js", b"")]))
    assert (rule, message) == ("NB1808", "the tarball has no package/package.json")


def test_write_entries_never_follows_a_link_out_of_the_root(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    (root / "lib").symlink_to(outside)  # planted by someone else: the writer must not follow it
    with pytest.raises(ArchiveRefused):
        write_entries([Entry("lib/a.js", b"a")], root)
    assert list(outside.iterdir()) == []


def test_write_entries_normalises_modes(tmp_path: Path) -> None:
    write_entries([Entry("a.js", b"a"), Entry("bin/cli.js", b"#!", True)], tmp_path)
    assert (tmp_path / "a.js").stat().st_mode & 0o7777 == 0o644
    assert (tmp_path / "bin/cli.js").stat().st_mode & 0o7777 == 0o755


# npm's own tar (node-tar, inside the npm on PATH) extracting as pacote does: strip: 1, and only
# file entries pass its filter (links are dropped; folders are made as parents).
NPM_TAR = r"""
const path = require("path");
const tar = require(path.join(process.argv[1], "node_modules", "tar"));
tar.x({
  file: process.argv[2], cwd: process.argv[3], strip: 1, sync: true, noMtime: true,
  filter: (name, entry) => /File$/.test(entry.type),
});
"""


def npm_extract(tarball: Path, target: Path) -> dict[str, bytes]:
    """What npm writes for ``tarball``: every file under ``target`` with its bytes."""
    import os
    import shutil
    import subprocess

    npm = shutil.which("npm")
    if npm is None or shutil.which("node") is None:
        pytest.skip("node and npm are needed to compare with npm's tar")
    npm_root = Path(os.path.realpath(npm)).parent.parent
    target.mkdir()
    subprocess.run(["node", "-e", NPM_TAR, str(npm_root), str(tarball), str(target)], check=True)
    return {p.relative_to(target).as_posix(): p.read_bytes() for p in sorted(target.rglob("*")) if p.is_file()}


def test_the_real_proxy_agent_tarball_is_read_as_npm_installs_it(tmp_path: Path) -> None:
    """proxy-agent@6.5.0 holds package/./dist/index.js and package/dist/index.js; npm installs one dist/index.js."""
    from tests.image.conftest import fixture_tarball

    tarball = fixture_tarball("proxy-agent@6.5.0")
    with tarfile.open(tarball) as archive:
        names = archive.getnames()
    assert "package/./dist/index.js" in names and "package/dist/index.js" in names
    for any_root in (False, True):  # as a listed tarball, and as a registry dependency
        entries = read_tarball(tarball.read_bytes(), any_root=any_root)
        assert [e.path for e in entries].count("dist/index.js") == 1
        assert {e.path: e.data for e in entries} == npm_extract(tarball, tmp_path / f"npm-{any_root}")


@pytest.mark.parametrize(
    "members",
    [
        [MANIFEST, file_info("package/./a.js", b"1"), file_info("package/a.js", b"2")],
        [MANIFEST, file_info("package/a.js", b"1"), file_info("package/lib//a.js", b"2")],
        [file_info("package/a.js", b"first"), MANIFEST, file_info("package/a.js", b"second")],
        [file_info("package/package.json", b"{}"), file_info("package/./package.json", MANIFEST[1])],
    ],
    ids=["dot-then-plain", "empty-segment", "plain-twice", "package-json-twice"],
)
def test_what_is_read_is_what_npm_writes(tmp_path: Path, members: list[tuple[tarfile.TarInfo, bytes]]) -> None:
    tarball = tmp_path / "t.tgz"
    tarball.write_bytes(raw_tgz(members))
    entries = read_tarball(tarball.read_bytes())
    assert {e.path: e.data for e in entries} == npm_extract(tarball, tmp_path / "npm")


def test_worker_processes_extract_as_this_process_does_and_keep_a_refusal_s_rule(tmp_path: Path) -> None:
    """Many tarballs are read and extracted in ``--jobs`` worker processes: the same entry in the store, the
    same facts, and a refusal with its rule, message and hint."""
    from neuralis_build.image.archive.integrity import integrity_of
    from neuralis_build.image.archive.store import Store
    from neuralis_build.image.layout.unpack import PROCESSES_FROM, _Extractors, extract

    good = package_tgz({"name": "acme-lib", "version": "1.0.0", "bin": "cli.js"}, {"cli.js": "#!/usr/bin/env node\n"})
    bad = raw_tgz([MANIFEST, file_info("package/Read.md", b"1"), file_info("package/read.md", b"")])
    here, there = Store(tmp_path / "here"), Store(tmp_path / "there")
    expected = extract(here, integrity_of(good), good, Limits())
    with _Extractors(2, PROCESSES_FROM) as pool:
        assert pool.pool is not None  # the worker processes are up
        got = pool.extract(there, integrity_of(good), good, Limits())
        with pytest.raises(ArchiveRefused) as refused:
            pool.extract(there, integrity_of(bad), bad, Limits())
    assert got.package_facts == expected.package_facts and got.entry.files == expected.entry.files
    assert got.entry.folder == there.folder / expected.entry.folder.name
    assert (got.entry.folder / "cli.js").stat().st_mode & 0o777 == 0o555  # a bin target, as pacote installs it
    assert (refused.value.rule.id, refused.value.message) == refusal(bad)
    assert refused.value.hint
    with _Extractors(2, PROCESSES_FROM - 1) as few:
        assert few.pool is None  # a handful of tarballs stays in this process
