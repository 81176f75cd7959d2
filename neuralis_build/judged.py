"""The judged package: what `check` makes of a package once, and what `ui`, `pack`, `image` and the dev page take.

It holds the package as read (``package``: package.json, where each value sits, the directory
contract), the verdict (``diagnostics``), the typed block the host loads at this trust after every
drop (``block``, each value with its pointer into package.json), the verdict on the built UI module
and what the last build read. Nothing downstream reads the declared block for a decision or judges again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

from neuralis_build.package import Package
from neuralis_build.util.diagnostics import Diagnostic, has_errors
from neuralis_build.util.trust import Trust

if TYPE_CHECKING:
    from neuralis_build.model.block import Block, Event, Module, Surface
    from neuralis_build.record.stale import BuildState
    from neuralis_build.record.verdict import ModuleVerdict
    from neuralis_build.util.diagnostics import DiagnosticJSON


class CheckJSON(TypedDict):
    package: str | None
    id: str | None
    trust: Trust
    ok: bool
    diagnostics: list[DiagnosticJSON]


@dataclass(frozen=True)
class JudgedPackage:
    """One package judged at one trust tier: the verdict, and the block the host would load."""

    path: Path
    trust: Trust
    package: Package | None
    diagnostics: list[Diagnostic]
    block: Block | None = field(default=None, repr=False)
    dropped: frozenset[str] = frozenset()
    module_verdict: ModuleVerdict | None = field(default=None, repr=False)
    build: BuildState | None = field(default=None, repr=False)

    @property
    def ok(self) -> bool:
        return not has_errors(self.diagnostics)

    def to_json(self) -> CheckJSON:
        pkg = self.package
        return {
            "package": pkg.name if pkg else None,
            "id": pkg.id if pkg and pkg.is_neuralis else None,
            "trust": self.trust,
            "ok": self.ok,
            "diagnostics": [d.to_json() for d in self.diagnostics],
        }

    def was_dropped(self, pointer: str) -> bool:
        """True when the value at ``pointer`` (or above it) was dropped at this trust."""
        return any(pointer == d or pointer.startswith(d + "/") for d in self.dropped)

    @property
    def module(self) -> Module | None:
        """The effective ``app.module``: None when not declared, malformed, or dropped at this trust."""
        return self.block.module if self.block is not None else None

    @property
    def events(self) -> tuple[Event, ...]:
        """The effective ``events[]`` objects, each with its package.json pointer."""
        return self.block.events if self.block is not None else ()

    @property
    def surfaces(self) -> tuple[Surface, ...]:
        """The effective ``app.surfaces[]`` objects, each with its package.json pointer."""
        return self.block.surfaces if self.block is not None else ()
