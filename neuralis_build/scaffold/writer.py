"""Write a rendered package into its folder all at once: a new folder is built beside and renamed into
place; files written into an existing folder are staged inside it and rolled back if any step fails."""

from __future__ import annotations

import os
import secrets
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from neuralis_build.scaffold.render import PlannedFile
from neuralis_build.util.errors import UsageError, UserError

_IGNORED_WHEN_EMPTY = frozenset({".git"})


@dataclass(frozen=True)
class WritePlan:
    """Where the files go, whether the folder already exists, and which existing files get overwritten."""

    target: Path
    files: tuple[PlannedFile, ...]
    exists: bool
    overwrites: tuple[str, ...]
    removes: tuple[str, ...] = ()  # files taken out (neuralis update), restored too if a later step fails


def occupants(target: Path) -> list[str]:
    """What a folder holds that makes it not empty (a lone ``.git`` does not count)."""
    return sorted(entry.name for entry in target.iterdir() if entry.name not in _IGNORED_WHEN_EMPTY)


def plan_write(target: Path, files: Sequence[PlannedFile], *, force: bool) -> WritePlan:
    """Decide how ``files`` land in ``target``; refuse a non-empty folder without ``force``, and any
    collision ``force`` cannot settle without deleting something (a folder where a file goes, or the reverse)."""
    target = Path(os.path.abspath(target))
    if target.exists() and not target.is_dir():
        raise UserError(f"{target} is a file, not a folder", hint="pass --dir with a folder to create the package in")
    if not target.exists():
        return WritePlan(target, tuple(files), False, ())
    present = occupants(target)
    if present and not force:
        shown = ", ".join(present[:5]) + (f" and {len(present) - 5} more" if len(present) > 5 else "")
        raise UserError(
            f"{target} is not empty (it holds {shown})",
            hint="choose another folder with --dir, or pass --force to overwrite the files the template "
            "writes (nothing else is touched or deleted)",
        )
    root = target.resolve()
    overwrites = []
    for f in files:
        dest = target / f.path
        for parent in reversed(dest.parents):
            if parent == target or not parent.is_relative_to(target):
                continue
            if parent.is_symlink() and not parent.resolve().is_relative_to(root):
                raise UserError(
                    f"{parent} is a symlink that leads out of {target}; the template writes {f.path} through it",
                    hint="remove the symlink or choose another folder with --dir",
                )
            if parent.exists() and not parent.is_dir():
                raise UserError(
                    f"{parent} is a file, but the template needs a folder there for {f.path}",
                    hint="move the file away or choose another folder with --dir (--force never deletes)",
                )
        if dest.is_dir() and not dest.is_symlink():
            raise UserError(
                f"{dest} is a folder, but the template writes a file there",
                hint="move the folder away or choose another folder with --dir (--force never deletes)",
            )
        if os.path.lexists(dest):
            overwrites.append(f.path)
    return WritePlan(target, tuple(files), True, tuple(overwrites))


def _fill(folder: Path, files: Sequence[PlannedFile]) -> None:
    for f in files:
        path = folder / f.path
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "xb") as out:  # honours the umask, like any file the author creates
            out.write(f.content)


def _staging_name(base: str) -> str:
    return f".{base}.neuralis-new-{secrets.token_hex(4)}"


def _make_parents(folder: Path) -> list[Path]:
    """Create ``folder``'s missing ancestors; return the ones created, outermost first."""
    missing = [p for p in reversed(folder.parents) if not p.exists()]
    for p in missing:
        p.mkdir()
    return missing


def _remove_empty(folders: Sequence[Path]) -> None:
    for folder in reversed(folders):
        try:
            folder.rmdir()
        except OSError:
            continue  # not empty: something else wrote into it meanwhile, and that is not ours to delete


def _write_new(plan: WritePlan) -> None:
    created = _make_parents(plan.target)
    staging = plan.target.parent / _staging_name(plan.target.name)
    try:
        staging.mkdir()
        _fill(staging, plan.files)
        os.rename(staging, plan.target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        _remove_empty(created)
        raise


def _write_into(plan: WritePlan) -> None:
    staging = plan.target / _staging_name("new")
    backups = staging / "backup"
    placed: list[tuple[Path, Path | None]] = []  # (destination, where its previous content waits)
    created: list[Path] = []
    try:
        staging.mkdir()
        _fill(staging / "files", plan.files)
        for f in plan.files:
            dest = plan.target / f.path
            for parent in reversed(dest.parents):
                if parent.is_relative_to(plan.target) and parent != plan.target and not parent.exists():
                    parent.mkdir()
                    created.append(parent)
            backup = None
            if os.path.lexists(dest):
                backup = backups / f.path
                backup.parent.mkdir(parents=True, exist_ok=True)
                os.replace(dest, backup)
            placed.append((dest, backup))
            os.replace(staging / "files" / f.path, dest)
        for path in plan.removes:
            dest = plan.target / path
            backup = backups / path
            backup.parent.mkdir(parents=True, exist_ok=True)
            os.replace(dest, backup)
            placed.append((dest, backup))
    except BaseException as exc:
        stuck = _roll_back(placed)
        _remove_empty(created)
        if stuck:  # the staging folder keeps the author's previous files: never delete the only copy
            raise RollbackFailed(plan.target, staging, stuck, exc) from exc
        shutil.rmtree(staging, ignore_errors=True)
        raise
    shutil.rmtree(staging, ignore_errors=True)  # the write is done; a hidden leftover holds only copies


class RollbackFailed(UsageError):
    """A write failed and some files could not be put back: the message says where their old content waits."""

    def __init__(self, target: Path, staging: Path, stuck: Sequence[tuple[str, str]], cause: BaseException) -> None:
        why = getattr(cause, "strerror", None) or str(cause) or type(cause).__name__
        listed = "; ".join(f"{path} ({reason})" for path, reason in stuck)
        super().__init__(
            f"could not write the package into {target} ({why}), and could not put back {listed}",
            hint=f"the previous content of each is in {staging / 'backup'}: move it back by hand",
        )


def _roll_back(placed: Sequence[tuple[Path, Path | None]]) -> list[tuple[str, str]]:
    """Put every replaced file back and remove every new one; (path, why) of each that could not be."""
    stuck = []
    for dest, backup in reversed(placed):
        try:
            if backup is not None:
                os.replace(backup, dest)
            elif os.path.lexists(dest):
                dest.unlink()
        except OSError as exc:
            stuck.append((str(dest), exc.strerror or str(exc)))
    return stuck


def write_plan(plan: WritePlan) -> None:
    """Carry out ``plan``; on any failure nothing of it stays behind and the folder is as it was."""
    try:
        if plan.exists:
            _write_into(plan)
        else:
            _write_new(plan)
    except OSError as exc:
        raise UsageError(f"could not write the package into {plan.target}: {exc.strerror or exc}") from None
