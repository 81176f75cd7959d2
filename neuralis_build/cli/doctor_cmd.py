"""`neuralis-build doctor`: report Node, npm and the pinned esbuild; --fetch obtains esbuild now."""

from __future__ import annotations

from typing import Annotated

import typer

from neuralis_build.cli import boundary, common


def register(app: typer.Typer) -> None:
    """Add the command to ``app``; heavy imports stay inside the command body."""

    @app.command(
        short_help="Report Node, npm, esbuild and its JS API, and the sandbox.",
        epilog=common.examples("neuralis-build doctor", "neuralis-build doctor --fetch --format json"),
    )
    def doctor(
        fetch: Annotated[
            bool,
            typer.Option(
                "--fetch",
                help="Fetch and verify the pinned esbuild now if it is not cached, and install its JS API.",
            ),
        ] = False,
        format: Annotated[
            common.Format, typer.Option("--format", "-f", metavar="FORMAT", show_default=False, help=common.FORMAT_HELP)
        ] = common.Format.text,
        as_json: Annotated[bool, typer.Option("--json", help="The same as --format json.")] = False,
    ) -> None:
        """Report the tools the toolchain drives (Node, npm, esbuild, its JS API, the sandbox); exit 2 when one it
        needs is missing (the sandbox is optional: without it, image loads no package's code)."""
        from neuralis_build import __version__, api

        fmt = common.Format.json if as_json else format
        tools = api.diagnose(fetch=fetch)
        if fmt is common.Format.json:
            boundary.print_json({"version": __version__, "tools": [t.to_json() for t in tools]})
        elif fmt is common.Format.github:
            from neuralis_build.cli.render import annotation

            for t in tools:
                if not t.ok:
                    level = "error" if t.required else "warning"
                    print(annotation(level, f"{t.name} is missing: {t.note}", title="neuralis-build doctor"))
        else:
            print(f"neuralis-build {__version__}")
            width = max(len(t.version or "-") for t in tools)
            names = max(len(t.name) for t in tools)
            for t in tools:
                mark = "ok     " if t.ok else "MISSING" if t.required else "absent "
                line = f"  {mark} {t.name:<{names}} {(t.version or '-'):<{width}}  {t.path or ''}".rstrip()
                if t.note:
                    line += f"  ({t.note})" if t.path else f"  {t.note}"
                print(line)
        if not all(t.ok for t in tools if t.required):
            raise typer.Exit(2)
