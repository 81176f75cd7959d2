"""access: a package cannot assign its own trust (spec: "access.trust")."""

from __future__ import annotations

from typing import Any

from neuralis_build.manifest.checker import Checker
from neuralis_build.manifest.compound import RAW, Field, Obj
from neuralis_build.manifest.engine import Section
from neuralis_build.manifest.shape import Anything
from neuralis_build.util.diagnostics import code

NB1501 = code("NB1501", "access-trust-ignored", "access.trust is ignored: the host assigns trust by source")
NB1502 = code("NB1502", "access-key-unknown", "access carries a key the spec does not define; the host ignores it")

_TRUST_PTR = "/neuralis/access/trust"


def _trust_ignored(block: dict[str, Any], c: Checker) -> None:
    access = block.get("access")
    if not isinstance(access, dict) or "trust" not in access:
        return
    claimed = access["trust"]
    shown = f'"{claimed}"' if isinstance(claimed, str) else "a value"
    c.drop(
        NB1501,
        _TRUST_PTR,
        f"access.trust declares {shown}, which the host ignores: trust is assigned by source "
        f"(this package is checked as {c.trust})",
        "remove access.trust: shipped and host-dependency packages are first-party, and installed or project "
        "packages never are",
    )


ACCESS = Obj(
    fields={
        "trust": Field(Anything(description="Ignored: the host assigns trust by source. Do not declare it.")),
    },
    unknown="warning",
    unknown_code=NB1502,
    what="access",
    description="Access settings; the only key the spec names, trust, is ignored (the host assigns trust).",
    model=RAW,
)

SECTION = Section(name="access", fields={"access": Field(ACCESS)}, rules=(_trust_ignored,))
