"""`neuralis-build server`: the warm server of `ui` (neuralis_build/warm): its status, starting and stopping it."""

from __future__ import annotations

import enum
from typing import Annotated

import typer

from neuralis_build.cli import boundary, common


class Action(enum.StrEnum):
    status = "status"
    start = "start"
    stop = "stop"


def register(app: typer.Typer) -> None:
    """Add the command to ``app``."""

    @app.command(
        short_help="Status, start or stop of the warm server that serves `ui`.",
        epilog=common.examples("neuralis-build server", "neuralis-build server stop"),
    )
    def server(
        action: Annotated[
            Action,
            typer.Argument(metavar="[status|start|stop]", show_default=False, help="What to do (default: status)."),
        ] = Action.status,
        format: Annotated[
            common.Format, typer.Option("--format", "-f", metavar="FORMAT", show_default=False, help=common.FORMAT_HELP)
        ] = common.Format.text,
    ) -> None:
        """The warm build server: a resident process that runs `ui` builds without paying Python's start-up.

        `ui` uses it whenever it runs and starts it after a build run from a terminal; it ends after 15 idle
        minutes (NEURALIS_BUILD_SERVER_IDLE seconds) or when its code changes. NEURALIS_BUILD_SERVER=0 turns it off.
        """
        import os
        import time

        from neuralis_build import warm
        from neuralis_build.warm import client

        if action is Action.start:
            if client.ask("status") is None:
                client.start_server()
                for _ in range(100):  # it answers once its imports are done
                    time.sleep(0.05)
                    if client.ask("status") is not None:
                        break
        elif action is Action.stop:
            client.ask("stop")
            for _ in range(100):
                if not os.path.exists(warm.socket_path(os.environ)):
                    break
                time.sleep(0.05)
        status = client.ask("status")
        if format is common.Format.json:
            boundary.print_json(
                {
                    "running": isinstance(status, dict),
                    "socket": warm.socket_path(os.environ),
                    **(status if isinstance(status, dict) else {}),
                }
            )
            return
        if not isinstance(status, dict):
            print(
                f"no server runs ({warm.socket_path(os.environ)}); `ui` builds cold"
                + ("" if warm.may_use(os.environ) else " (NEURALIS_BUILD_SERVER turns it off)")
            )
            if action is Action.start:
                raise typer.Exit(2)
            return
        idle = float(status.get("idleSeconds", 0))
        print(
            f"server pid {status['pid']} at {status['socket']}: {status['buildsServed']} builds served, "
            f"{status['buildsRunning']} running, ends after {idle:g} s idle"
        )
