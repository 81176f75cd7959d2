"""`neuralis-build ui`: bundle the UI module, write its record, compile events and routes; --watch."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from neuralis_build.diagnostics import Diagnostic
    from neuralis_build.ui.run import PackageBuild
    from neuralis_build.ui.watch import WatchResult


def _kb(size: int) -> str:
    return f"{size / 1000:.1f} kB"


def summary_lines(build: PackageBuild) -> list[str]:
    """What a successful build wrote, one output per line (plain text: no rich on the fast path)."""
    name = build.package.name or build.package.root.name
    lines = [f"built {name} in {build.seconds * 1000:.0f} ms"]
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
    width = max((len(path) for path, _ in rows), default=0)
    lines += [f"  {path.ljust(width)}  {what}" for path, what in rows]
    return lines


def one_line(result: WatchResult) -> str:
    """A watch result on one line: what was built, or the first error and that the old output stays."""
    import time

    stamp = time.strftime("%H:%M:%S")
    ms = f"{result.seconds * 1000:.0f} ms"
    if result.build is not None:
        build = result.build
        parts = []
        if build.ui is not None:
            parts.append(f"{'+'.join(p.rsplit('/', 1)[-1] for p in build.ui.outputs if not p.endswith('.json'))}")
            parts.append(f"{len(build.ui.record.shared_imports)} shared imports")
        if build.events is not None and build.events.outputs:
            parts.append(f"{len(build.events.outputs)} server modules")
        return f"[{stamp}] ok: {', '.join(parts)} in {ms}"
    from neuralis_build.errors import DiagnosedError

    error = result.error
    assert error is not None
    detail = error.message
    if isinstance(error, DiagnosedError):
        errors = [d for d in error.diagnostics if d.severity == "error"]
        if errors:
            first = errors[0]
            where = first.file + (f":{first.line}:{first.column}" if first.line is not None else "")
            more = f" (+{len(errors) - 1} more)" if len(errors) > 1 else ""
            detail = f"{where}: {first.code} {first.message}{more}"
    return f"[{stamp}] failed: {detail}; kept the last good output"


def _print_warnings(warnings: list[Diagnostic]) -> None:
    if warnings:
        from neuralis_build.cli import common
        from neuralis_build.cli.render import print_diagnostics

        print_diagnostics(common.stderr(), warnings, base=None)


def register(app: typer.Typer) -> None:
    """Add the command to ``app``; heavy imports stay inside the command body."""

    @app.command()
    def ui(
        path: Annotated[Path, typer.Argument(help="The package folder (default: the current folder).")] = Path("."),
        host: Annotated[Path | None, typer.Option("--host", help="A host profile JSON file.")] = None,
        watch: Annotated[bool, typer.Option("--watch", "-w", help="Rebuild on every change.")] = False,
        minify: Annotated[bool, typer.Option("--minify", help="Minify host.js and host.css.")] = False,
        sourcemap: Annotated[bool, typer.Option("--sourcemap", help="Write linked .map files beside them.")] = False,
        entry: Annotated[
            str | None, typer.Option("--entry", help="The UI entry, relative to the package (default src/app/host.*).")
        ] = None,
    ) -> None:
        """Bundle the UI module to dist/app/ with esbuild and write dist/app/shared-imports.json."""
        from neuralis_build.hostprofile import load_host_profile
        from neuralis_build.ui.run import BuildOptions, build_path

        options = BuildOptions(load_host_profile(host), minify=minify, sourcemap=sourcemap, entry=entry)
        if watch:
            _watch(path, options)
            return
        build = build_path(path, options)
        _print_warnings(build.warnings)
        print("\n".join(summary_lines(build)))


def _watch(path: Path, options: object) -> None:
    from neuralis_build.ui.run import BuildOptions
    from neuralis_build.ui.watch import watch_package

    assert isinstance(options, BuildOptions)

    def show(result: WatchResult) -> None:
        print(one_line(result), flush=True)

    def ready() -> None:
        print(f"watching {path} for changes (Ctrl-C stops)", flush=True)

    watch_package(path, options, show, on_ready=ready)
    sys.stdout.flush()
