"""The work of `neuralis-build ui` for the CLI: one build, the watch loop, their output, the fast path.

`build:ui` runs on every change a person makes, so the plain forms of the command (a path,
--host, --entry, --minify, --sourcemap, --format, --verbose) have a fast path that skips typer's start-up
(``fast_main``, called by ``cli/entry.py``); anything else, --help and --watch included, goes
through the typer command in ``ui_cmd.py``, which runs these same functions. No typer here.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up); mypy knows the name
if TYPE_CHECKING:
    from typing import Any

    from neuralis_build.cli.boundary import Format
    from neuralis_build.diagnostics import Diagnostic
    from neuralis_build.ui.env import Mode
    from neuralis_build.ui.run import BuildOptions, PackageBuild
    from neuralis_build.ui.watch import WatchResult


def _kb(size: int) -> str:
    return f"{size / 1000:.1f} kB"


def summary_lines(build: PackageBuild) -> list[str]:
    """What a successful build wrote, one output per line (plain text: no rich on the fast path)."""
    name = build.package.name or build.package.root.name
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
    width = max((len(path) for path, _ in rows), default=0)
    lines += [f"  {path.ljust(width)}  {what}" for path, what in rows]
    return lines


def one_line(result: WatchResult) -> str:
    """A watch result on one line: what was built, or the first error and that the old output stays."""
    import time

    from neuralis_build.errors import DiagnosedError

    stamp = time.strftime("%H:%M:%S")
    ms = f"{result.seconds * 1000:.0f} ms"
    if result.build is not None:
        build = result.build
        parts = []
        if build.ui is not None:
            parts.append("+".join(p.rsplit("/", 1)[-1] for p in build.ui.outputs if not p.endswith(".json")))
            parts.append(f"{len(build.ui.record.shared_imports)} shared imports")
        if build.events is not None and build.events.outputs:
            n = len(build.events.outputs)
            parts.append(f"{n} server module{'s' if n != 1 else ''}")
        mode = build.ui.mode if build.ui is not None else "development"
        return f"[{stamp}] ok ({mode}): {', '.join(parts)} in {ms}"
    error = result.error
    detail = error.message if error is not None else "unknown error"
    if isinstance(error, DiagnosedError):
        errors = [d for d in error.diagnostics if d.severity == "error"]
        if errors:
            first = errors[0]
            where = first.file + (f":{first.line}:{first.column}" if first.line is not None else "")
            more = f" (+{len(errors) - 1} more)" if len(errors) > 1 else ""
            detail = f"{where}: {first.code} {first.message}{more}"
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
        from neuralis_build.cli import common
        from neuralis_build.cli.render import explain_footer, print_diagnostics

        console = common.stderr()
        print_diagnostics(console, warnings, base=None)
        explain_footer(console, warnings)


def build_once(path: Path, options: BuildOptions, fmt: Format = "text") -> int:
    """Build once and report it in ``fmt`` (text: warnings on stderr, what was written on stdout); the exit code."""
    from neuralis_build.cli import boundary
    from neuralis_build.errors import DiagnosedError, NeuralisError
    from neuralis_build.ui.run import build_path

    try:
        build = build_path(path, options)
    except NeuralisError as exc:  # a refusal (exit 1) or a build that could not run (exit 2)
        boundary.show_error(exc)
        if fmt == "json":
            boundary.print_json([{"path": str(path), "error": boundary.error_json(exc)}])
        elif fmt == "github":
            from neuralis_build.cli.render import annotation, diagnostic_annotations

            found = diagnostic_annotations(path, exc.diagnostics) if isinstance(exc, DiagnosedError) else []
            print("\n".join(found or [annotation("error", exc.message, title="neuralis-build ui")]))
        return exc.exit_code
    if fmt == "json":
        boundary.print_json([build_json(path, build)])
        return 0
    if fmt == "github" and build.warnings:
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
        print(f"watching {path} for changes (Ctrl-C stops)", flush=True)

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


_VALUED = ("--host", "--entry", "--format", "-f")
_FLAGS = ("--minify", "--sourcemap", "--verbose", "-v")
_FORMATS: dict[str, Format] = {"text": "text", "json": "json", "github": "github"}


def fast_main(args: Sequence[str]) -> int | None:
    """Run ``ui`` without typer for its plain forms; None when the arguments need the full CLI."""
    path: str | None = None
    values: dict[str, str] = {}
    flags: set[str] = set()
    rest = list(args)
    while rest:
        arg = rest.pop(0)
        name, eq, value = arg.partition("=")
        if name in _VALUED and name not in values:
            if not eq:
                if not rest or rest[0].startswith("-"):
                    return None
                value = rest.pop(0)
            values["--format" if name == "-f" else name] = value
        elif arg in _FLAGS and not eq:
            flags.add(arg)
        elif not arg.startswith("-") and path is None and arg:
            path = arg
        else:
            return None  # --watch, --help, anything unusual: typer parses and reports it
    fmt = _FORMATS.get(values.get("--format", "text"))
    if fmt is None:
        return None  # typer names the choices
    from neuralis_build.cli import boundary

    boundary.VERBOSE = bool(flags & {"--verbose", "-v"})

    def body() -> int:
        options = options_for(values.get("--host"), "--minify" in flags, "--sourcemap" in flags, values.get("--entry"))
        return build_once(Path(path or "."), options, fmt)

    return boundary.guarded(body, ["ui", *args])
