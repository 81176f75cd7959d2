"""How an explained code looks in a terminal: the code and slug, the rule, why, a bad and a good example."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console

    from neuralis_build.api import Explanation


def _indented(text: str) -> str:
    return "\n".join(f"  {line}" if line else "" for line in text.splitlines())


def print_entry(console: Console, entry: Explanation) -> None:
    """Print one entry; examples stay verbatim (no wrapping), so they can be copied."""
    from rich.markup import escape

    where = entry.source.removeprefix("spec: ")
    why_title = f"Why (the spec, {where})" if entry.from_spec else f"Why ({where})"
    console.print(f"[bold]{entry.code.id}[/] {escape(entry.code.slug)}: {escape(entry.code.summary)}")
    for title, body, style in (
        ("Rule", entry.rule, ""),
        (why_title, entry.why, ""),
        ("Bad", entry.bad, "red"),
        ("Good", entry.good, "green"),
    ):
        console.print(f"\n[bold {style}]{escape(title)}[/]" if style else f"\n[bold]{escape(title)}[/]")
        console.print(escape(_indented(body)))
