"""uriPolicies: path-protection baselines in the package's own namespace (spec: "uriPolicies").

Shape (docs/design.md, The directory contract):
``uriPolicies["data://<self>/**"] = {"default": {read, write, exec}, "paths": [rule]}`` with
``rule = {path, read?, write?, exec?, override?, roles?, agents?, floor?}``. A floor is an immutable
denial: only false capabilities, never with override, roles or agents, and honored
for trusted and first-party packages only.
"""

from __future__ import annotations

from typing import Any

from neuralis_build.manifest.checker import Checker
from neuralis_build.manifest.compound import RAW, Arr, Field, MapOf, Obj
from neuralis_build.manifest.engine import Section
from neuralis_build.manifest.paths import GLOB_PATTERN, zone_glob_problem
from neuralis_build.manifest.shape import Bool, JudgedStr, Str
from neuralis_build.util.diagnostics import code
from neuralis_build.util.trust import Trust

NB1201 = code(
    "NB1201", "uri-foreign-namespace", "a uriPolicies pattern is outside packages://<self>/ and data://<self>/"
)
NB1202 = code("NB1202", "uri-pattern", "a uriPolicies pattern's glob has an empty or .. segment or a bad character")
NB1203 = code("NB1203", "uri-policy-key", "a policy, default or path rule has a key its shape does not allow")
NB1204 = code(
    "NB1204", "uri-rule-path", "a path rule's glob has a leading /, an empty or .. segment or a bad character"
)
NB1205 = code("NB1205", "uri-floor-grants", "a floor rule grants a capability (only false capabilities are allowed)")
NB1206 = code("NB1206", "uri-floor-combined", "a floor rule is combined with override, roles or agents")
NB1207 = code("NB1207", "uri-floor-untrusted", "a floor on an untrusted package is dropped (floors need trusted+)")
NB1208 = code("NB1208", "uri-floor-empty", "a floor rule names no capability, so it denies nothing (a warning)")

CAPABILITIES = ("read", "write", "exec")
PREFIXES = ("packages://<self>/", "data://<self>/")
PATTERN_PREFIX = r"^(?:packages|data)://<self>/"
_GLOB_HINT = "a glob relative to the zone: letters, digits, ., _, -, * (one segment) and ** (any depth), / between"


def _floor(rule: dict[str, Any], pointer: str, c: Checker) -> None:
    if rule.get("floor") is not True or c.is_dropped(pointer + "/floor"):
        return
    for cap in CAPABILITIES:
        if rule.get(cap) is True:
            c.error(
                NB1205,
                f"{pointer}/{cap}",
                f'a floor may carry only false capabilities, but "{cap}" is true',
                f'set "{cap}": false, or move the grant into a rule without "floor"',
            )
    for key in ("override", "roles", "agents"):
        if key in rule:
            c.error(
                NB1206,
                f"{pointer}/{key}",
                f'a floor is an immutable denial for everyone; it cannot be combined with "{key}"',
                f'remove "{key}", or drop "floor" to make an ordinary rule',
            )
    if not any(cap in rule for cap in CAPABILITIES):
        # the spec refuses only true capabilities and override/roles/agents on a floor: an empty one is
        # well-formed, merely useless
        c.warning(
            NB1208,
            pointer + "/floor",
            "this floor denies nothing: it names no capability",
            'add the capabilities it denies, such as "write": false',
        )


def _names(what: str) -> Arr:
    return Arr(Str(min_length=1, description=what), description=f"The rule applies to these {what}s only.")


RULE = Obj(
    fields={
        "path": Field(
            JudgedStr(
                judge=zone_glob_problem,
                judge_code=NB1204,
                judge_hint=_GLOB_HINT,
                schema_pattern=GLOB_PATTERN,
                description="A glob relative to the zone root of the pattern's scheme (what follows <scheme>://<self>/).",
            ),
            required=True,
        ),
        **{
            cap: Field(Bool(description=f"Allow ({cap}: true) or deny ({cap}: false) {cap} here."))
            for cap in CAPABILITIES
        },
        "override": Field(Bool(description="The rule overrides the baseline for its path (not with floor).")),
        "roles": Field(_names("role name")),
        "agents": Field(_names("agent id")),
        "floor": Field(
            Bool(
                description="An immutable, restrict-only denial: only false capabilities, no override, roles or agents."
            ),
            min_trust=Trust.TRUSTED,
            drop_code=NB1207,
            drop_message="floors come from trusted package manifests only; on this package the floor flag is dropped "
            "and the rule stays an ordinary, removable rule",
        ),
    },
    unknown_code=NB1203,
    what="a uriPolicies path rule",
    checks=(_floor,),
    model=RAW,
)

DEFAULT = Obj(
    fields={cap: Field(Bool(description=f"Baseline {cap} permission."), required=True) for cap in CAPABILITIES},
    unknown_code=NB1203,
    what="a uriPolicies default (exactly { read, write, exec })",
    description="The baseline permissions for every path the pattern matches.",
    model=RAW,
)

POLICY = Obj(
    fields={
        "default": Field(DEFAULT, required=True),
        "paths": Field(Arr(RULE, description="Path rules that refine the baseline.")),
    },
    unknown_code=NB1203,
    what="a uriPolicies entry (exactly { default, paths? })",
    description="A path-protection baseline, seeded into source configuration at first attach.",
    model=RAW,
)


def _pattern_glob(pattern: str) -> str | None:
    rest = next(pattern[len(p) :] for p in PREFIXES if pattern.startswith(p))
    if not rest:
        return None  # the prefix alone, data://<self>/, is the zone root: the spec accepts the prefix itself
    problem = zone_glob_problem(rest)
    return f"after the namespace prefix {problem}" if problem else None


PATTERN = JudgedStr(
    pattern=PATTERN_PREFIX,
    pattern_code=NB1201,
    pattern_message="is outside the package's own namespace: only packages://<self>/ and data://<self>/ are accepted",
    pattern_hint="write the pattern with the <self> placeholder, such as data://<self>/**",
    judge=_pattern_glob,
    judge_code=NB1202,
    judge_hint=_GLOB_HINT,
    description="packages://<self>/<glob> or data://<self>/<glob>; the loader substitutes <self> at boot.",
)

SECTION = Section(
    name="uriPolicies",
    fields={
        "uriPolicies": Field(
            MapOf(
                POLICY,
                key=PATTERN,
                description="Path-protection baselines keyed by a pattern in the package's own namespace.",
            )
        )
    },
)
