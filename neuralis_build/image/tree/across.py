"""The judgements across the image's packages: namespaces and tool names, the UI modules, node's view of the tree."""

from __future__ import annotations

import os

from neuralis_build.hostprofile import HostProfile
from neuralis_build.image.judge.conflicts import Conflict, closure_conflicts
from neuralis_build.image.judge.contests import Facts, Registry, ToolContest, settle_tools, shadow_warnings, tool_owners
from neuralis_build.image.judge.moduleverdict import reported
from neuralis_build.image.judge.nodecheck import NodeVerdicts, check_with_node
from neuralis_build.image.judge.standing import Weighed
from neuralis_build.image.packages import keep
from neuralis_build.image.packages.cache import LastBuild, NodeRecord
from neuralis_build.image.packages.spec import ImageSpec
from neuralis_build.image.packages.work import Work
from neuralis_build.image.tree.staged import NB1812, StagedTree


def _loaded(works: list[Work], tree: StagedTree) -> list[tuple[Weighed, Facts]]:
    pairs: list[tuple[Weighed, Facts | None]] = [(w, w.facts) for w in works] + [(f, f.facts) for f in tree.found]
    return [(m, f) for m, f in pairs if f is not None and m.loaded]


def owners(works: list[Work], tree: StagedTree, spec: ImageSpec, host: HostProfile) -> dict[str, str]:
    """Who answers each tool name once the contests are settled (the loaded packages, the platform, MCP servers)."""
    loaded = [f for _, f in _loaded(works, tree)]
    return tool_owners(loaded, host.platform_tools, [(m.server, m.tools) for m in spec.mcp])


def settle(
    works: list[Work], tree: StagedTree, spec: ImageSpec, host: HostProfile
) -> tuple[Registry, list[ToolContest]]:
    """Admit the loaded packages (listed and discovered) into the namespaces in id order, then settle tool names.

    A package refused here takes out whatever needs it, like any refused package.
    """
    registry = Registry(host.platform_config_keys)
    losers: list[Weighed] = []
    for member, facts in sorted(_loaded(works, tree), key=lambda pair: pair[0].own.id or ""):
        problems = registry.conflicts(facts)
        if problems:
            member.standing.refuse(*problems)
            losers.append(member)
        else:
            registry.claim(facts)
    tree.refuse_found([f for f in tree.found if any(f is m for m in losers)])
    listed = {
        f"node_modules/{w.own.name}": (f"{w.own.name}@{w.own.version}", "it lost a contest")
        for w in works
        if any(w is m for m in losers) and w.staged is not None
    }
    if listed:
        tree.refuse(listed, NB1812.id)
    loaded = _loaded(works, tree)
    contests = settle_tools([f for _, f in loaded], host.platform_tools, [(m.server, m.tools) for m in spec.mcp])
    for member, facts in loaded:
        member.standing.diagnostics.extend(shadow_warnings(facts, contests))
    return registry, contests


def judge_modules(works: list[Work], tree: StagedTree, host: HostProfile) -> None:
    """Each loaded UI module's verdict (check's, handed on) against the host and the ids the loaded packages publish."""
    from neuralis_build.record.verdict import judge_module

    loaded = _loaded(works, tree)
    available = {i for _, f in loaded for i in f.published}
    for member, facts in loaded:
        path = member.own.path
        if facts.module is not None and path is not None:
            verdict = facts.verdict
            if verdict is None:  # a cache record written before verdicts were handed on: judge from disk once
                verdict = judge_module(
                    tree.root.joinpath(*path.split("/")), facts.module, host, set(), package_id=facts.id
                )
            member.standing.module = reported(verdict, host, available)


def closure_facts(
    works: list[Work], tree: StagedTree, host: HostProfile, kept: LastBuild | None
) -> tuple[list[Conflict], NodeRecord]:
    """Ask the real node about every edge and peer range, then name the closure's conflicts.

    With ``kept`` (the tree is the last build's, untouched) node's verdicts are taken from that build
    when the edges, the peer ranges and the node binary are the same. Returns the conflicts and what
    the next build needs to do the same.
    """
    closure = tree.closure
    edges = [
        (src, name, dst)
        for src, targets in sorted(closure.edges.items())
        if src in closure.placed
        for name, dst in sorted(targets.items())
    ]
    react = {"react", "react-dom"}
    peers = sorted({(p.path, p.name, p.range) for p in closure.host_peers if p.name in react})
    ranges = [(r, host.react_major) for _, _, r in peers]
    key = keep.node_key(edges, ranges)
    reused = keep.kept_node_verdicts(kept, key, len(edges)) if kept is not None else None
    if reused is not None:
        verdicts = NodeVerdicts(*reused)
    else:
        at = tree.root.joinpath
        verdicts = check_with_node([(at(*s.split("/")), n, at(*d.split("/"))) for s, n, d in edges], ranges)
        # the tree's own paths, not where it was staged: the same tree gives the same words
        prefix = os.path.realpath(tree.root) + os.sep
        verdicts = NodeVerdicts([v.replace(prefix, "") if v else v for v in verdicts.edges], verdicts.peers)
    conflicts = [
        Conflict("resolution", name, "error", f"{src} → {name}: {problem}")
        for (src, name, _), problem in zip(edges, verdicts.edges, strict=True)
        if problem is not None
    ]
    listed = {w.own.name: w.own.version or "" for w in works if w.alive and w.own.name}
    conflicts += closure_conflicts(
        closure, listed, tree.host_names, host.react_major, dict(zip(peers, verdicts.peers, strict=True))
    )
    return conflicts, NodeRecord(key, tuple(verdicts.edges), tuple(verdicts.peers))
