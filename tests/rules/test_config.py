"""configSettings[]: exact shape, key charset, types and defaults, bounds, envFallback, trust, secrets."""

from __future__ import annotations

import json

import pytest
from jsonschema import Draft202012Validator

from neuralis_build.check import check_path
from neuralis_build.hostprofile import HostProfile
from neuralis_build.manifest.schema import neuralis_block_schema
from neuralis_build.manifest.sections.config import config_keys
from neuralis_build.model.block import read_block

STEPS = {
    "key": "acmeMaxSteps",
    "label": "Max Agent Steps",
    "description": "Maximum steps per agent stream run",
    "type": "number",
    "default": 300,
    "min": 1,
    "max": 10000,
    "envFallback": "ACME_MAX_STEPS",
    "category": "runtime",
}
DEBUG = {"key": "searchDebug", "label": "Search Debug", "type": "boolean", "default": False, "category": "debug"}
LAYOUT = {"key": "acmeLayout", "label": "Layout", "type": "json", "default": {"columns": 2}, "category": "ui"}
TITLE = {"key": "acmeTitle", "label": "Title", "type": "string", "default": "", "editable": False, "category": "ui"}
P = "/neuralis/configSettings/0"


def setting(base=STEPS, **changes):
    return {"configSettings": [{k: v for k, v in {**base, **changes}.items() if v is not None}]}


def test_good_settings_pass_for_first_party(check_block):
    assert check_block({"configSettings": [STEPS, DEBUG, LAYOUT, TITLE]}) == []


@pytest.mark.parametrize("trust", ["trusted", "untrusted"])
def test_honored_for_first_party_only(tmp_path, trust):
    (tmp_path / "package.json").write_text(
        json.dumps({"name": "p", "version": "1.0.0", "neuralis": {"id": "p", "configSettings": [STEPS]}})
    )
    result = check_path(tmp_path, trust)
    assert [(d.severity, d.code, d.pointer) for d in result.diagnostics] == [
        ("warning", "NB1110", "/neuralis/configSettings")
    ]
    assert result.block.raw == {"id": "p"}
    assert config_keys(result.block) == []
    assert [k.value for k in config_keys(check_path(tmp_path, "first-party").block)] == ["acmeMaxSteps"]


def test_lower_tiers_do_not_validate_a_dropped_field(check_block):
    assert check_block(setting(key="Bad Key"), "trusted") == [("warning", "NB1110", "/neuralis/configSettings")]


def test_shape_is_exact(check_block):
    assert check_block(setting(unit="steps")) == [("error", "NB1101", P + "/unit")]
    for key in ("key", "label", "type", "default", "category"):
        assert check_block(setting(**{key: None})) == [("error", "NB0102", P)], key
    assert check_block(setting(editable="no")) == [("error", "NB0100", P + "/editable")]


@pytest.mark.parametrize("key", ["MaxSteps", "max_steps", "max-steps", "1steps", "", "a" + "b" * 64])
def test_key_charset(check_block, key):
    assert check_block(setting(key=key)) == [("error", "NB1102", P + "/key")]


def test_key_length_boundary(check_block):
    assert check_block(setting(key="a" + "b" * 63)) == []


def test_type_vocabulary(check_block):
    assert check_block(setting(DEBUG, type="bool")) == [("error", "NB1103", P + "/type")]
    assert check_block(setting(DEBUG, type="integer")) == [("error", "NB1103", P + "/type")]


@pytest.mark.parametrize(
    ("base", "default"),
    [(STEPS, "300"), (STEPS, True), (STEPS, None), (DEBUG, 0), (DEBUG, "false"), (TITLE, 5), (TITLE, None)],
)
def test_default_must_match_type(check_block, base, default):
    entry = {**base, "default": default}
    assert check_block({"configSettings": [entry]}) == [("error", "NB1104", P + "/default")]


@pytest.mark.parametrize("default", [None, [1, 2], "text", 3, True])
def test_json_default_is_any_value(check_block, default):
    assert check_block({"configSettings": [{**LAYOUT, "default": default}]}) == []


def test_bounds_only_on_numbers(check_block):
    assert check_block(setting(TITLE, min=1, max=2)) == [
        ("error", "NB1105", P + "/min"),
        ("error", "NB1105", P + "/max"),
    ]
    assert check_block(setting(min="1")) == [("error", "NB0100", P + "/min")]


def test_bounds_order_and_default_within(check_block):
    assert check_block(setting(min=10, max=1)) == [("error", "NB1106", P + "/min")]
    assert check_block(setting(min=5, max=5, default=5)) == []
    assert check_block(setting(default=0)) == [("error", "NB1107", P + "/default")]
    assert check_block(setting(default=10001)) == [("error", "NB1107", P + "/default")]
    assert check_block(setting(min=None, default=-4)) == []
    assert check_block(setting(max=None, default=1e9)) == []


def test_json_ignores_env_fallback(tmp_path):
    (tmp_path / "package.json").write_text(
        json.dumps({"name": "p", "version": "1.0.0", "neuralis": {"configSettings": [{**LAYOUT, "envFallback": "L"}]}})
    )
    result = check_path(tmp_path, "first-party")
    assert [(d.severity, d.code, d.pointer) for d in result.diagnostics] == [("warning", "NB1108", P + "/envFallback")]
    assert result.block.raw == {"configSettings": [LAYOUT]}


@pytest.mark.parametrize("env", ["max-steps", "1STEPS", "MAX STEPS", ""])
def test_env_fallback_is_an_env_name(check_block, env):
    assert check_block(setting(envFallback=env)) == [("error", "NB1113", P + "/envFallback")]


def test_duplicate_keys(check_block):
    block = {"configSettings": [STEPS, DEBUG, {**DEBUG, "label": "Again"}]}
    assert check_block(block) == [("error", "NB1109", "/neuralis/configSettings/2/key")]


@pytest.mark.parametrize("key", ["acmeApiKey", "dbPassword", "githubToken", "clientSecret"])
def test_secret_looking_keys_warn(check_block, key):
    assert check_block(setting(DEBUG, key=key)) == [("warning", "NB1111", P + "/key")]


@pytest.mark.parametrize("key", ["maxTokens", "tokenBudget", "keyPrefix", "passThrough"])
def test_ordinary_keys_do_not_warn(check_block, key):
    assert check_block(setting(DEBUG, key=key)) == []


@pytest.mark.parametrize("env", ["ACME_API_KEY", "GITHUB_TOKEN", "DB_PASSWORD"])
def test_secret_looking_env_fallback_warns(check_block, env):
    assert check_block(setting(envFallback=env)) == [("warning", "NB1112", P + "/envFallback")]


def test_platform_config_key_warns(tmp_path):
    host = HostProfile("1", 19, (), platform_config_keys=("maxAgentSteps",))
    (tmp_path / "package.json").write_text(
        json.dumps(
            {"name": "p", "version": "1.0.0", "neuralis": {"configSettings": [{**STEPS, "key": "maxAgentSteps"}]}}
        )
    )
    result = check_path(tmp_path, "first-party", host)
    assert [(d.severity, d.code, d.pointer) for d in result.diagnostics] == [("warning", "NB1114", P + "/key")]
    assert result.ok


def test_default_host_profile_lists_platform_keys(check_block):
    assert check_block(setting(key="maxAgentSteps")) == [("warning", "NB1114", P + "/key")]


def test_config_keys_helper():
    block = read_block({"configSettings": [STEPS, DEBUG, "junk", {"label": "no key"}, STEPS]})
    assert [(k.value, k.at.pointer) for k in config_keys(block)] == [
        ("acmeMaxSteps", "/neuralis/configSettings/0/key"),
        ("searchDebug", "/neuralis/configSettings/1/key"),
    ]
    assert config_keys(None) == []
    assert config_keys(read_block({})) == []


def test_schema_agrees_with_the_validator():
    validator = Draft202012Validator(neuralis_block_schema())
    assert validator.is_valid({"configSettings": [STEPS, DEBUG, LAYOUT, TITLE]})
    assert not validator.is_valid(setting(key="Max"))
    assert not validator.is_valid(setting(type="integer"))
    assert not validator.is_valid(setting(unit="x"))
