"""access: access.trust is ignored with a warning at every tier and left out of the effective manifest."""

from __future__ import annotations

import pytest

from tests.conftest import findings, manifest


@pytest.mark.parametrize("trust", ["first-party", "trusted", "untrusted"])
@pytest.mark.parametrize("claimed", ["first-party", "untrusted", 7])
def test_trust_is_ignored_at_every_tier(check_tree, trust, claimed):
    result = check_tree({"package.json": manifest({"access": {"trust": claimed}})}, trust)
    assert findings(result) == [("warning", "NB1501", "/neuralis/access/trust")]
    assert result.ok
    assert result.block.raw == {"access": {}}


def test_message_names_the_claim_and_the_assigned_tier(check_tree):
    result = check_tree({"package.json": manifest({"access": {"trust": "first-party"}})}, "untrusted")
    (d,) = result.diagnostics
    assert '"first-party"' in d.message
    assert "untrusted" in d.message


def test_empty_access_is_fine(check_block):
    assert check_block({"access": {}}) == []


def test_other_keys_are_ignored_with_a_warning(check_block):
    assert check_block({"access": {"roles": ["admin"]}}) == [("warning", "NB1502", "/neuralis/access/roles")]


def test_access_is_an_object(check_block):
    assert check_block({"access": "first-party"}) == [("error", "NB0100", "/neuralis/access")]
