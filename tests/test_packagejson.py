"""The one package.json reader: each way a read can end, as a value the caller decides about."""

from __future__ import annotations

import os

import pytest

from neuralis_build.npm.packagejson import read_package_json
from neuralis_build.util.regularfile import NotRegularFile
from neuralis_build.util.strictjson import JSONRefused


def test_an_object_is_read_with_its_text(tmp_path):
    (tmp_path / "package.json").write_text('{"name": "a"}', "utf-8")
    read = read_package_json(tmp_path)
    assert (read.error, read.object, read.text) == (None, {"name": "a"}, '{"name": "a"}')


def test_a_byte_order_mark_is_dropped_as_npm_drops_it(tmp_path):
    (tmp_path / "package.json").write_bytes(b'\xef\xbb\xbf{"name": "a"}')
    assert read_package_json(tmp_path).object == {"name": "a"}


def test_a_missing_file_is_missing_not_unreadable(tmp_path):
    read = read_package_json(tmp_path)
    assert read.missing and read.raw is None and read.object is None


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_is_refused_never_waited_on(tmp_path):
    os.mkfifo(tmp_path / "package.json")
    read = read_package_json(tmp_path)
    assert isinstance(read.error, NotRegularFile) and not read.missing
    assert read.reason == "a FIFO (named pipe)"


def test_a_symlink_is_followed_unless_asked_not_to(tmp_path):
    (tmp_path / "real.json").write_text("{}", "utf-8")
    (tmp_path / "package.json").symlink_to("real.json")
    assert read_package_json(tmp_path).object == {}
    refused = read_package_json(tmp_path, follow_symlinks=False)
    assert isinstance(refused.error, NotRegularFile) and refused.reason == "a symbolic link"


def test_bytes_that_are_not_utf8_name_the_byte_from_the_file_start(tmp_path):
    (tmp_path / "package.json").write_bytes(b'\xef\xbb\xbf{"a": "\xff"}')
    read = read_package_json(tmp_path)
    assert isinstance(read.error, UnicodeDecodeError) and read.reason == "not UTF-8 text (byte 10)"


def test_json_node_would_not_read_is_an_error_with_its_reason(tmp_path):
    (tmp_path / "package.json").write_text('{"a": NaN}', "utf-8")
    read = read_package_json(tmp_path)
    assert isinstance(read.error, JSONRefused) and read.reason.startswith("not valid JSON: ")
    assert read.object is None


def test_json_that_is_not_an_object_has_no_object(tmp_path):
    (tmp_path / "package.json").write_text("[1]", "utf-8")
    read = read_package_json(tmp_path)
    assert (read.error, read.data, read.object) == (None, [1], None)


def test_a_cheap_look_before_parsing(tmp_path):
    (tmp_path / "package.json").write_text('{"neuralis": {}}', "utf-8")
    read = read_package_json(tmp_path, parse=False)
    assert read.raw == b'{"neuralis": {}}' and read.data is None
    assert read.parse().object == {"neuralis": {}}
