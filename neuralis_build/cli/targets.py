"""The ``--workspace NAME`` and ``--workspaces`` options of check, ui and pack, spelt as npm spells them.

Which folders they select is the library's (``api.package_folders``, over ``neuralis_build.workspaces``);
the loop over them is ``cli/loop.py``.
"""

from __future__ import annotations

from typing import Any

WORKSPACE_HELP = (
    "Work on this member of the npm workspaces root: a name, a folder or a glob of folders, as npm takes it "
    "(repeatable)."
)
WORKSPACES_HELP = "Work on every member of the npm workspaces root that is a Neuralis package."


def workspace_option(*names: str) -> Any:
    """``--workspace NAME`` (npm's spelling; ``-w`` too where the command has no other use for it)."""
    import typer

    return typer.Option(*(names or ("--workspace",)), metavar="NAME", show_default=False, help=WORKSPACE_HELP)


def workspaces_option() -> Any:
    """``--workspaces``: every member."""
    import typer

    return typer.Option("--workspaces", help=WORKSPACES_HELP)
