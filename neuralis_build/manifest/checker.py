"""The state of one validation walk: where diagnostics go, the trust tier, and what was found invalid or dropped.

Every shape (shape.py, compound.py) and every section rule reports through a ``Checker``; ``check``
turns what it gathered into the judged package (its diagnostics, the effective block after drops,
and what the output rules handed on).
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from neuralis_build.util.diagnostics import Code, Diagnostics
from neuralis_build.util.trust import Trust

if TYPE_CHECKING:
    from neuralis_build.hostprofile import HostProfile
    from neuralis_build.package import Package


@dataclass
class Checker:
    """State of one validation walk: the diagnostics sink, the trust tier, and what was marked."""

    diags: Diagnostics
    trust: Trust
    package: Package | None = None
    host: HostProfile | None = None
    invalid: set[str] = field(default_factory=set)
    dropped: set[str] = field(default_factory=set)
    # every invalid pointer and each of its ancestors, so is_valid is one lookup however many errors there are
    _tainted: set[str] = field(default_factory=set, repr=False)

    def warning(self, code: Code, pointer: str, message: str, hint: str | None = None) -> None:
        self.diags.warning(code, pointer, message, hint)

    def note(self, code: Code, pointer: str, message: str, hint: str | None = None) -> None:
        self.diags.note(code, pointer, message, hint)

    def error(self, code: Code, pointer: str, message: str, hint: str | None = None) -> None:
        self.diags.error(code, pointer, message, hint)
        self.mark_invalid(pointer)

    def mark_invalid(self, pointer: str) -> None:
        """Record that the value at ``pointer`` broke a rule (an error reported elsewhere)."""
        if pointer in self.invalid:
            return
        self.invalid.add(pointer)
        probe = pointer
        while probe not in self._tainted:
            self._tainted.add(probe)
            if not probe:
                break
            probe = probe[: probe.rfind("/")]

    def drop(self, code: Code, pointer: str, message: str, hint: str | None = None) -> None:
        """Warn that the loader drops the value at ``pointer``, and leave it out of the effective manifest."""
        self.diags.warning(code, pointer, message, hint)
        self.dropped.add(pointer)

    def is_valid(self, pointer: str) -> bool:
        """True when no shape error was reported at or under ``pointer``."""
        return pointer not in self._tainted

    def is_dropped(self, pointer: str) -> bool:
        """True when ``pointer`` or one of its ancestors was dropped."""
        if not self.dropped:
            return False
        probe = pointer
        while True:
            if probe in self.dropped:
                return True
            if not probe:
                return False
            probe = probe[: probe.rfind("/")]

    def usable(self, pointer: str) -> bool:
        return self.is_valid(pointer) and not self.is_dropped(pointer)


def suggest(word: str, choices: Sequence[str]) -> str | None:
    """The closest of ``choices`` to ``word`` ("did you mean"), or None when nothing is close."""
    lowered = {c.lower(): c for c in choices}
    if word.lower() in lowered:
        return lowered[word.lower()]
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return close[0] if close else None


def quote_list(items: Sequence[str]) -> str:
    """``"a", "b", "c"``: the allowed values as a message lists them."""
    return ", ".join(f'"{i}"' for i in items)
