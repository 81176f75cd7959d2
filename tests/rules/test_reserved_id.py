"""The platform's own claimant id, @neuralis/platform, is not a package's to take below first-party (NB0112)."""

from __future__ import annotations

import pytest

from neuralis_build.image.judge.contests import PLATFORM


@pytest.mark.parametrize("trust", ["trusted", "untrusted"])
def test_a_package_named_like_the_platform_is_refused_below_first_party(check_block, trust):
    assert PLATFORM == "@neuralis/platform"
    assert check_block({}, trust, name=PLATFORM) == [("error", "NB0112", "/name")]
    assert check_block({"id": PLATFORM}, trust, name="acme-pkg") == [
        ("warning", "NB0111", "/neuralis/id"),
        ("error", "NB0112", "/neuralis/id"),
    ]


def test_the_first_party_platform_package_may_carry_its_own_id(check_block):
    assert check_block({}, "first-party", name=PLATFORM) == []


def test_another_package_of_the_scope_is_not_the_platform(check_block):
    assert check_block({}, "untrusted", name="@neuralis/platform-tools") == []
