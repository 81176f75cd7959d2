"""Swap a staged image into its folder as one transaction: every entry of the new image, or the old image whole.

The image is several entries side by side (``node_modules``, npm's ``package.json`` and lock, the
listed tarballs, the report, the locks, the SBOM), so no single rename can replace it. The commit
writes a journal first (which entries it replaces and which existed), sets each old entry aside in
``.neuralis-old-<pid>-<random>`` and renames the new one in, then marks the journal done and deletes
what was set aside. A failure rolls back from the journal. A process killed in between leaves the
journal, and the next build (holding the folder's lock) rolls the folder back before it starts,
or finishes the clean-up when the journal says the commit was done. Signals that ask to stop
(Ctrl-C, SIGTERM) wait for the few renames to end, so they never land in the middle.
"""

from __future__ import annotations

import json
import os
import signal
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from neuralis_build.util import atomic

ASIDE_PREFIX = ".neuralis-old-"
JOURNAL = "journal.json"
DONE = "done"


def commit(staging: Path, out: Path, names: Sequence[str], done: Callable[[], None] = lambda: None) -> None:
    """Replace ``out/<name>`` by ``staging/<name>`` for every name, all or none; ``done`` runs once it is all.

    ``done`` runs while Ctrl-C is still held back, so whoever asks can tell the interrupt came after.
    """
    aside = atomic.staging_dir(out, ASIDE_PREFIX)
    settled = True  # False while the folder is half swapped: then the journal must stay for the next build
    try:
        with _signals_held():
            existed = [n for n in names if os.path.lexists(out / n)]
            atomic.write_text(aside / JOURNAL, json.dumps({"names": list(names), "existed": existed}))
            try:
                for name in names:
                    if name in existed:
                        os.replace(out / name, aside / name)
                    os.replace(staging / name, out / name)
                atomic.write_text(aside / DONE, "")
            except BaseException:
                settled = False
                _roll_back(out, aside, list(names), existed)
                settled = True
                raise
            done()
    finally:
        if settled:  # the old image once committed; the new one, rolled back, otherwise
            atomic.remove(aside)


def _roll_back(out: Path, aside: Path, names: list[str], existed: list[str]) -> None:
    """Put back what the journal says was there; idempotent, so a rollback killed half-way can run again."""
    for name in reversed(names):
        if name in existed and not os.path.lexists(aside / name):
            continue  # never set aside: out/<name> is still the old one
        if os.path.lexists(out / name):
            _discard(out / name, aside)
        if name in existed:
            os.replace(aside / name, out / name)


def _discard(path: Path, aside: Path) -> None:
    """Rename the new entry into the aside folder first (one rename), then delete it with the folder."""
    trash = aside / f"new-{path.name}"
    atomic.remove(trash)
    os.replace(path, trash)


def recover(out: Path) -> list[str]:
    """Finish or undo the commits of killed builds in ``out``; return what was done, one line each."""
    done: list[str] = []
    try:
        entries = sorted(os.scandir(out), key=lambda e: e.name)
    except OSError:
        return done
    for entry in entries:
        if not entry.name.startswith(ASIDE_PREFIX):
            continue
        pid = atomic.leftover_pid(entry.name)
        if pid is None or pid == os.getpid():
            continue
        aside = Path(entry.path)
        journal = _journal(aside)
        if journal is not None and not (aside / DONE).exists():
            _roll_back(out, aside, journal["names"], journal["existed"])
            done.append(f"rolled back the image a killed build (pid {pid}) had half swapped in")
        atomic.remove(aside)
    return done


def _journal(aside: Path) -> dict[str, Any] | None:
    try:
        data = json.loads((aside / JOURNAL).read_text("utf-8"))
    except (OSError, ValueError):
        return None  # killed before the journal was written: nothing was moved yet
    if not isinstance(data, dict):
        return None
    names, existed = data.get("names"), data.get("existed")
    if isinstance(names, list) and isinstance(existed, list):
        return {"names": [str(n) for n in names], "existed": [str(n) for n in existed]}
    return None


@contextmanager
def _signals_held() -> Iterator[None]:
    """Hold SIGINT and SIGTERM back while the block runs (main thread only); they arrive after it."""
    mask = getattr(signal, "pthread_sigmask", None)
    if mask is None or threading.current_thread() is not threading.main_thread():
        yield
        return
    held = {signal.SIGINT, signal.SIGTERM}
    previous = mask(signal.SIG_BLOCK, held)
    try:
        yield
    finally:
        mask(signal.SIG_SETMASK, previous)
