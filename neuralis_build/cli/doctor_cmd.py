"""`neuralis-build doctor`: report Node, npm and the pinned esbuild; --fetch obtains esbuild now."""

from __future__ import annotations

import json
from typing import Annotated

import typer


def register(app: typer.Typer) -> None:
    """Add the command to ``app``; heavy imports stay inside the command body."""

    @app.command()
    def doctor(
        fetch: Annotated[
            bool, typer.Option("--fetch", help="Fetch and verify the pinned esbuild now if it is not cached.")
        ] = False,
        as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    ) -> None:
        """Report the tools the toolchain drives (Node, npm, esbuild); exit 2 when one is missing."""
        from neuralis_build import __version__
        from neuralis_build.ui.doctor import diagnose

        tools = diagnose(fetch=fetch)
        if as_json:
            print(json.dumps({"version": __version__, "tools": [t.to_json() for t in tools]}, indent=2))
        else:
            print(f"neuralis-build {__version__}")
            width = max(len(t.version or "-") for t in tools)
            for t in tools:
                mark = "ok     " if t.ok else "MISSING"
                line = f"  {mark} {t.name:<8} {(t.version or '-'):<{width}}  {t.path or ''}".rstrip()
                if t.note:
                    line += f"  ({t.note})" if t.path else f"  {t.note}"
                print(line)
        if not all(t.ok for t in tools):
            raise typer.Exit(2)
