"""`neuralis-build pack`: npm's tarball, after the checks that refuse a package that would ship broken."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from neuralis_build.cli import common, targets
from neuralis_build.util.printable import shown
from neuralis_build.util.trust import Trust

if TYPE_CHECKING:
    from rich.console import Console

    from neuralis_build.api import Packed, PackResult, Trust


def format_bytes(size: int) -> str:
    """npm's ``formatBytes``: ``999 B``, ``1.5 kB``, ``2.3 MB`` (powers of 1000)."""
    if size < 1000:
        return f"{size} B"
    for unit, scale in (("kB", 1e3), ("MB", 1e6), ("GB", 1e9)):
        if size < scale * 1000 or unit == "GB":
            return f"{size / scale:.1f} {unit}"
    return f"{size} B"  # pragma: no cover - the loop always returns


MAX_TREE_LINES = 60


def _tree(console: Console, result: PackResult) -> None:
    """The files as a tree; past MAX_TREE_LINES, the deepest folders fold into one line with totals."""
    from rich.markup import escape
    from rich.tree import Tree

    nested: dict[str, Any] = {}
    for f in result.files:
        *dirs, name = f.path.split("/")
        node = nested
        for d in dirs:
            node = node.setdefault(d + "/", {})
        node[name] = f

    def totals(node: dict[str, Any]) -> tuple[int, int]:
        count = size = 0
        for value in node.values():
            c, s = totals(value) if isinstance(value, dict) else (1, value.size)
            count, size = count + c, size + s
        return count, size

    # open the folders one depth at a time, while the whole depth still fits in the listing
    open_: set[int] = {id(nested)}
    level, lines = [nested], len(nested)
    while level:
        children = [v for node in level for v in node.values() if isinstance(v, dict)]
        cost = sum(len(c) for c in children)
        if not children or lines + cost > MAX_TREE_LINES:
            break
        open_.update(id(c) for c in children)
        level, lines = children, lines + cost

    def rows(node: dict[str, Any], depth: int) -> list[tuple[int, str, str, bool]]:
        """(depth, name, what, is folder) of each line the listing shows, folders first."""
        found: list[tuple[int, str, str, bool]] = []
        for key in sorted(node, key=lambda k: (not k.endswith("/"), k)):
            value = node[key]
            if isinstance(value, dict):
                if id(value) in open_:
                    found.append((depth, shown(key), "", True))
                    found += rows(value, depth + 1)
                else:
                    count, size = totals(value)
                    found.append((depth, shown(key), f"{count} files, {format_bytes(size)}", True))
            else:
                mode = f" {value.mode:o}" if value.mode != 0o644 else ""
                found.append((depth, shown(key), format_bytes(value.size) + mode, False))
        return found

    listing = rows(nested, 0)
    widest = max((4 * (depth + 1) + len(name) + len(what) + 1 for depth, name, what, _ in listing), default=0)
    if common.plain(console, widest):
        _plain_listing(console, result, listing)
        return
    root = Tree(f"[bold]📦 {escape(shown(result.id))}[/]")
    branches = [root]
    for depth, name, what, folder in listing:
        del branches[depth + 1 :]
        label = f"[blue]{escape(name)}[/]" if folder else escape(name)
        branches.append(branches[depth].add(f"{label} [dim]{escape(what)}[/]" if what else label))
    console.print(root)


def _plain_listing(console: Console, result: PackResult, listing: list[tuple[int, str, str, bool]]) -> None:
    """The listing for logs and pipes: one line per file (or folded folder) with its whole path, never cut."""
    from rich.markup import escape

    console.print(f"📦 {escape(shown(result.id))}")
    parents: list[str] = []
    rows: list[tuple[str, str]] = []
    for depth, name, what, folder in listing:
        del parents[depth:]
        if folder and not what:
            parents.append(name)
            continue
        rows.append(("".join(parents) + name, what))
    width = max((len(path) for path, _ in rows), default=0)
    for path, what in rows:
        console.print(f"  {escape(path.ljust(width))}  [dim]{escape(what)}[/]", soft_wrap=True)


def _details(console: Console, result: PackResult, written: Path | None, trust: Trust) -> None:
    from rich.markup import escape

    from neuralis_build.util.printable import display_path

    rows = [
        ("judged at", trust),
        (
            "filename",
            shown(display_path(written)) if written else f"{shown(result.disk_filename)} (dry run: not written)",
        ),
        ("package size", format_bytes(result.size)),
        ("unpacked size", format_bytes(result.unpacked_size)),
        ("total files", str(result.entry_count)),
        ("shasum", result.shasum),
        ("integrity", result.integrity),
    ]
    for key, value in rows:
        console.print(f"[dim]{key:<14}[/] {escape(value)}")


class PackView:
    """How one packed folder looks: its findings, its files as a tree, the details and the file name."""

    def json(self, path: Path, packed: Packed) -> object:
        return packed.result.to_npm_json()

    def annotations(self, path: Path, packed: Packed) -> list[str]:
        from neuralis_build.cli.render import diagnostic_annotations

        return diagnostic_annotations(packed.package.root, packed.diagnostics)

    def show(self, packed: Packed, fmt: common.Format) -> None:
        err = common.stderr()
        if fmt is common.Format.text and packed.diagnostics:
            from neuralis_build.cli.render import explain_footer, print_diagnostics

            print_diagnostics(err, packed.diagnostics, packed.package.root)
            explain_footer(err, packed.diagnostics)
        _tree(err, packed.result)
        _details(err, packed.result, packed.written, packed.trust)
        print(shown(packed.result.disk_filename))

    def code(self, packed: Packed) -> int:
        return 0


def _to_stderr(text: str) -> None:
    """A lifecycle script's output: to stderr whatever the format, as stdout carries only the file name or the
    JSON (npm prints it to stdout, where it breaks ``npm pack --json``)."""
    import sys

    sys.stderr.write(text)
    sys.stderr.flush()


def register(app: typer.Typer) -> None:
    """Add the command to ``app``; heavy imports stay inside the command body."""

    @app.command(
        short_help="Write the tarball npm pack would write.",
        epilog=common.examples(
            "neuralis-build pack --trust first-party",
            "neuralis-build pack --workspace @acme/reports --trust first-party --out dist/ --format json",
        ),
    )
    def pack(
        paths: Annotated[
            list[Path] | None,
            typer.Argument(
                metavar="[PATH]...",
                show_default=False,
                help="Package folders (default: the nearest folder up with a package.json).",
            ),
        ] = None,
        out: Annotated[
            Path | None,
            typer.Option("--out", metavar="DIR", help="Where to write the .tgz files (default: the current folder)."),
        ] = None,
        dry_run: Annotated[
            bool,
            typer.Option(
                "--dry-run", help="List and check; write nothing (the lifecycle scripts still run, as npm runs them)."
            ),
        ] = False,
        ignore_scripts: Annotated[
            bool,
            typer.Option(
                "--ignore-scripts", help="Run no prepack, prepare or postpack script: pack the folder as it is."
            ),
        ] = False,
        format: Annotated[
            common.Format, typer.Option("--format", "-f", metavar="FORMAT", show_default=False, help=common.FORMAT_HELP)
        ] = common.Format.text,
        json_out: Annotated[bool, typer.Option("--json", help="The same as --format json (npm pack's flag).")] = False,
        trust: Annotated[
            Trust,
            common.trust_option(
                "The tier the host will assign (as check takes it): first-party, trusted or untrusted."
            ),
        ] = ...,  # type: ignore[assignment]
        host: Annotated[Path | None, common.host_option()] = None,
        workspace: Annotated[list[str] | None, targets.workspace_option("--workspace", "-w")] = None,
        workspaces: Annotated[bool, targets.workspaces_option()] = False,
    ) -> None:
        """Run the lifecycle scripts npm pack runs, then write <name>-<version>.tgz exactly as npm pack would,
        after checking the package."""
        from neuralis_build import api
        from neuralis_build.cli.loop import Loop, folders

        fmt = common.Format.json if json_out else format
        options = api.PackOptions(
            trust, api.load_host_profile(host), out, dry_run, ignore_scripts, on_output=_to_stderr
        )
        loop: Loop[Packed] = Loop("pack", PackView())
        code = loop.run(folders(paths, workspace, workspaces), lambda path: api.pack(path, options), fmt)
        if code:
            raise typer.Exit(code)
