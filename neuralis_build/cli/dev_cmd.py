"""`neuralis-build dev`: serve a host-like page of the package on 127.0.0.1 that renders every surface, live."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from neuralis_build.cli import common
from neuralis_build.util.trust import Trust

if TYPE_CHECKING:
    from neuralis_build.api import BuildReport


def report_line(report: BuildReport) -> str:
    """One build of the dev loop on one line: what it did, or the first error and that the last page stays."""
    import time

    from neuralis_build.util.printable import shown, shown_text

    stamp = time.strftime("%H:%M:%S")
    names = ", ".join(shown(name) for name in report.changed[:3])
    changed = f" ({names}{', ...' if len(report.changed) > 3 else ''})" if report.changed else ""
    if report.ok and not report.changed:
        return f"[{stamp}] built in {report.seconds * 1000:.0f} ms"
    if report.ok:
        return f"[{stamp}] ok in {report.seconds * 1000:.0f} ms{changed}: the page reloads"
    detail = shown_text(report.message or "failed")
    if report.errors:
        first = report.errors[0]
        where = shown(first.file) + (f":{first.line}:{first.column}" if first.line is not None else "")
        more = f" (+{len(report.errors) - 1} more)" if len(report.errors) > 1 else ""
        detail = f"{where}: {first.code} {shown_text(first.message)}{more}"
    return f"[{stamp}] failed{changed}: {detail}; the page keeps the last good build"


def register(app: typer.Typer) -> None:
    """Add the command to ``app``; heavy imports stay inside the command body."""

    @app.command(
        short_help="Serve a live host-like page of the package.",
        epilog=common.examples("neuralis-build dev", "neuralis-build dev packages/reports --port 8080 --open"),
    )
    def dev(
        path: Annotated[
            Path | None,
            common.path_argument("The package folder (default: the nearest folder up with a package.json)."),
        ] = None,
        port: Annotated[
            int,
            typer.Option(
                "--port", metavar="N", show_default=False, help="The port on 127.0.0.1 (default 0: a free one)."
            ),
        ] = 0,
        host: Annotated[Path | None, common.host_option()] = None,
        trust: Annotated[
            Trust,
            common.trust_option(
                "The tier the page judges the package at: first-party (default), trusted or untrusted."
            ),
        ] = Trust.FIRST_PARTY,
        open_: Annotated[bool, typer.Option("--open", help="Open the page in the default browser.")] = False,
    ) -> None:
        """Serve a host-like page on 127.0.0.1 that renders every surface, rebuilt and reloaded on each change."""
        from neuralis_build import api

        if not 0 <= port <= 65535:
            raise typer.BadParameter("a port is 0 to 65535", param_hint="--port")
        path = api.package_folders(None).paths[0] if path is None else path
        options = api.DevOptions(path, api.load_host_profile(host), trust, port)

        import tempfile

        private = tempfile.TemporaryDirectory(prefix="neuralis-dev-open-")  # 0700: the page's key stays ours

        from neuralis_build.util.printable import shown

        def ready(url: str) -> None:
            print(f"neuralis-build dev: serving {shown(str(path))} at {url} (Ctrl-C stops)", flush=True)
            if open_:
                import webbrowser

                webbrowser.open(api.redirect_page(url, Path(private.name)).as_uri())

        def report(result: BuildReport) -> None:
            print(report_line(result), flush=True)

        import signal

        def terminate(signum: int, frame: object) -> None:
            raise KeyboardInterrupt  # `kill` ends the session as cleanly as Ctrl-C

        previous = signal.signal(signal.SIGTERM, terminate)
        try:
            api.run_dev(options, on_ready=ready, on_report=report)
        except KeyboardInterrupt:
            pass  # Ctrl-C is how a dev session ends, even in the middle of a rebuild
        finally:
            signal.signal(signal.SIGTERM, previous)
            private.cleanup()
        print("neuralis-build dev: stopped", flush=True)
