"""The `neuralis-build` console script: the plain `ui` build skips typer's start-up, all else is typer.

Both paths run inside the one error boundary (cli/boundary.py).
"""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    """Dispatch ``ui`` to its fast path when it can take the arguments; otherwise run the full CLI."""
    args = list(sys.argv[1:] if argv is None else argv)
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
