"""`neuralis-build check` end to end, in process: formats, exit codes, unreadable input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from neuralis_build.cli.build import main
from tests.conftest import build_file_tree, manifest


def write(tmp_path: Path, name: str, tree: dict) -> Path:
    root = tmp_path / name
    root.mkdir()
    return build_file_tree(root, tree)


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_good_package_exits_zero(tmp_path, capsys):
    pkg = write(tmp_path, "good", {"package.json": manifest({"name": "Good"})})
    code, out, _ = run(capsys, "check", str(pkg), "--trust", "untrusted", "--format", "json")
    assert code == 0
    assert json.loads(out) == [
        {
            "package": "acme-pkg",
            "id": "acme-pkg",
            "trust": "untrusted",
            "ok": True,
            "diagnostics": [],
        }
    ]


def test_several_paths_print_an_array(tmp_path, capsys):
    a = write(tmp_path, "a", {"package.json": manifest(name="a")})
    b = write(tmp_path, "b", {"package.json": manifest({"credentials": [{"id": "1x", "label": "L"}]}, name="b")})
    code, out, _ = run(capsys, "check", str(a), str(b), "--trust", "trusted", "--format", "json")
    assert code == 1
    data = json.loads(out)
    assert [d["package"] for d in data] == ["a", "b"]
    assert [d["ok"] for d in data] == [True, False]
    assert data[1]["diagnostics"][0]["pointer"] == "/neuralis/credentials/0/id"


def test_invalid_json_is_located_and_still_reported_as_json(tmp_path, capsys):
    pkg = write(tmp_path, "bad", {"package.json": '{\n  "name": "x",\n  "neuralis": {,}\n}\n'})
    code, out, _ = run(capsys, "check", str(pkg), "--trust", "untrusted", "--format", "json")
    assert code == 1
    (data,) = json.loads(out)
    assert data["package"] is None and data["ok"] is False
    (diag,) = data["diagnostics"]
    assert (diag["code"], diag["line"], diag["column"], diag["file"]) == ("NB0002", 3, 16, "package.json")
    assert "valid JSON" in diag["message"] and diag["hint"]


def test_missing_manifest_is_a_diagnostic(tmp_path, capsys):
    empty = write(tmp_path, "empty", {})
    code, out, _ = run(capsys, "check", str(empty), "--trust", "untrusted", "--format", "json")
    assert code == 1
    assert [d["code"] for d in json.loads(out)[0]["diagnostics"]] == ["NB0001"]


def test_missing_folder_is_a_usage_error(tmp_path, capsys):
    code, _, err = run(capsys, "check", str(tmp_path / "nope"), "--trust", "untrusted")
    assert code == 2
    assert "no such folder" in err and "Traceback" not in err


def test_trust_is_required(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("NEURALIS_TRUST", raising=False)
    code, _, err = run(capsys, "check", str(tmp_path))
    assert code == 2
    assert "--trust" in err


def test_trust_from_the_environment(tmp_path, capsys, monkeypatch):
    pkg = write(tmp_path, "p", {"package.json": manifest()})
    monkeypatch.setenv("NEURALIS_TRUST", "trusted")
    code, out, _ = run(capsys, "check", str(pkg), "-f", "json")
    assert code == 0 and json.loads(out)[0]["trust"] == "trusted"


def test_text_output_names_file_line_pointer_code_and_hint(tmp_path, capsys):
    pkg = write(tmp_path, "p", {"package.json": manifest({"credentials": [{"id": "a", "label": "A", "oauht": True}]})})
    code, out, _ = run(capsys, "check", str(pkg), "--trust", "first-party")
    assert code == 1
    assert "package.json:9:" in out
    assert "/neuralis/credentials/0/oauht" in out
    assert "error NB1001" in out
    assert 'did you mean "oauth"?' in out


def test_github_annotations(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "p", {"package.json": manifest({"credentials": [{"id": "git.x", "label": "A"}]})})
    code, out, _ = run(capsys, "check", "p", "--trust", "untrusted", "--format", "github")
    assert code == 1
    (line,) = out.strip().splitlines()
    assert line.startswith("::error file=p/package.json,line=")
    assert ",title=NB1004::" in line and "(at /neuralis/credentials/0/id)" in line


def test_not_neuralis_and_reference_only(tmp_path, capsys):
    plain = write(tmp_path, "plain", {"package.json": {"name": "plain", "version": "1.0.0"}})
    ref = write(tmp_path, "ref", {"package.json": manifest({"referenceOnly": True, "credentials": "junk"})})
    code, out, _ = run(capsys, "check", str(plain), str(ref), "--trust", "trusted", "-f", "json")
    assert code == 1
    plain_result, ref_result = json.loads(out)
    assert [d["code"] for d in plain_result["diagnostics"]] == ["NB0120"]
    assert [(d["severity"], d["code"]) for d in ref_result["diagnostics"]] == [("note", "NB0121")]
    assert ref_result["ok"] is True


def test_schema_is_valid_draft_2020_12(capsys):
    from jsonschema import Draft202012Validator

    code, out, _ = run(capsys, "schema")
    assert code == 0
    schema = json.loads(out)
    Draft202012Validator.check_schema(schema)
    assert schema["properties"]["neuralis"]["properties"]["credentials"]["type"] == "array"
