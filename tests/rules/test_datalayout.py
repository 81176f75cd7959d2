"""dataLayout: fail-closed directory names, machineWritten globs and classes, and the trust gate."""

from __future__ import annotations

import json

import pytest
from jsonschema import Draft202012Validator

from neuralis_build.check import check_path
from neuralis_build.manifest.schema import neuralis_block_schema

GOOD = {
    "directories": ["cache", "state", ".index", "v2_runs-old"],
    "agentDirectories": ["memory", "cache"],
    "machineWritten": [
        {"path": "*/usage/events.jsonl", "class": "metrics"},
        {"path": "audit/**", "class": "log"},
        {"path": "*/runs/**", "class": "runtime-text"},
    ],
}
P = "/neuralis/dataLayout"


def test_good_layout_passes_for_trusted_and_first_party(check_block):
    assert check_block({"dataLayout": GOOD}, "first-party") == []
    assert check_block({"dataLayout": GOOD}, "trusted") == []


def test_empty_declarations_pass(check_block):
    assert check_block({"dataLayout": {}}, "untrusted") == []
    assert check_block({"dataLayout": {"directories": [], "agentDirectories": []}}, "untrusted") == []


def test_unknown_key_is_an_error(check_block):
    assert check_block({"dataLayout": {"directories": ["a"], "descriptions": {}}}) == [
        ("error", "NB1301", P + "/descriptions")
    ]
    assert check_block({"dataLayout": {"machineWritten": [{"path": "a", "class": "log", "note": ""}]}}) == [
        ("error", "NB1301", P + "/machineWritten/0/note")
    ]
    assert check_block({"dataLayout": ["cache"]}) == [("error", "NB0100", P)]


@pytest.mark.parametrize(
    "name",
    [
        "..",
        ".",
        "a..b",
        "cache/sub",
        "cache\\sub",
        "<self>",
        "data-<self>",
        "{cache}",
        "cache,state",
        "my cache",
        "tab\there",
        "",
        "caché",
        "a:b",
        "x" * 65,
    ],
)
@pytest.mark.parametrize("key", ["directories", "agentDirectories"])
def test_bad_names_are_errors(check_block, key, name):
    assert check_block({"dataLayout": {key: ["ok", name]}}, "untrusted") == [("error", "NB1302", f"{P}/{key}/1")]


def test_name_length_boundary(check_block):
    assert check_block({"dataLayout": {"directories": ["x" * 64]}}) == []


def test_names_must_be_strings(check_block):
    assert check_block({"dataLayout": {"directories": [["cache"]]}}) == [("error", "NB0100", P + "/directories/0")]


def test_duplicates_within_a_list(check_block):
    assert check_block({"dataLayout": {"directories": ["cache", "state", "cache"]}}) == [
        ("error", "NB1303", P + "/directories/2")
    ]
    assert check_block({"dataLayout": {"agentDirectories": ["m", "m"]}}) == [
        ("error", "NB1303", P + "/agentDirectories/1")
    ]


@pytest.mark.parametrize(
    "path", ["/audit/**", "", "audit//x", "audit/", "../x", "a/../b", "a b", "a?b", "{a,b}/*", "<self>/x", "ü"]
)
def test_machine_written_path(check_block, path):
    block = {"dataLayout": {"machineWritten": [{"path": path, "class": "log"}]}}
    assert check_block(block) == [("error", "NB1304", P + "/machineWritten/0/path")]


def test_machine_written_path_with_a_dot_segment_is_accepted(check_block):
    # the spec refuses a leading /, an empty or .. segment and other characters: "." stays in the zone
    block = {"dataLayout": {"machineWritten": [{"path": "audit/./x.log", "class": "log"}]}}
    assert check_block(block) == []


def test_machine_written_class(check_block):
    block = {"dataLayout": {"machineWritten": [{"path": "a", "class": "logs"}]}}
    assert check_block(block) == [("error", "NB1305", P + "/machineWritten/0/class")]
    block = {"dataLayout": {"machineWritten": [{"path": "a"}]}}
    assert check_block(block) == [("error", "NB0102", P + "/machineWritten/0")]


def test_machine_written_duplicate(check_block):
    block = {"dataLayout": {"machineWritten": [{"path": "a/*", "class": "log"}, {"path": "a/*", "class": "metrics"}]}}
    assert check_block(block) == [("error", "NB1306", P + "/machineWritten/1/path")]


def test_machine_written_is_dropped_for_untrusted(tmp_path):
    (tmp_path / "package.json").write_text(
        json.dumps({"name": "p", "version": "1.0.0", "neuralis": {"dataLayout": GOOD}})
    )
    result = check_path(tmp_path, "untrusted")
    assert [(d.severity, d.code, d.pointer) for d in result.diagnostics] == [
        ("warning", "NB1307", P + "/machineWritten")
    ]
    assert result.block.raw == {
        "dataLayout": {"directories": GOOD["directories"], "agentDirectories": ["memory", "cache"]}
    }


def test_schema_agrees_with_the_validator():
    validator = Draft202012Validator(neuralis_block_schema())
    assert validator.is_valid({"dataLayout": GOOD})
    assert not validator.is_valid({"dataLayout": {"directories": ["a/b"]}})
    assert not validator.is_valid({"dataLayout": {"machineWritten": [{"path": "/x", "class": "log"}]}})
    assert not validator.is_valid({"dataLayout": {"extra": []}})
