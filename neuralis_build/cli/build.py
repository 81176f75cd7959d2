"""`neuralis-build`: check, ui, dev, pack, image, schema, doctor and explain."""

from __future__ import annotations

from typing import Annotated

import typer

from neuralis_build.cli import (
    boundary,
    check_cmd,
    common,
    dev_cmd,
    doctor_cmd,
    explain_cmd,
    image_cmd,
    pack_cmd,
    ui_cmd,
)

app = typer.Typer(
    name="neuralis-build",
    help="Build, check and package Neuralis packages.",
    epilog=common.examples("neuralis-build check --trust untrusted", "neuralis-build ui && neuralis-build pack"),
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings=common.CONTEXT,
)

_VERSION = common.version_callback("neuralis-build")


@app.callback()
def _main(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            callback=_VERSION,
            is_eager=True,
            help="Print the version and exit.",
        ),
    ] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Show tracebacks of internal errors.")] = False,
) -> None:
    if verbose:
        boundary.VERBOSE = True


check_cmd.register(app)


@app.command(
    short_help="Print the JSON Schema of the neuralis block.",
    epilog=common.examples("neuralis-build schema > neuralis.schema.json"),
)
def schema() -> None:
    """Print the JSON Schema (draft 2020-12) of the neuralis block, for editors."""
    from neuralis_build import api

    boundary.print_json(api.schema())


for _module in (ui_cmd, dev_cmd, pack_cmd, image_cmd, doctor_cmd, explain_cmd):
    _module.register(app)
common.add_common_options(app, "neuralis-build")


def main(argv: list[str] | None = None) -> int:
    """The console script."""
    return common.run_app(app, argv, prog="neuralis-build")


if __name__ == "__main__":
    raise SystemExit(main())
