"""`neuralis`: the package author's entry point (`neuralis new`)."""

from __future__ import annotations

import typer

from neuralis_build.cli import boundary, common, new_cmd, update_cmd

app = typer.Typer(
    name="neuralis",
    help="Create Neuralis packages and keep them up to date with their templates.",
    epilog=common.examples("neuralis new my-package", "neuralis new @acme/reports --template ui-module"),
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings=common.CONTEXT,
)


_VERSION = common.version_callback("neuralis")


@app.callback()
def _main(
    version: bool = typer.Option(False, "--version", callback=_VERSION, is_eager=True, help="Print the version."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Show tracebacks of internal errors."),
) -> None:
    if verbose:
        boundary.VERBOSE = True


new_cmd.register(app)
update_cmd.register(app)
update_cmd.register_init(app)
common.add_common_options(app, "neuralis")


def main(argv: list[str] | None = None) -> int:
    """The console script."""
    return common.run_app(app, argv, prog="neuralis")


if __name__ == "__main__":
    raise SystemExit(main())
