"""`neuralis-build pack` (registered by build.py; not yet written)."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    """Add the command to ``app``; heavy imports stay inside the command body."""
