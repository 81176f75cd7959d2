"""What a built module exports and imports, read by esbuild's own parser (never a regex over the text).

``check``, the image build and the host page judge files that are already on disk (dist/app/host.js,
dist/src/events/*.js). esbuild parses them like any input: each file is bundled once more with
every bare id left external, and the metafile of that throwaway build lists the file's export
names and its external imports with their kind. A minified bundle, a regex literal like ``/\\//g``
or an ``export`` inside a string cannot fool it; a file that is not valid JavaScript is reported
with esbuild's message.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from neuralis_build.esbuild.runner import find_esbuild, parse_messages

if TYPE_CHECKING:
    from neuralis_build.esbuild.runner import EsbuildRunner


class BuiltModule(NamedTuple):
    """One parsed module: the names it exports and the external ids it imports, with each import's kind."""

    exports: tuple[str, ...]
    imports: tuple[tuple[str, str], ...]  # (module id, kind) sorted, without duplicates
    error: str | None = None  # esbuild's first message when the file is not a loadable module

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(sorted({i for i, _ in self.imports}))


def _args(files: Sequence[str], outdir: str, metafile: str) -> list[str]:
    return [
        *files,
        "--bundle",
        "--format=esm",
        "--platform=neutral",
        "--packages=external",
        "--log-level=error",
        "--log-limit=0",
        "--color=false",
        "--log-style=visualstudio",
        f"--outdir={outdir}",
        f"--metafile={metafile}",
    ]


def _run(root: Path, files: Sequence[str], runner: EsbuildRunner) -> dict[str, BuiltModule] | str:
    with tempfile.TemporaryDirectory(prefix="neuralis-parse-") as tmp:
        metafile = os.path.join(tmp, "meta.json")
        run = runner.run(_args(files, os.path.join(tmp, "out"), metafile), root)
        if run.returncode != 0:
            messages = [m for m in parse_messages(run.stderr) if m.severity == "error"]
            first = messages[0] if messages else None
            if first is None:
                return run.stderr.strip() or "esbuild could not read the file"
            where = f" (line {first.line}, column {first.column})" if first.line is not None else ""
            return first.text + where
        meta = json.loads(Path(metafile).read_text("utf-8"))
    found: dict[str, BuiltModule] = {}
    for info in meta.get("outputs", {}).values():
        entry = info.get("entryPoint")
        if entry is None:
            continue
        imports = sorted({(i["path"], i.get("kind", "")) for i in info.get("imports", []) if i.get("external")})
        found[entry] = BuiltModule(tuple(sorted(info.get("exports", []))), tuple(imports))
    return found


def read_modules(root: Path, files: Sequence[str], esbuild: EsbuildRunner | None = None) -> dict[str, BuiltModule]:
    """Parse ``files`` (package-relative) in one esbuild run; a file esbuild refuses gets its ``error``."""
    if not files:
        return {}
    runner = esbuild or find_esbuild(root)
    wanted = sorted(set(files))
    result = _run(root, wanted, runner)
    if isinstance(result, str):  # one bad file fails the whole run: read each alone to say which
        single = {f: _run(root, [f], runner) for f in wanted} if len(wanted) > 1 else {wanted[0]: result}
        return {
            f: (BuiltModule((), (), r) if isinstance(r, str) else r.get(f, BuiltModule((), (), "no output")))
            for f, r in single.items()
        }
    return {f: result.get(f, BuiltModule((), (), "esbuild produced no output for it")) for f in wanted}
