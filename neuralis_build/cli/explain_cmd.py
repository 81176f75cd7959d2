"""`neuralis-build explain CODE`: the rule behind a diagnostic code, why it exists, a bad and a good example."""

from __future__ import annotations

from typing import Annotated

import typer

from neuralis_build.cli import common


def register(app: typer.Typer) -> None:
    """Add the command to ``app``; the entries are read only when it runs."""

    @app.command(
        short_help="Explain a diagnostic code.",
        epilog=common.examples("neuralis-build explain NB0501", "neuralis-build explain nb1908"),
    )
    def explain(
        code: Annotated[
            str, typer.Argument(metavar="CODE", show_default=False, help="A diagnostic code, such as NB0501.")
        ],
    ) -> None:
        """Explain a diagnostic code: the rule, why it exists (the spec's sentence), a bad and a good example."""
        from neuralis_build import api
        from neuralis_build.cli.explain_text import print_entry

        print_entry(common.stdout(), api.explain(code))
