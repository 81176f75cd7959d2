"""The whole ``neuralis`` block: every section's keys in one shape, and every section's rules."""

from __future__ import annotations

from neuralis_build.manifest.compound import Field, Obj
from neuralis_build.manifest.engine import Section
from neuralis_build.manifest.sections import (
    access,
    app,
    config,
    connectors,
    contributions,
    credentials,
    datalayout,
    distribution,
    events,
    hostdeps,
    identity,
    provides,
    requires,
    runtime,
    sources,
    uri,
)
from neuralis_build.model import block as model
from neuralis_build.util.diagnostics import code

NB0109 = code("NB0109", "unknown-block-key", "the neuralis block carries a key the spec does not define")

SECTIONS: tuple[Section, ...] = (
    identity.SECTION,
    provides.SECTION,
    runtime.SECTION,
    access.SECTION,
    requires.SECTION,
    app.SECTION,
    events.SECTION,
    connectors.SECTION,
    sources.SECTION,
    credentials.SECTION,
    config.SECTION,
    uri.SECTION,
    datalayout.SECTION,
    contributions.SECTION,
    hostdeps.SECTION,
    distribution.SECTION,
)


def _merge_fields() -> dict[str, Field]:
    merged: dict[str, Field] = {}
    for section in SECTIONS:
        for key, f in section.fields.items():
            if key in merged:
                raise RuntimeError(f"neuralis.{key} is claimed by two sections")
            merged[key] = f
    return merged


NEURALIS = Obj(
    fields=_merge_fields(),
    unknown="warning",
    unknown_code=NB0109,
    what="the neuralis block",
    description="Neuralis package metadata: the single source of truth for what the package contributes.",
    model=model.Block,
    unmodeled=("routes",),  # routes have no inline form: the host never reads the key
)
