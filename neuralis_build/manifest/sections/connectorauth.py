"""An MCP, OpenAPI or HTTP connector's auth block (spec: connectors): how it authenticates, and its setup fields.

A service connector's secrets are setup fields the platform stores encrypted when they are marked
sensitive: a secret-looking field must be marked so, and a sensitive one never carries a default
(it would ship in package.json).
"""

from __future__ import annotations

from typing import Any

from neuralis_build.manifest.checker import Checker
from neuralis_build.manifest.compound import Arr, Field, Obj
from neuralis_build.manifest.secretnames import secret_word
from neuralis_build.manifest.shape import Anything, Bool, Str
from neuralis_build.model import block as model
from neuralis_build.util.diagnostics import code

NB0816 = code("NB0816", "connector-auth-type", "an auth type is not none, api-key, bearer, basic or oauth2")
NB0817 = code("NB0817", "connector-setup-field-plain-secret", "a secret-looking setup field is not marked sensitive")
NB0818 = code("NB0818", "connector-setup-field-secret-default", "a sensitive setup field carries a default value")
NB0819 = code("NB0819", "connector-setup-field-duplicate", "two setup fields share a key")

AUTH_TYPES = ("none", "api-key", "bearer", "basic", "oauth2")
SETUP_FIELD_KEY = r"^[a-z][a-zA-Z0-9]{0,63}$"
NB0801 = code("NB0801", "connector-key", "a connectors[] entry (or its auth block) has a key its shape does not allow")


def _setup_field_rules(field: dict[str, Any], pointer: str, c: Checker) -> None:
    sensitive = field.get("sensitive") is True
    word = secret_word(field["key"])
    if word and not sensitive:
        c.error(
            NB0817,
            pointer + "/key",
            f'setup field "{field["key"]}" looks like a secret ("{word}") but is not marked sensitive, '
            "so it would be stored in plain config",
            f'{"set" if "sensitive" in field else "add"} "sensitive": true so the value is stored encrypted',
        )
    if sensitive and "default" in field:
        c.error(
            NB0818,
            pointer + "/default",
            "a sensitive setup field carries a default: the secret would ship in package.json",
            "remove the default; the admin enters the value at setup",
        )


SETUP_FIELD = Obj(
    fields={
        "key": Field(
            Str(
                pattern=SETUP_FIELD_KEY,
                pattern_message="must be flat camelCase (^[a-z][a-zA-Z0-9]{0,63}$)",
                description="The field's key in the connector's setup.",
            ),
            required=True,
        ),
        "label": Field(Str(min_length=1, description="Shown on the admin setup form."), required=True),
        "description": Field(Str(description="Help text under the field.")),
        "type": Field(Str(enum=("string", "number", "boolean", "url"), description="The input's type.")),
        "required": Field(Bool(description="The admin must fill the field in.")),
        "sensitive": Field(
            Bool(description="Stored encrypted and never shown again; every secret (key, token, password) is one.")
        ),
        "default": Field(Anything(types=("string", "number", "boolean"), description="A non-secret default value.")),
    },
    unknown_code=NB0801,
    what="an auth setup field",
    checks=(_setup_field_rules,),
    model=model.SetupField,
)


AUTH = Obj(
    fields={
        "type": Field(
            Str(enum=AUTH_TYPES, enum_code=NB0816, description="How the service authenticates."), required=True
        ),
        "setupFields": Field(
            Arr(
                SETUP_FIELD,
                unique=lambda f: f["key"],
                unique_code=NB0819,
                unique_what="setup field",
                unique_pointer=lambda at: at + "/key",
                description="What the admin fills in to connect; sensitive fields are stored encrypted.",
            )
        ),
    },
    unknown_code=NB0801,
    what="a connector auth block (exactly { type, setupFields? })",
    description="How an mcp, openapi or http connector authenticates.",
    model=model.ConnectorAuth,
)
