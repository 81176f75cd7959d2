"""Progress of long work as structured events: the library announces a step, the CLI decides how it looks.

The library never prints; code that may take long (the first esbuild fetch) wraps itself in
``step(...)``. Whoever runs the library listens with ``listening(...)`` (the CLI shows a line or a
spinner on stderr); with nobody listening a step costs nothing. Kept tiny: every build loads it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager


class Step:
    """A long step started (``done`` False) or ended (with how long it took and whether it succeeded)."""

    __slots__ = ("done", "ok", "seconds", "what")

    def __init__(self, what: str, *, done: bool = False, seconds: float = 0.0, ok: bool = True) -> None:
        self.what, self.done, self.seconds, self.ok = what, done, seconds, ok

    def __repr__(self) -> str:
        return f"Step({self.what!r}, done={self.done}, seconds={self.seconds:.3f}, ok={self.ok})"


Listener = Callable[[Step], None]

_listener: Listener | None = None  # one per process: a step in a worker thread is shown too


@contextmanager
def step(what: str) -> Iterator[None]:
    """Announce ``what`` to the listener, if any, when it starts and when it ends."""
    listener = _listener
    if listener is None:
        yield
        return
    started = time.perf_counter()
    listener(Step(what))
    ok = False
    try:
        yield
        ok = True
    finally:
        listener(Step(what, done=True, seconds=time.perf_counter() - started, ok=ok))


@contextmanager
def listening(listener: Listener) -> Iterator[None]:
    """Send the steps announced inside this block to ``listener``."""
    global _listener
    previous, _listener = _listener, listener
    try:
        yield
    finally:
        _listener = previous
