"""Find the pinned esbuild (an override, the cache, a verified node_modules copy, else a fetch) and run its CLI.

Obtaining the binary itself (which one, where it is cached, how it is fetched and verified) is binary.py's.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from neuralis_build.esbuild.binary import (
    ESBUILD_VERSION,
    cache_is_good,
    cached_path,
    from_node_modules,
    npm_pack_binary,
    store,
    target,
)
from neuralis_build.util.errors import SubprocessError, ToolMissingError
from neuralis_build.util.process import run

if TYPE_CHECKING:
    from typing import Literal, Protocol

    from neuralis_build.esbuild.binary import Source

    class EsbuildRunner(Protocol):
        """What the build needs of esbuild: run these arguments in this folder (a seam for unit tests)."""

        def run(self, args: Sequence[str], cwd: Path) -> EsbuildRun: ...


__all__ = ["ESBUILD_VERSION", "Esbuild", "EsbuildRun", "find_esbuild", "parse_messages"]

BUILD_TIMEOUT = 900.0
"""Seconds one esbuild run may take (a 3 MB bundle takes about 2 s; a hung one is stopped)."""
PROBE_TIMEOUT = 60.0
"""Seconds ``--version`` may take."""

OVERRIDE_ENV = "NEURALIS_ESBUILD_BINARY"


@dataclass(frozen=True, slots=True)
class Esbuild:
    """A located esbuild binary at the pinned version, and where it came from."""

    path: Path
    version: str
    source: Source

    def run(self, args: Sequence[str], cwd: Path) -> EsbuildRun:
        """Run the CLI with ``args`` in ``cwd``; the caller reads the exit code and parses stderr."""
        done = run([self.path, *args], cwd=cwd, timeout=BUILD_TIMEOUT)
        return EsbuildRun(done.returncode, done.stderr, list(done.command))


@dataclass(frozen=True, slots=True)
class EsbuildRun:
    """One finished esbuild run: its exit code, its stderr and the command.

    A run through the JS API (stylehost.py) also carries its messages, already structured, the files
    the stylesheet tools read besides esbuild's inputs (Sass partials, the PostCSS config), and where it
    copied each stylesheet as the tools handed it to esbuild.
    """

    returncode: int
    stderr: str
    command: list[str]
    messages: tuple[Message, ...] | None = None
    reads: tuple[str, ...] = ()
    loaded: tuple[tuple[str, str], ...] = ()  # (absolute stylesheet path, its copy)


def binary_version(path: Path) -> str:
    """What ``<path> --version`` prints; a binary that cannot run is a missing tool."""
    try:
        done = run([path, "--version"], timeout=PROBE_TIMEOUT)  # garbage output is a wrong version, not a crash
    except SubprocessError as exc:
        raise ToolMissingError(f"cannot run {path} --version: {exc.message}") from None
    if done.returncode != 0:
        raise ToolMissingError(f"{path} --version failed: {done.stderr.strip() or done.stdout.strip()}")
    return done.stdout.strip()


def _override() -> Esbuild | None:
    value = os.environ.get(OVERRIDE_ENV)
    if not value:
        return None
    path = Path(value).expanduser()
    if not path.is_file():
        raise ToolMissingError(
            f"{OVERRIDE_ENV}={value} names no file",
            hint=f"point it at an esbuild {ESBUILD_VERSION} binary, or unset it",
        )
    version = binary_version(path)
    if version != ESBUILD_VERSION:
        raise ToolMissingError(
            f"{OVERRIDE_ENV}={value} is esbuild {version}; neuralis-build drives esbuild {ESBUILD_VERSION}",
            hint=f"point it at an esbuild {ESBUILD_VERSION} binary, or unset it to let neuralis-build fetch one",
        )
    return Esbuild(path, version, "override")


def cached_esbuild() -> Esbuild | None:
    """The override or the verified cached binary, without fetching anything."""
    found = _override()
    if found is not None:
        return found
    t = target()
    path = cached_path(t)
    if path.is_file() and cache_is_good(t, path):
        return Esbuild(path, ESBUILD_VERSION, "cache")
    return None


def find_esbuild(project: Path | None = None) -> Esbuild:
    """The pinned esbuild: override, else cache, else a verified ``node_modules`` copy, else ``npm pack``."""
    found = cached_esbuild()
    if found is not None:
        return found
    t = target()
    data = from_node_modules(t, project) if project is not None else None
    source: Source = "node_modules"
    if data is None:
        data = npm_pack_binary(t, project)
        source = "npm"
    return Esbuild(store(t, data), ESBUILD_VERSION, source)


# --log-style=visualstudio: "<abs file>(line,col): error ES0000: text", or "esbuild: error ...".
# (compiled on the first message: a clean build prints none)
_VS_LINE = (
    r"^(?:(?P<file>.*)\((?P<line>\d+),(?P<col>\d+)\)|esbuild): (?P<sev>error|warning) (?P<code>ES\d+): (?P<text>.*)$"
)


@dataclass(frozen=True, slots=True)
class Message:
    """One esbuild message parsed from ``--log-style=visualstudio`` output."""

    severity: Literal["error", "warning"]
    text: str
    file: str | None = None
    line: int | None = None
    column: int | None = None
    notes: tuple[str, ...] = ()  # esbuild's notes: why it failed (a package's exports, a condition to enable)
    tool: str | None = None  # the stylesheet tool that reported it (sass, less, a PostCSS plugin)
    tool_version: str | None = None
    missing: str | None = None  # a stylesheet tool the build needs and the package has not installed
    missing_for: str | None = None  # the file that needs it


def author_note(note: str) -> str | None:
    """An esbuild note as an author reads it: advice to pass esbuild a flag the build sets itself (the platform,
    an external, a condition) says nothing they can act on, and is left out; None for a note that is only that."""
    if note.startswith("You can mark the path") or "Are you trying to bundle for node?" in note:
        return None
    return re.sub(r' You can use "--[a-z-]+=[^"]*" to do that\.?$', "", note.rstrip(":")).rstrip(".") or None


def with_notes(messages: list[Message], stderr: str) -> list[Message]:
    """``messages`` with the notes of the same run made again in esbuild's default log style.

    The visualstudio style gives one line per message and drops its notes, which often say why (a
    package's exports, a condition to enable). The default style prints them, two spaces in, after each
    ``✘ [ERROR] text`` or ``▲ [WARNING] text`` line (with --color=false and no terminal, never wrapped);
    the n-th header of a kind is the n-th message of that kind, checked by its text.
    """
    import dataclasses

    found: dict[str, list[tuple[str, list[str]]]] = {"error": [], "warning": []}
    current: list[str] | None = None
    note: list[str] = []
    placed = True  # the last note has its location (or none follows)

    def close_note() -> None:
        nonlocal placed
        text = author_note(" ".join(note)) if current is not None and note else None
        if current is not None and text is not None:
            current.append(text)
            placed = False
        elif note:
            placed = True  # a note left out: its location is not another's
        note.clear()

    for raw in stderr.splitlines():
        line = raw.rstrip("\r")
        header = re.match(r"^(?:✘ \[(ERROR)\]|▲ \[(WARNING)\]) (.*)$", line)
        where = re.match(r"^    (\S.*):(\d+):\d+:$", line)
        if header:
            close_note()
            current, placed = [], True
            found["error" if header[1] else "warning"].append((header[3], current))
        elif re.match(r"^  \S", line):
            note.append(line[2:])
        else:
            close_note()  # a blank line, a location (four spaces in) or its code frame ends a note
            if where and current and not placed:  # the file and line a note points at
                current[-1] += f" ({where[1]}:{where[2]})"
                placed = True
    close_note()
    out = []
    seen = {"error": 0, "warning": 0}
    for m in messages:
        kind = found[m.severity]
        at = seen[m.severity]
        seen[m.severity] += 1
        if at < len(kind) and kind[at][0].startswith(m.text):
            m = dataclasses.replace(m, notes=tuple(kind[at][1]))
        out.append(m)
    return out


def parse_messages(stderr: str) -> list[Message]:
    """Every error and warning line esbuild printed; lines that are not messages are skipped."""
    out: list[Message] = []
    for raw in stderr.splitlines():
        m = re.match(_VS_LINE, raw.rstrip("\r"))
        if not m:
            continue
        sev: Literal["error", "warning"] = "error" if m["sev"] == "error" else "warning"
        if m["file"] is None:
            out.append(Message(sev, m["text"]))
        else:
            out.append(Message(sev, m["text"], m["file"], int(m["line"]), int(m["col"])))
    return out
