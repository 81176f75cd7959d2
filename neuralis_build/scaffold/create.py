"""`neuralis new` as a library: check the answers, render the template, plan the write, then write."""

from __future__ import annotations

import os
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from neuralis_build import __version__
from neuralis_build.hostprofile import default_host_profile
from neuralis_build.npm.names import tarball_stem
from neuralis_build.scaffold.monorepo import (
    OWN_WORKFLOW,
    RootWorkflow,
    own_files,
    plan_root_workflow,
    root_workflow_from,
    write_root_workflow,
)
from neuralis_build.scaffold.names import Names, bare_name, check_name, title_case
from neuralis_build.scaffold.render import PlannedFile, render_template, scaffold_record
from neuralis_build.scaffold.templates import Template, get_template
from neuralis_build.scaffold.writer import WritePlan, plan_write, write_plan

DEFAULT_TEMPLATE = "minimal"
INITIAL_VERSION = "0.1.0"


@dataclass(frozen=True)
class Request:
    """What the author asked for; ``None`` means "use the default"."""

    name: str
    template: str = DEFAULT_TEMPLATE
    directory: Path | None = None
    id: str | None = None
    description: str | None = None
    force: bool = False
    templates_root: Path | None = None
    root_workflow: bool = True
    """Inside an npm workspaces root: write (or extend) the root's workflow."""


@dataclass(frozen=True)
class Plan:
    """A scaffold ready to write: the template, the names, the files and where they go."""

    template: Template
    names: Names
    description: str
    write: WritePlan
    warnings: tuple[str, ...]
    workspaces_root: Path | None = None
    """The npm workspaces root the package is made in (it then has no workflow of its own)."""
    root_workflow: RootWorkflow | None = None

    @property
    def target(self) -> Path:
        return self.write.target

    @property
    def files(self) -> tuple[PlannedFile, ...]:
        return self.write.files

    def _has_script(self, name: str) -> bool:
        import json

        for f in self.files:
            if f.path == "package.json":
                scripts = json.loads(f.content).get("scripts")
                return isinstance(scripts, dict) and name in scripts
        return False

    def next_steps(self, cwd: Path | None = None) -> list[str]:
        """The commands the author runs next, from the working directory."""
        here = cwd or Path.cwd()
        rel = os.path.relpath(self.target, here)
        outside = rel == os.pardir or rel.startswith(os.pardir + os.sep)
        where = str(self.target) if outside else rel
        steps = [] if rel == "." else [f"cd {shlex.quote(where)}"]
        steps += list(self.template.build)
        if self._has_script("dev"):
            steps.append("npm run dev")  # the host page on 127.0.0.1: every surface, live
        trust = self.template.trust
        steps += [f"neuralis-build check --trust {trust}", f"neuralis-build pack --trust {trust}"]
        return steps


def default_directory(name: str) -> Path:
    """Where a package goes when no --dir is given: the unscoped name under the working directory."""
    return Path(bare_name(name))


def default_description(template: Template, name: str) -> str:
    """The template's one-line description of a package called ``name``."""
    return template.description.format(title=title_case(name))


def clean_description(text: str) -> str:
    """One line of text: runs of whitespace (newlines included) become single spaces."""
    return " ".join(text.split())


def context(
    template: Template,
    names: Names,
    description: str,
    *,
    toolchain_version: str = __version__,
    react_major: int | None = None,
    version: str = INITIAL_VERSION,
    workflow: str = OWN_WORKFLOW,
) -> dict[str, Any]:
    """The values a template may use (StrictUndefined makes any other name an error).

    ``toolchain_version`` and ``react_major`` are what the toolchain puts in; `neuralis update` passes
    an earlier version's values to render the template as that version did. ``version`` is the
    package's: the first one for `neuralis new`, package.json's for `neuralis init` and `update`.
    ``workflow`` is the path, from the package, of the workflow that builds it: its own, or the
    workspaces root's when it is a member (which has none of its own).
    """
    return {
        **{k: getattr(names, k) for k in names.__dataclass_fields__},
        "description": description,
        "version": version,
        "tarball": tarball_stem(names.name, version) + ".tgz",
        "template": template.name,
        "trust": template.trust,
        "toolchain_version": toolchain_version,
        "react_major": default_host_profile().react_major if react_major is None else react_major,
        "build_steps": list(template.build),
        "workflow": workflow,
        "host_api_types": host_api_types(),
    }


def host_api_types() -> str:
    """The TypeScript declarations of the host API and @neuralis/client that ship with the toolchain."""
    return (Path(__file__).resolve().parent.parent / "data" / "types" / "neuralis-client.d.ts").read_text("utf-8")


def plan(request: Request) -> Plan:
    """Check every answer and render everything in memory; raises before anything is written."""
    check_name(request.name)
    warnings: list[str] = []
    package_id = request.name if request.id is None else request.id
    if request.id is not None:
        check_name(request.id, what="package id", flag="--id")
        if request.id != request.name:
            warnings.append(
                f'the id "{request.id}" differs from the npm name "{request.name}": the host installs and '
                "resolves a package by its npm name, so neuralis-build check will warn (NB0111)"
            )
    template = get_template(request.template, request.templates_root)
    description = clean_description(request.description or "") or default_description(template, request.name)
    names = Names.derive(request.name, package_id)
    target = request.directory if request.directory is not None else default_directory(request.name)
    answers = {"name": names.name, "id": names.id, "description": description}
    files, root, workflow = render_member(
        template, answers, target, root_workflow=request.root_workflow, templates_root=request.templates_root
    )
    write = plan_write(target, files, force=request.force)
    return Plan(template, names, description, write, tuple(warnings), root, workflow)


def render_member(
    template: Template,
    answers: Mapping[str, str],
    target: Path,
    *,
    root_workflow: bool = True,
    templates_root: Path | None = None,
) -> tuple[list[PlannedFile], Path | None, RootWorkflow | None]:
    """The package's files for ``target``, and the npm workspaces root it is a member of with the plan of
    that root's workflow (None, None outside one).

    GitHub never runs a workflow below the repository root: a member gets no workflow of its own, its
    README names the root's, and the root's workflow gets its line (unless ``root_workflow`` is False).
    """
    from neuralis_build.workspaces import enclosing_workspaces_root

    root = enclosing_workspaces_root(target)
    if root is None:
        return render_package(template, answers), None, None
    files = own_files(render_package(template, {**answers, "workflow": root_workflow_from(root, target)}))
    workflow = plan_root_workflow(root, target, template.trust, templates_root) if root_workflow else None
    return files, root, workflow


def render_package(
    template: Template,
    answers: Mapping[str, str],
    *,
    toolchain_version: str = __version__,
    react_major: int | None = None,
) -> list[PlannedFile]:
    """Every file a scaffold writes for these answers (name, id, description, the package's version when it
    is not the first one, and the workspaces root's workflow for a member), the record included, by path."""
    major = default_host_profile().react_major if react_major is None else react_major
    names = Names.derive(answers["name"], answers["id"])
    version = answers.get("version", INITIAL_VERSION)
    values = context(
        template,
        names,
        answers["description"],
        toolchain_version=toolchain_version,
        react_major=major,
        version=version,
        workflow=answers.get("workflow", OWN_WORKFLOW),
    )
    files = render_template(template, values)
    record = scaffold_record(template, toolchain_version, answers, react_major=major)
    return sorted([*files, record], key=lambda f: f.path)


def create(plan: Plan) -> None:
    """Write a planned scaffold atomically, then the workspaces root's workflow when it gets one or a line."""
    write_plan(plan.write)
    if plan.root_workflow is not None:
        write_root_workflow(plan.root_workflow)


def tree_lines(root_label: str, paths: Sequence[str], marks: dict[str, str] | None = None) -> list[str]:
    """``paths`` drawn as a tree under ``root_label`` (what --dry-run prints), folders before files."""
    marks = marks or {}
    tree: dict[str, Any] = {}
    for path in paths:
        node = tree
        parts = path.split("/")
        for part in parts[:-1]:
            node = node.setdefault(part + "/", {})
        node[parts[-1]] = None

    lines = [root_label]

    def walk(node: dict[str, Any], prefix: str, at: str) -> None:
        keys = sorted(node, key=lambda k: (node[k] is None, k))
        for i, key in enumerate(keys):
            last = i == len(keys) - 1
            full = at + key
            mark = f"  ({marks[full]})" if full in marks else ""
            lines.append(f"{prefix}{'└── ' if last else '├── '}{key}{mark}")
            if node[key] is not None:
                walk(node[key], prefix + ("    " if last else "│   "), full)

    walk(tree, "", "")
    return lines
