"""How diagnostics look: rich text for people, JSON for programs, annotations for GitHub Actions."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from neuralis_build.diagnostics import Diagnostic

if TYPE_CHECKING:
    from rich.console import Console

    from neuralis_build.check import CheckResult

_STYLE = {"error": "bold red", "warning": "yellow", "note": "cyan"}


def display_path(path: Path, file: str | None = None) -> str:
    """A path as short as it can be: relative to the working directory when it sits below it."""
    full = path / file if file else path
    try:
        rel = os.path.relpath(full)
    except ValueError:  # another drive on Windows
        return str(full)
    return str(full) if rel.startswith("..") else rel


def print_diagnostics(console: Console, diagnostics: Iterable[Diagnostic], base: Path | None) -> None:
    """Print each diagnostic as ``file:line:col pointer``, ``severity CODE message`` and ``hint``."""
    from rich.markup import escape

    for d in diagnostics:
        where = display_path(base, d.file) if base is not None else d.file
        if d.line is not None:
            where += f":{d.line}:{d.column}"
        pointer = f" [dim]{escape(d.pointer)}[/]" if d.pointer else ""
        console.print(f"  {escape(where)}{pointer}")
        style = _STYLE[d.severity]
        console.print(f"    [{style}]{d.severity}[/] [dim]{d.code}[/] {escape(d.message)}")
        if d.hint:
            console.print(f"    [cyan]hint:[/] {escape(d.hint)}")


def _counts(diagnostics: Sequence[Diagnostic]) -> str:
    parts = []
    for severity in ("error", "warning", "note"):
        n = sum(1 for d in diagnostics if d.severity == severity)
        if n:
            parts.append(f"{n} {severity}{'s' if n != 1 else ''}")
    return ", ".join(parts) or "no findings"


def print_check_text(console: Console, results: Sequence[CheckResult]) -> None:
    from rich.markup import escape

    for result in results:
        pkg = result.package
        label = pkg.name if pkg and pkg.name else "(unnamed)"
        mark = "[green]✓[/]" if result.ok else "[red]✗[/]"
        console.print(
            f"{mark} [bold]{escape(label)}[/] [dim]({escape(display_path(result.path))}, {result.trust})[/]: "
            f"{_counts(result.diagnostics)}"
        )
        print_diagnostics(console, result.diagnostics, result.path)


def check_json(results: Sequence[CheckResult]) -> str:
    """One result prints one object; several print an array (DESIGN.md, "Diagnostics")."""
    data: Any = [r.to_json() for r in results]
    return json.dumps(data[0] if len(data) == 1 else data, indent=2, ensure_ascii=False)


def _gh_escape(text: str, *, prop: bool = False) -> str:
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if prop:
        text = text.replace(":", "%3A").replace(",", "%2C")
    return text


def github_annotations(results: Sequence[CheckResult]) -> str:
    """GitHub Actions workflow commands: ``::error file=…,line=…,col=…,title=…::message``."""
    lines = []
    for result in results:
        for d in result.diagnostics:
            props = [f"file={_gh_escape(display_path(result.path, d.file), prop=True)}"]
            if d.line is not None:
                props.append(f"line={d.line}")
                props.append(f"col={d.column}")
            props.append(f"title={_gh_escape(d.code, prop=True)}")
            kind = {"error": "error", "warning": "warning", "note": "notice"}[d.severity]
            body = d.message + (f" (at {d.pointer})" if d.pointer else "") + (f"\nhint: {d.hint}" if d.hint else "")
            lines.append(f"::{kind} {','.join(props)}::{_gh_escape(body)}")
    return "\n".join(lines)
