"""`neuralis-build image what-if OUT --host NEXT.json`: what a new host profile would refuse of an image, unbuilt.

A command of the ``image`` group (cli/image_cmd.py), beside ``image SPEC`` and ``image diff``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from neuralis_build.cli import common

if TYPE_CHECKING:
    from rich.console import Console

    from neuralis_build.api import HostRefusal, WhatIf


def register(app: typer.Typer) -> None:
    """Add ``what-if`` to the ``image`` group ``app``."""

    @app.command(
        "what-if",
        short_help="What a new host profile would refuse of an image.",
        epilog=common.examples(
            "neuralis-build image what-if build/image --host host-next.json",
            "neuralis-build image what-if build/image --host host-next.json --format github",
        ),
    )
    def image_what_if(
        out: Annotated[Path, typer.Argument(metavar="OUT", help="The image folder (the --out of a build).")],
        host: Annotated[
            Path,
            typer.Option("--host", metavar="PROFILE", show_default=False, help="The new host profile JSON file."),
        ],
        format: Annotated[
            common.Format, typer.Option("--format", "-f", metavar="FORMAT", show_default=False, help=common.FORMAT_HELP)
        ] = common.Format.text,
    ) -> None:
        """Judge an image already built against a new host profile, without building it again: every UI module
        and package the new host would refuse (host API version, React major, shared modules it no longer
        provides, engines.node against its nodeVersion, peer ranges on what it provides, config keys it
        reserves), each with its fix. Exit 1 when anything would be refused."""
        from neuralis_build import api

        profile = api.load_host_profile(host)
        result = api.what_if(out, profile)
        if format is common.Format.json:
            print(result.render(), end="")
        elif format is common.Format.github:
            print_annotations(result)
        else:
            print_text(common.stdout(), result)
        if result.anything_refused:
            raise typer.Exit(1)


def _what(refusal: HostRefusal) -> str:
    return "UI module" if refusal.subject == "module" else refusal.kind


def _judged(result: WhatIf) -> str:
    return f"{result.packages} package(s) and {result.modules} UI module(s) judged against {result.next_source}"


def print_text(console: Console, result: WhatIf) -> None:
    """The refusals for a person: what changes in the profile, then each refusal with its fix, then the counts."""
    from neuralis_build.cli.common import markup

    console.print(f"[bold]what-if[/] {markup(result.image)} --host {markup(result.next_source)}")
    changes = result.changes()
    console.print(f"profile: {markup('; '.join(changes))}" if changes else "profile: the same as the image's host")
    for r in result.refusals:
        already = " [dim](the image's own host refuses it too)[/]" if r.already else ""
        console.print(
            f"[red]✗[/] [bold]{markup(r.name)}@{markup(r.version)}[/] {_what(r)}: {markup(r.message)}{already}"
        )
        console.print(f"    fix: {markup(r.fix)}")
    if not result.anything_refused:
        console.print(f"[green]nothing would be refused[/]: {markup(_judged(result))}")
        return
    console.print(
        f"[red]would refuse {result.refused('module')} UI module(s) and {result.refused('package')} package(s)[/] "
        f"({result.new} of {len(result.refusals)} refusal(s) new with this profile) · {markup(_judged(result))}"
    )


def print_annotations(result: WhatIf) -> None:
    """--format github: each refusal as an error annotation with its fix, or one notice that nothing would be."""
    from neuralis_build.cli.render import annotation

    for r in result.refusals:
        body = f"{r.name}@{r.version} ({r.path}) {_what(r)}: {r.message}\nfix: {r.fix}"
        print(annotation("error", body, title=f"neuralis-build image what-if: {r.kind}"))
    if not result.anything_refused:
        print(
            annotation("notice", f"nothing would be refused: {_judged(result)}", title="neuralis-build image what-if")
        )
