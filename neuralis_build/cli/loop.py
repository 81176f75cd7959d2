"""The one loop of the commands that work on package folders (check, ui, pack): one call of the face per folder.

Each command says how one result looks (its ``View``); the loop does the rest alike for all three:
a folder the call could not work on (``api.Failed``) is shown as its error, an element
``{"path", "error"}`` under ``--format json`` and annotations under ``--format github``; under
``--format json`` the elements are printed as one array at the end (as ``npm pack --json`` always
prints an array); the exit code is the worst of the folders'.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

from neuralis_build import api
from neuralis_build.cli import boundary, common

T = TypeVar("T")
T_contra = TypeVar("T_contra", contravariant=True)


class View(Protocol[T_contra]):
    """How a command shows one folder's result, in each format."""

    def json(self, path: Path, result: T_contra) -> Any:
        """The folder's element of the JSON array."""

    def annotations(self, path: Path, result: T_contra) -> list[str]:
        """Its GitHub workflow annotations."""

    def show(self, result: T_contra, fmt: common.Format) -> None:
        """What it prints in text (and github) form."""

    def code(self, result: T_contra) -> int:
        """Its exit code: 1 when the result is a refusal, else 0."""


class Footer(Protocol):
    def __call__(self, results: Sequence[Any]) -> None: ...


class Loop(Generic[T]):
    """One command's loop over its folders."""

    def __init__(self, command: str, view: View[T], footer: Footer | None = None) -> None:
        self.command, self.view, self.footer = command, view, footer

    def run(self, folders: Sequence[Path], work: Callable[[Path], T | api.Failed], fmt: common.Format) -> int:
        """Run ``work`` on each folder in order, show each result as it comes, and return the exit code."""
        elements: list[Any] = []
        done: list[T] = []
        worst = 0
        for path in folders:
            got = work(path)
            if isinstance(got, api.Failed):
                worst = max(worst, got.exit_code)
                self._failed(got, fmt, elements)
                continue
            done.append(got)
            worst = max(worst, self.view.code(got))
            if fmt is common.Format.json:
                elements.append(self.view.json(path, got))
                continue
            if fmt is common.Format.github:
                found = self.view.annotations(path, got)
                if found:
                    print("\n".join(found))
            self.view.show(got, fmt)
        if fmt is common.Format.json:
            boundary.print_json(elements)
        elif fmt is common.Format.text and self.footer is not None:
            self.footer(done)
        return worst

    def _failed(self, failed: api.Failed, fmt: common.Format, elements: list[Any]) -> None:
        from neuralis_build.cli.render import annotation, diagnostic_annotations
        from neuralis_build.util.errors import DiagnosedError

        error = failed.error
        boundary.show_error(error)
        if fmt is common.Format.json:
            elements.append({"path": str(failed.path), "error": boundary.error_json(error)})
        elif fmt is common.Format.github:
            found = diagnostic_annotations(failed.path, error.diagnostics) if isinstance(error, DiagnosedError) else []
            print("\n".join(found or [annotation("error", error.message, title=f"neuralis-build {self.command}")]))


def folders(
    paths: Sequence[Path] | None,
    selectors: Sequence[str] | None,
    every: bool,
    wanted: tuple[str, Callable[[Path], bool]] | None = None,
) -> list[Path]:
    """The folders to work on (``api.package_folders``), saying which members ``--workspaces`` left out."""
    found = api.package_folders(paths, selectors, every, wanted)
    if found.left_out:
        from neuralis_build.cli.common import markup

        console = common.stderr()
        for lacking, labels in found.left_out.items():
            console.print(
                f"[dim]note: left out {len(labels)} member(s) without {lacking}: {markup(', '.join(labels))}[/]"
            )
    if not found.paths:
        raise found.none_left()
    return found.paths
