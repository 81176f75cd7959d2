"""connectors[]: source kinds (closed configSchema, capabilities, factory inside the package) and services."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from neuralis_build.check import check_path
from neuralis_build.manifest.schema import neuralis_block_schema
from neuralis_build.manifest.secretnames import secret_word

FACTORY = "dist/connectors/local.js"
FILES = {FACTORY: "export default function create() {}\n"}
CONFIG_SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "path": {"type": "string"},
        "maxTokens": {"type": "integer"},
        "options": {"type": "object", "additionalProperties": False, "properties": {"depth": {"type": "integer"}}},
    },
    "required": ["path"],
}
SOURCE = {
    "type": "source",
    "kind": "local",
    "configSchema": CONFIG_SCHEMA,
    "capabilities": ["read", "write", "list"],
    "connectorFactory": FACTORY,
}
MCP = {
    "type": "mcp",
    "kind": "github-mcp",
    "transports": ["stdio", "streamable-http"],
    "auth": {
        "type": "bearer",
        "setupFields": [
            {"key": "serverUrl", "label": "Server URL", "type": "url", "required": True},
            {"key": "accessToken", "label": "Token", "sensitive": True, "required": True},
        ],
    },
}
HTTP = {"type": "http", "kind": "weather", "transports": ["https"], "auth": {"type": "none"}}
OPENAPI = {"type": "openapi", "kind": "petstore", "transports": ["https", "http"], "auth": {"type": "api-key"}}
P = "/neuralis/connectors/0"


def write_manifest(root: Path, block: dict) -> None:
    (root / "package.json").write_text(json.dumps({"name": "acme-pkg", "version": "1.0.0", "neuralis": block}))


def source(**changes):
    entry = {**SOURCE, **changes}
    return {"connectors": [{k: v for k, v in entry.items() if v is not None}]}


@pytest.mark.parametrize("trust", ["first-party", "trusted", "untrusted"])
def test_good_connectors_pass_at_every_tier(check_block, trust):
    assert check_block({"connectors": [SOURCE, MCP, HTTP, OPENAPI]}, trust, files=FILES) == []


def test_shape_is_closed(check_block):
    assert check_block(source(label="Local"), files=FILES) == [("error", "NB0801", P + "/label")]
    assert check_block({"connectors": [{"kind": "local"}]}) == [("error", "NB0102", P)]


def test_type_and_kind(check_block):
    assert check_block(source(type="ftp"), files=FILES) == [("error", "NB0802", P + "/type")]
    assert check_block(source(kind="Local Files"), files=FILES) == [("error", "NB0803", P + "/kind")]


def test_duplicate_kind(check_block):
    block = {"connectors": [SOURCE, {**HTTP, "kind": "local"}]}
    assert check_block(block, files=FILES) == [("error", "NB0804", "/neuralis/connectors/1/kind")]


def test_source_needs_its_fields_and_refuses_service_fields(check_block):
    assert check_block(source(connectorFactory=None, capabilities=None)) == [
        ("error", "NB0806", P),
        ("error", "NB0806", P),
    ]
    assert check_block(source(transports=["https"], auth={"type": "none"}), files=FILES) == [
        ("error", "NB0805", P + "/transports"),
        ("error", "NB0805", P + "/auth"),
    ]


def test_service_needs_its_fields_and_refuses_source_fields(check_block):
    assert check_block({"connectors": [{"type": "mcp", "kind": "x"}]}) == [
        ("error", "NB0806", P),
        ("error", "NB0806", P),
    ]
    bad = {**HTTP, "configSchema": CONFIG_SCHEMA, "connectorFactory": FACTORY}
    assert check_block({"connectors": [bad]}, files=FILES) == [
        ("error", "NB0805", P + "/configSchema"),
        ("error", "NB0805", P + "/connectorFactory"),
    ]


def test_config_schema_must_be_an_object_schema(check_block):
    assert check_block(source(configSchema={"type": "string"}), files=FILES) == [
        ("error", "NB0807", P + "/configSchema")
    ]
    assert check_block(source(configSchema=["not", "a", "schema"]), files=FILES) == [
        ("error", "NB0100", P + "/configSchema")
    ]


def test_config_schema_must_be_closed_at_every_level(check_block):
    open_root = {**CONFIG_SCHEMA, "additionalProperties": True}
    assert check_block(source(configSchema=open_root), files=FILES) == [
        ("error", "NB0807", P + "/configSchema/additionalProperties")
    ]
    missing = {k: v for k, v in CONFIG_SCHEMA.items() if k != "additionalProperties"}
    assert check_block(source(configSchema=missing), files=FILES) == [("error", "NB0807", P + "/configSchema")]
    nested = {
        "type": "object",
        "additionalProperties": False,
        "properties": {"options": {"type": "object", "properties": {"depth": {"type": "integer"}}}},
    }
    assert check_block(source(configSchema=nested), files=FILES) == [
        ("error", "NB0807", P + "/configSchema/properties/options")
    ]


def test_config_schema_must_be_valid_json_schema(check_block):
    bad = {"type": "object", "additionalProperties": False, "properties": {"path": {"type": "text"}}}
    assert check_block(source(configSchema=bad), files=FILES) == [
        ("error", "NB0808", P + "/configSchema/properties/path/type")
    ]
    assert check_block(source(configSchema={"type": "object", "required": "path"}), files=FILES) == [
        ("error", "NB0808", P + "/configSchema/required")
    ]


@pytest.mark.parametrize(
    "prop", ["password", "apiKey", "API_KEY", "clientSecret", "accessToken", "token", "privateKey", "dbPasswd"]
)
def test_secret_looking_config_properties_are_errors(check_block, prop):
    schema = {"type": "object", "additionalProperties": False, "properties": {prop: {"type": "string"}}}
    assert check_block(source(configSchema=schema), files=FILES) == [
        ("error", "NB0809", f"{P}/configSchema/properties/{prop}")
    ]


def test_secret_properties_are_found_when_nested_or_by_format(check_block):
    schema = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "auth": {"type": "object", "additionalProperties": False, "properties": {"Secret": {"type": "string"}}},
            "login": {"type": "string", "format": "password"},
            "hidden": {"type": "string", "writeOnly": True},
        },
    }
    assert check_block(source(configSchema=schema), files=FILES) == [
        ("error", "NB0809", P + "/configSchema/properties/auth/properties/Secret"),
        ("error", "NB0809", P + "/configSchema/properties/login"),
        ("error", "NB0809", P + "/configSchema/properties/hidden"),
    ]


@pytest.mark.parametrize(
    ("name", "word"),
    [
        ("apiKey", "api key"),
        ("OPENAI_API_KEY", "api key"),
        ("githubToken", "token"),
        ("db-password", "password"),
        ("APIKEY", "apikey"),
        ("maxTokens", None),
        ("tokenLimit", None),
        ("keyPrefix", None),
        ("path", None),
        ("MAX_AGENT_STEPS", None),
    ],
)
def test_secret_word_heuristic(name, word):
    assert secret_word(name) == word


def test_capabilities(check_block):
    assert check_block(source(capabilities=["read", "read"]), files=FILES) == [
        ("error", "NB0810", P + "/capabilities/1")
    ]
    assert check_block(source(capabilities=["Read"]), files=FILES) == [("error", "NB0803", P + "/capabilities/0")]
    assert check_block(source(capabilities=[]), files=FILES) == [("error", "NB0106", P + "/capabilities")]


@pytest.mark.parametrize(
    "path",
    ["/abs/factory.js", "../outside.js", "dist/../../x.js", "dist\\f.js", "", "~/f.js", "dist//f.js", "a/./f.js"],
)
def test_factory_path_lexical(check_block, path):
    assert check_block(source(connectorFactory=path)) == [("error", "NB0811", P + "/connectorFactory")]


def test_factory_extension(check_block):
    assert check_block(source(connectorFactory="dist/factory.py"), files={"dist/factory.py": ""}) == [
        ("error", "NB0812", P + "/connectorFactory")
    ]
    for suffix in (".mjs", ".cjs", ".ts"):
        path = "src/factory" + suffix
        assert check_block(source(connectorFactory=path), files={path: ""}) == []
    assert check_block(source(connectorFactory="./" + FACTORY), files=FILES) == []


def test_missing_factory_is_a_warning(check_block):
    assert check_block(source()) == [("warning", "NB0813", P + "/connectorFactory")]


def test_factory_symlink_leading_out_is_an_error(tmp_path):
    outside = tmp_path / "elsewhere.js"
    outside.write_text("export default 1\n")
    root = tmp_path / "pkg"
    (root / "dist").mkdir(parents=True)
    (root / "real.js").write_text("export default 1\n")
    os.symlink(outside, root / "dist" / "factory.js")
    os.symlink(tmp_path, root / "up")
    os.symlink(root / "real.js", root / "dist" / "alias.js")
    os.symlink(root / "loop.js", root / "loop.js")

    def run(path):
        write_manifest(root, source(connectorFactory=path))
        return [(d.severity, d.code, d.pointer) for d in check_path(root, "first-party").diagnostics]

    assert run("dist/factory.js") == [("error", "NB0811", P + "/connectorFactory")]
    assert run("up/elsewhere.js") == [("error", "NB0811", P + "/connectorFactory")]
    assert run("loop.js") == [("error", "NB0811", P + "/connectorFactory")]
    assert run("dist/alias.js") == []


def test_transports(check_block):
    block = {"connectors": [{**MCP, "transports": ["stdio", "https"]}]}
    assert check_block(block) == [("error", "NB0814", P + "/transports/1")]
    block = {"connectors": [{**HTTP, "transports": ["https", "https"]}]}
    assert check_block(block) == [("error", "NB0815", P + "/transports/1")]
    block = {"connectors": [{**HTTP, "transports": ["stdio"]}]}
    assert check_block(block) == [("error", "NB0814", P + "/transports/0")]
    block = {"connectors": [{**HTTP, "transports": []}]}
    assert check_block(block) == [("error", "NB0106", P + "/transports")]


def test_auth_block(check_block):
    def auth(value):
        return {"connectors": [{**HTTP, "auth": value}]}

    assert check_block(auth({"type": "magic"})) == [("error", "NB0816", P + "/auth/type")]
    assert check_block(auth({"type": "none", "scopes": []})) == [("error", "NB0801", P + "/auth/scopes")]
    assert check_block(auth({"setupFields": []})) == [("error", "NB0102", P + "/auth")]


def test_setup_fields(check_block):
    def fields(*items):
        return {"connectors": [{**HTTP, "auth": {"type": "api-key", "setupFields": list(items)}}]}

    at = P + "/auth/setupFields"
    assert check_block(fields({"key": "apiKey", "label": "Key"})) == [("error", "NB0817", at + "/0/key")]
    assert check_block(fields({"key": "apiKey", "label": "Key", "sensitive": False})) == [
        ("error", "NB0817", at + "/0/key")
    ]
    assert check_block(fields({"key": "apiKey", "label": "Key", "sensitive": True, "default": "sk-123"})) == [
        ("error", "NB0818", at + "/0/default")
    ]
    assert check_block(fields({"key": "region", "label": "R"}, {"key": "region", "label": "R2"})) == [
        ("error", "NB0819", at + "/1/key")
    ]
    assert check_block(fields({"key": "base_url", "label": "URL"})) == [("error", "NB0104", at + "/0/key")]
    assert check_block(fields({"key": "region", "label": "Region", "default": "eu"})) == []


def test_schema_agrees_with_the_validator():
    validator = Draft202012Validator(neuralis_block_schema())
    assert validator.is_valid({"connectors": [SOURCE, MCP, HTTP, OPENAPI]})
    assert not validator.is_valid(source(type="ftp"))
    assert not validator.is_valid(source(kind="Local Files"))
    assert not validator.is_valid(source(label="x"))
