"""Progress of long work as structured events: the library announces a step, the CLI decides how it looks.

The library never prints; code that may take long (the first esbuild fetch) wraps itself in
``step(...)``. Whoever runs the library listens with ``listening(...)`` (the CLI shows a line or a
spinner on stderr); with nobody listening a step costs nothing.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass


@dataclass(frozen=True)
class Step:
    """A long step started (``done`` False) or ended (with how long it took and whether it succeeded)."""

    what: str
    done: bool = False
    seconds: float = 0.0
    ok: bool = True


Listener = Callable[[Step], None]

_LISTENER: ContextVar[Listener | None] = ContextVar("neuralis_build_progress", default=None)


@contextmanager
def step(what: str) -> Iterator[None]:
    """Announce ``what`` to the listener, if any, when it starts and when it ends."""
    listener = _LISTENER.get()
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
    """Send the steps announced inside this block (in this thread) to ``listener``."""
    token = _LISTENER.set(listener)
    try:
        yield
    finally:
        _LISTENER.reset(token)
