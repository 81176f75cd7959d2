"""``process.env`` and ``import.meta.env`` in a browser bundle: NODE_ENV is defined, every other read is judged.

A browser has neither. The build defines ``process.env.NODE_ENV`` ("production", or "development"
for --watch) and Vite's ``import.meta.env.MODE``/``DEV``/``PROD``, and renames every other
``process.env`` to ``process.__neuralis_env__`` (and ``import.meta.env`` likewise): the code keeps its
meaning (``process`` is still undefined, ``import.meta.env?.X`` is still undefined), while esbuild's
own parser has marked each remaining read so the build can find it in the output and, through the
source map, in the file that wrote it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from neuralis_build.util.diagnostics import Diagnostic, code

if TYPE_CHECKING:
    from typing import Any, Literal

    from neuralis_build.ui.sourcemap import SourceMap

    Mode = Literal["production", "development"]

NB1915 = code("NB1915", "ui-env-read", "the bundle reads process.env or import.meta.env, which a browser lacks")

PROCESS_MARK = "process.__neuralis_env__"
META_MARK = "import.meta.__neuralis_env__"


def define_args(mode: Mode) -> list[str]:
    """esbuild --define flags for a build in ``mode``."""
    dev = "true" if mode == "development" else "false"
    prod = "false" if mode == "development" else "true"
    return [
        f'--define:process.env.NODE_ENV="{mode}"',
        f'--define:import.meta.env.MODE="{mode}"',
        f"--define:import.meta.env.DEV={dev}",
        f"--define:import.meta.env.PROD={prod}",
        f"--define:process.env={PROCESS_MARK}",
        f"--define:import.meta.env={META_MARK}",
    ]


def has_env_reads(js: str) -> bool:
    return PROCESS_MARK in js or META_MARK in js


def _property(js: str, after: int) -> tuple[str, bool]:
    """What follows a mark: (``.NAME``-style text for messages, whether it is an optional ``?.`` read)."""
    optional = js.startswith("?.", after)
    i = after + (2 if optional else 0)
    if js.startswith(".", i):
        i += 1
    elif js.startswith("[", i):
        end = js.find("]", i)
        key = js[i + 1 : end] if end > 0 else ""
        try:
            return "." + str(json.loads(key)), optional
        except ValueError:
            return "[…]", optional
    else:
        return "", optional
    j = i
    while j < len(js) and (js[j].isalnum() or js[j] in "_$"):
        j += 1
    return "." + js[i:j], optional


_GUARD_WINDOW = 2000
"""How far back (characters of the output) a read's own expression is looked at for its guard."""


def _expression_before(js: str, at: int) -> str:
    """The output text of the expression a read at ``at`` sits in, up to the read: back to the statement or list
    item it starts (a ``;``, ``,``, ``{`` or ``}`` outside brackets), crossing the brackets that enclose it (so
    ``typeof process<"u"&&f(process.env.X)`` is one expression); an ``if`` block also takes its condition."""
    depth = 0
    i = at - 1
    floor = max(0, at - _GUARD_WINDOW)
    while i >= floor:
        ch = js[i]
        if ch in ")]":
            depth += 1
        elif ch in "([":
            depth = max(0, depth - 1)  # a group before the read closes here; an enclosing one is crossed
        elif depth == 0 and ch in ";,}":
            break
        elif depth == 0 and ch == "{":
            return _if_condition(js, i) + js[i:at]
        i -= 1
    return js[i + 1 : at]


def _if_condition(js: str, brace: int) -> str:
    """The condition of the ``if (…) {`` whose block opens at ``brace``, or "" for any other block."""
    i = brace - 1
    while i >= 0 and js[i].isspace():
        i -= 1
    if i < 0 or js[i] != ")":
        return ""
    depth = 0
    end = i
    while i >= max(0, brace - _GUARD_WINDOW):
        if js[i] == ")":
            depth += 1
        elif js[i] == "(":
            depth -= 1
            if depth == 0:
                head = js[max(0, i - 8) : i].rstrip()
                return js[i : end + 1] if head.endswith("if") else ""
        i -= 1
    return ""


def _guarded_here(mark: str, expression: str) -> bool:
    """Whether the expression before a read tests for what the read needs: ``typeof process`` before a
    ``process.env`` read; ``import.meta.env`` itself (``import.meta.env && import.meta.env.X``, a ternary,
    ``typeof``) before a property of it."""
    if mark == PROCESS_MARK:
        return "typeof process" in expression
    return mark in expression


def env_problems(
    root: Path, js: str, smap: SourceMap, map_dir: Path, meta: Mapping[str, Any], entry: str
) -> list[Diagnostic]:
    """Each read of process.env / import.meta.env left in the bundle (besides the defined keys), judged where it
    runs, in the output: an error per source line for a read that throws in a browser, a warning per file for
    the reads that cannot throw there.

    Cannot throw: a bare ``import.meta.env`` (undefined in a browser: zustand's ``import.meta.env ?
    import.meta.env.MODE : void 0``), an optional ``?.`` read, and a read whose own expression tests first
    (``typeof process !== "undefined" && process.env.X``). A dependency's read whose file tests ``typeof
    process`` somewhere else is a warning too (a library's guard may sit in a variable); the package's own code
    gets no such benefit of the doubt, since its author can write the guard next to the read.
    """
    from neuralis_build.ui.sourcemap import line_starts, position  # only a bundle that reads env gets here

    starts = line_starts(js)
    errors: dict[tuple[str, int], Diagnostic] = {}
    warnings: dict[str, tuple[Diagnostic, int]] = {}
    tests_elsewhere: dict[str, bool] = {}
    for mark, shown in ((PROCESS_MARK, "process.env"), (META_MARK, "import.meta.env")):
        at = js.find(mark)
        while at >= 0:
            prop, optional = _property(js, at + len(mark))
            origin = smap.origin(*position(starts, at))
            expression = _expression_before(js, at)
            at = js.find(mark, at + len(mark))
            if origin is None:
                continue
            full = (map_dir / origin.source).resolve()
            file = Path(os.path.relpath(full, root.resolve())).as_posix()  # as the metafile names inputs
            bare = not prop and not optional
            safe = optional or (mark == META_MARK and bare) or _guarded_here(mark, expression)
            if not safe and mark == PROCESS_MARK and file.startswith("node_modules/"):
                if file not in tests_elsewhere:
                    tests_elsewhere[file] = _tests_process(full)
                safe = tests_elsewhere[file]
            line, column = origin.line + 1, origin.column + 1
            if not safe:
                if (file, line) not in errors:
                    errors[(file, line)] = _diagnostic(file, line, column, shown + prop, False, meta, entry)
            elif file in warnings:
                first, count = warnings[file]
                if (line, column) < (first.line or 0, first.column or 0):  # the file's first place is named
                    first = _diagnostic(file, line, column, shown + prop, True, meta, entry)
                warnings[file] = (first, count + 1)
            else:
                warnings[file] = (_diagnostic(file, line, column, shown + prop, True, meta, entry), 1)
    found = [errors[k] for k in sorted(errors)]
    for file in sorted(warnings):
        first, count = warnings[file]
        if count > 1:
            first = replace(first, message=f"{first.message} (and {count - 1} more such read(s) in this file)")
        found.append(first)
    return sorted(found, key=lambda d: (d.file, d.line or 0, d.column or 0))


def _tests_process(path: Path) -> bool:
    """Whether a dependency's file tests ``typeof process`` anywhere (read from disk; False when it cannot be)."""
    try:
        return "typeof process" in path.read_text("utf-8", errors="replace")
    except OSError:
        return False


def _diagnostic(
    file: str, line: int, column: int, what: str, safe: bool, meta: Mapping[str, Any], entry: str
) -> Diagnostic:
    from neuralis_build.ui.graph import describe_chain, first_dependency, import_chain, package_of

    dependency = package_of(file)
    if safe:
        message = f"reads {what}, which a browser does not have; the read cannot throw there, and yields nothing"
        hint = "nothing to do if that is intended: the host gives a UI module no environment variables"
        return Diagnostic("warning", NB1915.id, file, "", message, hint, line, column)
    if dependency is None:
        message = f"reads {what}, which a browser does not have: the module would throw when it loads"
        hint = (
            "only process.env.NODE_ENV and import.meta.env.MODE/DEV/PROD are defined at build time; write other "
            "values as constants, or fetch them at run time from the package's own service (the host API v1 gives a "
            "module no environment and no settings)"
        )
    else:
        chain = import_chain(meta, entry, file)
        top = first_dependency(chain) or dependency
        message = (
            f"{dependency} reads {what}, which a browser does not have, so the module would throw; "
            f"it is bundled because of {top} ({describe_chain(chain)})"
        )
        hint = f"use a browser build of {top} (or another library): it expects Node.js or a bundler that defines {what}"
    return Diagnostic("error", NB1915.id, file, "", message, hint, line, column)
