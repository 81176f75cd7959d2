"""How a section of the spec plugs into the validator: the keys it owns and the rules it adds."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from neuralis_build.manifest.checker import Checker
from neuralis_build.manifest.compound import Field

BlockRule = Callable[[dict[str, Any], Checker], None]
"""A rule over the whole ``neuralis`` block, run after every shape; it guards with ``c.usable(ptr)``."""


@dataclass(frozen=True)
class Section:
    """One section of the spec: its top-level keys of the ``neuralis`` block and its block rules."""

    name: str
    fields: dict[str, Field]
    rules: Sequence[BlockRule] = field(default_factory=tuple)
