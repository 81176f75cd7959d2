"""The image report (``neuralis-image.json``): every package's status and diagnostics, contests and services."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from neuralis_build.hostprofile import HostProfile
from neuralis_build.image.judge.conflicts import Conflict, Installed
from neuralis_build.image.judge.contests import ToolContest
from neuralis_build.image.judge.moduleverdict import ReportedVerdict
from neuralis_build.util.diagnostics import Diagnostic
from neuralis_build.util.trust import InstallClass, Trust

if TYPE_CHECKING:
    from neuralis_build.image.judge.natives import Load
    from neuralis_build.image.judge.sizes import Sizes

REPORT = "neuralis-image.json"

Status = Literal["loaded", "reference-only", "not-neuralis", "refused"]


@dataclass(frozen=True)
class PackageOutcome:
    """One package's row in the image report (a listed one, or a dependency the host loads)."""

    source: str
    install_class: InstallClass
    trust: Trust
    name: str | None = None
    id: str | None = None
    version: str | None = None
    status: Status = "loaded"
    diagnostics: tuple[Diagnostic, ...] = ()
    module: ReportedVerdict | None = None
    cached: bool = False
    path: str | None = None  # where it is installed (node_modules/…), None when refused before installing
    chain: tuple[str, ...] = ()  # the listed package and the dependencies that bring it in
    paths: tuple[str, ...] = ()  # every place a dependency is installed (the same package at several places)

    @property
    def refused(self) -> bool:
        return self.status == "refused"

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "id": self.id,
            "version": self.version,
            "source": self.source,
            "class": self.install_class,
            "trust": self.trust,
            "status": self.status,
            "diagnostics": [d.to_json() for d in self.diagnostics],
            "module": self.module.to_json() if self.module else None,
            "path": self.path,
            "chain": list(self.chain),
        }


@dataclass
class ImageResult:
    """The whole image: the host it was judged against, each package, contested tool names and services."""

    out: Path
    host: HostProfile
    packages: list[PackageOutcome]
    tools: list[ToolContest]
    services: dict[str, list[str]]
    installed: list[Installed] = field(default_factory=list)
    conflicts: list[Conflict] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # about this run (a cache ignored, a killed build rolled back)
    loads: dict[str, Load] = field(default_factory=dict)  # by path: each package with an install script, loaded
    node: str | None = None  # the Node version engines.node is judged against
    owners: dict[str, str] = field(default_factory=dict)  # every tool name the image answers, and who answers it
    sizes: Sizes | None = None
    timings: list[tuple[str, float]] = field(default_factory=list, compare=False)  # each phase (not in the report)

    def count(self, status: Status) -> int:
        return sum(1 for p in self.packages if p.status == status)

    @property
    def refused_modules(self) -> int:
        return sum(1 for p in self.packages if p.module is not None and p.module.status == "refused")

    @property
    def anything_refused(self) -> bool:
        """A refused package, a refused UI module or an error conflict: exit 1 without --allow-refused."""
        errors = any(c.severity == "error" for c in self.conflicts)
        return self.count("refused") > 0 or self.refused_modules > 0 or errors

    @property
    def scripts(self) -> list[dict[str, Any]]:
        """Every installed package with install scripts, none of which ran."""
        return [
            {
                "path": i.path,
                "name": i.name,
                "version": i.version,
                "scripts": dict(i.scripts),
                "load": self.loads[i.path].to_json() if i.path in self.loads else None,
            }
            for i in self.installed
            if i.scripts
        ]

    def to_json(self) -> dict[str, Any]:
        return {
            "host": self.host.to_json(),
            "node": self.node,
            "packages": [p.to_json() for p in self.packages],
            "tools": [t.to_json() for t in self.tools],
            "services": self.services,
            "toolOwners": self.owners,
            "closure": [self._closure_row(i) for i in self.installed],
            "size": self.sizes.total_json() if self.sizes is not None else None,
            "conflicts": [c.to_json() for c in self.conflicts],
            "scripts": self.scripts,
        }

    def _closure_row(self, installed: Installed) -> dict[str, Any]:
        row = installed.to_json()
        size = self.sizes.packages.get(installed.path) if self.sizes is not None else None
        if size is not None:
            row["size"] = size.to_json()
        return row

    def render(self) -> str:
        return json.dumps(self.to_json(), indent=2, ensure_ascii=False) + "\n"
