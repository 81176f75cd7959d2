"""`neuralis new`: ask for what was not given (only on a terminal), then scaffold or show the tree."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from neuralis_build.cli import common

if TYPE_CHECKING:
    from rich.console import Console

    from neuralis_build.api import Plan, Template


def _interactive(no_input: bool) -> bool:
    """Prompts need a person at a terminal; --no-input, a pipe or CI mean "never ask"."""
    return not no_input and sys.stdin.isatty()


def _ask_name(console: Console) -> str:
    from rich.prompt import Prompt

    from neuralis_build import api

    default: str | None = None
    while True:
        answer = Prompt.ask("Package name (npm)", console=console, default=default) or ""
        answer = answer.strip()
        problems = api.name_problems(answer)
        if not problems:
            return answer
        console.print(f"[red]{answer!r} is not a valid npm name:[/] {'; '.join(problems)}")
        default = api.suggest_name(answer)


def _ask_template(console: Console, templates: list[Template]) -> str:
    from rich.prompt import Prompt

    from neuralis_build import api

    _print_list(console, templates)
    names = [t.name for t in templates]
    return Prompt.ask("Template", console=console, choices=names, default=api.DEFAULT_TEMPLATE, show_choices=False)


def _print_list(console: Console, templates: list[Template]) -> None:
    from neuralis_build.cli.common import markup

    width = max(len(t.name) for t in templates)
    for t in templates:
        console.print(f"{t.name.ljust(width)}  {markup(t.summary)} [dim](check --trust {t.trust})[/]")


def _print_plan(console: Console, plan: Plan, *, dry_run: bool, force: bool) -> None:
    from neuralis_build import api
    from neuralis_build.cli.common import markup
    from neuralis_build.util.errors import UserError
    from neuralis_build.util.printable import display_path

    where = display_path(plan.target)
    if dry_run:
        console.print(f"Would create {plan.names.name} from the {plan.template.name} template in {markup(where)}:")
        marks = {path: "overwrite" for path in plan.write.overwrites}
        for line in api.tree_lines(plan.target.name + "/", [f.path for f in plan.files], marks):
            console.print(markup(line))
        _print_workspace(console, plan, dry_run=True)
        console.print("Nothing was written (--dry-run).")
        if plan.write.exists and not force and api.occupants(plan.target):
            # The preview is shown, but the exit code still says what the real run would do.
            raise UserError(
                f"{where} is not empty: writing needs --force, which overwrites the files marked (overwrite)",
                hint="neuralis init adds a template to an existing npm package, keeping what it has",
            )
        return
    overwritten = f", overwriting {len(plan.write.overwrites)}" if plan.write.overwrites else ""
    console.print(
        f"Created {plan.names.name} from the {plan.template.name} template in {markup(where)} "
        f"({len(plan.files)} files{overwritten})."
    )
    _print_workspace(console, plan, dry_run=False)
    console.print("\nNext steps:")
    for step in plan.next_steps():
        console.print(f"  {markup(step)}")


def _print_workspace(console: Console, plan: Plan, *, dry_run: bool) -> None:
    """Inside a workspaces root: that the package has no workflow of its own, and what the root's gets."""
    from neuralis_build import api
    from neuralis_build.cli.common import markup
    from neuralis_build.util.printable import display_path

    if plan.workspaces_root is None:
        return
    shown = display_path(plan.workspaces_root)
    root = "the current folder" if shown == "." else markup(shown)
    console.print(
        f"Inside an npm workspaces root ({root}): no .github/workflows of the package's own (GitHub runs only the "
        "repository root's)."
    )
    workflow = plan.root_workflow
    folder = markup(display_path(plan.target))
    if workflow is None:
        console.print(
            f"No root workflow written (--no-root-workflow): {root}/{api.ROOT_WORKFLOW} would build {folder}."
        )
        return
    path = markup(display_path(workflow.path))
    verb = {"new": "Would write" if dry_run else "Wrote", "add a line": "Would add" if dry_run else "Added"}
    if workflow.action == "new":
        console.print(f"{verb['new']} {path}: a job per package, {folder} the first.")
    elif workflow.action == "add a line":
        console.print(f"{verb['add a line']} {folder} to the packages {path} builds, checks and packs.")
    elif workflow.action == "yours":
        console.print(
            f"[yellow]note:[/] {path} is not the matrix neuralis new writes (no line for a package): "
            f"add {folder} (trust {plan.template.trust}) to it yourself."
        )


def register(app: typer.Typer) -> None:
    """Add the command to ``app``; heavy imports stay inside the command body."""

    @app.command(
        epilog=common.examples(
            "neuralis new my-package", "neuralis new @acme/reports --template ui-module --dry-run --no-input"
        )
    )
    def new(
        name: Annotated[
            str | None,
            typer.Argument(metavar="[NAME]", help="The npm package name, such as my-package or @acme/reports."),
        ] = None,
        template: Annotated[
            str | None,
            typer.Option("--template", "-t", metavar="NAME", help="The template (see --list); default minimal."),
        ] = None,
        directory: Annotated[
            Path | None,
            typer.Option("--dir", "-d", metavar="DIR", help="The folder to create (default: ./<name without scope>)."),
        ] = None,
        package_id: Annotated[
            str | None,
            typer.Option("--id", metavar="ID", help="The neuralis id; defaults to, and should equal, the npm name."),
        ] = None,
        description: Annotated[
            str | None, typer.Option("--description", metavar="TEXT", help="A one-line description.")
        ] = None,
        force: Annotated[
            bool, typer.Option("--force", help="Write into a non-empty folder, overwriting colliding files.")
        ] = False,
        no_input: Annotated[
            bool, typer.Option("--no-input", help="Never prompt: use defaults, or fail naming the missing value.")
        ] = False,
        dry_run: Annotated[bool, typer.Option("--dry-run", help="Print the tree; write nothing.")] = False,
        list_: Annotated[bool, typer.Option("--list", help="List the templates, one line each.")] = False,
        root_workflow: Annotated[
            bool,
            typer.Option(
                "--root-workflow/--no-root-workflow",
                help="Inside an npm workspaces root: write the root's workflow, or add the package to it "
                "(the package gets none of its own either way).",
            ),
        ] = True,
    ) -> None:
        """Create a Neuralis package from a template."""
        from neuralis_build import api
        from neuralis_build.util.errors import UsageError

        out = common.stdout()
        templates = api.list_templates()
        if list_:
            _print_list(out, templates)
            return
        ask = _interactive(no_input)
        if name is None:
            if not ask:
                raise UsageError(
                    "missing the package name (NAME)",
                    hint="pass it as the first argument: neuralis new my-package --no-input",
                )
            name = _ask_name(out)
        api.check_name(name)  # refuse a bad name before asking anything else
        if template is None:
            template = _ask_template(out, templates) if ask else api.DEFAULT_TEMPLATE
        if description is None and ask:
            from rich.prompt import Prompt

            chosen = api.get_template(template)
            description = Prompt.ask("Description", console=out, default=api.default_description(chosen, name))
        # A dry run previews even a non-empty folder: it plans as --force would, then says what writing needs.
        request = api.Request(
            name=name,
            template=template,
            directory=directory,
            id=package_id,
            description=description,
            force=force or dry_run,
            root_workflow=root_workflow,
        )
        result = api.plan_new(request)
        from neuralis_build.cli.common import markup

        err = common.stderr()
        for warning in result.warnings:
            err.print(f"[yellow]warning:[/] {markup(warning)}")
        if not dry_run:
            api.create_package(result)
        _print_plan(out, result, dry_run=dry_run, force=force)
        if not dry_run and result.workspaces_root is not None:
            _warn_unless_member(err, result)


def _warn_unless_member(console: Console, plan: Plan) -> None:
    """npm treats the new folder as a workspace only when the root's ``workspaces`` globs match it: ask npm."""
    from neuralis_build import api
    from neuralis_build.cli.common import markup
    from neuralis_build.util.errors import NeuralisError
    from neuralis_build.util.printable import display_path

    assert plan.workspaces_root is not None
    try:
        found = api.workspace_root(plan.target)
    except NeuralisError:
        return  # npm could not say (not on PATH): the package is written; nothing to add
    if found is not None:
        return
    patterns = ", ".join(api.workspace_patterns(plan.workspaces_root) or []) or "none"
    console.print(
        f"[yellow]warning:[/] {markup(display_path(plan.target))} is not a member of the workspaces root "
        f"{markup(display_path(plan.workspaces_root))} (its workspaces: {markup(patterns)}): add its folder to "
        '"workspaces" there, so npm links it and runs its scripts as a member'
    )
