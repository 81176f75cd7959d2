"""JSON that crashed the toolchain: deep nesting, lone surrogates, huge numbers, NaN, in every file read as JSON."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from neuralis_build.check import check_path
from neuralis_build.util.limits import MAX_JSON_DEPTH
from neuralis_build.util.strictjson import JSONRefused, parse
from tests.hostile.conftest import cli, package_json, write_package

DEEP = 600


def nested_arrays(depth: int) -> str:
    return "[" * depth + "]" * depth


def located(diagnostics: list[dict]) -> list[tuple[str, str, bool]]:
    """(code, pointer, has a line and column) of each diagnostic of a JSON report."""
    return [(d["code"], d["pointer"], d["line"] is not None and d["column"] is not None) for d in diagnostics]


def deep_schema(depth: int) -> str:
    return '{"type": "object", "properties": {"a": ' * depth + "{}" + "}}" * depth


@pytest.mark.parametrize(
    ("where", "text", "pointer_prefix"),
    [
        (
            "outside the block",
            f'{{"name": "x", "version": "1.0.0", "neuralis": {{}}, "x": {nested_arrays(DEEP)}}}',
            "/x/0",
        ),
        (
            "an unknown key",
            f'{{"name": "x", "version": "1.0.0", "neuralis": {{"foo": {nested_arrays(DEEP)}}}}}',
            "/neuralis/foo/0",
        ),
        (
            "a dataSchema",
            '{"name": "x", "version": "1.0.0", "neuralis": {"events": [{"id": "a.b", "title": "t", "subject": "s", '
            f'"dataSchema": {deep_schema(DEEP)}}}]}}}}',
            "/neuralis/events/0/dataSchema/properties/a",
        ),
        (
            "a configSchema",
            '{"name": "x", "version": "1.0.0", "neuralis": {"connectors": [{"type": "source", "kind": "k", '
            '"capabilities": ["c"], "connectorFactory": "f.js", '
            f'"configSchema": {deep_schema(DEEP)}}}]}}}}',
            "/neuralis/connectors/0/configSchema/properties/a",
        ),
        (
            "a setting default",
            '{"name": "x", "version": "1.0.0", "neuralis": {"configSettings": [{"key": "k", "label": "l", '
            f'"type": "json", "category": "c", "default": {nested_arrays(DEEP)}}}]}}}}',
            "/neuralis/configSettings/0/default/0",
        ),
    ],
)
def test_deep_nesting_is_a_located_refusal_in_check_and_pack(pkg: Path, where: str, text: str, pointer_prefix: str):
    write_package(pkg, text)
    done = cli("check", pkg, "--trust", "first-party", "--format", "json")
    assert done.code == 1, done.err
    ((code, pointer, has_line),) = located(done.diagnostics())
    assert (code, has_line) == ("NB0006", True)
    assert pointer.startswith(pointer_prefix)
    assert pointer.count("/") == MAX_JSON_DEPTH  # the first value one level too deep
    packed = cli("pack", pkg, "--trust", "first-party", "--dry-run", "--json")
    assert packed.code == 1
    assert packed.codes() == ["NB0006"]


def test_nesting_deeper_than_python_can_parse_is_located_by_offset(pkg: Path):
    write_package(pkg, '{"name": "x",\n "deep": ' + nested_arrays(20_000) + "}")
    (d,) = check_path(pkg, "untrusted").diagnostics
    assert (d.code, d.line, d.column) == ("NB0006", 2, 10 + MAX_JSON_DEPTH - 1)  # the bracket of level 65


def test_nesting_up_to_the_limit_is_read_and_judged(pkg: Path):
    # root, neuralis, configSettings, the setting: four levels, so a default may nest 60 more
    setting = {"key": "k", "label": "l", "type": "json", "category": "c"}
    ok = json.loads(package_json({"configSettings": [setting]}))
    ok["neuralis"]["configSettings"][0]["default"] = json.loads(nested_arrays(MAX_JSON_DEPTH - 4))
    write_package(pkg, json.dumps(ok))
    assert check_path(pkg, "first-party").diagnostics == []
    ok["neuralis"]["configSettings"][0]["default"] = json.loads(nested_arrays(MAX_JSON_DEPTH - 3))
    write_package(pkg, json.dumps(ok))
    assert [d.code for d in check_path(pkg, "first-party").diagnostics] == ["NB0006"]


def test_a_schema_at_the_limit_is_judged_without_exhausting_the_stack(pkg: Path):
    # events/0/dataSchema sits 4 levels deep; each schema level adds 2 (the schema and its properties)
    event = {"id": "a.b", "title": "t", "subject": "s", "dataSchema": {}}
    text = package_json({"events": [event]}).replace('"dataSchema": {}', '"dataSchema": ' + deep_schema(29))
    write_package(pkg, text, {"src/events/s.ts": "export const subject = 's';\n"})
    assert "NB0006" not in [d.code for d in check_path(pkg, "first-party").diagnostics]


SURROGATES = {
    "name": ('{"name": "x\\ud800", "version": "1.0.0", "neuralis": {}}', "/name"),
    "id": ('{"name": "x", "version": "1.0.0", "neuralis": {"id": "x\\udfff"}}', "/neuralis/id"),
    "key": ('{"name": "x", "version": "1.0.0", "neuralis": {"a\\ud800": 1}}', "/neuralis/a\ud800"),
    "tool name": (
        '{"name": "x", "version": "1.0.0", "neuralis": {"tools": [{"name": "t\\ud83d", "description": "d"}]}}',
        "/neuralis/tools/0/name",
    ),
    "surface kind": (
        '{"name": "x", "version": "1.0.0", "neuralis": {"app": {"surfaces": [{"kind": "w\\ude00"}]}}}',
        "/neuralis/app/surfaces/0/kind",
    ),
}


@pytest.mark.parametrize("where", sorted(SURROGATES))
def test_a_lone_surrogate_is_refused_and_printed_in_every_format(pkg: Path, where: str):
    text, pointer = SURROGATES[where]
    write_package(pkg, text)
    as_json = cli("check", pkg, "--trust", "first-party", "--format", "json")
    assert as_json.code == 1, as_json.err
    assert located(as_json.diagnostics()) == [("NB0007", pointer, True)]
    as_text = cli("check", pkg, "--trust", "first-party")
    assert as_text.code == 1 and "error NB0007" in as_text.out and "internal error" not in as_text.err
    github = cli("check", pkg, "--trust", "first-party", "--format", "github")
    assert github.code == 1 and github.out.startswith("::error file=") and "title=NB0007" in github.out
    packed = cli("pack", pkg, "--trust", "first-party", "--dry-run")
    assert packed.code == 1 and "error NB0007" in packed.err


def test_a_surrogate_pair_is_one_character_and_accepted(pkg: Path):
    write_package(pkg, '{"name": "x", "version": "1.0.0", "description": "\\ud83d\\ude00", "neuralis": {}}')
    assert check_path(pkg, "untrusted").diagnostics == []


@pytest.mark.parametrize(
    ("literal", "code", "message"),
    [
        ("1" * 5000, "NB0008", "the number 111111111111… has 5,000 digits; it does not fit a JSON number (a double)"),
        ("-1e999", "NB0008", "the number -1e999 is beyond the largest JSON number (a double)"),
        ("NaN", "NB0002", "package.json is not valid JSON: NaN is not JSON (Node's JSON.parse rejects it)"),
        ("Infinity", "NB0002", "package.json is not valid JSON: Infinity is not JSON (Node's JSON.parse rejects it)"),
        ("-Infinity", "NB0002", "package.json is not valid JSON: -Infinity is not JSON (Node's JSON.parse rejects it)"),
    ],
)
def test_numbers_node_would_not_read_are_refused_where_they_sit(pkg: Path, literal: str, code: str, message: str):
    text = (
        '{"name": "x", "version": "1.0.0",\n "neuralis": {"configSettings": [{"key": "k", "label": "l", '
        f'"type": "number", "category": "c",\n  "default": {literal}}}]}}}}'
    )
    write_package(pkg, text)
    (d,) = check_path(pkg, "first-party").diagnostics
    assert (d.code, d.pointer, d.line, d.column, d.message) == (
        code,
        "/neuralis/configSettings/0/default",
        3,
        3,
        message,
    )
    assert cli("pack", pkg, "--trust", "first-party", "--dry-run").code == 1


def test_strict_parse_reports_every_problem_in_document_order():
    with pytest.raises(JSONRefused) as caught:
        parse('{"a": NaN, "b\\udc00": 1, "c": [1e400, "\\ud800"]}')
    assert [(p.kind, p.pointer) for p in caught.value.problems] == [
        ("syntax", "/a"),
        ("surrogate", "/b\udc00"),
        ("number", "/c/0"),
        ("surrogate", "/c/1"),
    ]


def test_a_deep_tools_json_is_a_located_refusal(pkg: Path):
    write_package(
        pkg, package_json(), {"tools/acme_deep.json": '{"description": "d", "x": ' + nested_arrays(DEEP) + "}"}
    )
    (d,) = check_path(pkg, "untrusted").diagnostics
    assert (d.code, d.file, d.line) == ("NB1415", "tools/acme_deep.json", 1)
    assert d.pointer.startswith("/x/0/0")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"platformTools": ' + nested_arrays(DEEP) + "}", "the host profile is refused: arrays and objects nest"),
        ('{"hostApiVersion": NaN}', "the host profile is not valid JSON: NaN is not JSON"),
        ('{"hostApiVersion": "1", "reactMajor": 1' + "0" * 5000 + "}", "the host profile is refused: the number"),
    ],
)
def test_a_hostile_host_profile_is_an_environment_error_naming_the_file(tmp_path: Path, content: str, message: str):
    host = tmp_path / "host.json"
    host.write_text(content)
    pkg = write_package(tmp_path / "pkg", package_json())
    done = cli("check", pkg, "--trust", "untrusted", "--host", host)
    assert done.code == 2
    assert done.err.startswith(f"error: {host}:1:") and message in done.err
    assert "internal error" not in done.err


def test_a_deeply_nested_spec_is_an_environment_error_naming_the_file(tmp_path: Path):
    spec = tmp_path / "image.toml"
    spec.write_text('[[mcp]]\nserver = "s"\ntools = ' + nested_arrays(DEEP) + "\n")
    done = cli("image", spec, "--out", tmp_path / "out")
    assert done.code == 2
    assert done.err.splitlines()[0] == f"error: {spec}: arrays or inline tables nest too deeply to read"
    assert not os.path.exists(tmp_path / "out" / "node_modules")
