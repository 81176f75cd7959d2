"""Identity and opt-in: id, name, descriptions, referenceOnly (spec: "Minimal manifest", "Identity fields")."""

from __future__ import annotations

from typing import Any

from neuralis_build.manifest.checker import Checker
from neuralis_build.manifest.compound import Field
from neuralis_build.manifest.engine import Section
from neuralis_build.manifest.shape import Bool, Str
from neuralis_build.npm.names import name_problems
from neuralis_build.util.diagnostics import code
from neuralis_build.util.trust import at_least

NB0110 = code("NB0110", "id-invalid", "the neuralis id is not a valid npm package name")
NB0111 = code("NB0111", "id-differs-from-name", "the neuralis id differs from the npm name the host resolves")
NB0112 = code("NB0112", "id-reserved", "a package below first-party takes the id of the platform's own claimant")

PLATFORM_ID = "@neuralis/platform"
"""The claimant id of the platform's own tools and config keys in the tool-name rule (a first-party claimant)."""


def _reserved_id(block: dict[str, Any], c: Checker) -> None:
    """Below first-party, a package may not be the platform's own claimant: the tool rule gives that id the
    platform's tools, and first-party rank, so a package named so would claim (or shadow) them."""
    package_id = block.get("id") if "id" in block else c.package.name if c.package is not None else None
    if package_id != PLATFORM_ID or at_least(c.trust, "first-party"):
        return
    ptr = "/neuralis/id" if "id" in block else "/name"
    if not c.usable(ptr):
        return
    c.error(
        NB0112,
        ptr,
        f'"{PLATFORM_ID}" is the id of the platform\'s own tools and config keys; '
        f"{'an' if c.trust == 'untrusted' else 'a'} {c.trust} package cannot take it",
        "name the package for what it is, under your own scope (such as @acme/platform-tools)",
    )


def _id_rule(block: dict[str, Any], c: Checker) -> None:
    ptr = "/neuralis/id"
    value = block.get("id")
    if not isinstance(value, str) or not c.usable(ptr):
        return
    problems = name_problems(value)
    if problems:
        c.error(
            NB0110,
            ptr,
            f'"{value}" is not a valid package id: {"; ".join(problems)}',
            "the id is a path segment (node_modules/<id>/): use the package's npm name",
        )
        return
    npm_name = c.package.name if c.package is not None else None
    if npm_name is not None and value != npm_name:
        c.warning(
            NB0111,
            ptr,
            f'the id "{value}" differs from the npm name "{npm_name}"; the host installs and resolves the '
            f"package by its npm name",
            f'remove "id" (it defaults to the npm name) or set it to "{npm_name}"',
        )


SECTION = Section(
    name="identity",
    fields={
        "id": Field(Str(min_length=1, description="The package id; defaults to the npm name.")),
        "name": Field(Str(min_length=1, description="The human-facing name.")),
        "description": Field(Str(description="Human-facing description.")),
        "descriptionForModel": Field(
            Str(description="LLM-facing description: describe use cases, not implementation.")
        ),
        "referenceOnly": Field(Bool(description="A reference or documentation-only package: installed, never loaded.")),
    },
    rules=(_id_rule, _reserved_id),
)
