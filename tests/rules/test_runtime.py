"""runtime: closed objects, closed permission vocabularies, known descriptive values, hosted tools."""

from __future__ import annotations

import pytest

SPEC_EXAMPLE = {
    "type": "wasm",
    "binding": "none",
    "permissions": {"fs": "data-only", "net": "none", "exec": False},
    "hosted": {"tools": "all"},
    "skillScripts": "none",
}


@pytest.mark.parametrize("trust", ["first-party", "trusted", "untrusted"])
def test_spec_example_passes_at_every_tier(check_block, trust):
    assert check_block({"runtime": SPEC_EXAMPLE}, trust) == []


def test_minimal_and_full_vocabularies(check_block):
    assert check_block({"runtime": {"type": "node"}}) == []
    for fs in ("none", "data-only", "full"):
        for net in ("none", "full"):
            block = {"runtime": {"type": "wasm", "permissions": {"fs": fs, "net": net, "exec": True}}}
            assert check_block(block) == []
    for binding in ("none", "wasi", "component"):
        assert check_block({"runtime": {"type": "wasm", "binding": binding, "skillScripts": "sandboxed"}}) == []


def test_type_is_required(check_block):
    assert check_block({"runtime": {"binding": "none"}}) == [("error", "NB0102", "/neuralis/runtime")]


@pytest.mark.parametrize("key", ["type", "binding", "skillScripts"])
def test_unknown_descriptive_values_warn(check_block, key):
    runtime = {"type": "wasm", key: "quantum"}
    assert check_block({"runtime": runtime}) == [("warning", "NB0302", f"/neuralis/runtime/{key}")]


@pytest.mark.parametrize(("key", "value"), [("fs", "read-only"), ("net", "outbound"), ("fs", "FULL")])
def test_permissions_are_closed(check_block, key, value):
    block = {"runtime": {"type": "wasm", "permissions": {key: value}}}
    assert check_block(block) == [("error", "NB0303", f"/neuralis/runtime/permissions/{key}")]


def test_exec_is_a_boolean(check_block):
    block = {"runtime": {"type": "wasm", "permissions": {"exec": "no"}}}
    assert check_block(block) == [("error", "NB0100", "/neuralis/runtime/permissions/exec")]


@pytest.mark.parametrize(
    ("runtime", "pointer"),
    [
        ({"type": "wasm", "permision": {}}, "/neuralis/runtime/permision"),
        ({"type": "wasm", "permissions": {"disk": "none"}}, "/neuralis/runtime/permissions/disk"),
        ({"type": "wasm", "hosted": {"skills": "all"}}, "/neuralis/runtime/hosted/skills"),
    ],
)
def test_every_object_is_closed(check_block, runtime, pointer):
    assert check_block({"runtime": runtime}) == [("error", "NB0301", pointer)]


def test_hosted_tools_values(check_block):
    assert check_block({"runtime": {"type": "wasm", "hosted": {"tools": "none"}}}) == []
    assert check_block({"runtime": {"type": "wasm", "hosted": {"tools": "some"}}}) == [
        ("error", "NB0306", "/neuralis/runtime/hosted/tools")
    ]
    assert check_block({"runtime": {"type": "wasm", "hosted": {"tools": 3}}}) == [
        ("error", "NB0100", "/neuralis/runtime/hosted/tools")
    ]


def test_hosted_tools_list_names_the_package_tools(check_block):
    files = {"tools/acme_status.ts": "export default {}\n"}
    block = {"runtime": {"type": "wasm", "hosted": {"tools": ["acme_status", "acme_missing"]}}}
    assert check_block(block, files=files) == [("warning", "NB0304", "/neuralis/runtime/hosted/tools/1")]


def test_hosted_tools_list_counts_inline_tools(check_block):
    block = {
        "runtime": {"type": "wasm", "hosted": {"tools": ["acme_inline", "acme_missing"]}},
        "tools": [{"name": "acme_inline", "description": "inline"}],
    }
    # tools[] itself is another section's rule; only this section's findings matter here
    ours = [f for f in check_block(block) if f[1].startswith("NB03")]
    assert ours == [("warning", "NB0304", "/neuralis/runtime/hosted/tools/1")]


def test_hosted_tools_list_duplicates(check_block):
    files = {"tools/acme_status.ts": "export default {}\n"}
    block = {"runtime": {"type": "wasm", "hosted": {"tools": ["acme_status", "acme_status"]}}}
    assert check_block(block, files=files) == [("error", "NB0305", "/neuralis/runtime/hosted/tools/1")]
