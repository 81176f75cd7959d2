"""`neuralis update` as a library: bring a scaffolded package up to this toolchain's templates.

The template is rendered twice with the answers the package recorded: as the toolchain that made it
rendered it (the base) and as this toolchain renders it. Each file then gets a three-way merge of
the author's copy, the base and the new render, so the author's edits survive and only the
template's own changes arrive. Nothing is written until every file is planned.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from neuralis_build import __version__
from neuralis_build.scaffold.history import TemplateSet, known_versions, templates_at
from neuralis_build.scaffold.merge import GIT_TIMEOUT, Merged, merge_json, merge_text
from neuralis_build.scaffold.render import RECORD, PlannedFile
from neuralis_build.scaffold.templates import get_template
from neuralis_build.util.errors import SubprocessError, UsageError, UserError
from neuralis_build.util.jsonpointer import PointerMap
from neuralis_build.util.printable import shown
from neuralis_build.util.process import run
from neuralis_build.util.strictjson import parse

ChangeKind = Literal["add", "update", "merge", "conflict", "remove", "kept", "gone"]


@dataclass(frozen=True)
class Change:
    """What the update does to one file: ``after`` is written (None: removed or left alone)."""

    path: str
    kind: ChangeKind
    before: bytes | None
    after: bytes | None
    detail: str
    conflicts: tuple[str, ...] = ()
    rejected: bytes | None = None

    @property
    def writes(self) -> bool:
        return self.kind in ("add", "update", "merge", "conflict", "remove")


@dataclass(frozen=True)
class UpdatePlan:
    """Every file's change, from the recorded toolchain version to this one."""

    root: Path
    name: str
    template: str
    old: str
    new: str
    changes: tuple[Change, ...]
    followed: tuple[str, ...] = ()
    """What the new render takes from package.json that the record did not have (a new name, a new version)."""

    @property
    def conflicts(self) -> list[Change]:
        return [c for c in self.changes if c.kind == "conflict"]

    @property
    def up_to_date(self) -> bool:
        return not any(c.writes for c in self.changes if c.path != RECORD)


@dataclass(frozen=True)
class Record:
    """What `neuralis new` recorded in .neuralis-scaffold.json."""

    template: str
    version: str
    answers: dict[str, str]
    """name, id and description; and the package's version when it was rendered with another than the first."""
    react_major: int | None
    version_at: tuple[int, int] | None = None
    """Where toolchainVersion stands in the file (line, column), for a message that refuses it."""


def read_record(root: Path) -> Record:
    """The package's scaffold record; a missing or malformed one says what to do instead."""
    path = root / RECORD
    try:
        text = path.read_bytes().decode("utf-8")
        data = parse(text)
    except FileNotFoundError:
        raise UsageError(
            f"{root} has no {RECORD}: it was not made by neuralis new",
            hint="neuralis init adds a template to an existing package and records it for later updates",
        ) from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise UserError(f"{path}: not a readable scaffold record ({exc})") from None
    answers = data.get("answers") if isinstance(data, dict) else None
    fields_ok = (
        isinstance(data, dict)
        and isinstance(data.get("template"), str)
        and isinstance(data.get("toolchainVersion"), str)
        and isinstance(answers, dict)
        and all(isinstance(answers.get(k), str) for k in ("name", "id", "description"))
    )
    if not fields_ok:
        raise UserError(
            f"{path}: the record needs template, toolchainVersion and answers {{name, id, description}} as strings",
            hint=f"restore {RECORD} from version control",
        )
    major = data.get("reactMajor")
    kept = {k: answers[k] for k in ("name", "id", "description")}  # type: ignore[index]
    for optional in ("version", "workflow"):
        if isinstance(answers.get(optional), str):  # type: ignore[union-attr]
            kept[optional] = answers[optional]  # type: ignore[index]
    return Record(
        data["template"],
        data["toolchainVersion"],
        kept,
        major if isinstance(major, int) and not isinstance(major, bool) else None,
        PointerMap(text).locate("/toolchainVersion"),
    )


def current_answers(root: Path, record: Record) -> tuple[dict[str, str], tuple[str, ...]]:
    """The record's answers with package.json's name and version as they are now, and what changed.

    A package renamed or bumped since it was scaffolded gets its README, workflow and manifest title
    rendered with the name it has; the id (and every name derived from it: files, tools, widget types)
    stays the recorded one, so no file moves and no id the host has stored changes under the author.
    """
    from neuralis_build.npm.names import name_problems
    from neuralis_build.npm.packagejson import read_package_json
    from neuralis_build.scaffold.create import INITIAL_VERSION

    npm = read_package_json(root).npm
    answers = dict(record.answers)
    followed = []
    name = npm.name
    if name is not None and name != answers["name"] and not name_problems(name):
        followed.append(f'the name "{answers["name"]}" is now "{name}"')
        answers["name"] = name
    version = npm.version
    was = answers.get("version", INITIAL_VERSION)
    if version is not None and version.strip() and version != was:
        followed.append(f"the version {was} is now {version}")
        answers["version"] = version
    return answers, tuple(followed)


def dirty_files(root: Path) -> list[str] | None:
    """Uncommitted changes under ``root`` in its git work tree; None when it is not in one (or git is absent)."""
    git = shutil.which("git")
    if git is None:
        return None  # no git, no work tree to guard: the update can be reviewed by its --dry-run
    inside = run([git, "rev-parse", "--is-inside-work-tree"], cwd=root, timeout=GIT_TIMEOUT)
    if inside.returncode != 0 or inside.stdout.strip() != "true":
        return None
    status = run([git, "status", "--porcelain", "--untracked-files=all", "--", "."], cwd=root, timeout=GIT_TIMEOUT)
    if status.returncode != 0:
        raise SubprocessError(
            "git status failed in the package's work tree", command=status.command, output=status.stderr
        )
    return [line[3:] for line in status.stdout.splitlines() if line.strip()]


def plan_update(root: Path, *, templates_root: Path | None = None) -> UpdatePlan:
    """Plan the update of the package at ``root``: every change computed, nothing written."""
    from neuralis_build.scaffold.create import render_package

    record = read_record(root)
    old_set = _recorded_templates(root, record, templates_root)
    new_set = templates_at(__version__, templates_root)
    base_files = render_package(
        get_template(record.template, old_set.root),
        record.answers,
        toolchain_version=record.version,
        react_major=record.react_major if record.react_major is not None else old_set.react_major,
    )
    answers, followed = current_answers(root, record)
    new_files = render_package(get_template(record.template, new_set.root), answers)
    labels = ("yours", f"template {record.version}", f"template {__version__}")
    changes = _changes(root, _by_path(base_files), _by_path(new_files), labels)
    return UpdatePlan(root, answers["name"], record.template, record.version, __version__, changes, followed)


def _recorded_templates(root: Path, record: Record, templates_root: Path | None) -> TemplateSet:
    """The templates of the toolchain version the record names, which must be one this toolchain ships.

    The value is the package's, so it is compared with the known versions as a whole and never joined to
    a path before (``templates_at`` guards the same on its own, without the record to point at).
    """
    known = known_versions(templates_root)
    if record.version not in known:
        at = f"{root / RECORD}:{record.version_at[0]}:{record.version_at[1]}" if record.version_at else root / RECORD
        raise UsageError(
            f'{at} /toolchainVersion: "{shown(record.version)}" is not a version of neuralis-build '
            f"whose templates neuralis-build {__version__} ships (those are {', '.join(known)})",
            hint=f"it records the neuralis-build that scaffolded the package: restore {RECORD} from version "
            "control; a package made by a newer neuralis-build is updated by that version or a later one",
        )
    return templates_at(record.version, templates_root)


def _by_path(files: list[PlannedFile]) -> dict[str, bytes]:
    return {f.path: f.content for f in files}


def _read(path: Path) -> bytes | None:
    """The author's file, or None when there is none; one that is there but cannot be read stops the update."""
    if not path.is_file() or path.is_symlink():
        return None
    try:
        return path.read_bytes()
    except OSError as exc:  # taking it for absent would write the template's over it
        raise UsageError(
            f"{path}: cannot be read ({exc.strerror or exc})", hint="fix its permissions, then update"
        ) from None


def _changes(
    root: Path, base: dict[str, bytes], new: dict[str, bytes], labels: tuple[str, str, str]
) -> tuple[Change, ...]:
    changes = []
    for path in sorted(base.keys() | new.keys()):
        yours = _read(root / path)
        old, theirs = base.get(path), new.get(path)
        if path == RECORD:
            changes.append(Change(path, "update", yours, theirs, "records the new toolchain version"))
        elif old == theirs:
            continue  # the template did not change this file
        elif theirs is None:
            changes.append(_removed(path, yours, old))
        elif yours is None and old is None:
            changes.append(Change(path, "add", None, theirs, "new in the template"))
        elif yours is None:
            changes.append(Change(path, "gone", None, None, "you deleted it; the template changed it: left deleted"))
        elif yours in (old, theirs):
            if yours != theirs:
                changes.append(Change(path, "update", yours, theirs, "only the template changed it"))
        elif old is None:
            changes.append(_both_added(path, yours, theirs, labels))
        else:
            changes.append(_merged(path, yours, old, theirs, labels))
    return tuple(changes)


def _removed(path: str, yours: bytes | None, old: bytes | None) -> Change:
    if yours is None:
        return Change(path, "kept", None, None, "the template dropped it and you had removed it")
    if yours == old:
        return Change(path, "remove", yours, None, "the template no longer ships it")
    return Change(path, "kept", yours, None, "the template no longer ships it; you changed it, so it stays")


def _both_added(path: str, yours: bytes, theirs: bytes, labels: tuple[str, str, str]) -> Change:
    merged = merge_text(yours, b"", theirs, labels=labels) if _is_text(yours, theirs) else None
    if merged is None or merged.conflicts:
        return _conflict(path, yours, theirs, merged, "you and the template both created it")
    return Change(path, "merge", yours, merged.content, "you and the template both created it; merged")


def _merged(path: str, yours: bytes, base: bytes, theirs: bytes, labels: tuple[str, str, str]) -> Change:
    merged: Merged | None = None
    if path.endswith(".json"):
        try:
            merged = merge_json(yours.decode("utf-8"), parse(base.decode("utf-8")), parse(theirs.decode("utf-8")))
        except (UnicodeDecodeError, ValueError):
            merged = None  # not JSON the author can parse either: fall back to a text merge
    if merged is None and _is_text(yours, base, theirs):
        merged = merge_text(yours, base, theirs, labels=labels)
    if merged is None or merged.conflicts:
        return _conflict(path, yours, theirs, merged, "you and the template both changed it")
    return Change(path, "merge", yours, merged.content, "your edits and the template's, merged")


def _conflict(path: str, yours: bytes, theirs: bytes, merged: Merged | None, why: str) -> Change:
    if merged is None:  # binary: keep the author's file, offer the template's beside it
        detail = f"{why}; it is not text, so yours is kept and the template's is in {path}.rej"
        return Change(path, "conflict", yours, None, detail, ("whole file",), theirs)
    if merged.rejected is not None:
        where = ", ".join(merged.conflicts)
        detail = f"{why}: conflicts at {where}, the template's side is in {path}.rej"
        return Change(path, "conflict", yours, merged.content, detail, merged.conflicts, merged.rejected)
    n = len(merged.conflicts)
    detail = f"{why}: {n} conflict{'s' * (n != 1)} marked with <<<<<<< and >>>>>>>"
    return Change(path, "conflict", yours, merged.content, detail, merged.conflicts)


def _is_text(*sides: bytes) -> bool:
    try:
        for side in sides:
            side.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return all(b"\0" not in side for side in sides)


def apply_update(plan: UpdatePlan) -> None:
    """Write every change at once (conflicts with their markers, ``.rej`` files beside); all or nothing."""
    from neuralis_build.scaffold.writer import WritePlan, write_plan

    files = [PlannedFile(c.path, c.after) for c in plan.changes if c.writes and c.after is not None]
    files += [PlannedFile(f"{c.path}.rej", c.rejected) for c in plan.changes if c.rejected is not None]
    removes = tuple(c.path for c in plan.changes if c.kind == "remove")
    overwrites = tuple(f.path for f in files if (plan.root / f.path).exists())
    write_plan(WritePlan(plan.root, tuple(sorted(files, key=lambda f: f.path)), True, overwrites, removes))
