"""`neuralis-build`: check, ui, dev, pack, image, schema, doctor and explain."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from neuralis_build.cli import (
    boundary,
    common,
    dev_cmd,
    doctor_cmd,
    explain_cmd,
    image_cmd,
    imagediff_cmd,
    pack_cmd,
    targets,
    ui_cmd,
)

if TYPE_CHECKING:
    from neuralis_build.judged import JudgedPackage

app = typer.Typer(
    name="neuralis-build",
    help="Build, check and package Neuralis packages.",
    epilog=common.examples("neuralis-build check --trust untrusted", "neuralis-build ui && neuralis-build pack"),
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings=common.CONTEXT,
    cls=imagediff_cmd.CommandGroup,  # `image diff OLD NEW` beside `image SPEC`
)

CheckFormat = common.Format  # the name tests and callers used before every command took --format

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


@app.command(
    short_help="Validate packages at a trust tier.",
    epilog=common.examples(
        "neuralis-build check --trust untrusted",
        "neuralis-build check --workspaces --trust first-party --format github",
    ),
)
def check(
    paths: Annotated[
        list[Path] | None,
        typer.Argument(
            metavar="[PATH]...",
            show_default=False,
            help="Package folders (default: the nearest folder up with a package.json).",
        ),
    ] = None,
    trust: Annotated[common.TrustOption, common.trust_option()] = ...,  # type: ignore[assignment]
    format: Annotated[
        common.Format, typer.Option("--format", "-f", metavar="FORMAT", show_default=False, help=common.FORMAT_HELP)
    ] = common.Format.text,
    host: Annotated[Path | None, common.host_option()] = None,
    workspace: Annotated[list[str] | None, targets.workspace_option("--workspace", "-w")] = None,
    workspaces: Annotated[bool, targets.workspaces_option()] = False,
) -> None:
    """Validate the manifest, the directory contract and declarations against build output."""
    from neuralis_build.check import check_path
    from neuralis_build.cli import render
    from neuralis_build.hostprofile import load_host_profile
    from neuralis_build.util.errors import NeuralisError

    profile = load_host_profile(host)
    out = common.stdout()
    results: list[JudgedPackage] = []
    elements: list[Any] = []
    annotations: list[str] = []
    failed = 0
    for path in targets.package_folders(paths, workspace, workspaces, common.stderr):
        try:
            targets.refuse_workspaces_root(path, "check")
            result = check_path(path, trust.value, profile)
        except NeuralisError as exc:  # the PATH could not be judged (no such folder): say so, go on
            failed = max(failed, exc.exit_code)
            boundary.show_error(exc)
            elements.append({"path": str(path), "error": boundary.error_json(exc)})
            annotations.append(render.annotation("error", exc.message, title="neuralis-build check"))
            continue
        results.append(result)
        elements.append(result.to_json())
        annotations += render.diagnostic_annotations(result.path, result.diagnostics)
        if format is common.Format.text:
            render.print_check_result(out, result)
    if format is common.Format.json:
        boundary.print_json(elements)
    elif format is common.Format.github:
        if annotations:
            print("\n".join(annotations))
    else:
        render.explain_footer(out, [d for r in results for d in r.diagnostics])
    if failed or not all(r.ok for r in results):
        raise typer.Exit(failed or 1)


@app.command(
    short_help="Print the JSON Schema of the neuralis block.",
    epilog=common.examples("neuralis-build schema > neuralis.schema.json"),
)
def schema() -> None:
    """Print the JSON Schema (draft 2020-12) of the neuralis block, for editors."""
    from neuralis_build.manifest.schema import manifest_schema

    boundary.print_json(manifest_schema())


for _module in (ui_cmd, dev_cmd, pack_cmd, image_cmd, imagediff_cmd, doctor_cmd, explain_cmd):
    _module.register(app)
common.add_common_options(app, "neuralis-build")


def main(argv: list[str] | None = None) -> int:
    """The console script."""
    return common.run_app(app, argv, prog="neuralis-build")


if __name__ == "__main__":
    raise SystemExit(main())
