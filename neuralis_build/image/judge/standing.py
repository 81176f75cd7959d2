"""What the rules across packages find of one package, kept apart from its own verdict until the report.

A package's own verdict is a value (a listed package's ``Listed``, an installed dependency's
``StagedVerdict``). The rules across packages (the tree's refusal cascade, the namespaces and tool
names, the UI modules) add to its ``Standing`` in the order they run; the report's row is made once,
at the end, from the two (``settled``).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from neuralis_build.image.judge.moduleverdict import ReportedVerdict
from neuralis_build.image.judge.report import PackageOutcome
from neuralis_build.util.diagnostics import Diagnostic


@dataclass
class Standing:
    """A package's standing among the others: refused because of one, warned, its UI module's verdict."""

    refused: bool = False
    diagnostics: list[Diagnostic] = field(default_factory=list)
    module: ReportedVerdict | None = None

    def refuse(self, *diagnostics: Diagnostic) -> None:
        self.refused = True
        self.diagnostics.extend(diagnostics)


def settled(own: PackageOutcome, standing: Standing) -> PackageOutcome:
    """The report row: the package's own verdict, then what the rules across packages added to it."""
    return replace(
        own,
        status="refused" if standing.refused else own.status,
        diagnostics=own.diagnostics + tuple(standing.diagnostics),
        module=standing.module,
    )


@dataclass
class Weighed:
    """One package the rules across packages weigh: its own row, its claims, its standing."""

    own: PackageOutcome
    standing: Standing = field(default_factory=Standing, kw_only=True)

    @property
    def alive(self) -> bool:
        return self.own.status != "refused" and not self.standing.refused

    @property
    def loaded(self) -> bool:
        return self.own.status == "loaded" and not self.standing.refused

    @property
    def outcome(self) -> PackageOutcome:
        """Its report row as it stands."""
        return settled(self.own, self.standing)

    def refuse(self, diagnostic: Diagnostic) -> None:
        """Refused because of another package (a dependency refused, a contest lost)."""
        self.standing.refuse(diagnostic)
