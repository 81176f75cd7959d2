"""provides: the host service contracts a first-party package implements (spec: "provides — host service contracts").

The image build reuses :func:`provided_services`, :func:`oauth_prefix` and :func:`oauth_prefixes_overlap`
to judge the installed packages together (singletons, prefixes that overlap across packages).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from neuralis_build.manifest.checker import Checker, suggest
from neuralis_build.manifest.compound import Arr, Field
from neuralis_build.manifest.engine import Section
from neuralis_build.manifest.shape import JSONSchema, Shape, type_error
from neuralis_build.model.block import Block
from neuralis_build.model.located import Located
from neuralis_build.util.diagnostics import code
from neuralis_build.util.jsonpointer import join
from neuralis_build.util.trust import Trust

NB0201 = code("NB0201", "provides-dropped", "provides is declared by a package that is not first-party; it is dropped")
NB0202 = code("NB0202", "service-unknown", "a provides entry is not in the closed service vocabulary")
NB0203 = code(
    "NB0203",
    "oauth-prefix-invalid",
    "an oauth-callback prefix is not lowercase [a-z0-9_], starting with a letter, ending in _, 3-32 characters",
)
NB0204 = code("NB0204", "oauth-prefix-overlap", "two oauth-callback prefixes of the package overlap")
NB0205 = code("NB0205", "service-duplicate", "a service is declared twice in provides")

REQUIRED_SINGLETONS = ("runtime", "session-ticket-verifier")
"""Services an image needs exactly one provider of."""
OPTIONAL_SINGLETONS = ("agent-directory", "channel-gateway", "package-source-roots", "mcp-server")
"""Services an image may have at most one provider of (oauth-callback: one per prefix, none overlapping)."""
SERVICES = REQUIRED_SINGLETONS + OPTIONAL_SINGLETONS
OAUTH = "oauth-callback"
OAUTH_PREFIX = r"^[a-z][a-z0-9_]{1,30}_$"
_OAUTH_PREFIX = re.compile(OAUTH_PREFIX)


def oauth_prefix(service: str) -> str | None:
    """The prefix of an ``oauth-callback:<prefix>`` service, or ``None`` for any other service."""
    family, colon, prefix = service.partition(":")
    return prefix if colon and family == OAUTH else None


def oauth_prefixes_overlap(a: str, b: str) -> bool:
    """True when two OAuth prefixes overlap: they are equal or one is a prefix of the other."""
    return a.startswith(b) or b.startswith(a)


def provided_services(block: Block) -> tuple[Located[str], ...]:
    """The services a block the host loads provides, each where it is declared (empty when dropped or absent)."""
    return block.provides


def _prefix_problem(prefix: str) -> str | None:
    if not 3 <= len(prefix) <= 32:
        return f"has {len(prefix)} characters; a prefix has 3 to 32"
    if not prefix.endswith("_"):
        return 'does not end in "_"'
    if not _OAUTH_PREFIX.match(prefix):
        return "must be lowercase: a letter first, then letters a-z, digits or _"
    return None


@dataclass
class Service(Shape):
    """One entry of provides: a service of the closed vocabulary, or ``oauth-callback:<prefix>``."""

    description: str | None = None

    def check(self, value: Any, pointer: str, c: Checker) -> bool:
        if not isinstance(value, str):
            return type_error(c, value, pointer, "a string")
        prefix = oauth_prefix(value)
        if prefix is not None:
            problem = _prefix_problem(prefix)
            if problem is None:
                return True
            c.error(
                NB0203,
                pointer,
                f'the OAuth prefix "{prefix}" {problem}',
                "write the prefix in lowercase letters, digits and _, ending in _, such as oauth-callback:acme_",
            )
            return False
        if value in SERVICES:
            return True
        choices = [*SERVICES, f"{OAUTH}:<prefix>"]
        near = suggest(value, choices)
        c.error(
            NB0202,
            pointer,
            f'"{value}" is not a host service',
            f'did you mean "{near}"?' if near else "use one of " + ", ".join(choices),
        )
        return False

    def schema(self) -> JSONSchema:
        prefix_pattern = f"^{OAUTH}:" + OAUTH_PREFIX[1:]
        return self._with_description(
            {"type": "string", "anyOf": [{"enum": list(SERVICES)}, {"pattern": prefix_pattern}]}
        )


def _no_overlap(block: dict[str, Any], c: Checker) -> None:
    ptr = "/neuralis/provides"
    value = block.get("provides")
    if not isinstance(value, list) or c.is_dropped(ptr):
        return
    prefixes = [
        (i, p)
        for i, s in enumerate(value)
        if isinstance(s, str) and c.usable(join(ptr, i)) and (p := oauth_prefix(s)) is not None
    ]
    for (i, a), (j, b) in combinations(prefixes, 2):
        if oauth_prefixes_overlap(a, b):
            shorter, longer = (a, b) if len(a) <= len(b) else (b, a)
            c.error(
                NB0204,
                join(ptr, j),
                f'the OAuth prefix "{b}" overlaps "{a}" ({join(ptr, i)}): "{shorter}" is a prefix of "{longer}"',
                "callbacks are routed by prefix, so no prefix may start another: rename one of them",
            )


PROVIDES = Arr(
    Service(description="A host service: runtime, session-ticket-verifier, ..., or oauth-callback:<prefix>."),
    unique=lambda service: service,
    unique_code=NB0205,
    unique_what="service",
    description="The host service contracts this package implements (first-party packages only).",
)

SECTION = Section(
    name="provides",
    fields={
        "provides": Field(
            PROVIDES,
            min_trust=Trust.FIRST_PARTY,
            drop_code=NB0201,
            drop_message='"provides" is honored for first-party packages only; the host drops it at load',
        )
    },
    rules=(_no_overlap,),
)
