"""How progress looks: a spinner on a terminal, or one line when a step starts and one when it ends.

Light on purpose (every ``ui`` build installs it): rich is imported only to draw a spinner.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from neuralis_build.util.progress import Step, listening

if TYPE_CHECKING:
    from typing import Any


class StderrProgress:
    """Shows each step on stderr; a spinner only on a terminal without NO_COLOR, else plain lines."""

    def __init__(self) -> None:
        self.spinner: Any = None

    def __call__(self, step: Step) -> None:
        live = sys.stderr.isatty() and not os.environ.get("NO_COLOR")
        if not step.done:
            if live:
                from neuralis_build.cli.common import stderr

                self.spinner = stderr().status(f"{step.what}…", spinner="dots")
                self.spinner.start()
            else:
                print(f"{step.what}…", file=sys.stderr, flush=True)
            return
        if self.spinner is not None:
            self.spinner.stop()
            self.spinner = None
        if step.ok:
            print(f"{step.what}: done in {step.seconds:.1f} s", file=sys.stderr, flush=True)


@contextmanager
def showing_progress() -> Iterator[None]:
    """Show the library's long steps on stderr while the block runs."""
    with listening(StderrProgress()):
        yield
