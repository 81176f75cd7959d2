"""`neuralis-build ui`: bundle the UI module, write its record, compile events and routes; --watch."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from neuralis_build.cli import common


def register(app: typer.Typer) -> None:
    """Add the command to ``app``; heavy imports stay inside the command body."""

    @app.command(
        short_help="Bundle the UI module with esbuild.",
        epilog=common.examples("neuralis-build ui", "neuralis-build ui packages/reports --watch"),
    )
    def ui(
        path: Annotated[Path, common.path_argument()] = Path("."),
        host: Annotated[Path | None, common.host_option()] = None,
        watch_: Annotated[bool, typer.Option("--watch", "-w", help="Rebuild on every change.")] = False,
        minify: Annotated[bool, typer.Option("--minify", help="Minify host.js and host.css.")] = False,
        sourcemap: Annotated[bool, typer.Option("--sourcemap", help="Write linked .map files beside them.")] = False,
        entry: Annotated[
            str | None,
            typer.Option(
                "--entry", metavar="FILE", help="The UI entry, relative to the package (default: src/app/host.*)."
            ),
        ] = None,
        format: Annotated[
            common.Format, typer.Option("--format", "-f", metavar="FORMAT", show_default=False, help=common.FORMAT_HELP)
        ] = common.Format.text,
    ) -> None:
        """Bundle the UI module to dist/app/ with esbuild and write dist/app/shared-imports.json."""
        from neuralis_build.cli.ui_run import build_once, options_for, watch

        if watch_ and format is not common.Format.text:
            raise typer.BadParameter("--watch prints one line per build; drop --format", param_hint="--format")
        options = options_for(host, minify, sourcemap, entry, watch=watch_)
        if watch_:
            watch(path, options)
            return
        code = build_once(path, options, format.value)
        if code:
            raise typer.Exit(code)
