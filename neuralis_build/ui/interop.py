"""A CommonJS module's default import means its ``exports.default`` when it marks ``__esModule``, whoever imports it.

esbuild follows Node for an importer that Node would read as ESM: a ``.mjs`` or ``.mts`` file, or any
file of a package whose package.json says ``"type": "module"``. There, ``import Slider from
"react-slick"`` gives the whole ``module.exports`` of a library compiled by Babel or TypeScript
(``exports.__esModule = true; exports.default = Slider``), and React says "Element type is invalid ...
got: object". Everywhere else esbuild gives ``exports.default``, as webpack does for TypeScript and
Vite's Rollup build did (its commonjs plugin's ``defaultIsModuleExports: "auto"``, for every importer).
Every template writes ``"type": "module"``, for the package's Node code; it says nothing about how the
browser bundle should read a library, and the library's own documentation shows the default import.

So a bundle reads every CommonJS default the same way: esbuild passes the Node-mode flag to its runtime
helper ``__toESM(module, isNodeMode)``, which it writes once, first in the bundle; the build makes the
helper ignore the flag, by replacing its one read with ``0`` padded to the same length (no position of
the bundle or its map moves). A library that bundles its own copy of the helper keeps it: the edit is
made only when the metafile shows an ES import of a CommonJS input, which is what makes esbuild write
its own, and only to the first copy. Vite 8 (Rolldown) follows Node here, as esbuild does, and calls
the difference a migration step (``legacy.inconsistentCjsInterop`` restores the old reading).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

# esbuild 0.28.2's helper, minified ("(r,e,n)=>(n=r!=null?…") or not
# ("(mod, isNodeMode, target) => (target = mod != null ?…")
_HELPER = re.compile(
    r"\(\s*([A-Za-z_$][\w$]*)\s*,\s*([A-Za-z_$][\w$]*)\s*,\s*([A-Za-z_$][\w$]*)\s*\)\s*=>\s*\(\s*\3\s*=\s*\1\s*!=\s*null\s*\?"
)
_REACH = 600
"""Characters from the helper's head to its flag test (the unminified helper has a comment between them)."""
_ES_IMPORTS = ("import-statement", "dynamic-import")
PRELUDE = 65536
"""Bytes at the top of a bundle that hold esbuild's runtime helpers (a few kB; a module's code comes after)."""


def imports_commonjs(meta: Mapping[str, Any]) -> bool:
    """Whether an ES import of the bundle reaches a CommonJS input: then esbuild writes its own ``__toESM``."""
    inputs: Mapping[str, Any] = meta.get("inputs", {})
    commonjs = {p for p, info in inputs.items() if info.get("format") == "cjs"}
    return any(
        i.get("path") in commonjs and i.get("kind") in _ES_IMPORTS
        for info in inputs.values()
        for i in info.get("imports", [])
    )


def _flag_read(js: str) -> tuple[int, int] | None:
    """Where the first ``__toESM`` helper reads its Node-mode flag: (offset, length of the flag's name)."""
    head = _HELPER.search(js)
    if head is None:
        return None
    module, flag = re.escape(head[1]), re.escape(head[2])
    test = re.compile(rf"(?<![\w$.]){flag}(\s*\|\|\s*!{module}\s*\|\|\s*!{module}\.__esModule\b)")
    found = test.search(js, head.end(), head.end() + _REACH)
    return None if found is None else (found.start(), len(head[2]))


def default_as_exports_default(js: str, meta: Mapping[str, Any]) -> str:
    """``js`` with esbuild's ``__toESM`` ignoring the Node-mode flag (the same length), when the bundle has it."""
    at = _flag_read(js) if imports_commonjs(meta) else None
    if at is None:
        return js
    start, length = at
    return js[:start] + "0".ljust(length) + js[start + length :]


def patch_bundle(path: Path, meta: Mapping[str, Any]) -> bool:
    """Edit the bundle at ``path`` in place (its helper is in the first bytes; a 5 MB bundle is not rewritten)."""
    if not imports_commonjs(meta):
        return False
    with path.open("r+b") as f:
        # esbuild writes ASCII (it escapes the rest), so a character is a byte
        at = _flag_read(f.read(PRELUDE).decode("latin-1"))
        if at is None:
            return False
        start, length = at
        f.seek(start)
        f.write(b"0".ljust(length))
    return True
