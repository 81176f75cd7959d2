"""`neuralis update` and `neuralis init`: bring a package to the current templates, or adopt one."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from neuralis_build.cli import common

if TYPE_CHECKING:
    from rich.console import Console

    from neuralis_build.api import AdoptPlan, Change, UpdatePlan

_MARKS = {
    "add": "[green]add[/]",
    "update": "[green]update[/]",
    "merge": "[cyan]merge[/]",
    "conflict": "[red]conflict[/]",
    "remove": "[yellow]remove[/]",
    "kept": "[dim]kept[/]",
    "gone": "[dim]kept[/]",
}


def _diff(change: Change) -> list[str]:
    import difflib

    def lines(data: bytes | None) -> list[str]:
        return data.decode("utf-8", "replace").splitlines(keepends=True) if data else []

    before, after = lines(change.before), lines(change.after)
    if change.kind == "conflict" and change.after is None:
        after = lines(change.rejected)
    diff = difflib.unified_diff(before, after, f"a/{change.path}", f"b/{change.path}")
    return [line.rstrip("\n") for line in diff]


def _print_update(console: Console, plan: UpdatePlan, *, dry_run: bool) -> None:
    from neuralis_build.cli.common import markup

    head = "Would update" if dry_run else "Updating"
    versions = (
        f"from neuralis-build {plan.old} to {plan.new}" if plan.old != plan.new else f"to neuralis-build {plan.new}"
    )
    followed = f", following package.json ({'; '.join(plan.followed)})" if plan.followed else ""
    console.print(f"{head} {markup(plan.name)} ({plan.template} template) {versions}{markup(followed)}:")
    shown = [c for c in plan.changes if c.path != ".neuralis-scaffold.json"]
    width = max((len(c.path) for c in shown), default=0)
    for change in shown:
        mark = _MARKS[change.kind]
        pad = " " * (9 - len(change.kind if change.kind != "gone" else "kept"))
        console.print(f"  {mark}{pad}{markup(change.path.ljust(width))}  {markup(change.detail)}")
        if dry_run and change.writes:
            for line in _diff(change):
                style = "green" if line.startswith("+") else "red" if line.startswith("-") else "dim"
                console.print(f"      [{style}]{markup(line)}[/]")


def _print_manifest_diff(console: Console, plan: AdoptPlan) -> None:
    """The package.json change init would write, as a unified diff."""
    from neuralis_build.api import Change

    after = next((f.content for f in plan.write.files if f.path == "package.json"), None)
    if after is None:
        return
    change = Change("package.json", "merge", plan.manifest_before.encode("utf-8"), after, "")
    for line in _diff(change):
        style = "green" if line.startswith("+") else "red" if line.startswith("-") else "dim"
        console.print(f"  [{style}]{common.markup(line)}[/]")


def register(app: typer.Typer) -> None:
    """Add ``update`` and ``init`` to ``app``; heavy imports stay inside the command bodies."""

    @app.command(epilog=common.examples("neuralis update --dry-run", "neuralis update packages/reports --force"))
    def update(
        path: Annotated[
            Path | None,
            typer.Argument(
                metavar="[PATH]",
                show_default=False,
                help="The package folder (default: the nearest folder up with a package.json).",
            ),
        ] = None,
        dry_run: Annotated[
            bool, typer.Option("--dry-run", help="Show what would change, with diffs; write nothing.")
        ] = False,
        force: Annotated[bool, typer.Option("--force", help="Update even with uncommitted git changes.")] = False,
    ) -> None:
        """Bring a scaffolded package up to the current templates (a three-way merge: your edits survive)."""
        from neuralis_build import api
        from neuralis_build.util.errors import UsageError, UserError

        path = api.package_root() if path is None else path
        root = path.resolve()
        if not root.is_dir():
            raise UsageError(f"{path}: not a folder", hint="pass the package folder that holds .neuralis-scaffold.json")
        plan = api.plan_update(root)
        out = common.stdout()
        if plan.up_to_date:
            out.print(f"{plan.name} is up to date with the {plan.template} template of neuralis-build {plan.new}.")
            if (plan.old != plan.new or plan.followed) and not dry_run:
                api.apply_update(plan)  # only the record moves on
            return
        if not dry_run and not force:
            dirty = api.dirty_files(root)
            if dirty:
                shown = ", ".join(dirty[:5]) + (f" and {len(dirty) - 5} more" if len(dirty) > 5 else "")
                raise UserError(
                    f"{path} has uncommitted changes ({shown})",
                    hint="commit or stash them first, so the update can be reviewed and undone; or pass --force",
                )
        _print_update(out, plan, dry_run=dry_run)
        if dry_run:
            out.print("Nothing was written (--dry-run).")
            return
        api.apply_update(plan)
        conflicts = plan.conflicts
        if conflicts:
            names = ", ".join(c.path for c in conflicts)
            raise UserError(
                f"{len(conflicts)} file(s) need you: {names}",
                hint="resolve the conflict markers (or apply the .rej file) by hand, then run your build and check",
            )
        out.print("Updated. Review with git diff, then run your build and neuralis-build check.")


def register_init(app: typer.Typer) -> None:
    """Add ``init`` to ``app``."""

    @app.command(
        epilog=common.examples(
            "neuralis init --template widget --dry-run", "neuralis init path/to/package -t ui-module"
        )
    )
    def init(
        path: Annotated[
            Path | None,
            typer.Argument(
                metavar="[PATH]",
                show_default=False,
                help="The existing npm package's folder (default: the nearest folder up with a package.json).",
            ),
        ] = None,
        template: Annotated[
            str,
            typer.Option(
                "--template",
                "-t",
                metavar="NAME",
                show_default=False,
                help="The template (neuralis new --list); default minimal.",
            ),
        ] = "minimal",
        package_id: Annotated[
            str | None,
            typer.Option("--id", metavar="ID", help="The neuralis id; defaults to, and should equal, the npm name."),
        ] = None,
        description: Annotated[
            str | None, typer.Option("--description", metavar="TEXT", help="A one-line description.")
        ] = None,
        force: Annotated[
            bool, typer.Option("--force", help="Replace an existing neuralis block and overwrite colliding files.")
        ] = False,
        dry_run: Annotated[bool, typer.Option("--dry-run", help="Print what would change; write nothing.")] = False,
    ) -> None:
        """Add a neuralis block and a template's files to an existing npm package, keeping everything it has."""
        from neuralis_build import api
        from neuralis_build.cli.common import markup
        from neuralis_build.util.printable import display_path

        path = api.package_root() if path is None else path
        result = api.plan_adopt(path, template, package_id=package_id, description=description, force=force)
        out = common.stdout()
        where = markup(display_path(result.target))
        head = "Would add" if dry_run else "Added"
        out.print(f"{head} the {result.template} template to {markup(result.name)} in {where}:")
        paths = sorted(result.marks)
        for line in api.tree_lines(result.target.name + "/", paths, result.marks):
            out.print(markup(line))
        err = common.stderr()
        for note in result.notes:
            err.print(f"[yellow]note:[/] {markup(note)}")
        workflow = result.root_workflow
        if workflow is not None and workflow.content is not None:
            verb = ("Would write" if dry_run else "Writes") if workflow.action == "new" else "Adds the package to"
            out.print(
                f"{verb} the npm workspaces root's {markup(display_path(workflow.path))} "
                "(GitHub runs only the repository root's workflows, so the package gets none of its own)."
            )
        if dry_run:
            _print_manifest_diff(out, result)
            out.print("Nothing was written (--dry-run).")
            return
        api.write_plan(result.write)
        if workflow is not None:
            from neuralis_build import api

            api.write_root_workflow(workflow)
        from neuralis_build import api

        trust = api.get_template(result.template).trust
        out.print(
            f"Next: npm install, your build, then neuralis-build check --trust {trust}; "
            "neuralis update keeps it current."
        )
