"""A listed package in the rules across packages: its stages' value, its own row, its standing among the others.

The per-package stages hand on a ``Listed`` value (listed.py); its own row of the report is made
from it once (``outcome_of``). The closure, the contests and the UI-module verdicts add to its
``Standing`` (standing.py), and the final row is made from the two at the end of the build.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from neuralis_build.image.judge.report import PackageOutcome
from neuralis_build.image.judge.standing import Weighed
from neuralis_build.image.packages.listed import Listed, outcome_of

if TYPE_CHECKING:
    from neuralis_build.image.judge.contests import Facts
    from neuralis_build.image.packages.spec import PackageSpec
    from neuralis_build.package import Package


@dataclass(frozen=True)
class PackageFinished:
    """Progress: one package's own verdict is known (before the contests across packages)."""

    index: int
    total: int
    outcome: PackageOutcome


@dataclass
class Work(Weighed):
    """A listed package past its own stages: what they found (``listed``), its own row, its standing."""

    listed: Listed

    @classmethod
    def of(cls, listed: Listed) -> Work:
        """The listed package with its own row, made once."""
        return cls(outcome_of(listed), listed)

    @property
    def spec(self) -> PackageSpec:
        return self.listed.spec

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
