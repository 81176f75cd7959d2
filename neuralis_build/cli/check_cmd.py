"""`neuralis-build check`: validate packages at a trust tier (every rule of the spec, and the build output)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from neuralis_build.cli import common, targets
from neuralis_build.util.trust import Trust

if TYPE_CHECKING:
    from neuralis_build.api import JudgedPackage


class CheckView:
    """How one package's verdict looks: a line with its counts and each diagnostic; its JSON; its annotations."""

    def json(self, path: Path, result: JudgedPackage) -> object:
        return result.to_json()

    def annotations(self, path: Path, result: JudgedPackage) -> list[str]:
        from neuralis_build.cli.render import diagnostic_annotations

        return diagnostic_annotations(result.path, result.diagnostics)

    def show(self, result: JudgedPackage, fmt: common.Format) -> None:
        if fmt is common.Format.text:
            from neuralis_build.cli.render import print_check_result

            print_check_result(common.stdout(), result)

    def code(self, result: JudgedPackage) -> int:
        return 0 if result.ok else 1


def _footer(results: Sequence[JudgedPackage]) -> None:
    from neuralis_build.cli.render import explain_footer

    explain_footer(common.stdout(), [d for r in results for d in r.diagnostics])


def register(app: typer.Typer) -> None:
    """Add the command to ``app``; heavy imports stay inside the command body."""

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
        trust: Annotated[Trust, common.trust_option()] = ...,  # type: ignore[assignment]
        format: Annotated[
            common.Format, typer.Option("--format", "-f", metavar="FORMAT", show_default=False, help=common.FORMAT_HELP)
        ] = common.Format.text,
        host: Annotated[Path | None, common.host_option()] = None,
        workspace: Annotated[list[str] | None, targets.workspace_option("--workspace", "-w")] = None,
        workspaces: Annotated[bool, targets.workspaces_option()] = False,
    ) -> None:
        """Validate the manifest, the directory contract and declarations against build output."""
        from neuralis_build import api
        from neuralis_build.cli.loop import Loop, folders

        profile = api.load_host_profile(host)
        loop: Loop[JudgedPackage] = Loop("check", CheckView(), _footer)
        code = loop.run(folders(paths, workspace, workspaces), lambda path: api.check(path, trust, profile), format)
        if code:
            raise typer.Exit(code)
