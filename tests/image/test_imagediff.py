"""The image diff's rules, on reports written here: versions compared as versions, each change said once."""

from __future__ import annotations

from typing import Any

from neuralis_build.cli.imagediff_cmd import markdown, size_text
from neuralis_build.image.output.diff import diff_reports


def row(name: str, version: str, chain: list[str], **extra: Any) -> dict[str, Any]:
    return {"path": f"node_modules/{name}", "name": name, "version": version, "chain": chain, **extra}


def report(*closure: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"packages": [], "closure": list(closure), **extra}


def test_versions_are_compared_as_versions_and_every_copy_counts() -> None:
    old = report(row("ms", "2.1.9", ["a", "ms"]), row("debug", "4.4.3", ["a", "debug"]), row("x", "1.0.0", ["a", "x"]))
    new = report(
        row("ms", "2.1.10", ["a", "ms"]),  # 10 > 9: an upgrade, though "2.1.10" < "2.1.9" as text
        row("debug", "4.4.3-rc.1", ["a", "debug"]),
        row("x", "1.0.0", ["a", "x"]),
        row("x", "0.9.0", ["b", "y", "x"]),  # a second copy beside the same newest version
    )
    diff = diff_reports(old, new)
    assert [(p.kind, p.name, p.old, p.new, p.chain) for p in diff.packages] == [
        ("downgraded", "debug", ("4.4.3",), ("4.4.3-rc.1",), ("a", "debug")),
        ("upgraded", "ms", ("2.1.9",), ("2.1.10",), ("a", "ms")),
        ("changed", "x", ("1.0.0",), ("0.9.0", "1.0.0"), ("a", "x")),
    ]


def test_tool_owners_of_older_reports_are_compared_on_the_contested_names_alone() -> None:
    contest = {"name": "lookup", "owner": "acme-a", "shadowed": ["mcp:s"]}
    old = report(tools=[])
    new = report(tools=[contest])
    [change] = diff_reports(old, new).tools
    assert (change.name, change.old, change.new, change.contested, change.was_contested) == (
        "lookup",
        None,
        "acme-a",
        True,
        False,
    )
    owners = report(tools=[], toolOwners={"lookup": "acme-a", "other": "acme-b"})
    moved = report(tools=[], toolOwners={"lookup": "acme-c", "other": "acme-b"})
    assert [(t.name, t.old, t.new) for t in diff_reports(owners, moved).tools] == [("lookup", "acme-a", "acme-c")]


def test_refusals_scripts_and_sizes() -> None:
    refused = {
        "name": "acme-a",
        "version": "1.0.0",
        "source": "a",
        "status": "refused",
        "diagnostics": [{"severity": "error", "code": "NB1812", "message": "it needs x"}],
    }
    loaded = {**refused, "status": "loaded", "diagnostics": []}
    works = {"status": "works", "detail": None}
    fails = {"status": "fails", "detail": "boom"}
    script = {"path": "node_modules/b", "name": "b", "version": "1.0.0", "scripts": {"install": "x"}}
    old = {
        "packages": [loaded, {**refused, "name": "acme-c", "source": "c"}],
        "closure": [],
        "scripts": [{**script, "load": works}],
        "size": {"files": 10, "bytes": 1000, "disk": 900},
    }
    new = {
        "packages": [refused, {**loaded, "name": "acme-c", "source": "c"}],
        "closure": [row("b", "1.0.0", ["b"], size={"files": 3, "bytes": 2500})],
        "scripts": [{**script, "load": fails}, {**script, "name": "c", "path": "node_modules/c", "load": works}],
        "size": {"files": 12, "bytes": 3500, "disk": 3400},
    }
    diff = diff_reports(old, new)
    assert [(r.name, r.code, r.message) for r in diff.refusals] == [("acme-a", "NB1812", "it needs x")]
    assert diff.admitted == ["acme-c"]
    assert [(s.name, s.load, s.was) for s in diff.scripts] == [("b", fails, works), ("c", works, None)]
    assert diff.size.delta("bytes") == 2500 and diff.size.movers == (("b", 0, 2500),)
    assert "| `b` | 0 B | 2.5 kB |" in markdown(diff)
    assert diff_reports(report(), report()).empty


def test_sizes_read_as_people_read_them() -> None:
    assert [size_text(n) for n in (0, 999, 1000, 1_234_567, 2 * 10**9)] == [
        "0 B",
        "999 B",
        "1.0 kB",
        "1.2 MB",
        "2.0 GB",
    ]
    assert size_text(-1500, signed=True) == "-1.5 kB" and size_text(None) == "?"
