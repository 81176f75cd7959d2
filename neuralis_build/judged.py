"""The judged package: what `check` makes of a package once, and what `ui`, `pack`, `image` and the dev page take.

It holds the raw manifest (``package``: package.json as read, where each value sits, the directory
contract), the verdict (``diagnostics``), the effective block (what the host loads at this trust
after every drop) with pointers back into package.json, the verdict on the built UI module and
what the last build read. Nothing downstream reads the raw block for a decision or judges again.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict

from neuralis_build.diagnostics import Diagnostic, has_errors
from neuralis_build.jsonpointer import join, split
from neuralis_build.package import BLOCK, Package, events_of, module_of, surfaces_of
from neuralis_build.trust import Trust

if TYPE_CHECKING:
    from neuralis_build.diagnostics import DiagnosticJSON
    from neuralis_build.ui.stale import BuildState
    from neuralis_build.ui.verdict import ModuleVerdict


class CheckJSON(TypedDict):
    package: str | None
    id: str | None
    trust: Trust
    ok: bool
    diagnostics: list[DiagnosticJSON]


Kept = Mapping[str, tuple[int, ...]]
"""For each array of the block that lost items to a drop (by its package.json pointer): the indices it kept."""


@dataclass(frozen=True)
class JudgedPackage:
    """One package judged at one trust tier: the verdict, and the block the host would load."""

    path: Path
    trust: Trust
    package: Package | None
    diagnostics: list[Diagnostic]
    effective: dict[str, Any] | None = field(default=None, repr=False)
    kept: Kept = field(default_factory=dict, repr=False)
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

    def pointer(self, *tokens: str | int) -> str:
        """The package.json pointer of the effective value at ``/neuralis/<tokens>``.

        After a drop the effective arrays are shorter than the declared ones (an inline tool that a file
        overrides is left out), so an index into the effective block is mapped back to where the item
        sits in package.json.
        """
        at = BLOCK
        for token in tokens:
            kept = self.kept.get(at)
            at = join(at, kept[token] if kept is not None and isinstance(token, int) else token)
        return at

    def entries(self, *tokens: str) -> list[tuple[str, Any]]:
        """Each item of the effective array at ``/neuralis/<tokens>`` with its package.json pointer."""
        value: Any = self.effective
        for token in tokens:
            value = value.get(token) if isinstance(value, dict) else None
        if not isinstance(value, list):
            return []
        return [(self.pointer(*tokens, i), item) for i, item in enumerate(value)]

    def was_dropped(self, pointer: str) -> bool:
        """True when the value at ``pointer`` (or above it) was dropped at this trust."""
        return any(pointer == d or pointer.startswith(d + "/") for d in self.dropped)

    @property
    def module(self) -> dict[str, Any] | None:
        """The effective ``app.module``: None when not declared, malformed, or dropped at this trust."""
        return module_of(self.effective)

    @property
    def events(self) -> list[tuple[str, dict[str, Any]]]:
        """The effective ``events[]`` objects with their package.json pointers."""
        return [(self.pointer("events", i), e) for i, e in events_of(self.effective)]

    @property
    def surfaces(self) -> list[tuple[str, dict[str, Any]]]:
        """The effective ``app.surfaces[]`` objects with their package.json pointers."""
        return [(self.pointer("app", "surfaces", i), s) for i, s in surfaces_of(self.effective)]


def effective_block(block: dict[str, Any], dropped: set[str]) -> tuple[dict[str, Any], dict[str, tuple[int, ...]]]:
    """The block without the dropped values, and for each array that lost items the indices it kept.

    Only the branches that lead to a drop are walked; everything else is copied whole.
    """
    kept: dict[str, tuple[int, ...]] = {}
    if not dropped:
        return copy.deepcopy(block), kept
    above: set[str] = set()  # every strict ancestor of a dropped pointer: where the walk must descend
    for pointer in dropped:
        tokens = split(pointer)
        above.update(join("", *tokens[:n]) for n in range(1, len(tokens)))

    def walk(value: Any, at: str) -> Any:
        if at not in above:
            return copy.deepcopy(value)
        if isinstance(value, dict):
            return {k: walk(v, join(at, k)) for k, v in value.items() if join(at, k) not in dropped}
        if isinstance(value, list):
            indices = tuple(i for i in range(len(value)) if join(at, i) not in dropped)
            if len(indices) != len(value):
                kept[at] = indices
            return [walk(value[i], join(at, i)) for i in indices]
        return copy.deepcopy(value)

    result = walk(block, BLOCK)
    assert isinstance(result, dict)
    return result, kept
