"""What the dev server knows at any moment: the last good page, the last build, the diagnostics.

The watch loop writes it, the HTTP threads read it. ``generation`` counts good pages (a page whose
generation is behind reloads); ``version`` counts every change (a page re-reads the state).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from neuralis_build.hostpage.model import PagePackage
from neuralis_build.util.diagnostics import Diagnostic


@dataclass(frozen=True)
class BuildReport:
    """One refresh of the page: what changed, and either a good build or the error that kept the old page."""

    ok: bool
    changed: tuple[str, ...] = ()
    seconds: float = 0.0
    message: str | None = None
    errors: tuple[Diagnostic, ...] = ()
    outputs: tuple[str, ...] = ()
    frame: str | None = None  # the source lines around the first error, with a caret under its column

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "frame": self.frame,
            "changed": list(self.changed),
            "ms": round(self.seconds * 1000),
            "message": self.message,
            "errors": [d.to_json() for d in self.errors],
            "outputs": list(self.outputs),
        }


@dataclass(frozen=True)
class Snapshot:
    """One consistent view of the state (the HTTP threads read only snapshots)."""

    version: int = 0
    generation: int = 0
    packages: tuple[PagePackage, ...] = ()  # the last good page; empty before the first one
    primary: str | None = None  # the served package's name
    build: BuildReport | None = None
    diagnostics: tuple[Diagnostic, ...] = ()
    events: tuple[dict[str, Any], ...] = field(default=())

    def package(self, slug: str) -> PagePackage | None:
        """The page's package served under ``/pkg/<slug>/``."""
        for pkg in self.packages:
            if pkg.base == f"/pkg/{slug}/":
                return pkg
        return None

    def to_json(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "generation": self.generation,
            "package": self.primary,
            "build": self.build.to_json() if self.build else None,
            "diagnostics": [d.to_json() for d in self.diagnostics],
            "events": list(self.events),
        }


class DevState:
    """The shared state, with a condition the live connections wait on."""

    def __init__(self) -> None:
        self._snapshot = Snapshot()
        self._changed = threading.Condition()
        self.stopping = threading.Event()

    @property
    def snapshot(self) -> Snapshot:
        with self._changed:
            return self._snapshot

    def good(
        self,
        packages: Sequence[PagePackage],
        primary: str,
        build: BuildReport,
        diagnostics: Sequence[Diagnostic],
        events: Sequence[dict[str, Any]],
    ) -> None:
        """A good refresh: a new page generation."""
        with self._changed:
            s = self._snapshot
            self._snapshot = Snapshot(
                s.version + 1, s.generation + 1, tuple(packages), primary, build, tuple(diagnostics), tuple(events)
            )
            self._changed.notify_all()

    def failed(self, build: BuildReport, diagnostics: Sequence[Diagnostic] | None = None) -> None:
        """A failed refresh: the last good page stays; the build error (and fresh diagnostics) are shown."""
        with self._changed:
            s = self._snapshot
            kept = s.diagnostics if diagnostics is None else tuple(diagnostics)
            self._snapshot = replace(s, version=s.version + 1, build=build, diagnostics=kept)
            self._changed.notify_all()

    def wait_newer(self, version: int, timeout: float) -> Snapshot:
        """The snapshot once its version passes ``version`` (or after ``timeout`` seconds, or on stop)."""
        with self._changed:
            self._changed.wait_for(lambda: self._snapshot.version > version or self.stopping.is_set(), timeout)
            return self._snapshot

    def stop(self) -> None:
        with self._changed:
            self.stopping.set()
            self._changed.notify_all()
