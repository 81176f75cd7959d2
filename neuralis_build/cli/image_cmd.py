"""`neuralis-build image`: build a host image from a SPEC, show each package as it finishes, then the summary."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from neuralis_build.cli import common

if TYPE_CHECKING:
    from rich.console import Console

    from neuralis_build.api import ImageResult, PackageFinished, PackageOutcome


_STATUS_STYLE = {"loaded": "green", "reference-only": "cyan", "not-neuralis": "dim", "refused": "bold red"}


DEFAULT = "build"
"""The command ``image SPEC`` runs (``image build SPEC`` is the same)."""


def register(app: typer.Typer) -> None:
    """Add ``image`` to ``app``: a group of the image's commands, ``image SPEC`` building one (``DEFAULT``),
    ``image diff`` and ``image what-if``; heavy imports stay inside the command bodies."""
    from neuralis_build.cli import imagediff_cmd, imagewhatif_cmd

    group = typer.Typer(
        name="image",
        cls=common.default_group(DEFAULT),
        context_settings=common.CONTEXT,
        rich_markup_mode=None,
        add_completion=False,
    )
    _register_build(group)
    imagediff_cmd.register(group)
    imagewhatif_cmd.register(group)
    app.add_typer(
        group,
        name="image",
        short_help="Build a host image from a SPEC; image diff compares two, image what-if judges one for a new host.",
    )


def _register_build(app: typer.Typer) -> None:
    @app.command(
        DEFAULT,
        short_help="Build a host image from a SPEC.",
        epilog=common.examples(
            "neuralis-build image example-packages/image.toml --out build/image",
            "neuralis-build image image.toml --frozen --format github",
        ),
    )
    def image(
        spec: Annotated[Path, typer.Argument(metavar="SPEC", help="The image spec (TOML): [host] and [[packages]].")],
        out: Annotated[
            Path,
            typer.Option(
                "--out", "-o", metavar="DIR", show_default=False, help="The image folder (default: build/image)."
            ),
        ] = Path("build/image"),
        host: Annotated[
            Path | None,
            typer.Option("--host", metavar="PROFILE", help="A host profile JSON file (overrides [host] profile)."),
        ] = None,
        jobs: Annotated[
            int | None,
            typer.Option("--jobs", "-j", metavar="N", help="Packages worked on at once (default: the CPUs)."),
        ] = None,
        format: Annotated[
            common.Format, typer.Option("--format", "-f", metavar="FORMAT", show_default=False, help=common.FORMAT_HELP)
        ] = common.Format.text,
        frozen: Annotated[
            bool, typer.Option("--frozen", help="Refuse to build when the image would differ from its lock.")
        ] = False,
        allow_refused: Annotated[
            bool, typer.Option("--allow-refused", help="Exit 0 even when a package or UI module is refused.")
        ] = False,
        timings: Annotated[
            bool, typer.Option("--timings", help="Print how long each phase of the build took (on stderr).")
        ] = False,
    ) -> None:
        """Install, check and judge every package of SPEC into one host image; report every refusal.

        What changed between two images (for the review of a change): neuralis-build image diff OLD NEW.
        What a new host profile would refuse of an image built: neuralis-build image what-if OUT --host NEXT.json."""
        from neuralis_build import api
        from neuralis_build.cli.common import markup

        if jobs is not None and jobs < 1:
            raise typer.BadParameter("at least 1", param_hint="--jobs")
        image_spec = api.load_image_spec(spec, frozen=frozen)
        profile = api.load_host_profile(host or image_spec.host_profile)
        err = common.stderr()

        def show(event: PackageFinished) -> None:
            err.print(_progress_line(event.outcome, event.index, event.total))

        _file_size_limit_is_an_error()
        try:
            with common.status(err, f"building {len(image_spec.packages)} package(s) into {out}"):
                result = api.build_image(
                    image_spec,
                    out,
                    host=profile,
                    jobs=jobs or os.cpu_count() or 2,
                    frozen=frozen,
                    on_event=show,
                )
        except api.BuildInterrupted as stopped:
            err.print(f"[bold red]interrupted:[/] {markup(stopped.kept)}")
            raise typer.Exit(130) from None
        for note in result.notes:
            err.print(f"[cyan]note:[/] {markup(note)}")
        if timings:
            total = sum(seconds for _, seconds in result.timings)
            for name, seconds in result.timings:
                err.print(f"[dim]phase {name:<8} {seconds:8.2f} s[/]")
            err.print(f"[dim]phase {'total':<8} {total:8.2f} s[/]")
        if format is common.Format.json:
            print(result.render(), end="")
        elif format is common.Format.github:
            print_annotations(result)
        else:
            print_summary(common.stdout(), result)
        if result.anything_refused and not allow_refused:
            raise typer.Exit(1)


def _file_size_limit_is_an_error() -> None:
    """Under ``ulimit -f`` a write past the limit kills the process (SIGXFSZ) unless the signal is ignored;
    ignored, the write fails with EFBIG, which the build reports as the environment error it is (exit 2)."""
    import signal

    if hasattr(signal, "SIGXFSZ"):
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)


def _label(outcome: PackageOutcome) -> str:
    name = outcome.name or outcome.source
    return f"{name}@{outcome.version}" if outcome.version else name


def _progress_line(outcome: PackageOutcome, index: int, total: int) -> str:
    from neuralis_build.cli.common import markup

    style = _STATUS_STYLE[outcome.status]
    verdict = "checked" if outcome.status == "loaded" else outcome.status
    cached = " [dim](cached)[/]" if outcome.cached else ""
    width = len(str(total))
    return (
        f"[dim][{index + 1:>{width}}/{total}][/] [{style}]{verdict:<14}[/] {markup(_label(outcome))} "
        f"[dim]{markup(outcome.source)} · {outcome.install_class}[/]{cached}"
    )


def print_summary(console: Console, result: ImageResult) -> None:
    """The summary: a table of packages, then every refusal with its reason, contested names and services."""
    from rich.table import Table

    from neuralis_build.cli.common import markup
    from neuralis_build.cli.render import print_diagnostics, print_table
    from neuralis_build.util.printable import display_path

    table = Table(title=f"image {markup(display_path(result.out))}", title_justify="left")
    for column in ("package", "version", "class", "trust", "status", "UI module", "brought in by"):
        table.add_column(column)
    for p in result.packages:
        module = "" if p.module is None else p.module.status
        style = "red" if module == "refused" else "green"
        table.add_row(
            markup(p.name or p.source),
            markup(p.version or ""),
            p.install_class,
            p.trust,
            f"[{_STATUS_STYLE[p.status]}]{p.status}[/]",
            f"[{style}]{module}[/]" if module else "",
            markup(" → ".join(p.chain[:-1])) if len(p.chain) > 1 else "",
        )
    print_table(console, table)
    for p in result.packages:
        shown = [d for d in p.diagnostics if d.severity != "note"]
        if p.status == "refused" or (p.module and p.module.status == "refused") or shown:
            mark = "[red]✗[/]" if p.status == "refused" else "[yellow]![/]"
            console.print(f"{mark} [bold]{markup(p.name or p.source)}[/] [dim]({markup(p.source)})[/]: {p.status}")
            if p.module and p.module.status == "refused":
                console.print(f"    [red]UI module refused:[/] {markup(p.module.reason or '')}")
            print_diagnostics(console, shown, base=None)
    if result.tools:
        tools = Table(title="contested tool names", title_justify="left")
        for column in ("tool", "answered by", "shadowed"):
            tools.add_column(column)
        for t in result.tools:
            tools.add_row(markup(t.name), markup(t.owner), markup(", ".join(t.shadowed)))
        print_table(console, tools)
    if result.services:
        listed = "; ".join(f"{s}: {', '.join(ids)}" for s, ids in result.services.items())
        console.print(f"services: {markup(listed)}")
    print_closure(console, result)
    counts = [
        f"[green]{result.count('loaded')} loaded[/]",
        f"[cyan]{result.count('reference-only')} reference-only[/]",
        f"{result.count('not-neuralis')} not-neuralis",
        f"[red]{result.count('refused')} refused[/]",
        f"[red]{result.refused_modules} UI module(s) refused[/]",
        f"[yellow]{len(result.tools)} contested tool name(s)[/]",
    ]
    console.print(" · ".join(counts))
    console.print(f"[dim]report: {markup(display_path(result.out / 'neuralis-image.json'))}[/]")


def print_closure(console: Console, result: ImageResult) -> None:
    """The closure in three lines or so: how many packages from where, each conflict, each script not run."""
    from neuralis_build.cli.common import markup
    from neuralis_build.util.printable import display_path

    installed = result.installed
    registry = sum(1 for i in installed if i.from_registry)
    bundled = sum(1 for i in installed if "bundled" in i.flags)
    listed = len(installed) - registry - bundled
    console.print(
        f"closure: {len(installed)} package(s) installed ({listed} listed, {registry} from the registry, "
        f"{bundled} bundled); npm's lock: {markup(display_path(result.out / 'package-lock.json'))}"
    )
    failed = {c.path: c for c in result.conflicts if c.kind == "load"}
    for c in result.conflicts:
        if c.kind == "load":
            continue  # said with its install script below
        mark = "[red]✗[/]" if c.severity == "error" else "[yellow]![/]"
        console.print(f"{mark} {c.kind}: {markup(c.message)}")
    for entry in result.scripts:
        scripts = "; ".join(f"{k}: {v}" for k, v in entry["scripts"].items())
        load = result.loads.get(entry["path"])
        mark, verdict = "[yellow]![/]", ""
        if load is not None:
            verdict = f": {load.sentence}"
            if load.status == "works":
                mark = "[green]✓[/]"
            elif load.status == "fails":
                error = failed.get(entry["path"])
                mark = "[red]✗[/]" if error is not None and error.severity == "error" else "[yellow]![/]"
        console.print(
            f"{mark} install script not run: {markup(entry['name'])}@{markup(entry['version'])} "
            f"[dim]({markup(entry['path'])})[/] {markup(scripts)}{markup(verdict)}"
        )


def print_annotations(result: ImageResult) -> None:
    """--format github: everything the text form flags, as workflow commands: each package's findings, each
    refused UI module, each conflict in the closure, each install script not run and each contested tool name
    (a conflict of severity error fails the build, and CI must say why)."""
    from neuralis_build.cli.render import annotation

    for p in result.packages:
        for d in p.diagnostics:
            if d.severity == "note":
                continue
            where = d.file + (f" {d.pointer}" if d.pointer else "")
            body = f"{_label(p)} ({p.source}) {where}: {d.message}" + (f"\nhint: {d.hint}" if d.hint else "")
            print(annotation(d.severity, body, title=d.code))
        if p.module is not None and p.module.status == "refused":
            body = f"{_label(p)}: UI module refused: {p.module.reason}"
            print(annotation("error", body, title="neuralis-build image"))
    for c in result.conflicts:
        print(annotation(c.severity, c.message, title=f"neuralis-build image: {c.kind}"))
    for entry in result.scripts:
        load = result.loads.get(entry["path"])
        if load is not None and load.status in ("fails", "denied"):
            continue  # its load conflict above says it, at its severity
        scripts = "; ".join(f"{k}: {v}" for k, v in entry["scripts"].items())
        body = f"install script not run: {entry['name']}@{entry['version']} ({entry['path']}) {scripts}"
        level = "warning"  # nothing was loaded (or nothing could be): a script the host never ran may matter
        if load is not None:
            body += f": {load.sentence}"
            level = "notice" if load.status == "works" else level
        print(annotation(level, body, title="neuralis-build image: scripts"))
    for t in result.tools:
        body = f"the tool name {t.name} is answered by {t.owner}; shadowed: {', '.join(t.shadowed)}"
        print(annotation("notice", body, title="neuralis-build image: contested tool name"))
