"""`neuralis-build ui`: bundle the UI module, write its record, compile events and routes; --watch."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from neuralis_build.cli import common

if TYPE_CHECKING:
    from neuralis_build.diagnostics import Diagnostic
    from neuralis_build.ui.env import Mode
    from neuralis_build.ui.run import BuildOptions, PackageBuild
    from neuralis_build.ui.watch import WatchResult


def register(app: typer.Typer) -> None:
    """Add the command to ``app``; heavy imports stay inside the command body."""

    @app.command(
        short_help="Bundle the UI module with esbuild.",
        epilog=common.examples("neuralis-build ui", "neuralis-build ui packages/reports --watch"),
    )
    def ui(
        path: Annotated[Path, common.path_argument()] = Path("."),
        host: Annotated[Path | None, common.host_option()] = None,
        watch_: Annotated[bool, typer.Option("--watch", "-w", help="Rebuild on every change.")] = False,
        minify: Annotated[bool, typer.Option("--minify", help="Minify host.js and host.css.")] = False,
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
    ) -> None:
        """Bundle the UI module to dist/app/ with esbuild and write dist/app/shared-imports.json."""
        if watch_ and format is not common.Format.text:
            raise typer.BadParameter("--watch prints one line per build; drop --format", param_hint="--format")
        options = options_for(host, minify, sourcemap, entry, watch=watch_)
        if watch_:
            watch(path, options)
            return
        code = build_once(path, options, format)
        if code:
            raise typer.Exit(code)


def _kb(size: int) -> str:
    return f"{size / 1000:.1f} kB"


def summary_lines(build: PackageBuild) -> list[str]:
    """What a successful build wrote, one output per line (plain text: a plain build needs no rich)."""
    from neuralis_build.printable import shown

    name = shown(build.package.name or build.package.root.name)
    mode = build.ui.mode if build.ui is not None else "production"
    lines = [f"built {name} for {mode} in {build.seconds * 1000:.0f} ms"]
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

    from neuralis_build.errors import DiagnosedError
    from neuralis_build.printable import shown, shown_text

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


def build_once(path: Path, options: BuildOptions, fmt: common.Format = common.Format.text) -> int:
    """Build once and report it in ``fmt`` (text: warnings on stderr, what was written on stdout); the exit code."""
    from neuralis_build.cli import boundary
    from neuralis_build.errors import DiagnosedError, NeuralisError
    from neuralis_build.ui.run import build_path

    try:
        build = build_path(path, options)
    except NeuralisError as exc:  # a refusal (exit 1) or a build that could not run (exit 2)
        boundary.show_error(exc)
        if fmt is common.Format.json:
            boundary.print_json([{"path": str(path), "error": boundary.error_json(exc)}])
        elif fmt is common.Format.github:
            from neuralis_build.cli.render import annotation, diagnostic_annotations

            found = diagnostic_annotations(path, exc.diagnostics) if isinstance(exc, DiagnosedError) else []
            print("\n".join(found or [annotation("error", exc.message, title="neuralis-build ui")]))
        return exc.exit_code
    if fmt is common.Format.json:
        boundary.print_json([build_json(path, build)])
        return 0
    if fmt is common.Format.github and build.warnings:
        from neuralis_build.cli.render import diagnostic_annotations

        print("\n".join(diagnostic_annotations(path, build.warnings)))
    else:
        _print_warnings(build.warnings)
    print("\n".join(summary_lines(build)), flush=True)
    return 0


def watch(path: Path, options: BuildOptions) -> None:
    """Build, then rebuild on every change, one line per result, until Ctrl-C."""
    from neuralis_build.ui.watch import watch_package

    def show(result: WatchResult) -> None:
        print(one_line(result), flush=True)

    def ready() -> None:
        from neuralis_build.printable import shown

        print(f"watching {shown(str(path))} for changes (Ctrl-C stops)", flush=True)

    try:
        watch_package(path, options, show, on_ready=ready)
    except KeyboardInterrupt:
        pass  # Ctrl-C is how a watch ends, even in the middle of a rebuild


def options_for(
    host: str | Path | None, minify: bool, sourcemap: bool, entry: str | None, *, watch: bool = False
) -> BuildOptions:
    """The build's options; the shipped build is for production, a --watch build for development."""
    from neuralis_build.hostprofile import load_host_profile
    from neuralis_build.ui.run import BuildOptions

    mode: Mode = "development" if watch else "production"
    return BuildOptions(load_host_profile(host), minify=minify, sourcemap=sourcemap, entry=entry, mode=mode)
