"""credentials[]: declared credential ids (spec: "credentials — declared credential ids")."""

from __future__ import annotations

from typing import Any

from neuralis_build.manifest.checker import Checker
from neuralis_build.manifest.compound import Arr, Field, Obj
from neuralis_build.manifest.engine import Section
from neuralis_build.manifest.shape import Bool, Str
from neuralis_build.model import block as model
from neuralis_build.util.diagnostics import code
from neuralis_build.util.trust import at_least

NB1001 = code("NB1001", "credential-key", "a credentials[] entry has a key outside { id, label, category?, oauth? }")
NB1002 = code("NB1002", "credential-id-charset", "a credential id breaks the charset ^[A-Za-z_][A-Za-z0-9_.-]*$")
NB1003 = code("NB1003", "credential-id-length", "a credential id is longer than 128 characters")
NB1004 = code(
    "NB1004",
    "credential-reserved-namespace",
    "a git., channel or mcp. credential id is declared outside first-party trust",
)
NB1005 = code("NB1005", "credential-duplicate", "two credentials[] entries declare the same id")

CREDENTIAL_ID = r"^[A-Za-z_][A-Za-z0-9_.-]*$"
RESERVED_NAMESPACES = ("git", "channel", "mcp")


def reserved_namespace(credential_id: str) -> str | None:
    """The reserved self-scope namespace an id falls in (``git``, ``channel``, ``mcp``), if any."""
    head = credential_id.split(".", 1)[0]
    return head if head in RESERVED_NAMESPACES else None


def _reserved(entry: dict[str, Any], pointer: str, c: Checker) -> None:
    namespace = reserved_namespace(entry["id"])
    if namespace and not at_least(c.trust, "first-party"):
        c.error(
            NB1004,
            pointer + "/id",
            f'"{entry["id"]}" is in the reserved {namespace} namespace, which only first-party packages may '
            f"declare ({c.trust} package)",
            "use an id in your own namespace, such as <package>.apiKey",
        )


CREDENTIAL = Obj(
    fields={
        "id": Field(
            Str(
                pattern=CREDENTIAL_ID,
                pattern_code=NB1002,
                pattern_message="breaks the credential-id charset: start with a letter or _, then letters, "
                "digits, _, . or - (no slashes, no leading dot)",
                pattern_hint="the id becomes an <id>.enc.json file name",
                max_length=128,
                length_code=NB1003,
                description="Credential id; becomes an <id>.enc.json path segment.",
            ),
            required=True,
        ),
        "label": Field(Str(min_length=1, description="Shown in the admin Credentials catalog."), required=True),
        "category": Field(Str(description="Catalog grouping, such as llm, vector or search.")),
        "oauth": Field(Bool(description="Display hint: render Connect/Disconnect instead of a value field.")),
    },
    unknown_code=NB1001,
    what="a credentials[] entry (exactly { id, label, category?, oauth? })",
    checks=(_reserved,),
    model=model.Credential,
)

SECTION = Section(
    name="credentials",
    fields={
        "credentials": Field(
            Arr(
                CREDENTIAL,
                unique=lambda entry: entry["id"],
                unique_code=NB1005,
                unique_what="credential id",
                unique_pointer=lambda at: at + "/id",
                description="The external secrets the package reads, surfaced in the Credentials catalog.",
            )
        )
    },
)
