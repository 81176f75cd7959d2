"""requires: features, role grants and package dependencies (spec: "requires — features, role grants, dependencies").

Also the feature-id shape every feature gate reuses (``app.surfaces[].requires``, ``events[].requires``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from neuralis_build.manifest.checker import Checker
from neuralis_build.manifest.compound import Arr, Field, MapOf, Obj, OneOfType
from neuralis_build.manifest.engine import Section
from neuralis_build.manifest.shape import Str
from neuralis_build.model import block as model
from neuralis_build.npm.names import name_problems
from neuralis_build.util.diagnostics import code
from neuralis_build.util.jsonpointer import join

NB0601 = code("NB0601", "requires-key", "a requires object carries a key it does not define")
NB0602 = code("NB0602", "package-id-invalid", "requires.packages holds a string that is not a valid package id")
NB0603 = code("NB0603", "package-duplicate", "requires.packages names a package twice")
NB0604 = code("NB0604", "requires-self", "requires.packages names the package itself")
NB0605 = code("NB0605", "feature-id-charset", "a feature id breaks the charset (dot-separated lowercase segments)")
NB0606 = code("NB0606", "feature-duplicate", "requires.providesFeatures declares one feature id twice")
NB0607 = code("NB0607", "feature-entry-key", "a providesFeatures object has a key outside { id, title?, description? }")
NB0608 = code("NB0608", "role-name-invalid", "a defaultRoleGrants key is not a role name")
NB0609 = code("NB0609", "grant-undeclared", "defaultRoleGrants grants a feature the package does not declare")
NB0610 = code("NB0610", "feature-list-duplicate", "a list of feature ids names one id twice")

FEATURE_ID = r"^[a-z0-9][a-z0-9_-]*(?:\.[a-z0-9][a-z0-9_-]*)*$"
ROLE_NAME = r"^[a-z][a-z0-9_-]*$"


def feature_id(description: str) -> Str:
    """The shape of one feature id (``my-pkg.read``)."""
    return Str(
        pattern=FEATURE_ID,
        pattern_code=NB0605,
        pattern_message="is not a feature id: dot-separated segments of lowercase letters, digits, _ and -, "
        "each starting with a letter or digit",
        pattern_hint="such as my-pkg.read",
        max_length=128,
        length_code=NB0605,
        description=description,
    )


def feature_list(description: str) -> Arr:
    """A list of feature ids with no id twice."""
    return Arr(
        feature_id("A feature id."),
        unique=lambda fid: fid,
        unique_code=NB0610,
        unique_what="feature id",
        description=description,
    )


FEATURE_GATE = Obj(
    fields={
        "features": Field(feature_list("The caller must hold every one of these feature ids.")),
    },
    unknown_code=NB0601,
    what="requires (exactly { features })",
    description="Feature gate: who may see this entry.",
    model=model.FeatureGate,
)
"""``requires`` of a surface or an event: ``{ "features": [...] }``."""

FEATURE_OBJECT = Obj(
    fields={
        "id": Field(feature_id("The capability id; the object form never renames it."), required=True),
        "title": Field(Str(min_length=1, description="Shown in the admin Roles UI.")),
        "description": Field(Str(description="Shown in the admin Roles UI.")),
    },
    unknown_code=NB0607,
    what="a providesFeatures entry (exactly { id, title?, description? })",
    model=model.Feature,
)


def _entry_id(entry: Any) -> str:
    return entry if isinstance(entry, str) else str(entry["id"])


def _not_self(value: str, pointer: str, c: Checker) -> None:
    own = {c.package.name, c.package.id} if c.package is not None else set()
    if value in own:
        c.warning(NB0604, pointer, f'the package requires itself ("{value}")', "remove it from requires.packages")


def _package_id(value: str, pointer: str, c: Checker) -> None:
    problems = name_problems(value)
    if problems:
        c.error(
            NB0602,
            pointer,
            f'"{value}" is not a package id: {"; ".join(problems)}',
            "name the package by its id (its npm name), such as @neuralis/brain-core",
        )


REQUIRES = Obj(
    fields={
        "packages": Field(
            Arr(
                Str(min_length=1, checks=(_package_id, _not_self)),
                unique=lambda name: name,
                unique_code=NB0603,
                unique_what="package",
                description="Packages this package depends on, by id.",
            )
        ),
        "providesFeatures": Field(
            Arr(
                OneOfType({"string": feature_id("A feature id."), "object": FEATURE_OBJECT}),
                unique=_entry_id,
                unique_code=NB0606,
                unique_what="feature id",
                description="The features this package declares: bare ids or { id, title?, description? }.",
            )
        ),
        "defaultRoleGrants": Field(
            MapOf(
                feature_list("The feature ids this role receives by default."),
                key=Str(
                    pattern=ROLE_NAME,
                    pattern_code=NB0608,
                    pattern_message="is not a role name: lowercase letters, digits, _ and -, starting with a letter",
                    max_length=64,
                    length_code=NB0608,
                ),
                description="Role name (owner, admin, member, ...) → the package's feature ids it receives by default.",
            )
        ),
        "accessFeature": Field(
            feature_id("One feature id that gates the whole package's visibility; omit to keep it visible.")
        ),
    },
    unknown_code=NB0601,
    what="requires (exactly { packages?, providesFeatures?, defaultRoleGrants?, accessFeature? })",
    description="Features, default role grants and package dependencies.",
    model=model.Requires,
)


def declared_features(requires: Mapping[str, Any]) -> set[str]:
    """The feature ids a well-shaped ``requires`` declares: providesFeatures and accessFeature."""
    declared = {_entry_id(e) for e in requires.get("providesFeatures", [])}
    if isinstance(requires.get("accessFeature"), str):
        declared.add(requires["accessFeature"])
    return declared


def _grants_declared(block: dict[str, Any], c: Checker) -> None:
    ptr = "/neuralis/requires"
    requires = block.get("requires")
    if not isinstance(requires, dict) or not isinstance(requires.get("defaultRoleGrants"), dict):
        return
    if not c.usable(join(ptr, "providesFeatures")) or not c.usable(join(ptr, "accessFeature")):
        return
    declared = declared_features(requires)
    for role, granted in requires["defaultRoleGrants"].items():
        at = join(ptr, "defaultRoleGrants", role)
        if not c.usable(at):
            continue
        for index, feature in enumerate(granted):
            if feature not in declared:
                c.error(
                    NB0609,
                    join(at, index),
                    f'role "{role}" is granted "{feature}", which this package does not declare',
                    "a package grants only its own features: add it to requires.providesFeatures, or remove the grant",
                )


SECTION = Section(name="requires", fields={"requires": Field(REQUIRES)}, rules=(_grants_declared,))
