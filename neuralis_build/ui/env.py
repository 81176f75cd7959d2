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
from pathlib import Path

from neuralis_build.diagnostics import Diagnostic, code

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up); mypy knows the name
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


def env_problems(
    root: Path, js: str, smap: SourceMap, map_dir: Path, meta: Mapping[str, Any], entry: str
) -> list[Diagnostic]:
    """One diagnostic per source line that reads process.env / import.meta.env (besides the defined keys)."""
    from neuralis_build.ui.sourcemap import line_starts, position  # only a bundle that reads env gets here

    starts = line_starts(js)
    found: dict[tuple[str, int], Diagnostic] = {}
    guarded_files: dict[str, bool] = {}
    for mark, shown in ((PROCESS_MARK, "process.env"), (META_MARK, "import.meta.env")):
        at = js.find(mark)
        while at >= 0:
            prop, optional = _property(js, at + len(mark))
            origin = smap.origin(*position(starts, at))
            at = js.find(mark, at + len(mark))
            if origin is None:
                continue
            full = (map_dir / origin.source).resolve()
            file = Path(os.path.relpath(full, root.resolve())).as_posix()  # as the metafile names inputs
            key = (file, origin.line)
            if key in found:
                continue
            if mark == PROCESS_MARK and file not in guarded_files:
                try:
                    guarded_files[file] = "typeof process" in full.read_text("utf-8", errors="replace")
                except OSError:
                    guarded_files[file] = False
            safe = optional or (mark == PROCESS_MARK and guarded_files[file])
            found[key] = _diagnostic(file, origin.line + 1, origin.column + 1, shown + prop, safe, meta, entry)
    return [found[k] for k in sorted(found)]


def _diagnostic(
    file: str, line: int, column: int, what: str, safe: bool, meta: Mapping[str, Any], entry: str
) -> Diagnostic:
    from neuralis_build.ui.graph import describe_chain, first_dependency, import_chain, package_of

    dependency = package_of(file)
    if safe:
        message = f"reads {what}, which a browser does not have; the read is guarded, so it yields nothing there"
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
