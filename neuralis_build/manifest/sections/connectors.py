"""connectors[]: source kinds and external services (spec: "connectors — sources and external services").

A ``source`` connector registers a filesystem-like source kind: a closed ``configSchema`` for the
admin creation form, the ``capabilities`` its runtime instance mirrors, and a ``connectorFactory``
module inside the package. Its secrets are credentials, never config properties. An ``mcp``,
``openapi`` or ``http`` connector names the ``transports`` it speaks and an ``auth`` block whose
``setupFields`` marked ``sensitive`` are stored encrypted (see docs/spec-decisions.md, "connectors").
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from neuralis_build.manifest.checker import Checker
from neuralis_build.manifest.compound import Arr, Field, Obj
from neuralis_build.manifest.engine import Section
from neuralis_build.manifest.jsonschemas import schema_problem
from neuralis_build.manifest.paths import file_inside, path_problem
from neuralis_build.manifest.secretnames import secret_word
from neuralis_build.manifest.sections.connectorauth import AUTH, NB0801
from neuralis_build.manifest.shape import Anything, JudgedStr, Str
from neuralis_build.model import block as model
from neuralis_build.util.diagnostics import code
from neuralis_build.util.jsonpointer import join

NB0802 = code("NB0802", "connector-type", "a connector type is not source, mcp, openapi or http")
NB0803 = code("NB0803", "connector-kind", "a connector kind (or capability) is not a lower-case slug")
NB0804 = code("NB0804", "connector-duplicate-kind", "two connectors[] entries declare the same kind")
NB0805 = code("NB0805", "connector-field-for-type", "a connector carries a field its type does not use")
NB0806 = code("NB0806", "connector-missing-field", "a connector lacks a field its type requires")
NB0807 = code("NB0807", "connector-config-schema-open", "a source connector's configSchema is not a closed object")
NB0808 = code("NB0808", "connector-config-schema-invalid", "a configSchema is not valid JSON Schema (draft 2020-12)")
NB0809 = code("NB0809", "connector-secret-property", "a configSchema property looks like a secret")
NB0810 = code("NB0810", "connector-capability-duplicate", "a capability is listed twice")
NB0811 = code("NB0811", "connector-factory-path", "a connectorFactory path is not a plain package path, or leads out")
NB0812 = code("NB0812", "connector-factory-extension", "a connectorFactory is not a JavaScript or TypeScript module")
NB0813 = code("NB0813", "connector-factory-missing", "a connectorFactory file does not exist (yet)")
NB0814 = code("NB0814", "connector-transport", "a transport is not one the connector type speaks")
NB0815 = code("NB0815", "connector-transport-duplicate", "a transport is listed twice")

SLUG = r"^[a-z][a-z0-9_-]{0,63}$"
CONNECTOR_TYPES = ("source", "mcp", "openapi", "http")
TRANSPORTS: dict[str, tuple[str, ...]] = {
    "mcp": ("stdio", "streamable-http", "sse"),
    "openapi": ("https", "http"),
    "http": ("https", "http"),
}
SOURCE_ONLY = ("configSchema", "capabilities", "connectorFactory")
SERVICE_ONLY = ("transports", "auth")
FACTORY_SUFFIXES = (".js", ".mjs", ".cjs", ".ts", ".mts", ".cts")
_SECRET_HINT = (
    'declare the secret in neuralis.credentials[] (e.g. {"id": "<package>.apiKey", "label": "..."}) '
    "and read it through the injected CredentialResolver"
)


def _slug(what: str) -> Str:
    return Str(
        pattern=SLUG,
        pattern_code=NB0803,
        pattern_message="is not a slug: start with a lower-case letter, then up to 63 of a-z, 0-9, _ or -",
        description=what,
    )


def _subschemas(schema: dict[str, Any], pointer: str) -> Iterator[tuple[dict[str, Any], str]]:
    """Every object-valued subschema of ``schema`` (itself included) with its pointer."""
    yield schema, pointer
    for keyword in ("properties", "patternProperties", "$defs", "definitions"):
        children = schema.get(keyword)
        if isinstance(children, dict):
            for name, child in children.items():
                if isinstance(child, dict):
                    yield from _subschemas(child, join(pointer, keyword, name))
    for keyword in ("items", "additionalProperties", "not", "if", "then", "else"):
        child = schema.get(keyword)
        if isinstance(child, dict):
            yield from _subschemas(child, join(pointer, keyword))
    for keyword in ("allOf", "anyOf", "oneOf", "prefixItems"):
        children = schema.get(keyword)
        if isinstance(children, list):
            for index, child in enumerate(children):
                if isinstance(child, dict):
                    yield from _subschemas(child, join(pointer, keyword, index))


def _is_object_schema(schema: dict[str, Any]) -> bool:
    kind = schema.get("type")
    return kind == "object" or (isinstance(kind, list) and "object" in kind) or "properties" in schema


def _config_schema(schema: dict[str, Any], pointer: str, c: Checker) -> None:
    problem = schema_problem(schema)
    if problem is not None:
        where, message = problem
        c.error(
            NB0808,
            join(pointer, *where),
            f"configSchema is not valid JSON Schema (draft 2020-12): {message}",
            "fix the schema; https://json-schema.org/draft/2020-12 lists the keywords",
        )
        return
    if schema.get("type") != "object":
        c.error(
            NB0807,
            pointer,
            'configSchema must be an object schema ("type": "object")',
            'write { "type": "object", "properties": {...}, "additionalProperties": false }',
        )
        return
    for sub, at in _subschemas(schema, pointer):
        if _is_object_schema(sub) and sub.get("additionalProperties") is not False:
            c.error(
                NB0807,
                at + "/additionalProperties" if "additionalProperties" in sub else at,
                'configSchema must be closed: every object in it needs "additionalProperties": false',
                f'{"set" if "additionalProperties" in sub else "add"} "additionalProperties": false so the admin '
                "form accepts exactly the declared keys",
            )
        properties = sub.get("properties")
        if not isinstance(properties, dict):
            continue
        for name, prop in properties.items():
            word = secret_word(name)
            if word is None and isinstance(prop, dict):
                if prop.get("format") == "password":
                    word = 'format "password"'
                elif prop.get("writeOnly") is True:
                    word = "writeOnly"
            if word:
                c.error(
                    NB0809,
                    join(at, "properties", name),
                    f'configSchema property "{name}" looks like a secret ({word}); a source connector\'s '
                    "secrets are credentials, never config properties",
                    _SECRET_HINT,
                )


def _factory(path: str, pointer: str, c: Checker) -> None:
    if not path.endswith(FACTORY_SUFFIXES):
        c.error(
            NB0812,
            pointer,
            f'connectorFactory "{path}" is not a module the loader can import',
            f"name a {', '.join(FACTORY_SUFFIXES)} file",
        )
        return
    target = file_inside(c, pointer, path, "connectorFactory", NB0811, "factory module")
    if target is not None and not target.is_file():
        c.warning(
            NB0813,
            pointer,
            f'connectorFactory "{path}" does not exist; the loader imports it',
            "create the module, or build the package first if it is a build output",
        )


def _connector_rules(entry: dict[str, Any], pointer: str, c: Checker) -> None:
    kind = entry["type"]
    is_source = kind == "source"
    required = SOURCE_ONLY if is_source else SERVICE_ONLY
    forbidden = SERVICE_ONLY if is_source else SOURCE_ONLY
    for name in required:
        if name not in entry:
            c.error(NB0806, pointer, f'a {kind} connector needs "{name}"', _requirement_hint(kind))
    for name in forbidden:
        if name in entry:
            c.error(
                NB0805,
                join(pointer, name),
                f'"{name}" belongs to {"mcp, openapi and http" if is_source else "source"} connectors, '
                f"not to a {kind} connector",
                _requirement_hint(kind),
            )
    if is_source:
        if isinstance(entry.get("configSchema"), dict):
            _config_schema(entry["configSchema"], pointer + "/configSchema", c)
        if isinstance(entry.get("connectorFactory"), str):
            _factory(entry["connectorFactory"], pointer + "/connectorFactory", c)
        return
    allowed = TRANSPORTS[kind]
    for index, transport in enumerate(entry.get("transports", [])):
        if transport not in allowed:
            c.error(
                NB0814,
                join(pointer, "transports", index),
                f'"{transport}" is not a transport of a {kind} connector',
                f"use {', '.join(repr(t) for t in allowed)}",
            )


def _requirement_hint(kind: str) -> str:
    if kind == "source":
        return "a source connector has configSchema, capabilities and connectorFactory (no transports, no auth)"
    return f"a {kind} connector has transports and auth (no configSchema, capabilities or connectorFactory)"


CONNECTOR = Obj(
    fields={
        "type": Field(
            Str(
                enum=CONNECTOR_TYPES,
                enum_code=NB0802,
                description="source registers a filesystem-like source kind; mcp, openapi and http reach a service.",
            ),
            required=True,
        ),
        "kind": Field(
            _slug("The kind this connector registers, such as local or s3; unique in the package."), required=True
        ),
        "configSchema": Field(
            Anything(
                types=("object",),
                description="source only: a closed object JSON Schema (draft 2020-12, additionalProperties false) "
                "for the admin creation form. No secret properties: secrets are credentials.",
            )
        ),
        "capabilities": Field(
            Arr(
                _slug("A capability slug, such as read, write, list or watch."),
                min_items=1,
                unique=lambda cap: cap,
                unique_code=NB0810,
                unique_what="capability",
                description="source only: the capabilities the runtime instance must mirror.",
            )
        ),
        "connectorFactory": Field(
            JudgedStr(
                judge=path_problem,
                judge_code=NB0811,
                judge_hint="name a module inside the package, such as dist/connectors/local.js",
                description="source only: the package path of the module the loader imports to build instances.",
            )
        ),
        "transports": Field(
            Arr(
                Str(description="mcp: stdio, streamable-http or sse; openapi and http: https or http."),
                min_items=1,
                unique=lambda t: t,
                unique_code=NB0815,
                unique_what="transport",
                description="mcp, openapi and http only: the wire protocols the connector speaks; endpoints and "
                "commands are setup fields.",
            )
        ),
        "auth": Field(AUTH),
    },
    unknown_code=NB0801,
    what="a connectors[] entry",
    checks=(_connector_rules,),
    description="A source kind (type source) or an external service (mcp, openapi, http).",
    model=model.Connector,
)

SECTION = Section(
    name="connectors",
    fields={
        "connectors": Field(
            Arr(
                CONNECTOR,
                unique=lambda entry: entry["kind"],
                unique_code=NB0804,
                unique_what="connector kind",
                unique_pointer=lambda at: at + "/kind",
                description="Source kinds and external services this package registers.",
            )
        )
    },
)
