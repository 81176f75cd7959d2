"""How diagnostics look: rich text for people, JSON for programs, annotations for GitHub Actions."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from neuralis_build.util.diagnostics import Diagnostic
from neuralis_build.util.printable import display_path, shown, shown_text

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

    from neuralis_build.api import JudgedPackage

_STYLE = {"error": "bold red", "warning": "yellow", "note": "cyan"}


def print_diagnostics(console: Console, diagnostics: Iterable[Diagnostic], base: Path | None) -> None:
    """Print each diagnostic as ``file:line:col pointer``, ``severity CODE message`` and ``hint``."""
    from rich.markup import escape

    for d in diagnostics:
        where = shown(display_path(base, d.file) if base is not None else d.file)
        if d.line is not None:
            where += f":{d.line}:{d.column}"
        pointer = f" [dim]{escape(shown(d.pointer))}[/]" if d.pointer else ""
        console.print(f"  {escape(where)}{pointer}")
        style = _STYLE[d.severity]
        console.print(f"    [{style}]{d.severity}[/] [dim]{d.code}[/] {escape(shown_text(d.message))}")
        if d.hint:
            console.print(f"    [cyan]hint:[/] {escape(shown_text(d.hint))}")


def _counts(diagnostics: Sequence[Diagnostic]) -> str:
    parts = []
    for severity in ("error", "warning", "note"):
        n = sum(1 for d in diagnostics if d.severity == severity)
        if n:
            parts.append(f"{n} {severity}{'s' if n != 1 else ''}")
    return ", ".join(parts) or "no findings"


def print_check_result(console: Console, result: JudgedPackage) -> None:
    """One package's verdict: a line with its counts, then each diagnostic."""
    from rich.markup import escape

    pkg = result.package
    label = pkg.name if pkg and pkg.name else "(unnamed)"
    mark = "[green]✓[/]" if result.ok else "[red]✗[/]"
    console.print(
        f"{mark} [bold]{escape(shown(label))}[/] [dim]({escape(shown(display_path(result.path)))}, {result.trust})[/]: "
        f"{_counts(result.diagnostics)}"
    )
    print_diagnostics(console, result.diagnostics, result.path)


def explain_footer(console: Console, diagnostics: Iterable[Diagnostic]) -> None:
    """One dim line after the findings: the command that explains the first error's code (else a warning's)."""
    ranked = sorted((d for d in diagnostics if d.severity != "note"), key=lambda d: d.severity != "error")
    if ranked:
        console.print(f"[dim]explain a code: neuralis-build explain {ranked[0].code}[/]")


def _gh_escape(text: str, *, prop: bool = False) -> str:
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if prop:
        text = text.replace(":", "%3A").replace(",", "%2C")
    return text


def annotation(
    kind: str, message: str, *, title: str, file: str | None = None, line: int | None = None, col: int | None = None
) -> str:
    """One GitHub Actions workflow command: ``::error file=…,line=…,col=…,title=…::message``."""
    props = [f"file={_gh_escape(file, prop=True)}"] if file is not None else []
    if line is not None:
        props += [f"line={line}", f"col={col}"]
    props.append(f"title={_gh_escape(title, prop=True)}")
    return f"::{kind} {','.join(props)}::{_gh_escape(message)}"


def diagnostic_annotations(base: Path | None, diagnostics: Iterable[Diagnostic]) -> list[str]:
    """Each diagnostic as a workflow command, its file relative to the working directory."""
    lines = []
    for d in diagnostics:
        kind = {"error": "error", "warning": "warning", "note": "notice"}[d.severity]
        body = d.message + (f" (at {d.pointer})" if d.pointer else "") + (f"\nhint: {d.hint}" if d.hint else "")
        file = shown(display_path(base, d.file) if base is not None else d.file)
        lines.append(annotation(kind, body, title=d.code, file=file, line=d.line, col=d.column))
    return lines


def print_table(console: Console, table: Table) -> None:
    """A rich table on a terminal wide enough for it; otherwise plain aligned lines, each cell whole.

    In CI logs and pipes (no terminal), or on a terminal narrower than the content, rich would cut
    cells with an ellipsis or wrap them; here the borders go and every line is as long as it needs.
    """
    from neuralis_build.cli.common import plain

    wide = console.options.update(width=100_000)  # measured unbounded: rich clamps to the console's width
    if not plain(console, console.measure(table, options=wide).maximum):
        console.print(table)
        return
    table.box = None
    table.show_edge = False
    table.padding = (0, 2, 0, 0)
    lines = console.render_lines(table, wide.update(width=console.measure(table, options=wide).maximum), pad=False)
    for line in lines:
        console.print("".join(segment.text for segment in line).rstrip(), markup=False, highlight=False, style="")
