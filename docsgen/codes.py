"""The diagnostic catalogue: every explain entry (neuralis_build/data/explain/*.toml), one page per family file."""

from __future__ import annotations

import posixpath
import re
import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from docsgen.markdown import cell, escape, page, table

DOCS = Path(__file__).resolve().parent.parent / "docs"


@dataclass(frozen=True)
class Family:
    """One file of entries: its page name (the file's stem), its title and its codes in file order."""

    stem: str
    title: str
    codes: tuple[str, ...]


@cache
def families() -> tuple[Family, ...]:
    from neuralis_build.explain import DATA

    found = []
    for path in sorted(DATA.glob("*.toml")):
        text = path.read_text(encoding="utf-8")
        header = [line[2:] for line in text.split("\n\n", 1)[0].splitlines() if line.startswith("# ")]
        title = header[-1].removeprefix("This file: ").rstrip(".")
        found.append(Family(path.stem, title, tuple(tomllib.loads(text))))
    return tuple(found)


def code_link(code: str, here: str) -> str:
    """A Markdown link to ``code``'s entry, from the page at ``here`` (a path under docs/)."""
    family = next(f for f in families() if code in f.codes)
    return f"[{code}]({_relative(f'reference/codes/{family.stem}.md', here)}#{code.lower()})"


def _relative(target: str, here: str) -> str:
    """``target`` (a path under docs/) as a link from the page at ``here``."""
    return posixpath.relpath(target, posixpath.dirname(here) or ".")


def heading_slug(document: str, prefix: str) -> str:
    """The anchor mkdocs gives the first heading of ``document`` (under docs/) that starts with ``prefix``."""
    from markdown.extensions.toc import slugify  # type: ignore[import-untyped]  # mkdocs' own slugs

    text = (DOCS / document).read_text(encoding="utf-8")
    for heading in re.findall(r"(?m)^#+ (.*?)(?: \{#[\w-]+\})?$", text):
        if heading.startswith(prefix):
            return str(slugify(heading.replace("`", ""), "-"))
    raise LookupError(f"docs/{document} has no heading starting with {prefix!r}")


def source_text(source: str, here: str) -> str:
    """Where a rule comes from, for a person: the spec's section by its full heading, or a link to our decision."""
    from neuralis_build.explain import SPEC_PREFIX, spec_sections

    if source.startswith(SPEC_PREFIX):
        heading = spec_sections()[source.removeprefix(SPEC_PREFIX)]
        return f"the spec, section *{escape(heading)}*"
    document, _, section = source.partition(", ")
    page_path = document.removeprefix("docs/")
    link = f"{_relative(page_path, here)}#{heading_slug(page_path, section)}"
    return f"[{escape(document)}, {escape(section)}]({link})"


def _entry(code: str, fields: dict[str, str], summary: str, slug: str, here: str) -> str:
    return "\n\n".join(
        [
            f"## {code} {slug} {{#{code.lower()}}}",
            f"*{escape(summary)}*",
            f"**Rule.** {escape(fields['rule'])}",
            f"**Why.** {escape(fields['why'])}",
            f"**Source:** {source_text(fields['source'], here)}.",
            f"**Bad**\n\n```text\n{fields['bad']}\n```",
            f"**Good**\n\n```text\n{fields['good']}\n```",
        ]
    )


def family_page(family: Family) -> str:
    from neuralis_build.explain import raw_entries
    from neuralis_build.util.codes import every_code

    codes, entries = every_code(), raw_entries()
    here = f"reference/codes/{family.stem}.md"
    parts = [f"# {escape(family.title)}"]
    parts += [_entry(c, entries[c], codes[c].summary, codes[c].slug, here) for c in family.codes]
    return page(parts)


def index_page() -> str:
    from neuralis_build.util.codes import every_code

    codes = every_code()
    here = "reference/codes/index.md"
    intro = (
        "Every diagnostic the toolchain prints carries a stable code. `neuralis-build explain CODE` prints its "
        "entry in a terminal; these pages hold the same entries: the rule, why it exists, where it comes from "
        "(a section of the spec, or the page where we record our decision), a bad and a good example. They are "
        "generated from the entries themselves (`./scripts/docs-gen`)."
    )
    parts = ["# Diagnostic codes", intro]
    for family in families():
        rows = [[code_link(c, here), f"`{codes[c].slug}`", cell(escape(codes[c].summary))] for c in family.codes]
        parts += [f"## [{escape(family.title)}]({family.stem}.md)", table(["code", "slug", "what it reports"], rows)]
    return page(parts)


def pages() -> dict[str, str]:
    out = {"reference/codes/index.md": index_page()}
    for family in families():
        out[f"reference/codes/{family.stem}.md"] = family_page(family)
    return out
