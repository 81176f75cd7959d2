"""`neuralis-build image diff OLD NEW`: what changed between two images, for the review of a pull request.

A command of the ``image`` group (cli/image_cmd.py), beside ``image SPEC``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from neuralis_build.cli import common

if TYPE_CHECKING:
    from rich.console import Console

    from neuralis_build.api import ImageDiff, PackageChange


def register(app: typer.Typer) -> None:
    """Add ``diff`` to the ``image`` group ``app``."""

    @app.command(
        "diff",
        short_help="What changed between two images.",
        epilog=common.examples(
            "neuralis-build image diff build/image-main build/image",
            'neuralis-build image diff base/ head/ --format github >> "$GITHUB_STEP_SUMMARY"',
        ),
    )
    def image_diff(
        old: Annotated[Path, typer.Argument(metavar="OLD", help="The old image: its folder or its report.")],
        new: Annotated[Path, typer.Argument(metavar="NEW", help="The new image: its folder or its report.")],
        format: Annotated[
            common.Format,
            typer.Option(
                "--format",
                "-f",
                metavar="FORMAT",
                show_default=False,
                help="text (default), json, or github (a job summary in Markdown).",
            ),
        ] = common.Format.text,
    ) -> None:
        """Compare two image reports: packages added, removed and upgraded (with the chain that brings each in),
        tool names that changed owner or became contested, new refusals, new install scripts and native
        modules, trust and licence changes, new conflicts, and the size of the tree."""
        from neuralis_build import api

        diff = api.diff_images(old, new)
        if format is common.Format.json:
            print(diff.render(), end="")
        elif format is common.Format.github:
            print(markdown(diff), end="")
        else:
            print_text(common.stdout(), diff)


def size_text(n: int | None, signed: bool = False) -> str:
    """Bytes for a person: 1.2 MB, 340 kB, 12 B (decimal units, as npm prints sizes)."""
    if n is None:
        return "?"
    sign = ("+" if n > 0 else "-" if n < 0 else "±") if signed else ("-" if n < 0 else "")
    value = abs(n)
    for unit, scale in (("GB", 10**9), ("MB", 10**6), ("kB", 10**3)):
        if value >= scale:
            return f"{sign}{value / scale:.1f} {unit}"
    return f"{sign}{value} B"


_MARKS = {"added": "+", "removed": "-", "upgraded": "↑", "downgraded": "↓", "changed": "~"}


def _versions(change: PackageChange) -> str:
    old, new = ", ".join(change.old), ", ".join(change.new)
    if change.kind == "added":
        return new
    if change.kind == "removed":
        return old
    return f"{old} → {new}"


def _chain(chain: tuple[str, ...]) -> str:
    return " → ".join(chain)


def _load(load: dict[str, Any] | None) -> str:
    if load is None:
        return ""
    status = load.get("status")
    if status == "works":
        return "works without its script"
    if status == "fails":
        return f"will fail at run time: {load.get('detail')}"
    if status == "denied":
        return f"could not be checked: {load.get('detail')}"
    if status == "needs-host":
        return f"cannot be loaded here: it needs {load.get('detail')}, which the host provides"
    return "has no entry point to load"


def _tool(t: Any) -> str:
    if t.old == t.new:
        state = "now contested" if t.contested else "no longer contested"
        return f"{t.name}: {t.new} ({state})"
    moved = f"{t.name}: {t.old or '(nobody)'} → {t.new or '(nobody)'}"
    return moved + (f" (contested; shadowed: {', '.join(t.shadowed)})" if t.contested else "")


def _summary_line(diff: ImageDiff) -> str:
    counts = [f"{diff.count(k)} {k}" for k in ("added", "removed", "upgraded", "downgraded", "changed")]
    return "packages: " + ", ".join(c for c in counts if not c.startswith("0 ")) if diff.packages else "packages: none"


def print_text(console: Console, diff: ImageDiff) -> None:
    """The diff for a person: one section per kind of change, only those that changed."""
    from neuralis_build.cli.common import markup

    console.print(f"[bold]image diff[/] {markup(diff.old)} → {markup(diff.new)}")
    if diff.empty:
        console.print("no change")
        return
    console.print(_summary_line(diff))
    for p in diff.packages:
        console.print(f"  {_MARKS[p.kind]} {markup(p.name)} {markup(_versions(p))} [dim]({markup(_chain(p.chain))})[/]")
    sections: list[tuple[str, list[str]]] = [
        ("tool names", [_tool(t) for t in diff.tools]),
        ("newly refused", [f"✗ {r.name}@{r.version} ({r.source}) {r.code}: {r.message}" for r in diff.refusals]),
        ("no longer refused", diff.admitted),
        (
            "install scripts and native modules",
            [
                f"{s.name}@{s.version} ({s.path}) {'; '.join(f'{k}: {v}' for k, v in s.scripts.items())}"
                + (f": {_load(s.load)}" if s.load else "")
                for s in diff.scripts
            ],
        ),
        ("trust", [f"{t.name}: {', '.join(t.old)} → {', '.join(t.new)}" for t in diff.trust]),
        ("licences", [f"{t.name}: {', '.join(t.old)} → {', '.join(t.new)}" for t in diff.licenses]),
        ("new conflicts", [f"{c.get('kind')}: {c.get('message')}" for c in diff.conflicts]),
    ]
    for title, lines in sections:
        if lines:
            console.print(f"[bold]{title}[/]")
            for line in lines:
                console.print(f"  {markup(line)}")
    size = diff.size
    if size.old is not None and size.new is not None:
        console.print(
            f"[bold]size[/] {size_text(size.old.get('bytes'))} → {size_text(size.new.get('bytes'))} "
            f"({size_text(size.delta('bytes'), signed=True)}, {size.delta('files'):+} files; on disk "
            f"{size_text(size.delta('disk'), signed=True)})"
        )
        for name, a, b in size.movers:
            console.print(f"  {markup(name)} {size_text(a)} → {size_text(b)} ({size_text(b - a, signed=True)})")


def _cell(text: str) -> str:
    """Text in a Markdown table cell: pipes escaped, no line break."""
    return text.replace("|", "\\|").replace("\n", " ")


def markdown(diff: ImageDiff) -> str:
    """--format github: the diff as a job summary (GitHub-flavoured Markdown, for $GITHUB_STEP_SUMMARY)."""
    out = [f"## Image diff: `{_cell(diff.old)}` → `{_cell(diff.new)}`", ""]
    if diff.empty:
        return "\n".join([*out, "No change.", ""])
    if diff.refusals:
        out += ["### ✗ Newly refused", "", "| package | source | code | why |", "| --- | --- | --- | --- |"]
        out += [
            f"| `{_cell(r.name)}@{r.version}` | {_cell(r.source)} | {r.code} | {_cell(r.message or '')} |"
            for r in diff.refusals
        ]
        out.append("")
    if diff.packages:
        out += [f"### Packages ({_summary_line(diff).removeprefix('packages: ')})", ""]
        out += ["| | package | version | brought in by |", "| --- | --- | --- | --- |"]
        out += [
            f"| {_MARKS[p.kind]} | `{_cell(p.name)}` | {_cell(_versions(p))} | {_cell(_chain(p.chain))} |"
            for p in diff.packages
        ]
        out.append("")
    lists: list[tuple[str, list[str]]] = [
        ("Tool names", [_tool(t) for t in diff.tools]),
        ("No longer refused", diff.admitted),
        (
            "Install scripts and native modules",
            [
                f"`{s.name}@{s.version}` ({s.path}): {'; '.join(f'{k}: {v}' for k, v in s.scripts.items())}"
                + (f" — {_load(s.load)}" if s.load else "")
                for s in diff.scripts
            ],
        ),
        ("Trust", [f"`{t.name}`: {', '.join(t.old)} → {', '.join(t.new)}" for t in diff.trust]),
        ("Licences", [f"`{t.name}`: {', '.join(t.old)} → {', '.join(t.new)}" for t in diff.licenses]),
        ("New conflicts", [f"**{c.get('kind')}**: {c.get('message')}" for c in diff.conflicts]),
    ]
    for title, lines in lists:
        if lines:
            out += [f"### {title}", "", *(f"- {_cell(line)}" for line in lines), ""]
    size = diff.size
    if size.old is not None and size.new is not None:
        out += [
            "### Size",
            "",
            f"{size_text(size.old.get('bytes'))} → {size_text(size.new.get('bytes'))} "
            f"({size_text(size.delta('bytes'), signed=True)}, {size.delta('files'):+} files; on disk "
            f"{size_text(size.delta('disk'), signed=True)})",
            "",
        ]
        if size.movers:
            out += ["| package | before | after |", "| --- | --- | --- |"]
            out += [f"| `{_cell(n)}` | {size_text(a)} | {size_text(b)} |" for n, a, b in size.movers]
            out.append("")
    return "\n".join(out)
