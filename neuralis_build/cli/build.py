"""`neuralis-build`: check, ui, dev, pack, image, schema and doctor."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from neuralis_build.cli import common, dev_cmd, doctor_cmd, image_cmd, pack_cmd, ui_cmd

app = typer.Typer(
    name="neuralis-build",
    help="Build, check and package Neuralis packages.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


class CheckFormat(StrEnum):
    text = "text"
    json = "json"
    github = "github"


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
    common.VERBOSE = verbose


@app.command()
def check(
    paths: Annotated[list[Path] | None, typer.Argument(help="Package folders (default: the current folder).")] = None,
    trust: Annotated[
        common.TrustOption,
        typer.Option(
            "--trust",
            envvar="NEURALIS_TRUST",
            case_sensitive=False,
            help="The tier the host assigns: first-party, trusted or untrusted.",
        ),
    ] = ...,  # type: ignore[assignment]
    format: Annotated[CheckFormat, typer.Option("--format", "-f", help="text, json or github.")] = CheckFormat.text,
    host: Annotated[Path | None, typer.Option("--host", help="A host profile JSON file.")] = None,
) -> None:
    """Validate the manifest, the directory contract and declarations against build output."""
    from neuralis_build.check import check_path
    from neuralis_build.cli import render
    from neuralis_build.hostprofile import load_host_profile

    profile = load_host_profile(host)
    results = [check_path(p, trust.value, profile) for p in (paths or [Path(".")])]
    if format is CheckFormat.json:
        print(render.check_json(results))
    elif format is CheckFormat.github:
        text = render.github_annotations(results)
        if text:
            print(text)
    else:
        render.print_check_text(common.stdout(), results)
    if not all(r.ok for r in results):
        raise typer.Exit(1)


@app.command()
def schema() -> None:
    """Print the JSON Schema (draft 2020-12) of the neuralis block, for editors."""
    import json

    from neuralis_build.manifest.schema import manifest_schema

    print(json.dumps(manifest_schema(), indent=2, ensure_ascii=False))


for _module in (ui_cmd, dev_cmd, pack_cmd, image_cmd, doctor_cmd):
    _module.register(app)


def main(argv: list[str] | None = None) -> int:
    """The console script."""
    return common.run_app(app, argv, prog="neuralis-build")


if __name__ == "__main__":
    raise SystemExit(main())
