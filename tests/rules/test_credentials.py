"""credentials[]: exact shape, id charset and length, reserved namespaces, duplicates."""

from __future__ import annotations

import pytest

GOOD = [
    {"id": "llm.anthropic", "label": "Anthropic API Key", "category": "llm"},
    {"id": "acme.apiKey", "label": "Acme API Key", "category": "search", "oauth": True},
    {"id": "_private-key.v2", "label": "Private"},
]


def test_good_credentials_pass(check_block):
    for trust in ("first-party", "trusted", "untrusted"):
        assert check_block({"credentials": GOOD}, trust) == []


def test_shape_is_exact(check_block):
    assert check_block({"credentials": [{"id": "a", "label": "A", "secret": "x"}]}) == [
        ("error", "NB1001", "/neuralis/credentials/0/secret")
    ]
    assert check_block({"credentials": [{"id": "a"}]}) == [("error", "NB0102", "/neuralis/credentials/0")]
    assert check_block({"credentials": [{"id": "a", "label": "A", "oauth": "yes"}]}) == [
        ("error", "NB0100", "/neuralis/credentials/0/oauth")
    ]


@pytest.mark.parametrize("bad", ["1abc", ".hidden", "a/b", "with space", "", "ü-key"])
def test_id_charset(check_block, bad):
    assert check_block({"credentials": [{"id": bad, "label": "L"}]}) == [
        ("error", "NB1002", "/neuralis/credentials/0/id")
    ]


def test_id_length(check_block):
    assert check_block({"credentials": [{"id": "a" * 128, "label": "L"}]}) == []
    assert check_block({"credentials": [{"id": "a" * 129, "label": "L"}]}) == [
        ("error", "NB1003", "/neuralis/credentials/0/id")
    ]


@pytest.mark.parametrize(
    "reserved", ["git.github.com.pat", "git.gitlab.oauth.token", "channel", "channel.slack", "mcp.github.token"]
)
def test_reserved_namespaces_are_first_party_only(check_block, reserved):
    block = {"credentials": [{"id": reserved, "label": "L"}]}
    assert check_block(block, "first-party") == []
    for trust in ("trusted", "untrusted"):
        assert check_block(block, trust) == [("error", "NB1004", "/neuralis/credentials/0/id")]


def test_own_namespace_is_free_at_any_tier(check_block):
    block = {"credentials": [{"id": "gitlab.token", "label": "L"}, {"id": "mcpish.key", "label": "L"}]}
    assert check_block(block, "untrusted") == []


def test_duplicate_ids(check_block):
    block = {"credentials": [{"id": "a.b", "label": "1"}, {"id": "a.b", "label": "2"}]}
    assert check_block(block) == [("error", "NB1005", "/neuralis/credentials/1/id")]
