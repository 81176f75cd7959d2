"""sources[]: exact shape, vocabularies, root forms, duplicates, and the trust gates (warning + drop)."""

from __future__ import annotations

import pytest
from jsonschema import Draft202012Validator

from neuralis_build.check import check_path
from neuralis_build.manifest.schema import neuralis_block_schema

DATA = {
    "source": "data",
    "kind": "local",
    "root": "data",
    "scope": "project",
    "description": "The project's shared working directory.",
    "seed": "discoverable",
}
P = "/neuralis/sources/0"


def src(**changes):
    return {"sources": [{k: v for k, v in {**DATA, **changes}.items() if v is not None}]}


@pytest.mark.parametrize("trust", ["first-party", "trusted", "untrusted"])
def test_project_relative_discoverable_source_passes_at_every_tier(check_block, trust):
    assert check_block(src(), trust) == []
    assert check_block(src(root="docs/specs"), trust) == []
    assert check_block(src(root="."), trust) == []


def test_shape_is_exact(check_block):
    assert check_block(src(label="Data")) == [("error", "NB0901", P + "/label")]
    for key in ("source", "kind", "root", "scope", "description", "seed"):
        assert check_block(src(**{key: None})) == [("error", "NB0102", P)], key
    assert check_block(src(description="")) == [("error", "NB0105", P + "/description")]


def test_slugs(check_block):
    assert check_block(src(source="Data Dir")) == [("error", "NB0902", P + "/source")]
    assert check_block(src(kind="local/fs")) == [("error", "NB0902", P + "/kind")]


def test_vocabularies(check_block):
    assert check_block(src(scope="team")) == [("error", "NB0903", P + "/scope")]
    assert check_block(src(seed="always")) == [("error", "NB0904", P + "/seed")]


@pytest.mark.parametrize(
    "root",
    [
        "",
        "/srv/data",
        "C:/data",
        "~/data",
        "../shared",
        "data/../../x",
        "data\\x",
        "data/",
        "a//b",
        "${home}/x",
        "${appRoot}x",
        "data/${appRoot}",
        "${appRoot}/",
        "${appRoot}/../etc",
    ],
)
def test_bad_roots(check_block, root):
    assert check_block(src(root=root)) == [("error", "NB0905", P + "/root")]


def test_duplicate_slugs(check_block):
    block = {"sources": [DATA, {**DATA, "root": "other"}]}
    assert check_block(block) == [("error", "NB0906", "/neuralis/sources/1/source")]


def test_seed_auto_needs_trusted(check_block):
    block = src(seed="auto")
    assert check_block(block, "first-party") == []
    assert check_block(block, "trusted") == []
    assert check_block(block, "untrusted") == [("warning", "NB0907", P + "/seed")]


@pytest.mark.parametrize("root", ["${appRoot}", "${appRoot}/docs"])
def test_app_root_needs_first_party(check_block, root):
    block = src(root=root)
    assert check_block(block, "first-party") == []
    assert check_block(block, "trusted") == [("warning", "NB0908", P + "/root")]
    assert check_block(block, "untrusted") == [("warning", "NB0908", P + "/root")]


def test_untrusted_is_project_scope_only(check_block):
    for scope in ("agent", "user", "global"):
        block = src(scope=scope)
        assert check_block(block, "trusted") == []
        assert check_block(block, "untrusted") == [("warning", "NB0909", P + "/scope")]


def test_every_gate_is_reported_and_the_entry_is_dropped_once(check_tree):
    block = {"sources": [{**DATA, "source": "keep"}, {**DATA, "seed": "auto", "root": "${appRoot}", "scope": "user"}]}
    result = check_tree({"package.json": {"name": "p", "version": "1.0.0", "neuralis": block}}, "untrusted")
    assert [(d.severity, d.code, d.pointer) for d in result.diagnostics] == [
        ("warning", "NB0908", "/neuralis/sources/1/root"),
        ("warning", "NB0909", "/neuralis/sources/1/scope"),
        ("warning", "NB0907", "/neuralis/sources/1/seed"),
    ]
    assert result.ok
    assert result.block.raw == {"sources": [{**DATA, "source": "keep"}]}


def test_gated_source_is_kept_for_higher_tiers(tmp_path):
    (tmp_path / "package.json").write_text(
        '{"name": "p", "version": "1.0.0", "neuralis": {"sources": [{"source": "app", "kind": "local", '
        '"root": "${appRoot}", "scope": "global", "description": "Platform files", "seed": "auto"}]}}'
    )
    assert check_path(tmp_path, "first-party").block.raw["sources"][0]["source"] == "app"
    assert check_path(tmp_path, "trusted").block.raw == {"sources": []}


def test_schema_agrees_with_the_validator():
    validator = Draft202012Validator(neuralis_block_schema())
    assert validator.is_valid({"sources": [DATA, {**DATA, "source": "app", "root": "${appRoot}/docs", "seed": "auto"}]})
    assert not validator.is_valid(src(scope="team"))
    assert not validator.is_valid(src(description=""))
    assert not validator.is_valid(src(root=None))
