"""All the generated pages together: what they should hold, which are stale on disk, and writing them."""

from __future__ import annotations

from pathlib import Path

DOCS = Path(__file__).resolve().parent.parent / "docs"
# Folders every file of which is generated: a file there that the generator no longer makes is stale too.
GENERATED_FOLDERS = ("reference/commands", "reference/codes")


def generated() -> dict[str, str]:
    """Every generated page, by its path under docs/ (POSIX), with the text it should hold."""
    from docsgen import codes, commands, manifest

    return {**commands.pages(), **manifest.pages(), **codes.pages()}


def _extra(docs: Path, wanted: dict[str, str]) -> list[str]:
    found = []
    for folder in GENERATED_FOLDERS:
        for path in sorted((docs / folder).glob("*")):
            rel = path.relative_to(docs).as_posix()
            if rel not in wanted:
                found.append(rel)
    return found


def stale(docs: Path = DOCS) -> list[str]:
    """The pages under ``docs`` that differ from what the generator makes, are missing, or are no longer made."""
    wanted = generated()
    differ = [
        rel
        for rel, text in wanted.items()
        if not (docs / rel).is_file() or (docs / rel).read_text(encoding="utf-8") != text
    ]
    return sorted(differ + _extra(docs, wanted))


def write(docs: Path = DOCS) -> list[str]:
    """Bring every generated page up to date; the paths changed, added or removed."""
    wanted = generated()
    changed = stale(docs)
    for rel in changed:
        path = docs / rel
        if rel in wanted:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(wanted[rel], encoding="utf-8")
        else:
            path.unlink()
    return changed
