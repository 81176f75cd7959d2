"""What the report says about the closure: every installed package, the conflicts named, the scripts not run."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from neuralis_build.image.layout.graph import Closure
from neuralis_build.image.layout.materialize import PackageFacts
from neuralis_build.npm.ranges import satisfies
from neuralis_build.util.trust import Trust

ConflictKind = Literal["versions", "listed-version", "peer", "host-package", "missing", "resolution", "engines", "load"]


@dataclass(frozen=True)
class Installed:
    """One installed package of the closure, as the report, the lock and the SBOM describe it."""

    path: str
    name: str
    version: str
    integrity: str | None
    resolved: str | None
    license: str | None
    chain: tuple[str, ...]
    trust: Trust
    flags: tuple[str, ...] = ()  # bundled, optional, peer
    scripts: tuple[tuple[str, str], ...] = ()  # install scripts that were not run

    @property
    def from_registry(self) -> bool:
        """Fetched from a registry: a listed package's ``resolved`` is its tarball (``file:``), a bundled one has
        none, and the lock check lets no other URL through but a tarball of a configured registry
        (``resolve.not_from_registry``)."""
        return "bundled" not in self.flags and (self.resolved or "").startswith(("https://", "http://"))

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "name": self.name,
            "version": self.version,
            "integrity": self.integrity,
            "resolved": self.resolved,
            "license": self.license,
            "chain": list(self.chain),
            "trust": self.trust,
            "flags": list(self.flags),
        }

    def to_toml(self) -> dict[str, Any]:
        data = {k: v for k, v in self.to_json().items() if v is not None and k != "flags"}
        if self.flags:
            data["flags"] = list(self.flags)
        return data


@dataclass(frozen=True)
class Conflict:
    """A fact about the closure a person must hear about: named, never silent."""

    kind: ConflictKind
    name: str
    severity: Literal["error", "warning"]
    message: str
    path: str | None = None  # the installed folder it is about, when it is about one (not in the report's JSON)

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "name": self.name, "severity": self.severity, "message": self.message}


def installed_of(closure: Closure, package_facts: dict[str, PackageFacts]) -> list[Installed]:
    """Every placed package, sorted by path."""
    out = []
    for path, p in sorted(closure.placed.items()):
        own = package_facts.get(path)
        flags = tuple(
            f for f, on in (("bundled", p.node.in_bundle), ("optional", p.node.optional), ("peer", p.node.peer)) if on
        )
        out.append(
            Installed(
                path=path,
                name=p.node.package_name,
                version=p.node.version,
                integrity=p.node.integrity,
                resolved=p.node.resolved,
                license=p.node.license or (own.npm.license if own else None),
                chain=p.chain,
                trust=p.trust,
                flags=flags,
                scripts=tuple(sorted(own.scripts.items())) if own else (),
            )
        )
    return out


def _via(chain: tuple[str, ...]) -> str:
    return " → ".join(chain)


def closure_conflicts(
    closure: Closure,
    listed_versions: dict[str, str],
    host_names: frozenset[str],
    react_major: int,
    peer_verdicts: dict[tuple[str, str, str], bool | None],
) -> list[Conflict]:
    """Versions side by side, a listed package at another version, peers the host cannot meet, gaps."""
    out: list[Conflict] = []
    by_name: dict[str, dict[str, list[Needer]]] = {}
    finders = _finders(closure)
    for path, p in sorted(closure.placed.items()):
        name, version = p.node.package_name, p.node.version
        if path in closure.listed:
            continue
        if name in listed_versions:
            if version != listed_versions[name]:
                out.append(
                    Conflict(
                        "listed-version",
                        name,
                        "warning",
                        f"{name}@{version} is installed for {_via(p.chain)} beside the listed {name}@"
                        f"{listed_versions[name]}: its range excludes the listed version, so npm nested another copy",
                    )
                )
            continue
        if name in host_names:
            out.append(
                Conflict(
                    "host-package",
                    name,
                    "warning",
                    f"{name}@{version} is installed at {path} for {_via(p.chain)}, although the host provides {name}: "
                    "that package depends on its own copy instead of declaring a peer",
                )
            )
        # Who needs this copy: every package that finds it (the walk placed it through one of their edges).
        by_name.setdefault(name, {}).setdefault(version, []).extend(finders.get(path, []))
    for name, versions in sorted(by_name.items()):
        if len(versions) > 1:
            out.append(Conflict("versions", name, "warning", _versions_message(name, versions)))
    seen: set[tuple[str, str, str]] = set()
    for peer in closure.host_peers:
        key = (peer.path, peer.name, peer.range)
        if key in seen or peer_verdicts.get(key) is not False:
            continue
        seen.add(key)
        out.append(host_peer_conflict(peer.chain, peer.name, peer.range, react_major))
    out += _unmet_peers(closure, host_names)
    for m in closure.missing:
        out.append(
            Conflict(
                "missing",
                m.name,
                "warning",
                f"{_via(m.chain)} needs {m.name}@{m.spec} ({m.kind} dependency), which is not installed: {m.reason}",
            )
        )
    return out


def host_peer_conflict(chain: tuple[str, ...], name: str, spec: str, react_major: int) -> Conflict:
    """A peer on the host's React (``react``, ``react-dom``) whose range the host's React major does not meet
    (node's ``semver.intersects``, nodecheck.py, decides that)."""
    return Conflict(
        "peer",
        name,
        "warning",
        f"{_via(chain)} declares the peer {name}@{spec}, which the host's React {react_major} does not meet; the "
        f"image installs no {name} (the host provides it)",
    )


def engine_conflicts(closure: Closure, node: str, where: str) -> list[Conflict]:
    """Each installed package whose ``engines.node`` the host's Node does not satisfy: npm warns (EBADENGINE) and
    installs it, and it may fail at run time. ``where`` says whose Node ``node`` is."""
    out = []
    for path, p in sorted(closure.placed.items()):
        found = engine_conflict(p.node.package_name, p.node.version, path, p.chain, p.node.engines_node, node, where)
        if found is not None:
            out.append(found)
    return out


def engine_conflict(
    name: str, version: str, path: str, chain: tuple[str, ...], wanted: str | None, node: str, where: str
) -> Conflict | None:
    """The conflict of one installed package whose ``engines.node`` range ``wanted`` excludes Node ``node``."""
    if wanted is None or satisfies(node, wanted) is not False:
        return None
    return Conflict(
        "engines",
        name,
        "warning",
        f"{name}@{version} ({path}, via {_via(chain)}) declares engines.node {wanted!r}, which Node {node} "
        f"({where}) does not satisfy: npm warns EBADENGINE and installs it, and it may fail at run time",
    )


def _unmet_peers(closure: Closure, host_names: frozenset[str]) -> list[Conflict]:
    """A peer a package finds at a version its range excludes. npm (``--strict-peer-deps=false``) warns and goes
    on when its layout leaves no place for a matching copy where the package looks: ajv-keywords@5
    (peer ajv ^8) beside its listed package's own ajv@6 finds ajv@6 and fails when it loads."""
    out: list[Conflict] = []
    for path, p in sorted(closure.placed.items()):
        for name, spec in sorted(p.node.peer_dependencies.items()):
            target = closure.edges.get(path, {}).get(name)
            if name in host_names or target is None or target not in closure.placed:
                continue  # the host's (judged against its React), or missing (named as such unless optional)
            version = closure.placed[target].node.version
            if satisfies(version, spec) is not False:
                continue
            owner = p.node.package_name
            out.append(
                Conflict(
                    "peer",
                    name,
                    "warning",
                    f"{_via(p.chain)} declares the peer {name}@{spec}, but the {name} it finds is {version} "
                    f"({target}): npm found no place for a matching copy where {owner} looks,"
                    f" so {owner} may fail when it loads {name}; depend on a "
                    f"version of {owner} whose peer range admits {name}@{version}, or on {name}@{spec} yourself",
                )
            )
    return out


@dataclass(frozen=True, order=True)
class Needer:
    """A package whose dependency resolves to one copy: its name, the range it asks, the listed package whose
    tree it is in (itself, for a listed package)."""

    name: str
    range: str
    root: str
    listed: bool

    def __str__(self) -> str:
        return f"{self.name} ({self.range})" if self.listed else f"{self.name} ({self.range}, under {self.root})"


def _versions_message(name: str, versions: dict[str, list[Needer]]) -> str:
    """Why one package is installed at several versions, said only as far as it is true: whether the ranges
    meet (computed, npm's semantics), and what npm did to give each needer its copy."""
    from neuralis_build.npm.ranges import meeting_version

    parts = [f"{v} for {', '.join(str(n) for n in sorted(set(who)))}" for v, who in sorted(versions.items())]
    head = f"{name} is installed at {len(versions)} versions ({'; '.join(parts)})"
    ranges = sorted({n.range for who in versions.values() for n in who})
    try:
        meet = meeting_version(ranges, sorted(versions))
    except ValueError:  # a range npm reads and semantic_version cannot (a tag, an alias): say only what npm did
        return f"{head}: npm nested each version under the package that needs it"
    if meet is None:
        return f"{head}: no version satisfies every range, so npm nested each version under the package that needs it"
    return (
        f"{head}: the ranges meet ({meet} satisfies every one), but npm kept the copy it placed first where the "
        "others look and nested another for the range it excludes"
    )


def _finders(closure: Closure) -> dict[str, list[Needer]]:
    """For each placed path, every package whose dependency resolves to it (``debug`` 2.6.9 for express,
    body-parser, finalhandler and send), named with the range it asks and the listed package it sits under."""
    found: dict[str, list[Needer]] = {}
    for src, targets in closure.edges.items():
        placed = closure.placed.get(src)
        if placed is None:
            continue
        node = placed.node
        for dep, dst in targets.items():
            spec = node.dependencies.get(dep) or node.optional_dependencies.get(dep) or node.peer_dependencies.get(dep)
            found.setdefault(dst, []).append(Needer(node.package_name, spec or "*", placed.root, src in closure.listed))
    return found
