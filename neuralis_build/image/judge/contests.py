"""Across packages: tool-name contests, service providers, config keys and OAuth prefixes.

Each loaded package's claims are read once from its judged package (``check``'s effective block, after
the drops of its tier, with pointers back to where each claim sits in package.json) and its directory
contract; the rules below settle them in a fixed order, never by load order.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from neuralis_build.judged import JudgedPackage
from neuralis_build.manifest.sections.config import config_keys
from neuralis_build.manifest.sections.contributions import tool_sources
from neuralis_build.manifest.sections.identity import PLATFORM_ID
from neuralis_build.manifest.sections.provides import oauth_prefix, oauth_prefixes_overlap, provided_services
from neuralis_build.model.block import Module, read_module
from neuralis_build.npm.packagejson import MANIFEST
from neuralis_build.util.diagnostics import Diagnostic, code
from neuralis_build.util.trust import Trust

if TYPE_CHECKING:
    from neuralis_build.record.verdict import ModuleVerdict as CheckedVerdict

NB1820 = code("NB1820", "tool-shadowed", "another claimant answers this tool name; this package's tool is shadowed")
NB1821 = code("NB1821", "service-taken", "a singleton service already has a provider")
NB1822 = code("NB1822", "config-key-taken", "a config key is already declared by another package or the platform")
NB1823 = code("NB1823", "oauth-prefix-overlap", "an OAuth callback prefix overlaps another package's")

PLATFORM = PLATFORM_ID
"""The claimant id of the host profile's own tools and config keys (a first-party claimant)."""
MCP_PREFIX = "mcp:"

Claim = tuple[str, str, str]
"""(value, file, pointer): what a package claims and where it says so."""


@dataclass(frozen=True)
class Facts:
    """What one package claims across the image, with where each claim sits."""

    id: str
    trust: Trust
    tools: tuple[Claim, ...] = ()
    services: tuple[Claim, ...] = ()
    config_keys: tuple[Claim, ...] = ()
    published: tuple[str, ...] = ()
    module: Module | None = None
    verdict: CheckedVerdict | None = None  # check's verdict on the module, handed on (never judged twice)

    @property
    def first_party(self) -> bool:
        return self.trust == "first-party"

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "trust": self.trust,
            "tools": [list(c) for c in self.tools],
            "services": [list(c) for c in self.services],
            "configKeys": [list(c) for c in self.config_keys],
            "published": list(self.published),
            "module": self.module.raw if self.module is not None else None,
            "verdict": self.verdict.to_json() if self.verdict is not None else None,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Facts:
        def claims(key: str) -> tuple[Claim, ...]:
            return tuple((str(a), str(b), str(c)) for a, b, c in data[key])

        return cls(
            id=data["id"],
            trust=data["trust"],
            tools=claims("tools"),
            services=claims("services"),
            config_keys=claims("configKeys"),
            published=tuple(data["published"]),
            module=_module(data["module"]),
            verdict=_verdict(data.get("verdict")),
        )


def _module(data: Any) -> Module | None:
    """A stored ``app.module`` as typed values; a record whose module is not an object is refused."""
    module = read_module(data)
    if data is not None and module is None:
        raise ValueError("module")
    return module


def _verdict(data: Any) -> CheckedVerdict | None:
    from neuralis_build.record.verdict import ModuleVerdict

    return ModuleVerdict.from_json(data) if data is not None else None


def facts_of(judged: JudgedPackage) -> Facts:
    """The claims of a judged package: the sections' own readers, each claim with its pointer in package.json.

    Read from what the host loads at the package's tier (``judged.block``); every value keeps the
    pointer it was declared at, so a warning lands on the line that declares the claim (an inline tool
    after one a file overrides keeps its own line).
    """
    package = judged.package
    block = judged.block
    assert package is not None
    inline: dict[str, str] = {}
    for tool in block.tools if block is not None else ():
        if tool.name is not None:
            inline.setdefault(tool.name, tool.at.child("name").pointer)
    tools = tuple(
        (name, file, inline.get(name, "") if file == MANIFEST else "")
        for name, file in tool_sources(package, block).items()
    )
    first_party = judged.trust == "first-party"
    services: list[Claim] = []
    keys: list[Claim] = []
    if first_party and block is not None:  # provides and configSettings count for first-party packages only
        listed: dict[str, str] = {}
        for service in provided_services(block):
            listed.setdefault(service.value, service.at.pointer)
        services = [(s.value, MANIFEST, listed[s.value]) for s in provided_services(block)]
        keys = [(k.value, MANIFEST, k.at.pointer) for k in config_keys(block)]
    module = judged.module if first_party else None
    return Facts(
        id=package.id or package.name or "",
        trust=judged.trust,
        tools=tools,
        services=tuple(services),
        config_keys=tuple(keys),
        published=module.provides if module is not None else (),
        module=module,
        verdict=judged.module_verdict if module is not None else None,
    )


@dataclass(frozen=True)
class Claimant:
    """One claimant of a tool name: the platform, a package, or an MCP server."""

    id: str
    kind: str  # "platform" | "package" | "mcp"
    first_party: bool

    def rank(self) -> tuple[int, int, str]:
        """The spec's fixed rule as a sort key: first-party first, packages before MCP servers, then the smaller id."""
        return (0 if self.first_party else 1, 1 if self.kind == "mcp" else 0, self.id)


@dataclass(frozen=True)
class ToolContest:
    """A contested tool name: who answers it and who is shadowed (best first)."""

    name: str
    owner: str
    shadowed: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "owner": self.owner, "shadowed": list(self.shadowed)}


def _ranked(
    packages: Sequence[Facts], platform_tools: Iterable[str], mcp: Iterable[tuple[str, Iterable[str]]]
) -> dict[str, list[Claimant]]:
    """Every tool name's claimants, best first by the spec's fixed rule."""
    claimants: dict[str, list[Claimant]] = {}
    for tool in platform_tools:
        claimants.setdefault(tool, []).append(Claimant(PLATFORM, "platform", True))
    for facts in packages:
        for name, _, _ in facts.tools:
            claimants.setdefault(name, []).append(Claimant(facts.id, "package", facts.first_party))
    for server, tools in mcp:
        for name in set(tools):
            claimants.setdefault(name, []).append(Claimant(MCP_PREFIX + server, "mcp", False))
    return {name: sorted(set(claimants[name]), key=Claimant.rank) for name in sorted(claimants)}


def settle_tools(
    packages: Sequence[Facts], platform_tools: Iterable[str], mcp: Iterable[tuple[str, Iterable[str]]]
) -> list[ToolContest]:
    """Settle every tool name with more than one claimant; names with one claimant are not listed."""
    contests = []
    for name, ranked in _ranked(packages, platform_tools, mcp).items():
        if len(ranked) > 1:
            contests.append(ToolContest(name, ranked[0].id, tuple(c.id for c in ranked[1:])))
    return contests


def tool_owners(
    packages: Sequence[Facts], platform_tools: Iterable[str], mcp: Iterable[tuple[str, Iterable[str]]]
) -> dict[str, str]:
    """Who answers each tool name of the image, contested or not (what a reviewer compares between two images)."""
    return {name: ranked[0].id for name, ranked in _ranked(packages, platform_tools, mcp).items()}


def shadow_warnings(facts: Facts, contests: Sequence[ToolContest]) -> list[Diagnostic]:
    """A warning at each tool of ``facts`` that another claimant answers (never an error: the spec never fails here)."""
    by_name = {c.name: c for c in contests}
    out = []
    for name, file, pointer in facts.tools:
        contest = by_name.get(name)
        if contest is not None and facts.id in contest.shadowed:
            out.append(
                Diagnostic(
                    "warning",
                    NB1820.id,
                    file,
                    pointer,
                    f'the tool name "{name}" is answered by {contest.owner}; this package\'s tool is shadowed '
                    "(its other tools stay loaded)",
                    "name tools for your domain (acme_release_status, not status), or let the agent's Tool Access "
                    "panel pick the claimant",
                )
            )
    return out


@dataclass
class Registry:
    """The image-wide namespaces a package claims into: singleton services, config keys, OAuth prefixes."""

    platform_config_keys: Iterable[str] = ()
    services: dict[str, str] = field(default_factory=dict)
    config_keys: dict[str, str] = field(default_factory=dict)
    oauth: list[tuple[str, str]] = field(default_factory=list)

    def __post_init__(self) -> None:
        for key in self.platform_config_keys:
            self.config_keys[key] = PLATFORM

    def conflicts(self, facts: Facts) -> list[Diagnostic]:
        """Why ``facts`` cannot join the namespaces claimed so far (empty when it can)."""
        out: list[Diagnostic] = []
        for service, file, pointer in facts.services:
            owner = self.services.get(service)
            if owner is not None:
                out.append(
                    Diagnostic(
                        "error",
                        NB1821.id,
                        file,
                        pointer,
                        f'"{service}" is a singleton service and {owner} already provides it; {facts.id} provides it '
                        "too",
                        f"install only one of {owner} and {facts.id}, or drop this provides entry",
                    )
                )
            prefix = oauth_prefix(service)
            if prefix is not None:
                for other, other_id in self.oauth:
                    if other != prefix and oauth_prefixes_overlap(prefix, other):
                        out.append(
                            Diagnostic(
                                "error",
                                NB1823.id,
                                file,
                                pointer,
                                f'the OAuth callback prefix "{prefix}" overlaps "{other}" of {other_id}',
                                "choose a prefix that neither starts another package's prefix nor starts with one",
                            )
                        )
        for key, file, pointer in facts.config_keys:
            owner = self.config_keys.get(key)
            if owner is not None:
                whose = "the platform's own config key" if owner == PLATFORM else f"already declared by {owner}"
                out.append(
                    Diagnostic(
                        "error",
                        NB1822.id,
                        file,
                        pointer,
                        f'the config key "{key}" is {whose}; a key has exactly one owning declarer',
                        f"rename the key within your package (for example {_prefixed(facts.id, key)})",
                    )
                )
        return out

    def claim(self, facts: Facts) -> None:
        for service, _, _ in facts.services:
            self.services[service] = facts.id
            prefix = oauth_prefix(service)
            if prefix is not None:
                self.oauth.append((prefix, facts.id))
        for key, _, _ in facts.config_keys:
            self.config_keys[key] = facts.id

    def providers(self) -> dict[str, list[str]]:
        return {service: [owner] for service, owner in sorted(self.services.items())}


def _prefixed(package_id: str, key: str) -> str:
    stem = "".join(ch for ch in package_id.rsplit("/", 1)[-1].title() if ch.isalnum())
    return (stem[:1].lower() + stem[1:] + key[:1].upper() + key[1:])[:64]
