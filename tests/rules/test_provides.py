"""provides: the closed service vocabulary, OAuth prefixes, overlap, and the first-party gate."""

from __future__ import annotations

import pytest

from neuralis_build.manifest.sections.provides import (
    oauth_prefix,
    oauth_prefixes_overlap,
    provided_services,
)
from neuralis_build.model.block import read_block
from tests.conftest import findings, manifest

ALL = [
    "runtime",
    "session-ticket-verifier",
    "agent-directory",
    "channel-gateway",
    "package-source-roots",
    "mcp-server",
    "oauth-callback:google_",
    "oauth-callback:gh_",
]


def test_every_service_is_accepted_first_party(check_tree):
    result = check_tree({"package.json": manifest({"provides": ALL})}, "first-party")
    assert findings(result) == []
    assert result.block is not None
    assert tuple(s.value for s in provided_services(result.block)) == tuple(ALL)


@pytest.mark.parametrize("trust", ["trusted", "untrusted"])
def test_dropped_below_first_party(check_tree, trust):
    # not validated further: the host drops it before it could reject anything
    result = check_tree({"package.json": manifest({"provides": ["runtime", "bogus"]})}, trust)
    assert findings(result) == [("warning", "NB0201", "/neuralis/provides")]
    assert result.block.raw == {}
    assert provided_services(result.block) == ()


def test_unknown_service(check_block):
    assert check_block({"provides": ["runtime", "Runtime", "oauth-callback"]}) == [
        ("error", "NB0202", "/neuralis/provides/1"),
        ("error", "NB0202", "/neuralis/provides/2"),
    ]


@pytest.mark.parametrize("prefix", ["ab_", "a" * 31 + "_", "acme_v2_", "a__"])
def test_good_prefixes(check_block, prefix):
    assert check_block({"provides": [f"oauth-callback:{prefix}"]}) == []


@pytest.mark.parametrize(
    "prefix",
    ["", "a_", "a" * 32 + "_", "acme", "Acme_", "1ab_", "ac-me_", "_ab_", "ac me_", "acmé_"],
)
def test_bad_prefixes(check_block, prefix):
    assert check_block({"provides": [f"oauth-callback:{prefix}"]}) == [("error", "NB0203", "/neuralis/provides/0")]


@pytest.mark.parametrize(
    ("services", "at"),
    [
        (["oauth-callback:acme_", "oauth-callback:acme_x_"], 1),
        (["oauth-callback:acme_x_", "runtime", "oauth-callback:acme_"], 2),
    ],
)
def test_overlapping_prefixes(check_block, services, at):
    assert check_block({"provides": services}) == [("error", "NB0204", f"/neuralis/provides/{at}")]


def test_prefixes_that_merely_share_letters_do_not_overlap(check_block):
    assert check_block({"provides": ["oauth-callback:acme_", "oauth-callback:acmex_"]}) == []


def test_duplicates(check_block):
    assert check_block({"provides": ["runtime", "mcp-server", "runtime"]}) == [
        ("error", "NB0205", "/neuralis/provides/2")
    ]
    # an equal prefix is the same service twice
    assert check_block({"provides": ["oauth-callback:acme_", "oauth-callback:acme_"]}) == [
        ("error", "NB0205", "/neuralis/provides/1")
    ]


def test_wrong_types(check_block):
    assert check_block({"provides": "runtime"}) == [("error", "NB0100", "/neuralis/provides")]
    assert check_block({"provides": [1]}) == [("error", "NB0100", "/neuralis/provides/0")]


def test_helpers_for_the_image_build():
    assert oauth_prefix("oauth-callback:acme_") == "acme_"
    assert oauth_prefix("runtime") is None
    assert oauth_prefix("other:acme_") is None
    assert oauth_prefixes_overlap("acme_", "acme_")
    assert oauth_prefixes_overlap("acme_", "acme_x_")
    assert oauth_prefixes_overlap("acme_x_", "acme_")
    assert not oauth_prefixes_overlap("acme_", "acmex_")
    services = provided_services(read_block({"provides": ["runtime", 3]}))
    assert [(s.value, s.at.pointer) for s in services] == [("runtime", "/neuralis/provides/0")]
    assert provided_services(read_block({"provides": "runtime"})) == ()
