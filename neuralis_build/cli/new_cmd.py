"""`neuralis new`: ask for what was not given (only on a terminal), then scaffold or show the tree."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from neuralis_build.cli import common

if TYPE_CHECKING:
    from rich.console import Console

    from neuralis_build.scaffold.create import Plan
    from neuralis_build.scaffold.templates import Template


def _interactive(no_input: bool) -> bool:
    """Prompts need a person at a terminal; --no-input, a pipe or CI mean "never ask"."""
    return not no_input and sys.stdin.isatty()


def _ask_name(console: Console) -> str:
    from rich.prompt import Prompt

    from neuralis_build.npmname import name_problems, suggest_name

    default: str | None = None
    while True:
        answer = Prompt.ask("Package name (npm)", console=console, default=default) or ""
        answer = answer.strip()
        problems = name_problems(answer)
        if not problems:
            return answer
        console.print(f"[red]{answer!r} is not a valid npm name:[/] {'; '.join(problems)}")
        default = suggest_name(answer)


def _ask_template(console: Console, templates: list[Template]) -> str:
    from rich.prompt import Prompt

    from neuralis_build.scaffold.create import DEFAULT_TEMPLATE

    _print_list(console, templates)
    names = [t.name for t in templates]
    return Prompt.ask("Template", console=console, choices=names, default=DEFAULT_TEMPLATE, show_choices=False)


def _print_list(console: Console, templates: list[Template]) -> None:
    from neuralis_build.cli.common import markup

    width = max(len(t.name) for t in templates)
    for t in templates:
        console.print(f"{t.name.ljust(width)}  {markup(t.summary)} [dim](check --trust {t.trust})[/]")


def _print_plan(console: Console, plan: Plan, *, dry_run: bool, force: bool) -> None:
    from neuralis_build.cli.common import markup
    from neuralis_build.cli.render import display_path
    from neuralis_build.errors import UserError
    from neuralis_build.scaffold.create import tree_lines
    from neuralis_build.scaffold.writer import occupants

    where = display_path(plan.target)
    if dry_run:
        console.print(f"Would create {plan.names.name} from the {plan.template.name} template in {markup(where)}:")
        marks = {path: "overwrite" for path in plan.write.overwrites}
        for line in tree_lines(plan.target.name + "/", [f.path for f in plan.files], marks):
            console.print(markup(line))
        console.print("Nothing was written (--dry-run).")
        if plan.write.exists and not force and occupants(plan.target):
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
    console.print("\nNext steps:")
    for step in plan.next_steps():
        console.print(f"  {markup(step)}")


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
    ) -> None:
        """Create a Neuralis package from a template."""
        from neuralis_build.errors import UsageError
        from neuralis_build.scaffold.create import DEFAULT_TEMPLATE, Request, create, default_description, plan
        from neuralis_build.scaffold.names import check_name
        from neuralis_build.scaffold.templates import get_template, list_templates

        out = common.stdout()
        templates = list_templates()
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
        check_name(name)  # refuse a bad name before asking anything else
        if template is None:
            template = _ask_template(out, templates) if ask else DEFAULT_TEMPLATE
        if description is None and ask:
            from rich.prompt import Prompt

            chosen = get_template(template)
            description = Prompt.ask("Description", console=out, default=default_description(chosen, name))
        # A dry run previews even a non-empty folder: it plans as --force would, then says what writing needs.
        request = Request(
            name=name,
            template=template,
            directory=directory,
            id=package_id,
            description=description,
            force=force or dry_run,
        )
        result = plan(request)
        from neuralis_build.cli.common import markup

        err = common.stderr()
        for warning in result.warnings:
            err.print(f"[yellow]warning:[/] {markup(warning)}")
        if not dry_run:
            create(result)
        _print_plan(out, result, dry_run=dry_run, force=force)
