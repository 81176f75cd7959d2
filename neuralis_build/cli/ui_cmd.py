"""`neuralis-build ui`: bundle the UI module, write its record, compile events and routes; --watch."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def register(app: typer.Typer) -> None:
    """Add the command to ``app``; heavy imports stay inside the command body."""

    @app.command()
    def ui(
        path: Annotated[Path, typer.Argument(help="The package folder (default: the current folder).")] = Path("."),
        host: Annotated[Path | None, typer.Option("--host", help="A host profile JSON file.")] = None,
        watch_: Annotated[bool, typer.Option("--watch", "-w", help="Rebuild on every change.")] = False,
        minify: Annotated[bool, typer.Option("--minify", help="Minify host.js and host.css.")] = False,
        sourcemap: Annotated[bool, typer.Option("--sourcemap", help="Write linked .map files beside them.")] = False,
        entry: Annotated[
            str | None, typer.Option("--entry", help="The UI entry, relative to the package (default src/app/host.*).")
        ] = None,
    ) -> None:
        """Bundle the UI module to dist/app/ with esbuild and write dist/app/shared-imports.json."""
        from neuralis_build.cli.ui_run import build_once, options_for, watch

        options = options_for(host, minify, sourcemap, entry, watch=watch_)
        if watch_:
            watch(path, options)
        else:
            build_once(path, options)
