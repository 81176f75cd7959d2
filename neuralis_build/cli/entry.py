"""The `neuralis-build` command (launcher/neuralis-build calls ``console``): `ui` goes to the warm server when one
runs, the plain `ui` build skips typer's start-up, all else is typer.

Every path runs inside the one error boundary (cli/boundary.py); a served `ui` runs ``run`` in the server's
worker, so the two give the same output and exit code.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up); mypy knows the name
if TYPE_CHECKING:
    from typing import NoReturn


def console() -> NoReturn:
    """The console script: ``main`` on this process's arguments, then the process ends with its exit code.

    A `ui` build ends without the interpreter's teardown (``os._exit`` once stdout and stderr are
    flushed): freeing every module and object costs 4 ms or more, and nothing of a build is left to
    clean up then (no other thread, no ``atexit`` hook; tests/test_startup.py pins both).
    """
    code = main()
    if sys.argv[1:2] == ["ui"]:
        threading = sys.modules.get("threading")  # not imported (a served build): no other thread can run
        if threading is None or threading.active_count() == 1:
            import os

            for stream in (sys.stdout, sys.stderr):
                try:
                    stream.flush()
                except (OSError, ValueError):
                    pass  # a reader that went away: nothing more to tell it
            os._exit(code & 0xFF)
    sys.exit(code)


def main(argv: list[str] | None = None) -> int:
    """Hand ``ui`` to the warm server if one runs (neuralis_build/warm); else run here and start one for next time."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] != ["ui"] or "--watch" in args:
        return run(args)
    from neuralis_build.warm import client

    served = client.run_served(args)
    if served is not None:
        return served
    code = run(args)
    client.start_if_wanted()
    return code


def run(args: list[str]) -> int:
    """The command in this process: ``ui``'s fast path when it can take the arguments, else the full CLI."""
    if args[:1] == ["ui"]:
        from neuralis_build.cli.boundary import tolerant_streams

        tolerant_streams()
        from neuralis_build.cli.ui_run import fast_main

        code = fast_main(args[1:])
        if code is not None:
            return code
    from neuralis_build.cli.build import main as full_main

    return full_main(args)


if __name__ == "__main__":
    raise SystemExit(main())
