"""The fixed rule for contested tool names, and the singleton, config-key and OAuth-prefix namespaces."""

from __future__ import annotations

from pathlib import Path

from neuralis_build.check import check_package
from neuralis_build.image.judge.contests import (
    PLATFORM,
    Facts,
    Registry,
    ToolContest,
    facts_of,
    settle_tools,
    shadow_warnings,
)
from neuralis_build.package import load_package
from neuralis_build.util.diagnostics import Diagnostic
from neuralis_build.util.trust import Trust
from tests.conftest import build_file_tree, manifest


def pkg(
    id: str,
    trust: Trust = "first-party",
    tools: tuple[str, ...] = (),
    services: tuple[str, ...] = (),
    keys: tuple[str, ...] = (),
) -> Facts:
    return Facts(
        id=id,
        trust=trust,
        tools=tuple((t, "package.json", f"/neuralis/tools/{i}/name") for i, t in enumerate(tools)),
        services=tuple((s, "package.json", f"/neuralis/provides/{i}") for i, s in enumerate(services)),
        config_keys=tuple((k, "package.json", f"/neuralis/configSettings/{i}/key") for i, k in enumerate(keys)),
    )


def test_a_name_with_one_claimant_is_not_contested() -> None:
    assert settle_tools([pkg("a", tools=("a_one",)), pkg("b", tools=("b_one",))], ["read_file"], []) == []


def test_first_party_beats_a_lexically_smaller_untrusted_package() -> None:
    contests = settle_tools([pkg("aaa", "untrusted", ("deploy",)), pkg("zzz", "first-party", ("deploy",))], [], [])
    assert contests == [ToolContest("deploy", "zzz", ("aaa",))]


def test_between_first_party_claimants_the_smaller_id_wins_platform_included() -> None:
    contests = settle_tools(
        [pkg("zeta", tools=("read_file",)), pkg("@acme/files", tools=("read_file",))], ["read_file"], []
    )
    # "@acme/files" < "@neuralis/platform" < "zeta": an added package can take a name from the platform
    assert contests == [ToolContest("read_file", "@acme/files", (PLATFORM, "zeta"))]


def test_the_platform_keeps_its_name_against_a_larger_first_party_id() -> None:
    assert settle_tools([pkg("acme-files", tools=("read_file",))], ["read_file"], []) == [
        ToolContest("read_file", PLATFORM, ("acme-files",))
    ]


def test_without_first_party_the_smaller_id_wins() -> None:
    contests = settle_tools([pkg("b-pkg", "trusted", ("search",)), pkg("a-pkg", "untrusted", ("search",))], [], [])
    assert contests == [ToolContest("search", "a-pkg", ("b-pkg",))]


def test_any_package_beats_an_mcp_server_and_servers_order_by_name() -> None:
    contests = settle_tools(
        [pkg("z-untrusted", "untrusted", ("create_issue",))],
        [],
        [("linear", ["create_issue", "list_issues"]), ("github", ["create_issue", "list_issues"])],
    )
    assert contests == [
        ToolContest("create_issue", "z-untrusted", ("mcp:github", "mcp:linear")),
        ToolContest("list_issues", "mcp:github", ("mcp:linear",)),
    ]


def test_a_shadowed_tool_is_a_warning_at_its_pointer() -> None:
    loser = pkg("zzz", tools=("keep_me", "deploy"))
    contests = settle_tools([pkg("aaa", tools=("deploy",)), loser], [], [])
    [warning] = shadow_warnings(loser, contests)
    assert (warning.severity, warning.code, warning.file, warning.pointer) == (
        "warning",
        "NB1820",
        "package.json",
        "/neuralis/tools/1/name",
    )
    assert warning.message.startswith('the tool name "deploy" is answered by aaa;')


def test_a_shadowed_tool_after_an_overridden_one_is_warned_at_its_own_line(tmp_path: Path) -> None:
    """Regression: the image pointed NB1820 at the wrong tool, indexing the effective block, whose tools array
    had shifted after the inline tool a file overrides was dropped (contests.facts_of)."""
    tools = [{"name": "acme_sync", "description": "inline"}, {"name": "deploy", "description": "D"}]
    root = build_file_tree(
        tmp_path,
        {"package.json": manifest({"tools": tools}, name="zzz"), "tools/acme_sync.json": {"name": "acme_sync"}},
    )
    loser = facts_of(check_package(load_package(root), "first-party"))
    contests = settle_tools([pkg("aaa", tools=("deploy",)), loser], [], [])
    [warning] = shadow_warnings(loser, contests)
    assert (warning.code, warning.pointer) == ("NB1820", "/neuralis/tools/1/name")  # deploy's line, not acme_sync's


def test_facts_read_inline_and_file_tools_and_drop_first_party_fields_below_first_party(tmp_path: Path) -> None:
    block = {
        "tools": [{"name": "acme_status"}, {"name": "acme_deploy"}],
        "provides": ["runtime"],
        "configSettings": [{"key": "acmeLimit"}],
        "app": {"module": {"entry": "dist/app/host.js", "provides": ["@acme/x/app/charts"]}},
    }
    root = build_file_tree(tmp_path, {"package.json": manifest(block, name="@acme/x"), "tools/acme_deploy.ts": ""})
    package = load_package(root)
    first = facts_of(check_package(package, "first-party"))
    assert first.id == "@acme/x"
    assert first.tools == (
        ("acme_deploy", "tools/acme_deploy.ts", ""),
        ("acme_status", "package.json", "/neuralis/tools/0/name"),
    )
    assert first.services == (("runtime", "package.json", "/neuralis/provides/0"),)
    assert first.config_keys == (("acmeLimit", "package.json", "/neuralis/configSettings/0/key"),)
    assert first.published == ("@acme/x/app/charts",)
    untrusted = facts_of(check_package(package, "untrusted"))
    assert (untrusted.services, untrusted.config_keys, untrusted.published, untrusted.module) == ((), (), (), None)
    assert Facts.from_json(first.to_json()) == first


def codes(diagnostics: list[Diagnostic]) -> list[tuple[str, str, str]]:
    return [(d.severity, d.code, d.pointer) for d in diagnostics]


def test_a_singleton_service_has_one_provider_and_the_error_names_both() -> None:
    registry = Registry()
    first = pkg("a-runtime", services=("runtime", "mcp-server"))
    second = pkg("b-runtime", services=("runtime",))
    assert registry.conflicts(first) == []
    registry.claim(first)
    [problem] = registry.conflicts(second)
    assert codes([problem]) == [("error", "NB1821", "/neuralis/provides/0")]
    assert "a-runtime" in problem.message and "b-runtime" in problem.message
    assert registry.providers() == {"mcp-server": ["a-runtime"], "runtime": ["a-runtime"]}


def test_a_config_key_has_one_owner_the_platform_included() -> None:
    registry = Registry(["maxAgentSteps"])
    registry.claim(pkg("a", keys=("acmeLimit",)))
    problems = registry.conflicts(pkg("b", keys=("maxAgentSteps", "acmeLimit", "bOwn")))
    assert codes(problems) == [
        ("error", "NB1822", "/neuralis/configSettings/0/key"),
        ("error", "NB1822", "/neuralis/configSettings/1/key"),
    ]
    assert problems[0].message == (
        'the config key "maxAgentSteps" is the platform\'s own config key; a key has exactly one owning declarer'
    )
    assert (
        problems[1].message
        == 'the config key "acmeLimit" is already declared by a; a key has exactly one owning declarer'
    )


def test_oauth_prefixes_cannot_overlap() -> None:
    registry = Registry()
    registry.claim(pkg("a", services=("oauth-callback:gh_",)))
    assert codes(registry.conflicts(pkg("b", services=("oauth-callback:gh_ent_",)))) == [
        ("error", "NB1823", "/neuralis/provides/0")
    ]
    assert codes(registry.conflicts(pkg("c", services=("oauth-callback:g_",)))) == []
    assert codes(registry.conflicts(pkg("d", services=("oauth-callback:gh_",)))) == [
        ("error", "NB1821", "/neuralis/provides/0")
    ]
