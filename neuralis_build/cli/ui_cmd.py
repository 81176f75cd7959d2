"""`neuralis-build ui`: bundle the UI module, write its record, compile events and routes; --watch."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from neuralis_build.cli import common, targets

if TYPE_CHECKING:
    from neuralis_build.api import BuildOptions, PackageBuild, WatchResult
    from neuralis_build.util.diagnostics import Diagnostic


def register(app: typer.Typer) -> None:
    """Add the command to ``app``; heavy imports stay inside the command body."""

    @app.command(
        short_help="Bundle the UI module with esbuild.",
        epilog=common.examples("neuralis-build ui --watch", "neuralis-build ui --workspaces"),
    )
    def ui(
        path: Annotated[
            Path | None,
            common.path_argument("The package folder (default: the nearest folder up with a package.json)."),
        ] = None,
        host: Annotated[Path | None, common.host_option()] = None,
        watch_: Annotated[bool, typer.Option("--watch", "-w", help="Rebuild on every change.")] = False,
        minify: Annotated[
            bool | None,
            typer.Option(
                "--minify/--no-minify",
                show_default=False,
                help="Minify host.js and host.css (the default, except with --watch); --no-minify to debug the "
                "shipped build.",
            ),
        ] = None,
        sourcemap: Annotated[bool, typer.Option("--sourcemap", help="Write linked .map files beside them.")] = False,
        entry: Annotated[
            str | None,
            typer.Option(
                "--entry", metavar="FILE", help="The UI entry, relative to the package (default: src/app/host.*)."
            ),
        ] = None,
        format: Annotated[
            common.Format, typer.Option("--format", "-f", metavar="FORMAT", show_default=False, help=common.FORMAT_HELP)
        ] = common.Format.text,
        # -w stays --watch's (as it was before workspaces): the members are named with the long option.
        workspace: Annotated[list[str] | None, targets.workspace_option("--workspace")] = None,
        workspaces: Annotated[bool, targets.workspaces_option()] = False,
    ) -> None:
        """Bundle the UI module to dist/app/ with esbuild and write dist/app/shared-imports.json."""
        if watch_ and format is not common.Format.text:
            raise typer.BadParameter("--watch prints one line per build; drop --format", param_hint="--format")
        if watch_ and (workspace or workspaces):
            raise typer.BadParameter(
                "--watch rebuilds one package: run it in the member's folder (or use dev there)", param_hint="--watch"
            )
        from neuralis_build import api
        from neuralis_build.cli.loop import Loop, folders

        options = options_for(host, minify, sourcemap, entry, watch=watch_)
        wanted = ("a UI module, events or routes to build", lambda folder: api.builds_something(folder, entry))
        selected = folders([path] if path is not None else None, workspace, workspaces, wanted)
        if watch_:
            watch(selected[0], options)
            return
        loop: Loop[PackageBuild] = Loop("ui", UiView())
        code = loop.run(selected, lambda folder: api.build_ui(folder, options), format)
        if code:
            raise typer.Exit(code)


def _kb(size: int) -> str:
    return f"{size / 1000:.1f} kB"


def summary_lines(build: PackageBuild) -> list[str]:
    """What a successful build wrote, one output per line (plain text: a plain build needs no rich)."""
    from neuralis_build.util.printable import shown

    name = shown(build.package.name or build.package.root.name)
    mode = build.ui.mode if build.ui is not None else "production"
    minified = " (minified)" if build.ui is not None and build.ui.minified else ""
    lines = [f"built {name} for {mode}{minified} in {build.seconds * 1000:.0f} ms"]
    rows: list[tuple[str, str]] = []
    ui = build.ui
    if ui is not None:
        for out in ui.outputs:
            if out.endswith("shared-imports.json"):
                r = ui.record
                reads = ", ".join(r.shared_imports) or "nothing shared"
                react = f"React {r.react_major}" if r.react_major is not None else "no React major"
                rows.append((out, f"host API {r.host_api_version}, {react}; reads {reads}"))
            else:
                rows.append((out, _kb(ui.size(out))))
    if build.events is not None:
        for out, names in build.events.exports.items():
            rows.append((out, "exports " + (", ".join(names) or "nothing")))
    rows = [(shown(path), shown(what)) for path, what in rows]
    width = max((len(path) for path, _ in rows), default=0)
    lines += [f"  {path.ljust(width)}  {what}" for path, what in rows]
    return lines


def one_line(result: WatchResult) -> str:
    """A watch result on one line: what was built, or the first error and that the old output stays."""
    import time

    from neuralis_build.util.errors import DiagnosedError
    from neuralis_build.util.printable import shown, shown_text

    stamp = time.strftime("%H:%M:%S")
    ms = f"{result.seconds * 1000:.0f} ms"
    if result.build is not None:
        build = result.build
        parts = []
        if build.ui is not None:
            parts.append("+".join(shown(p.rsplit("/", 1)[-1]) for p in build.ui.outputs if not p.endswith(".json")))
            parts.append(f"{len(build.ui.record.shared_imports)} shared imports")
        if build.events is not None and build.events.outputs:
            n = len(build.events.outputs)
            parts.append(f"{n} server module{'s' if n != 1 else ''}")
        mode = build.ui.mode if build.ui is not None else "development"
        return f"[{stamp}] ok ({mode}): {', '.join(parts)} in {ms}"
    error = result.error
    detail = shown_text(error.message) if error is not None else "unknown error"
    if isinstance(error, DiagnosedError):
        errors = [d for d in error.diagnostics if d.severity == "error"]
        if errors:
            first = errors[0]
            where = shown(first.file) + (f":{first.line}:{first.column}" if first.line is not None else "")
            more = f" (+{len(errors) - 1} more)" if len(errors) > 1 else ""
            detail = f"{where}: {first.code} {shown_text(first.message)}{more}"
    return f"[{stamp}] failed: {detail}; kept the last good output"


def build_json(path: Path, build: PackageBuild) -> dict[str, Any]:
    """One build under --format json: what was written (with sizes), the record, the exports, the warnings."""
    ui, events = build.ui, build.events
    outputs: list[dict[str, Any]] = [{"path": out, "size": ui.size(out)} for out in ui.outputs] if ui else []
    if events is not None:
        root = build.package.root
        outputs += [{"path": out, "size": (root / out).stat().st_size} for out in events.outputs]
    return {
        "path": str(path),
        "package": build.package.name,
        "mode": ui.mode if ui is not None else "production",
        "minified": ui.minified if ui is not None else False,
        "outputs": sorted(outputs, key=lambda o: str(o["path"])),
        "record": ui.record.to_json() if ui is not None else None,
        "exports": {out: list(names) for out, names in events.exports.items()} if events else {},
        "diagnostics": [d.to_json() for d in build.warnings],
    }


def _print_warnings(warnings: list[Diagnostic]) -> None:
    if warnings:
        from neuralis_build.cli.render import explain_footer, print_diagnostics

        console = common.stderr()
        print_diagnostics(console, warnings, base=None)
        explain_footer(console, warnings)


class UiView:
    """How one build looks: its warnings on stderr, what it wrote on stdout; its JSON; its annotations."""

    def json(self, path: Path, build: PackageBuild) -> object:
        return build_json(path, build)

    def annotations(self, path: Path, build: PackageBuild) -> list[str]:
        from neuralis_build.cli.render import diagnostic_annotations

        return diagnostic_annotations(path, build.warnings)

    def show(self, build: PackageBuild, fmt: common.Format) -> None:
        if fmt is common.Format.text:
            _print_warnings(build.warnings)
        print("\n".join(summary_lines(build)), flush=True)

    def code(self, build: PackageBuild) -> int:
        return 0


def watch(path: Path, options: BuildOptions) -> None:
    """Build, then rebuild on every change, one line per result, until Ctrl-C."""
    from neuralis_build import api

    def show(result: WatchResult) -> None:
        print(one_line(result), flush=True)

    def ready() -> None:
        from neuralis_build.util.printable import shown

        print(f"watching {shown(str(path))} for changes (Ctrl-C stops)", flush=True)

    try:
        api.watch_ui(path, options, show, on_ready=ready)
    except KeyboardInterrupt:
        pass  # Ctrl-C is how a watch ends, even in the middle of a rebuild


def options_for(
    host: str | Path | None, minify: bool | None, sourcemap: bool, entry: str | None, *, watch: bool = False
) -> BuildOptions:
    """The build's options: the shipped build is for production and minified (as Vite's is), a --watch build
    for development and readable; ``minify`` (--minify/--no-minify) overrides either."""
    from neuralis_build import api

    minified = not watch if minify is None else minify
    return api.BuildOptions(
        api.load_host_profile(host),
        minify=minified,
        sourcemap=sourcemap,
        entry=entry,
        mode="development" if watch else "production",
    )
