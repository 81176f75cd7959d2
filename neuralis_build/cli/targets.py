"""The package folders a command works on: the PATHs given, the members npm selects, or npm's package folder.

check, ui and pack share it: ``--workspace NAME`` (repeatable) and ``--workspaces`` select members of
an npm workspaces root as npm does; with neither, a PATH is taken as it is and no PATH means the
folder npm finds from the working folder (see neuralis_build.workspaces).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable

    from rich.console import Console

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


def package_folders(
    paths: list[Path] | None,
    selectors: list[str] | None,
    every: bool,
    console: Callable[[], Console],
    wanted: tuple[str, Callable[[Path], bool]] | None = None,
) -> list[Path]:
    """The folders to work on, in order; members npm selects are shown relative to the working folder.
    ``console`` makes the console notes go to (only when there is one: rich stays unloaded otherwise).

    Under ``--workspaces`` a member without a ``neuralis`` key is not a Neuralis package: it is left out
    with a note (as ``npm run --if-present`` leaves out a member without the script), and so is one that
    ``wanted`` (what it lacks, a test) turns down; a member named by ``--workspace`` is worked on whatever
    it is, so its report says what it lacks.
    """
    from neuralis_build.workspaces import package_root, select_members

    if not selectors and not every:
        return list(paths) if paths else [package_root()]
    folders: list[Path] = []
    skipped: dict[str, list[str]] = {}
    for where in paths or [Path(".")]:
        for member in select_members(where, selectors or [], every=every):
            label = member.name or str(member.path)
            if every and not selectors and not member.neuralis:
                skipped.setdefault("a neuralis block", []).append(label)
                continue
            if every and not selectors and wanted is not None and not wanted[1](member.path):
                skipped.setdefault(wanted[0], []).append(label)
                continue
            shown = _relative(member.path)
            if shown not in folders:
                folders.append(shown)
    from neuralis_build.cli.common import markup

    for lacking, labels in skipped.items():
        console().print(
            f"[dim]note: left out {len(labels)} member(s) without {lacking}: {markup(', '.join(labels))}[/]"
        )
    if not folders:
        from neuralis_build.util.errors import UsageError

        raise UsageError(
            "no member npm selects is one to work on here (see the notes above)",
            hint="neuralis init in a member's folder adds a neuralis block; neuralis new inside the root creates "
            "a member",
        )
    return folders


def refuse_workspaces_root(folder: Path, command: str) -> None:
    """Raise what to do instead when ``folder`` is a workspaces root that is not a Neuralis package itself."""
    from neuralis_build.workspaces import is_workspaces_root, workspaces_root_error

    if is_workspaces_root(folder):
        from neuralis_build.cli.render import display_path

        shown = display_path(folder)
        raise workspaces_root_error(folder, command, "this folder" if shown == "." else shown)


def _relative(path: Path) -> Path:
    """``path`` relative to the working folder when it sits below it, else as it is."""
    import os

    try:
        rel = os.path.relpath(path)
    except ValueError:  # another drive on Windows
        return path
    return path if rel.startswith("..") else Path(rel)
