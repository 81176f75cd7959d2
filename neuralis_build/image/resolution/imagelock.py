"""The image lock (``neuralis-image.lock``, TOML via tomli-w): what each package resolved to, for --frozen."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from neuralis_build.util.errors import UsageError
from neuralis_build.util.limits import MAX_LOCK_BYTES
from neuralis_build.util.regularfile import TooLarge, read_regular

LOCK = "neuralis-image.lock"
LOCK_VERSION = 2


@dataclass(frozen=True)
class Locked:
    """One package as built: its source as the SPEC names it, and the name, version and integrity it resolved to."""

    source: str
    name: str | None
    version: str | None
    integrity: str | None

    def to_toml(self) -> dict[str, str]:
        data = {"name": self.name, "version": self.version, "source": self.source, "integrity": self.integrity}
        return {k: v for k, v in data.items() if v is not None}


def render_lock(packages: list[Locked], installed: list[dict[str, Any]]) -> str:
    """The lock's text: a header, the format version, one [[package]] per SPEC entry (in SPEC order), then
    one [[installed]] per package of the closure (by path): what npm resolved and the chain that brings it in."""
    import tomli_w

    data = {"version": LOCK_VERSION, "package": [p.to_toml() for p in packages], "installed": installed}
    return (
        "# Written by neuralis-build image; --frozen refuses to build when the image would differ.\n"
        "# npm's own lock of the closure is package-lock.json beside it.\n" + tomli_w.dumps(data)
    )


MAX_NESTING = 100


def nesting_at(text: str, limit: int) -> tuple[int, int]:
    """The line and column (1-based) where TOML arrays and inline tables first nest past ``limit``."""
    depth, quote, line, start = 0, "", 1, 0
    for at, ch in enumerate(text):
        if ch == "\n":
            line, start = line + 1, at + 1
        elif quote:
            if ch == quote and (quote == "'" or text[at - 1] != "\\"):
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch in "[{":
            depth += 1
            if depth > limit:
                return line, at - start + 1
        elif ch in "]}":
            depth = max(0, depth - 1)
    return line, 1


def read_lock(path: Path) -> tuple[list[Locked], list[dict[str, Any]]]:
    """Read a lock (its SPEC entries and installed packages); a missing or malformed one is a usage error."""
    text = ""
    try:  # a file past the cap is never read whole
        text = read_regular(path, limit=MAX_LOCK_BYTES).decode("utf-8")
        data: dict[str, Any] = tomllib.loads(text)
    except FileNotFoundError:
        raise UsageError(
            f"{path}: no lock to hold the build to", hint="build once without --frozen to write the lock"
        ) from None
    except TooLarge as exc:
        raise UsageError(
            f"{path}: the lock is {exc.strerror}; it was not read", hint="delete it and build without --frozen"
        ) from None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise UsageError(f"{path}: cannot read the lock ({exc})") from None
    except RecursionError:  # tomllib recurses once per nested array or inline table
        line, column = nesting_at(text, MAX_NESTING)
        raise UsageError(
            f"{path}:{line}:{column}: cannot read the lock (arrays or inline tables nest deeper than {MAX_NESTING})",
            hint="a lock nests a few levels at most: rebuild it without --frozen",
        ) from None
    if data.get("version") != LOCK_VERSION or not isinstance(data.get("package", []), list):
        raise UsageError(f"{path}: not a version {LOCK_VERSION} image lock", hint="rebuild it without --frozen")
    out = []
    for entry in data.get("package", []):
        if not isinstance(entry, dict) or not isinstance(entry.get("source"), str):
            raise UsageError(f"{path}: a [[package]] entry has no source")
        out.append(Locked(entry["source"], entry.get("name"), entry.get("version"), entry.get("integrity")))
    installed = data.get("installed", [])
    if not isinstance(installed, list) or not all(isinstance(i, dict) for i in installed):
        raise UsageError(f"{path}: [[installed]] entries must be tables")
    return out, installed


def lock_differences(old: list[Locked], new: list[Locked]) -> list[str]:
    """What changed between two locks, one line each; empty when the build matches the lock."""
    problems: list[str] = []
    old_by_source = {p.source: p for p in old}
    new_by_source = {p.source: p for p in new}
    for source in old_by_source.keys() - new_by_source.keys():
        problems.append(f"{source}: in the lock but not in the SPEC")
    for p in new:
        was = old_by_source.get(p.source)
        if was is None:
            problems.append(f"{p.source}: not in the lock")
            continue
        for field in ("name", "version", "integrity"):
            a, b = getattr(was, field), getattr(p, field)
            if a != b:
                problems.append(f"{p.source}: {field} would be {b}, the lock has {a}")
    return sorted(problems)


def installed_differences(old: list[dict[str, Any]], new: list[dict[str, Any]]) -> list[str]:
    """What changed in the installed closure, one line per path."""
    before = {str(i.get("path")): i for i in old}
    after = {str(i.get("path")): i for i in new}
    problems = [f"{p}: in the lock but would not be installed" for p in sorted(before.keys() - after.keys())]
    problems += [f"{p}: would be installed but is not in the lock" for p in sorted(after.keys() - before.keys())]
    for p in sorted(before.keys() & after.keys()):
        for key in ("name", "version", "integrity", "resolved"):
            if before[p].get(key) != after[p].get(key):
                problems.append(f"{p}: {key} would be {after[p].get(key)}, the lock has {before[p].get(key)}")
    return problems
