"""uriPolicies: own-namespace patterns, the policy shape, path globs, and floors (trusted+ only)."""

from __future__ import annotations

import json

import pytest
from jsonschema import Draft202012Validator

from neuralis_build.check import check_path
from neuralis_build.manifest.schema import neuralis_block_schema
from neuralis_build.util.jsonpointer import join

DATA = "data://<self>/**"
K = join("/neuralis/uriPolicies", DATA)
BASE = {"default": {"read": True, "write": True, "exec": False}}
FLOOR = {"path": "secrets/**", "read": False, "write": False, "floor": True}


def policy(*rules, pattern=DATA, default=BASE["default"]):
    value = {"default": default}
    if rules:
        value["paths"] = list(rules)
    return {"uriPolicies": {pattern: value}}


@pytest.mark.parametrize("trust", ["first-party", "trusted", "untrusted"])
def test_good_policies_pass(check_block, trust):
    block = {
        "uriPolicies": {
            DATA: {
                **BASE,
                "paths": [
                    {"path": "reports/*", "write": False},
                    {"path": "common/**", "read": True, "override": True, "roles": ["admin"], "agents": ["a1"]},
                ],
            },
            "packages://<self>/assets/*.json": {"default": {"read": True, "write": False, "exec": False}},
        }
    }
    assert check_block(block, trust) == []


def test_floor_passes_for_trusted_and_first_party(check_block):
    for trust in ("first-party", "trusted"):
        assert check_block(policy(FLOOR), trust) == []


@pytest.mark.parametrize(
    "pattern",
    [
        "data://other-pkg/**",
        "data://**",
        "packages://@acme/x/**",
        "http://<self>/**",
        "file:///etc/**",
        "<self>/**",
        "DATA://<self>/**",
        "data://<self>",
    ],
)
def test_foreign_namespace_is_rejected(check_block, pattern):
    assert check_block(policy(pattern=pattern)) == [("error", "NB1201", join("/neuralis/uriPolicies", pattern))]


@pytest.mark.parametrize(
    "pattern",
    ["data://<self>/../other/**", "data://<self>//x", "data://<self>/a b", "data://<self>/{a,b}"],
)
def test_pattern_glob_must_stay_in_the_zone(check_block, pattern):
    assert check_block(policy(pattern=pattern)) == [("error", "NB1202", join("/neuralis/uriPolicies", pattern))]


@pytest.mark.parametrize("pattern", ["data://<self>/", "packages://<self>/", "data://<self>/./x/**"])
def test_the_zone_root_and_a_dot_segment_are_accepted(check_block, pattern):
    # the spec accepts the data://<self>/ and packages://<self>/ prefixes and refuses only ".." and empty segments
    assert check_block(policy(pattern=pattern)) == []


def test_policy_shape(check_block):
    assert check_block({"uriPolicies": {DATA: {"paths": []}}}) == [("error", "NB0102", K)]
    assert check_block({"uriPolicies": {DATA: {**BASE, "floor": True}}}) == [("error", "NB1203", K + "/floor")]
    assert check_block(policy(default={"read": True, "write": True})) == [("error", "NB0102", K + "/default")]
    assert check_block(policy(default={"read": True, "write": True, "exec": False, "list": True})) == [
        ("error", "NB1203", K + "/default/list")
    ]
    assert check_block(policy(default={"read": "yes", "write": True, "exec": False})) == [
        ("error", "NB0100", K + "/default/read")
    ]
    assert check_block({"uriPolicies": []}) == [("error", "NB0100", "/neuralis/uriPolicies")]


def test_rule_shape(check_block):
    assert check_block(policy({"path": "x", "deny": True})) == [("error", "NB1203", K + "/paths/0/deny")]
    assert check_block(policy({"read": False})) == [("error", "NB0102", K + "/paths/0")]
    assert check_block(policy({"path": "x", "roles": "admin"})) == [("error", "NB0100", K + "/paths/0/roles")]


@pytest.mark.parametrize("path", ["/abs/**", "../x", "a/../b", "a//b", "a/", "a b", "a?b", ""])
def test_rule_path_glob(check_block, path):
    assert check_block(policy({"path": path, "read": False})) == [("error", "NB1204", K + "/paths/0/path")]


@pytest.mark.parametrize("cap", ["read", "write", "exec"])
def test_floor_cannot_grant(check_block, cap):
    rule = {"path": "secrets/**", "read": False, cap: True, "floor": True}
    assert check_block(policy(rule)) == [("error", "NB1205", f"{K}/paths/0/{cap}")]


@pytest.mark.parametrize(
    ("key", "value"), [("override", True), ("override", False), ("roles", ["admin"]), ("agents", [])]
)
def test_floor_cannot_combine(check_block, key, value):
    rule = {**FLOOR, key: value}
    assert check_block(policy(rule)) == [("error", "NB1206", f"{K}/paths/0/{key}")]


def test_a_floor_that_denies_nothing_is_accepted_with_a_warning(check_block):
    # the spec refuses a floor only for a true capability or override/roles/agents
    assert check_block(policy({"path": "x", "floor": True})) == [("warning", "NB1208", K + "/paths/0/floor")]


def test_a_rule_path_with_a_dot_segment_is_accepted(check_block):
    assert check_block(policy({"path": "./a/./b/**", "read": False})) == []


def test_floor_false_is_an_ordinary_rule(check_block):
    assert check_block(policy({"path": "x", "read": True, "roles": ["a"], "floor": False})) == []


def test_untrusted_floor_is_dropped_and_not_judged(tmp_path):
    bad_floor = {"path": "x", "read": True, "roles": ["a"], "floor": True}
    (tmp_path / "package.json").write_text(
        json.dumps({"name": "p", "version": "1.0.0", "neuralis": policy(FLOOR, bad_floor)})
    )
    result = check_path(tmp_path, "untrusted")
    assert [(d.severity, d.code, d.pointer) for d in result.diagnostics] == [
        ("warning", "NB1207", K + "/paths/0/floor"),
        ("warning", "NB1207", K + "/paths/1/floor"),
    ]
    rules = result.block.raw["uriPolicies"][DATA]["paths"]
    assert rules == [{"path": "secrets/**", "read": False, "write": False}, {"path": "x", "read": True, "roles": ["a"]}]


def test_schema_agrees_with_the_validator():
    validator = Draft202012Validator(neuralis_block_schema())
    assert validator.is_valid(policy(FLOOR, pattern="packages://<self>/assets/*"))
    assert not validator.is_valid(policy(pattern="data://other/**"))
    assert not validator.is_valid(policy(default={"read": True}))
    assert not validator.is_valid(policy({"path": "x", "deny": True}))
