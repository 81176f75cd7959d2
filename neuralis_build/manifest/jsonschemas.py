"""JSON Schemas a manifest embeds (a connector's configSchema, an event's dataSchema)."""

from __future__ import annotations

from typing import Any


def schema_problem(schema: dict[str, Any]) -> tuple[list[str | int], str] | None:
    """Where and why ``schema`` is not valid draft 2020-12 JSON Schema; None when it is valid."""
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError

    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        return list(exc.absolute_path), exc.message
    return None
