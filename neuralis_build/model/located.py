"""Where a value of package.json sits: its JSON pointer, and its line and column found on demand."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Generic, TypeVar

from neuralis_build.util.jsonpointer import join

if TYPE_CHECKING:
    from neuralis_build.util.jsonpointer import PointerMap

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class At:
    """A value's JSON pointer in package.json; its line and column come from the source map when asked."""

    pointer: str
    source: PointerMap | None = field(default=None, compare=False, repr=False)

    def child(self, *tokens: str | int) -> At:
        """The place of a value under this one."""
        return At(join(self.pointer, *tokens), self.source)

    @property
    def line(self) -> int | None:
        where = self.source.locate(self.pointer) if self.source is not None else None
        return where[0] if where else None

    @property
    def column(self) -> int | None:
        where = self.source.locate(self.pointer) if self.source is not None else None
        return where[1] if where else None


@dataclass(frozen=True, slots=True)
class Located(Generic[T]):
    """A scalar of package.json (a service, a config key) with its place."""

    value: T
    at: At
