"""A key twice in package.json is an error at its line; no hint tells the author to add a key that is there."""

from __future__ import annotations

import json
import subprocess
import sys
import tarfile
from pathlib import Path

from neuralis_build.check import check_path
from neuralis_build.npm.exports import exports_diagnostics
from neuralis_build.pack.fields import identity_diagnostics
from neuralis_build.package import parse_manifest
from neuralis_build.ui.declaration import check_declaration
from tests.conftest import build_file_tree, manifest

DUPLICATED = """{
  "name": "acme-dup",
  "version": "1.0.0",
  "neuralis": {
    "app": {"surfaces": []},
    "credentials": [{"id": "acme.key", "label": "Key", "label": "Acme key"}],
    "app": {"surfaces": [{"kind": "widgt"}]}
  },
  "version": "1.0.1"
}
"""


def test_each_repeated_key_is_an_error_at_the_repeat_and_names_the_first(tmp_path):
    build_file_tree(tmp_path, {"package.json": DUPLICATED})
    result = check_path(tmp_path, "first-party")
    dups = [(d.pointer, d.line, d.column, d.message, d.hint) for d in result.diagnostics if d.code == "NB0009"]
    assert dups == [
        (
            "/neuralis/credentials/0/label",
            6,
            56,
            '"label" appears twice in /neuralis/credentials/0 (line 6, columns 40 and 56); JSON.parse keeps only '
            "this last one",
            'remove one of the two "label" keys, keeping the value you mean (merge them if both hold parts)',
        ),
        (
            "/neuralis/app",
            7,
            5,
            '"app" appears twice in /neuralis (lines 5 and 7); JSON.parse keeps only this last one',
            'remove one of the two "app" keys, keeping the value you mean (merge them if both hold parts)',
        ),
        (
            "/version",
            9,
            3,
            '"version" appears twice at the top level (lines 3 and 9); JSON.parse keeps only this last one',
            'remove one of the two "version" keys, keeping the value you mean (merge them if both hold parts)',
        ),
    ]
    assert not result.ok
    # the rules judge the value node keeps (the last "app"), and locate it there: line 7, not line 5
    kind = next(d for d in result.diagnostics if d.code == "NB0501")
    assert (kind.pointer, kind.line) == ("/neuralis/app/surfaces/0/kind", 7)


def test_node_keeps_the_last_of_two_keys_as_check_says(tmp_path):
    build_file_tree(tmp_path, {"package.json": DUPLICATED})
    done = subprocess.run(
        ["node", "-p", "require('./package.json').version"], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "1.0.1"


def test_one_key_per_object_is_fine_even_when_names_repeat_across_objects(check_tree):
    tree = {"package.json": manifest({"credentials": [{"id": "a.b", "label": "A"}, {"id": "c.d", "label": "C"}]})}
    assert [d for d in check_tree(tree).diagnostics if d.code == "NB0009"] == []


def test_a_reference_only_package_is_not_judged(tmp_path):
    text = '{"name": "r", "version": "1.0.0", "version": "1.0.1", "neuralis": {"referenceOnly": true}}'
    build_file_tree(tmp_path, {"package.json": text})
    assert [d.code for d in check_path(tmp_path, "untrusted").diagnostics] == ["NB0121"]


def test_pack_refuses_a_duplicate_key_like_check(tmp_path, capsys):
    from neuralis_build.cli.build import main

    build_file_tree(tmp_path, {"package.json": DUPLICATED.replace('"label": "Key", ', "")})
    assert main(["pack", str(tmp_path), "--dry-run", "--json", "--trust", "first-party"]) == 1
    (element,) = json.loads(capsys.readouterr().out)
    assert [d["code"] for d in element["error"]["diagnostics"] if d["code"] == "NB0009"] == ["NB0009", "NB0009"]


def _package(tmp_path: Path, data: dict) -> object:
    return parse_manifest(json.dumps(data, indent=2).encode(), tmp_path)


def test_nb1908_adds_module_into_an_existing_app_object(tmp_path):
    surfaces = {"surfaces": [{"kind": "card", "id": "acme.c", "render": {"renderer": "react"}}]}
    cases = [
        ({}, 'add "app": {"module": {"entry": "dist/app/host.js"}} to the neuralis block (line 4 of package.json)'),
        (
            {"app": surfaces},
            'add "module": {"entry": "dist/app/host.js"} to the "app" object (line 5 of package.json)',
        ),
        (
            {"app": {"module": "dist/app/host.js"}},
            'replace "module" in "app" (line 6 of package.json) with {"entry": "dist/app/host.js"}',
        ),
        ({"app": []}, 'replace "app" (line 5 of package.json) with {"module": {"entry": "dist/app/host.js"}}'),
    ]
    for block, hint in cases:
        (d,) = check_declaration(_package(tmp_path, {"name": "acme", "version": "1.0.0", "neuralis": block}), False)
        assert (d.code, d.hint) == ("NB1908", hint)


def test_hints_say_set_when_the_key_is_there_and_add_when_it_is_not(check_tree, tmp_path):
    def hint_of(tree: dict, code: str) -> str:
        return next(d.hint for d in check_tree(tree).diagnostics if d.code == code)

    def connector(auth: dict, schema: dict | None = None) -> dict:
        mcp = {"type": "mcp", "kind": "acme-mcp", "transports": ["stdio"], "auth": auth}
        source = {
            "type": "source",
            "kind": "notes",
            "capabilities": ["read"],
            "connectorFactory": "factory.js",
            "configSchema": schema or {"type": "object", "additionalProperties": False},
        }
        return {"package.json": manifest({"connectors": [mcp, source]}), "factory.js": ""}

    field = {"key": "apiToken", "label": "Token"}
    assert hint_of(connector({"type": "bearer", "setupFields": [field]}), "NB0817").startswith('add "sensitive"')
    unmarked = {**field, "sensitive": False}
    assert hint_of(connector({"type": "bearer", "setupFields": [unmarked]}), "NB0817").startswith('set "sensitive"')
    open_schema = {"type": "object", "properties": {}, "additionalProperties": True}
    assert hint_of(connector({"type": "none"}, open_schema), "NB0807").startswith('set "additionalProperties"')
    assert hint_of(connector({"type": "none"}, {"type": "object"}), "NB0807").startswith('add "additionalProperties"')

    tool = {"package.json": manifest(), "tools/acme_report.json": {"description": ""}}
    assert hint_of(tool, "NB1417") == 'set "description": "<what the tool does>"'
    tool = {"package.json": manifest(), "tools/acme_report.json": {"title": "x"}}
    assert hint_of(tool, "NB1417") == 'add "description": "<what the tool does>"'

    assert [d.hint for d in identity_diagnostics({"name": "x", "version": 1})] == ['set "version": "1.0.0"']
    assert [d.hint for d in identity_diagnostics({"name": "x"})] == ['add "version": "1.0.0"']

    hidden = {"name": "x", "exports": {".": "./i.js", "./package.json": None}}
    (d,) = exports_diagnostics(hidden, ["package.json", "i.js"])
    assert d.hint.startswith('set "./package.json": "./package.json" in "exports"')
    (d,) = exports_diagnostics({"name": "x", "exports": {".": "./i.js", "./*": "./lib/*"}}, ["package.json"])
    assert d.hint.startswith('add "./package.json": "./package.json" to "exports"')


def test_the_image_build_says_set_for_an_empty_version(tmp_path):
    staged = tmp_path / "pkg/package"
    staged.mkdir(parents=True)
    (staged / "package.json").write_text('{"name": "acme-x", "version": "", "neuralis": {}}')
    with tarfile.open(tmp_path / "x.tgz", "w:gz") as tar:
        tar.add(staged, arcname="package")
    (tmp_path / "image.toml").write_text('[[packages]]\nsource = "x.tgz"\nclass = "installed"\n')
    cli = Path(sys.executable).parent / "neuralis-build"
    done = subprocess.run(
        [str(cli), "image", "image.toml", "--out", "out", "--format", "json", "--allow-refused"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    (d,) = json.loads(done.stdout)["packages"][0]["diagnostics"]
    assert (d["code"], d["pointer"], d["hint"]) == ("NB1809", "/version", 'set "version" to a version string')


def test_past_twenty_repeated_keys_the_rest_are_counted_in_one_more_error_where_they_begin(tmp_path):
    members = ", ".join(f'"k": {i}' for i in range(26))
    text = '{"name": "acme-dup", "version": "1.0.0", "neuralis": {}, "x": {' + members + "}}"
    build_file_tree(tmp_path, {"package.json": text})
    dups = [d for d in check_path(tmp_path, "first-party").diagnostics if d.code == "NB0009"]
    keys = [i + 1 for i in range(len(text)) if text.startswith('"k"', i)]
    assert [d.column for d in dups] == keys[1:22]  # the second to the 21st: 20 listed, then where the rest begin
    assert (dups[-1].pointer, dups[-1].line, dups[-1].message, dups[-1].hint) == (
        "/x/k",
        1,
        "5 more repeated keys, from this one on, are not listed",
        "remove the repeated keys listed above, then check again",
    )
