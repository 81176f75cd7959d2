"""requires: package ids, feature ids in both forms, duplicates, role grants of declared features."""

from __future__ import annotations

import pytest

SPEC_EXAMPLE = {
    "packages": ["@neuralis/brain-core"],
    "providesFeatures": [
        "my-pkg.read",
        {"id": "my-pkg.write", "title": "Write access", "description": "Create and modify items"},
    ],
    "defaultRoleGrants": {
        "owner": ["my-pkg.read", "my-pkg.write"],
        "admin": ["my-pkg.read", "my-pkg.write"],
        "member": ["my-pkg.read"],
    },
    "accessFeature": "my-pkg.access",
}


@pytest.mark.parametrize("trust", ["first-party", "trusted", "untrusted"])
def test_spec_example_passes_at_every_tier(check_block, trust):
    assert check_block({"requires": SPEC_EXAMPLE}, trust) == []


def test_unknown_key_is_an_error(check_block):
    # a misspelt accessFeature would leave the package visible to everyone: fail closed
    assert check_block({"requires": {"accesFeature": "my-pkg.access"}}) == [
        ("error", "NB0601", "/neuralis/requires/accesFeature")
    ]


@pytest.mark.parametrize("bad", ["My-Pkg", "a//b", "", "@scope/", "node_modules", "fs"])
def test_package_ids(check_block, bad):
    assert check_block({"requires": {"packages": [bad]}}) == [
        ("error", "NB0602" if bad else "NB0105", "/neuralis/requires/packages/0")
    ]


def test_package_duplicates_and_self(check_block):
    block = {"requires": {"packages": ["@neuralis/brain-core", "acme-pkg", "@neuralis/brain-core"]}}
    assert check_block(block) == [
        ("warning", "NB0604", "/neuralis/requires/packages/1"),
        ("error", "NB0603", "/neuralis/requires/packages/2"),
    ]


@pytest.mark.parametrize("good", ["read", "my-pkg.read", "acme.reports.read", "a_b.c-d.0", "x" * 128])
def test_good_feature_ids(check_block, good):
    assert check_block({"requires": {"providesFeatures": [good]}}) == []
    assert check_block({"requires": {"providesFeatures": [{"id": good}]}}) == []
    assert check_block({"requires": {"accessFeature": good}}) == []


@pytest.mark.parametrize("bad", ["My.read", "my..read", ".read", "read.", "my pkg", "my/pkg", "-x", "ü", "x" * 129])
def test_bad_feature_ids(check_block, bad):
    assert check_block({"requires": {"providesFeatures": [bad, {"id": bad}]}}) == [
        ("error", "NB0605", "/neuralis/requires/providesFeatures/0"),
        ("error", "NB0605", "/neuralis/requires/providesFeatures/1/id"),
    ]
    assert check_block({"requires": {"accessFeature": bad}}) == [
        ("error", "NB0605", "/neuralis/requires/accessFeature")
    ]


def test_feature_object_form_is_exact(check_block):
    assert check_block({"requires": {"providesFeatures": [{"id": "a.b", "label": "x"}]}}) == [
        ("error", "NB0607", "/neuralis/requires/providesFeatures/0/label")
    ]
    assert check_block({"requires": {"providesFeatures": [{"title": "x"}]}}) == [
        ("error", "NB0102", "/neuralis/requires/providesFeatures/0")
    ]
    assert check_block({"requires": {"providesFeatures": [3]}}) == [
        ("error", "NB0100", "/neuralis/requires/providesFeatures/0")
    ]


@pytest.mark.parametrize(
    "features",
    [
        ["a.read", "a.read"],
        ["a.read", {"id": "a.read", "title": "Read"}],
        [{"id": "a.read"}, "a.read"],
        [{"id": "a.read"}, {"id": "a.read"}],
    ],
)
def test_duplicate_feature_ids_in_either_form(check_block, features):
    assert check_block({"requires": {"providesFeatures": features}}) == [
        ("error", "NB0606", "/neuralis/requires/providesFeatures/1")
    ]


def test_role_names(check_block):
    block = {"requires": {"providesFeatures": ["a.read"], "defaultRoleGrants": {"Owner": ["a.read"], "ops_2": []}}}
    assert check_block(block) == [("error", "NB0608", "/neuralis/requires/defaultRoleGrants/Owner")]


def test_grants_name_declared_features(check_block):
    block = {
        "requires": {
            "providesFeatures": ["a.read"],
            "accessFeature": "a.access",
            "defaultRoleGrants": {"member": ["a.read", "a.access", "admin.config", "a.read"]},
        }
    }
    assert check_block(block) == [
        ("error", "NB0610", "/neuralis/requires/defaultRoleGrants/member/3"),
    ]
    block["requires"]["defaultRoleGrants"] = {"member": ["a.read", "admin.config"], "owner": ["other.x"]}
    assert check_block(block) == [
        ("error", "NB0609", "/neuralis/requires/defaultRoleGrants/member/1"),
        ("error", "NB0609", "/neuralis/requires/defaultRoleGrants/owner/0"),
    ]


def test_grants_without_any_declaration(check_block):
    assert check_block({"requires": {"defaultRoleGrants": {"member": ["a.read"]}}}) == [
        ("error", "NB0609", "/neuralis/requires/defaultRoleGrants/member/0")
    ]


def test_grants_are_not_judged_when_the_declarations_are_broken(check_block):
    block = {"requires": {"providesFeatures": ["A"], "defaultRoleGrants": {"member": ["b.read"]}}}
    assert check_block(block) == [("error", "NB0605", "/neuralis/requires/providesFeatures/0")]
