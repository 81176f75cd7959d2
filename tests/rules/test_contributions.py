"""Inline contributions and the directory contract: shapes, overrides, team templates, symlinks, tool names."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from neuralis_build.check import check_path
from neuralis_build.hostprofile import HostProfile
from neuralis_build.manifest.names import is_generic_tool_name
from neuralis_build.manifest.schema import neuralis_block_schema
from neuralis_build.manifest.sections.contributions import tool_names, tool_sources
from neuralis_build.model.block import read_block
from neuralis_build.package import load_package

Found = list[tuple[str, str, str, str]]


def write(root: Path, block: Any, files: dict[str, str] | None = None) -> Path:
    """A package at ``root``: package.json with this neuralis block, plus text files."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "package.json").write_text(json.dumps({"name": "acme-pkg", "version": "1.0.0", "neuralis": block}))
    for name, text in (files or {}).items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def found(root: Path, trust: str = "first-party", host: HostProfile | None = None) -> Found:
    """(severity, code, file, pointer) of every diagnostic."""
    return [(d.severity, d.code, d.file, d.pointer) for d in check_path(root, trust, host).diagnostics]


@pytest.fixture
def pkg(tmp_path: Path) -> Path:
    return tmp_path / "pkg"


INLINE = {
    "tools": [{"name": "acme_release_status", "description": "Release status", "inputSchema": {"type": "object"}}],
    "workflows": [{"name": "weekly-report", "steps": []}],
    "skills": [{"name": "triage", "body": "..."}],
    "commands": [{"name": "deploy.now"}],
    "hooks": [{"event": "session.start", "run": "noop"}],
    "team": [{"id": "reviewer", "name": "Reviewer", "template": "prompts/reviewer.md"}],
}
FILES = {
    "prompts/reviewer.md": "# Reviewer\n",
    "tools/acme_deploy.ts": "export default {}\n",
    "tools/acme_lookup.json": '{"description": "Look things up", "inputSchema": {"type": "object"}}\n',
    "workflows/nightly.md": "# Nightly\n",
    "skills/summarise/SKILL.md": "---\nname: summarise\n---\n",
    "commands/ship.md": "# Ship\n",
    "hooks/session.end.ts": "export default () => {}\n",
    "team/writer.md": "# Writer\n",
    "routes/status.ts": "export default {}\n",
}


@pytest.mark.parametrize("trust", ["first-party", "trusted", "untrusted"])
def test_good_inline_and_file_entries_pass(pkg, trust):
    assert found(write(pkg, INLINE, FILES), trust) == []


def test_inline_routes_are_an_error(pkg):
    for value in ([{"path": "/x"}], [], {}):
        assert found(write(pkg, {"routes": value})) == [("error", "NB1401", "package.json", "/neuralis/routes")]


def test_inline_tool_shape(pkg):
    assert found(write(pkg, {"tools": [{"name": "acme_x"}]})) == [
        ("error", "NB0102", "package.json", "/neuralis/tools/0")
    ]
    assert found(write(pkg, {"tools": [{"name": "acme_x", "description": ""}]})) == [
        ("error", "NB0105", "package.json", "/neuralis/tools/0/description")
    ]
    assert found(write(pkg, {"tools": {"acme_x": {}}})) == [("error", "NB0100", "package.json", "/neuralis/tools")]


@pytest.mark.parametrize("name", ["acme.status", "acme status", "acme/status", "", "a" * 65, "ünicode_tool"])
def test_inline_tool_name_charset(pkg, name):
    block = {"tools": [{"name": name, "description": "d"}]}
    assert found(write(pkg, block)) == [("error", "NB1402", "package.json", "/neuralis/tools/0/name")]


def test_tool_name_length_boundary(pkg):
    assert found(write(pkg, {"tools": [{"name": "a_" + "b" * 62, "description": "d"}]})) == []


def test_inline_duplicates(pkg):
    block = {"tools": [{"name": "acme_a", "description": "1"}, {"name": "acme_a", "description": "2"}]}
    assert found(write(pkg, block)) == [("error", "NB1405", "package.json", "/neuralis/tools/1/name")]
    block = {"hooks": [{"event": "session.start"}, {"event": "session.start"}]}
    assert found(write(pkg, block)) == [("error", "NB1405", "package.json", "/neuralis/hooks/1/event")]
    block = {"team": [INLINE["team"][0], INLINE["team"][0]]}
    assert found(write(pkg, block, FILES)) == [("error", "NB1405", "package.json", "/neuralis/team/1/id")]


@pytest.mark.parametrize(
    ("key", "field"), [("workflows", "name"), ("skills", "name"), ("commands", "name"), ("hooks", "event")]
)
def test_inline_entry_names(pkg, key, field):
    assert found(write(pkg, {key: [{field: "bad/name"}]})) == [
        ("error", "NB1414", "package.json", f"/neuralis/{key}/0/{field}")
    ]
    assert found(write(pkg, {key: [{field: ".hidden"}]})) == [
        ("error", "NB1414", "package.json", f"/neuralis/{key}/0/{field}")
    ]
    assert found(write(pkg, {key: [{}]})) == [("error", "NB0102", "package.json", f"/neuralis/{key}/0")]


@pytest.mark.parametrize(
    ("key", "entry", "file"),
    [
        ("tools", {"name": "acme_deploy", "description": "inline"}, "tools/acme_deploy.ts"),
        ("tools", {"name": "acme_lookup", "description": "inline"}, "tools/acme_lookup.json"),
        ("workflows", {"name": "nightly"}, "workflows/nightly.md"),
        ("skills", {"name": "summarise"}, "skills/summarise/SKILL.md"),
        ("commands", {"name": "ship"}, "commands/ship.md"),
        ("hooks", {"event": "session.end"}, "hooks/session.end.ts"),
        ("team", {"id": "writer", "name": "W", "template": "prompts/reviewer.md"}, "team/writer.md"),
    ],
)
def test_file_overrides_inline_entry(pkg, key, entry, file):
    keep = INLINE[key][0]
    write(pkg, {key: [keep, entry]}, FILES)
    result = check_path(pkg, "first-party")
    assert [(d.severity, d.code, d.file, d.pointer) for d in result.diagnostics] == [
        ("note", "NB1406", "package.json", f"/neuralis/{key}/1")
    ]
    assert file in result.diagnostics[0].message
    assert result.ok
    assert result.block.raw == {key: [keep]}


def test_inline_team_entry_naming_its_own_file_is_not_overridden(pkg):
    block = {"team": [{"id": "writer", "name": "Writer", "template": "./team/writer.md"}]}
    result = check_path(write(pkg, block, FILES), "first-party")
    assert result.diagnostics == []
    assert result.block.raw == block


@pytest.mark.parametrize(
    "template", ["/etc/passwd.md", "../outside.md", "team/../../x.md", "C:/x.md", "team\\x.md", "", "~/x.md", "a//x.md"]
)
def test_team_template_path_lexical(pkg, template):
    block = {"team": [{"id": "r", "name": "R", "template": template}]}
    assert found(write(pkg, block)) == [("error", "NB1407", "package.json", "/neuralis/team/0/template")]


def test_team_template_must_be_markdown_and_exist(pkg):
    block = {"team": [{"id": "r", "name": "R", "template": "prompts/reviewer.txt"}]}
    assert found(write(pkg, block, {"prompts/reviewer.txt": ""})) == [
        ("error", "NB1410", "package.json", "/neuralis/team/0/template")
    ]
    block = {"team": [{"id": "r", "name": "R", "template": "prompts/missing.md"}]}
    assert found(write(pkg, block)) == [("error", "NB1409", "package.json", "/neuralis/team/0/template")]
    block = {"team": [{"id": "r", "name": "R", "template": "prompts"}]}
    write(pkg, block, {"prompts/a.md": ""})
    assert found(pkg) == [("error", "NB1410", "package.json", "/neuralis/team/0/template")]


def test_team_template_symlinks(tmp_path, pkg):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "evil.md").write_text("# evil\n")
    write(pkg, {}, {"prompts/real.md": "# real\n"})
    os.symlink(outside / "evil.md", pkg / "prompts" / "file-out.md")
    os.symlink(outside, pkg / "dir-out")
    os.symlink(pkg / "prompts" / "real.md", pkg / "prompts" / "alias.md")
    os.symlink(tmp_path / "nowhere.md", pkg / "prompts" / "dangling.md")

    def check(template: str) -> Found:
        write(pkg, {"team": [{"id": "r", "name": "R", "template": template}]})
        return found(pkg)

    at = "/neuralis/team/0/template"
    assert check("prompts/file-out.md") == [("error", "NB1408", "package.json", at)]
    assert check("dir-out/evil.md") == [("error", "NB1408", "package.json", at)]
    assert check("prompts/alias.md") == []
    assert check("prompts/dangling.md") == [("error", "NB1408", "package.json", at)]


def test_team_shape_is_exact(pkg):
    block = {"team": [{"id": "r", "name": "R", "template": "prompts/reviewer.md", "model": "x"}]}
    assert found(write(pkg, block, FILES)) == [("error", "NB1418", "package.json", "/neuralis/team/0/model")]
    block = {"team": [{"id": "r", "template": "prompts/reviewer.md"}]}
    assert found(write(pkg, block, FILES)) == [("error", "NB0102", "package.json", "/neuralis/team/0")]


def test_contract_files_that_lead_out_are_errors(tmp_path, pkg):
    outside = tmp_path / "outside"
    (outside / "skill").mkdir(parents=True)
    (outside / "tool.ts").write_text("export default {}\n")
    (outside / "skill" / "SKILL.md").write_text("---\n---\n")
    (outside / "SKILL.md").write_text("---\n---\n")
    (outside / "routes").mkdir()
    (outside / "routes" / "a.ts").write_text("export default {}\n")
    write(pkg, {}, {"tools/acme_inside.ts": "export default {}\n", "skills/linked/.keep": ""})
    os.symlink(outside / "tool.ts", pkg / "tools" / "acme_out.ts")
    os.symlink(pkg / "tools" / "acme_inside.ts", pkg / "tools" / "acme_alias.ts")
    os.symlink(outside / "skill", pkg / "skills" / "out")
    os.symlink(outside / "SKILL.md", pkg / "skills" / "linked" / "SKILL.md")
    os.symlink(outside / "routes", pkg / "routes")
    assert found(pkg) == [
        ("error", "NB1411", "routes/a.ts", ""),
        ("error", "NB1411", "skills/linked/SKILL.md", ""),
        ("error", "NB1411", "skills/out/SKILL.md", ""),
        ("error", "NB1411", "tools/acme_out.ts", ""),
    ]


def test_two_files_for_one_entry(pkg):
    files = {
        "tools/acme_x.ts": "",
        "tools/acme_x.json": '{"description": "d"}',
        "workflows/w.json": "{}",
        "workflows/w.md": "",
    }
    assert found(write(pkg, {}, files)) == [
        ("error", "NB1412", "tools/acme_x.ts", ""),
        ("error", "NB1412", "workflows/w.md", ""),
    ]


def test_strays_are_warnings(pkg):
    files = {
        "tools/README.md": "",
        "tools/acme_x.d.ts": "",
        "tools/.eslintrc.json": "",
        "commands/ship.txt": "",
        "skills/notes.md": "",
        "skills/empty/readme.md": "",
        "team/bob.txt": "",
    }
    assert found(write(pkg, {}, files)) == [
        ("warning", "NB1413", "commands/ship.txt", ""),
        ("warning", "NB1413", "skills/empty", ""),
        ("warning", "NB1413", "skills/notes.md", ""),
        ("warning", "NB1413", "team/bob.txt", ""),
        ("warning", "NB1413", "tools/README.md", ""),
    ]


def test_file_stem_charset(pkg):
    files = {"tools/acme status.ts": "", "tools/acme.status.ts": "", "workflows/my flow.md": "", "team/-x.md": ""}
    assert found(write(pkg, {}, files)) == [
        ("error", "NB1414", "team/-x.md", ""),
        ("error", "NB1402", "tools/acme status.ts", ""),
        ("error", "NB1402", "tools/acme.status.ts", ""),
        ("error", "NB1414", "workflows/my flow.md", ""),
    ]


def test_tool_json_files(pkg):
    write(pkg, {}, {"tools/acme_a.json": '{"description": "x",\n  "name": }'})
    result = check_path(pkg, "first-party")
    assert [(d.code, d.file, d.pointer, d.line, d.column) for d in result.diagnostics] == [
        ("NB1415", "tools/acme_a.json", "", 2, 11)
    ]
    assert found(write(pkg, {}, {"tools/acme_a.json": "[]"})) == [("error", "NB1415", "tools/acme_a.json", "")]
    assert found(write(pkg, {}, {"tools/acme_a.json": '{"name": "acme_b", "description": "d"}'})) == [
        ("error", "NB1416", "tools/acme_a.json", "/name")
    ]
    assert found(write(pkg, {}, {"tools/acme_a.json": '{"name": "acme_a"}'})) == [
        ("error", "NB1417", "tools/acme_a.json", "")
    ]
    assert found(write(pkg, {}, {"tools/acme_a.json": '{"description": 3}'})) == [
        ("error", "NB1417", "tools/acme_a.json", "/description")
    ]
    (pkg / "tools" / "acme_a.json").write_bytes(b'{"description": "\xff"}')
    assert found(pkg) == [("error", "NB1415", "tools/acme_a.json", "")]


def test_platform_tool_names_warn(pkg):
    host = HostProfile("1", 19, (), platform_tools=("read_file", "web_search"))
    write(pkg, {"tools": [{"name": "read_file", "description": "d"}]}, {"tools/web_search.ts": ""})
    assert found(pkg, host=host) == [
        ("warning", "NB1403", "package.json", "/neuralis/tools/0/name"),
        ("warning", "NB1403", "tools/web_search.ts", ""),
    ]
    assert found(pkg, "untrusted", host) == found(pkg, "first-party", host)


def test_generic_tool_names_warn(pkg):
    block = {
        "tools": [{"name": n, "description": "d"} for n in ("status", "Search", "_status", "releaseStatus", "acme-x")]
    }
    write(pkg, block, {"tools/lookup.ts": "", "tools/s3.ts": "", "tools/getS3.ts": ""})
    assert found(pkg) == [
        ("warning", "NB1404", "package.json", "/neuralis/tools/0/name"),
        ("warning", "NB1404", "package.json", "/neuralis/tools/1/name"),
        ("warning", "NB1404", "package.json", "/neuralis/tools/2/name"),
        ("warning", "NB1404", "tools/lookup.ts", ""),
        ("warning", "NB1404", "tools/s3.ts", ""),
    ]


@pytest.mark.parametrize(
    ("name", "generic"),
    [("status", True), ("STATUS", True), ("s3", True), ("_x_", True), ("acme_status", False), ("acmeStatus", False)],
)
def test_generic_heuristic(name, generic):
    assert is_generic_tool_name(name) is generic


def test_overridden_inline_tool_is_judged_through_its_file(pkg):
    write(pkg, {"tools": [{"name": "status", "description": "d"}]}, {"tools/status.ts": ""})
    assert found(pkg) == [
        ("note", "NB1406", "package.json", "/neuralis/tools/0"),
        ("warning", "NB1404", "tools/status.ts", ""),
    ]


def test_tool_names_helper(pkg):
    block = {"tools": [{"name": "acme_b", "description": "d"}, {"name": "acme_a", "description": "d"}]}
    write(pkg, block, {"tools/acme_a.ts": "", "tools/acme_c.json": '{"description": "d"}'})
    package = load_package(pkg)
    assert tool_names(package) == ["acme_a", "acme_b", "acme_c"]
    assert tool_sources(package) == {
        "acme_a": "tools/acme_a.ts",
        "acme_b": "package.json",
        "acme_c": "tools/acme_c.json",
    }
    loaded = check_path(pkg, "first-party").block
    assert tool_sources(package, loaded) == tool_sources(package)
    assert tool_names(package, read_block({})) == ["acme_a", "acme_c"]


def test_schema_agrees_with_the_validator():
    validator = Draft202012Validator(neuralis_block_schema())
    assert validator.is_valid(INLINE)
    assert not validator.is_valid({"routes": []})
    assert not validator.is_valid({"tools": [{"name": "a.b", "description": "d"}]})
    assert not validator.is_valid({"team": [{"id": "r", "name": "R"}]})
