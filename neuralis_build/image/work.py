"""A listed package in the rules across packages: its stages' value and its row of the report.

The per-package stages hand on a ``Listed`` value (listed.py); from then on the closure, the
contests and the UI-module verdicts settle what is left on its report row (``PackageOutcome``):
a refusal that another package causes, a shadowed tool, the module's status.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from neuralis_build.diagnostics import Diagnostic
from neuralis_build.image.listed import Listed, outcome_of
from neuralis_build.image.report import PackageOutcome

if TYPE_CHECKING:
    from neuralis_build.image.contests import Facts
    from neuralis_build.image.spec import PackageSpec
    from neuralis_build.package import Package


@dataclass(frozen=True)
class PackageFinished:
    """Progress: one package's own verdict is known (before the contests across packages)."""

    index: int
    total: int
    outcome: PackageOutcome


@dataclass(frozen=True)
class Work:
    """A listed package past its own stages: what they found (``listed``) and its report row (``outcome``)."""

    listed: Listed
    outcome: PackageOutcome

    @classmethod
    def of(cls, listed: Listed) -> Work:
        """The listed package with its report row, made once."""
        return cls(listed, outcome_of(listed))

    @property
    def spec(self) -> PackageSpec:
        return self.listed.spec

    @property
    def alive(self) -> bool:
        return self.outcome.status != "refused"

    @property
    def staged(self) -> Path | None:
        return self.listed.staged

    @property
    def integrity(self) -> str | None:
        return self.listed.integrity

    @property
    def tarball(self) -> Path | None:
        return self.listed.tarball

    @property
    def tgz(self) -> bytes | None:
        return self.listed.tgz

    @property
    def source_package(self) -> Package | None:
        return self.listed.package

    @property
    def facts(self) -> Facts | None:
        return self.listed.facts

    @property
    def cached(self) -> bool:
        return self.listed.cached

    def refuse(self, diagnostic: Diagnostic) -> None:
        """Refused because of another package (a dependency refused, a contest lost)."""
        self.outcome.status = "refused"
        self.outcome.diagnostics.append(diagnostic)
