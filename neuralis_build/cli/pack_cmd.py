"""`neuralis-build pack`: npm's tarball, after the checks that refuse a package that would ship broken."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from neuralis_build.cli import common

if TYPE_CHECKING:
    from rich.console import Console

    from neuralis_build.diagnostics import Diagnostic
    from neuralis_build.pack.tarball import PackResult
    from neuralis_build.package import Package


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

    def add(branch: Tree, node: dict[str, Any]) -> None:
        for key in sorted(node, key=lambda k: (not k.endswith("/"), k)):
            value = node[key]
            if isinstance(value, dict):
                if id(value) in open_:
                    add(branch.add(f"[blue]{escape(key)}[/]"), value)
                else:
                    count, size = totals(value)
                    branch.add(f"[blue]{escape(key)}[/] [dim]{count} files, {format_bytes(size)}[/]")
            else:
                mode = f" [dim]{value.mode:o}[/]" if value.mode != 0o644 else ""
                branch.add(f"{escape(key)} [dim]{format_bytes(value.size)}[/]{mode}")

    root = Tree(f"[bold]📦 {escape(result.id)}[/]")
    add(root, nested)
    console.print(root)


def _details(console: Console, result: PackResult, written: Path | None) -> None:
    from rich.markup import escape

    from neuralis_build.cli.render import display_path

    rows = [
        ("filename", display_path(written) if written else f"{result.disk_filename} (dry run: not written)"),
        ("package size", format_bytes(result.size)),
        ("unpacked size", format_bytes(result.unpacked_size)),
        ("total files", str(result.entry_count)),
        ("shasum", result.shasum),
        ("integrity", result.integrity),
    ]
    for key, value in rows:
        console.print(f"[dim]{key:<14}[/] {escape(value)}")


def _print_diagnostics(console: Console, diagnostics: list[Diagnostic], package: Package) -> None:
    from neuralis_build.cli.render import print_diagnostics

    print_diagnostics(console, diagnostics, package.root)


def register(app: typer.Typer) -> None:
    """Add the command to ``app``; heavy imports stay inside the command body."""

    @app.command()
    def pack(
        path: Annotated[Path, typer.Argument(help="The package folder (default: the current folder).")] = Path("."),
        out: Annotated[
            Path | None, typer.Option("--out", help="Where to write the .tgz (default: the current folder).")
        ] = None,
        dry_run: Annotated[bool, typer.Option("--dry-run", help="List and check; write nothing.")] = False,
        json_out: Annotated[bool, typer.Option("--json", help="Print what npm pack --json prints.")] = False,
        trust: Annotated[
            common.TrustOption,
            typer.Option(
                "--trust",
                envvar="NEURALIS_TRUST",
                case_sensitive=False,
                help="The tier the package is checked at (default: first-party).",
            ),
        ] = common.TrustOption.first_party,
        host: Annotated[Path | None, typer.Option("--host", help="A host profile JSON file.")] = None,
    ) -> None:
        """Write <name>-<version>.tgz exactly as npm pack would, after checking the package."""
        from neuralis_build.diagnostics import has_errors
        from neuralis_build.errors import DiagnosedError
        from neuralis_build.hostprofile import load_host_profile
        from neuralis_build.pack.refusals import prepare_pack, tarball_diagnostics
        from neuralis_build.pack.tarball import pack_package, write_tarball
        from neuralis_build.package import load_package

        try:
            package = load_package(path)
        except DiagnosedError as exc:  # package.json itself is refused: --json still prints a report
            if json_out:
                report: dict[str, Any] = {
                    "package": None,
                    "ok": False,
                    "diagnostics": [d.to_json() for d in exc.diagnostics],
                }
                print(json.dumps(report, indent=2, ensure_ascii=False))
            raise
        label = package.name or str(package.root)
        prep = prepare_pack(package, trust.value, load_host_profile(host))
        diagnostics = prep.diagnostics
        result = None
        if prep.ok:
            result = pack_package(package, prep.files)
            diagnostics = diagnostics + tarball_diagnostics(result)
        err = common.stderr()
        if result is None or has_errors(diagnostics):
            if json_out:
                report = {"package": package.name, "ok": False, "diagnostics": [d.to_json() for d in diagnostics]}
                print(json.dumps(report, indent=2, ensure_ascii=False))
            raise DiagnosedError(f"{label} was not packed", diagnostics)
        if diagnostics:
            _print_diagnostics(err, diagnostics, package)
        written = None if dry_run else write_tarball(result, out if out is not None else Path.cwd())
        if json_out:
            print(json.dumps([result.to_npm_json()], indent=2, ensure_ascii=False))
            return
        _tree(err, result)
        _details(err, result, written)
        print(result.disk_filename)
