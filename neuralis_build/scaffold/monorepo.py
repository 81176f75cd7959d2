"""A package made inside an npm workspaces root: no workflow of its own, one line in the root's workflow.

GitHub runs only the workflows in the repository root's ``.github/workflows/``: a member's own
``.github/workflows/package.yml`` would never run. So ``neuralis new`` (and ``init``) inside a
workspaces root leave the member's workflow out and keep one workflow at the root, a matrix with one
line per package (its folder and its tier): written with the first package, given a line for each
package after it.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from neuralis_build import __version__
from neuralis_build.scaffold.render import PlannedFile

ROOT_WORKFLOW = ".github/workflows/neuralis-packages.yml"
OWN_WORKFLOW = ".github/workflows/package.yml"
WORKFLOW_DIR = ".github/"
_MARK = "# neuralis: one line per package"
_ENTRY = re.compile(r"^(?P<indent>\s*)- \{ folder: (?P<folder>\"(?:[^\"\\]|\\.)*\"), trust: ")
_FOLDER = "_workspace"
_TEMPLATE = "neuralis-packages.yml.jinja"

Action = Literal["new", "add a line", "listed", "yours"]


@dataclass(frozen=True)
class RootWorkflow:
    """What happens to the workspaces root's workflow: its path, the bytes to write (None: nothing), and why."""

    root: Path
    action: Action
    content: bytes | None

    @property
    def path(self) -> Path:
        return self.root / ROOT_WORKFLOW


def own_files(files: list[PlannedFile]) -> list[PlannedFile]:
    """The member's files without its workflow folder."""
    return [f for f in files if not f.path.startswith(WORKFLOW_DIR)]


def root_workflow_from(root: Path, member: Path) -> str:
    """The root's workflow as a path from the member's folder (its README names it)."""
    return Path(os.path.relpath(os.path.abspath(root / ROOT_WORKFLOW), os.path.abspath(member))).as_posix()


def entry_line(indent: str, folder: str, trust: str) -> str:
    return f"{indent}- {{ folder: {json.dumps(folder)}, trust: {json.dumps(trust)} }}"


def plan_root_workflow(root: Path, member: Path, trust: str, templates_root: Path | None = None) -> RootWorkflow:
    """The root's workflow with a line for ``member`` at ``trust``: new, with a line added, or left as it is."""
    folder = Path(os.path.relpath(os.path.abspath(member), root)).as_posix()
    path = root / ROOT_WORKFLOW
    if not path.is_file():
        return RootWorkflow(root, "new", _render(folder, trust, templates_root))
    text = path.read_text("utf-8")
    lines = text.splitlines(keepends=True)
    entries = [(i, m) for i, line in enumerate(lines) if (m := _ENTRY.match(line))]
    if any(json.loads(m["folder"]) == folder for _, m in entries):
        return RootWorkflow(root, "listed", None)
    if entries:
        at, indent = entries[-1][0] + 1, entries[-1][1]["indent"]
    else:
        marks = [i for i, line in enumerate(lines) if line.strip() == _MARK]
        if not marks:
            return RootWorkflow(root, "yours", None)  # not the matrix we wrote: the author's to change
        at, indent = marks[-1] + 1, lines[marks[-1]][: len(lines[marks[-1]]) - len(lines[marks[-1]].lstrip())]
    if at == len(lines) and lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    lines.insert(at, entry_line(indent, folder, trust) + "\n")
    return RootWorkflow(root, "add a line", "".join(lines).encode("utf-8"))


def _render(folder: str, trust: str, templates_root: Path | None) -> bytes:
    from neuralis_build.scaffold.render import environment
    from neuralis_build.scaffold.templates import templates_root as shipped

    template = (templates_root or shipped()) / _FOLDER / _TEMPLATE
    if not template.is_file():  # a templates folder of one's own (tests, a fork) may not carry it
        template = shipped() / _FOLDER / _TEMPLATE
    source = template.read_text("utf-8")
    text = (
        environment()
        .from_string(source)
        .render(entries=[{"folder": folder, "trust": trust}], toolchain_version=__version__)
    )
    return text.encode("utf-8")


def write_root_workflow(plan: RootWorkflow) -> None:
    """Write the root's workflow (atomically), when there is something to write."""
    from neuralis_build.util.atomic import write_bytes

    if plan.content is None:
        return
    plan.path.parent.mkdir(parents=True, exist_ok=True)
    write_bytes(plan.path, plan.content)
