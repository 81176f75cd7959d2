"""The directory contract: which files a package contributes by where they sit (docs/design.md)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Literal

    Kind = Literal["tool", "workflow", "skill", "command", "hook", "team", "route", "event", "ui-entry", "surface"]

# kind -> (folder, allowed suffixes); a file's stem is the entry's name.
FLAT_KINDS: dict[Kind, tuple[str, tuple[str, ...]]] = {
    "tool": ("tools", (".ts", ".js", ".json")),
    "workflow": ("workflows", (".json", ".md")),
    "command": ("commands", (".md",)),
    "hook": ("hooks", (".ts", ".js")),
    "team": ("team", (".md",)),
    "route": ("routes", (".ts",)),
    "event": ("src/events", (".ts",)),
}
# flat kinds whose folder holds nothing but entries: another file there is reported as a stray
STRAY_CHECKED: frozenset[Kind] = frozenset({"tool", "workflow", "command", "hook", "team", "route"})
UI_ENTRY_CANDIDATES = ("src/app/host.tsx", "src/app/host.ts", "src/app/host.jsx", "src/app/host.js")
SURFACE_KINDS = ("widget", "card", "dock")


@dataclass(frozen=True, slots=True)
class ContractFile:
    """A file the directory contract discovered: its kind, entry name and package-relative path."""

    kind: Kind
    name: str
    path: str


@dataclass(frozen=True, slots=True)
class Contract:
    """Everything discovered under a package root, by kind and then by entry name."""

    files: dict[Kind, dict[str, ContractFile]] = field(default_factory=dict)
    # (path, reason) for files that sit in a contract folder but do not fit it
    strays: tuple[tuple[str, str], ...] = ()
    # (path, path of the file that already defines the same entry): two files, one entry name
    duplicates: tuple[tuple[str, str], ...] = ()

    def of(self, kind: Kind) -> dict[str, ContractFile]:
        return self.files.get(kind, {})

    @property
    def ui_entry(self) -> ContractFile | None:
        return next(iter(self.of("ui-entry").values()), None)


def _entries(folder: Path) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(folder) as it:
            return sorted(it, key=lambda e: e.name)
    except OSError:  # absent, not a folder, a symlink loop, unreadable: nothing to discover there
        return []


def _is_file(entry: os.DirEntry[str]) -> bool:
    """A regular file (through symlinks), or a symlink that cannot be followed (a loop, a name too long):
    such a link is kept as a file so that the containment rule reports it instead of it vanishing."""
    try:
        return entry.is_file()
    except OSError:
        return entry.is_symlink()


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def discover(root: Path) -> Contract:
    """Scan ``root`` once for the contract's folders; never follows a symlink out of a listing."""
    files: dict[Kind, dict[str, ContractFile]] = {}
    strays: list[tuple[str, str]] = []
    duplicates: list[tuple[str, str]] = []
    # most packages have few contract folders: list the root once and skip the absent ones
    top = {entry.name for entry in _entries(root)}

    for kind, (folder, suffixes) in FLAT_KINDS.items():
        if folder.split("/", 1)[0] not in top:
            continue
        found: dict[str, ContractFile] = {}
        for entry in _entries(root / folder):
            rel = f"{folder}/{entry.name}"
            stem, dot, suffix = entry.name.rpartition(".")
            if entry.name.startswith(".") or not _is_file(entry):
                continue
            if suffix == "ts" and stem.endswith(".d"):  # a .d.ts declaration file is not an entry
                continue
            if not dot or "." + suffix not in suffixes:
                if kind in STRAY_CHECKED:
                    strays.append((rel, f"not a {kind} file: {folder}/ holds {' or '.join(suffixes)} files"))
                continue
            if stem in found:
                duplicates.append((rel, found[stem].path))
                continue
            found[stem] = ContractFile(kind, stem, rel)
        if found:
            files[kind] = found

    skills: dict[str, ContractFile] = {}
    for entry in _entries(root / "skills") if "skills" in top else []:
        skill_md = Path(entry.path) / "SKILL.md"
        if entry.name.startswith("."):
            continue
        if _is_dir(entry) and skill_md.is_file():
            skills[entry.name] = ContractFile("skill", entry.name, f"skills/{entry.name}/SKILL.md")
        elif _is_dir(entry):
            strays.append((f"skills/{entry.name}", "a skill folder without SKILL.md"))
        else:
            strays.append((f"skills/{entry.name}", "not a skill: skills are folders skills/<name>/SKILL.md"))
    if skills:
        files["skill"] = skills

    for candidate in UI_ENTRY_CANDIDATES if "src" in top else ():
        path = root / candidate
        if path.is_file():
            files["ui-entry"] = {"host": ContractFile("ui-entry", "host", candidate)}
            break

    surfaces: dict[str, ContractFile] = {}
    for kind_dir in _entries(root / "app/surfaces") if "app" in top else []:
        if not _is_dir(kind_dir):
            continue
        if kind_dir.name not in SURFACE_KINDS:
            strays.append((f"app/surfaces/{kind_dir.name}", "not a surface kind (widget, card or dock)"))
            continue
        for surface in _entries(Path(kind_dir.path)):
            if _is_dir(surface):
                key = f"{kind_dir.name}/{surface.name}"
                surfaces[key] = ContractFile("surface", key, f"app/surfaces/{key}")
    if surfaces:
        files["surface"] = surfaces

    return Contract(files=files, strays=tuple(strays), duplicates=tuple(duplicates))
