"""The host's shared modules for the browser: React and react-dom as ESM, and the dev `@neuralis/client`.

React 19 ships CommonJS only, so the real esbuild bundles it once into one ESM file (one React for
every module on the page) and each shared id gets a small ESM file that re-exports its names. The
names are read from React's files by the lexer Node itself uses for ``import`` of CommonJS, never
by running them: a React from a package's node_modules is that package's code. Each build is
cached under a hash of the bytes it is built from (every file of react, react-dom and scheduler),
not under the version they declare, so a copy built from altered files is never served for others.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from neuralis_build.esbuild.binary import ESBUILD_VERSION
from neuralis_build.esbuild.runner import find_esbuild
from neuralis_build.hostpage.react import LEXER_VERSION, ReactSource, lexer_file
from neuralis_build.npm.nodemodules import resolve_package
from neuralis_build.util.cachedir import cache_root
from neuralis_build.util.errors import SubprocessError
from neuralis_build.util.process import json_from, run, which

if TYPE_CHECKING:
    from neuralis_build.esbuild.runner import EsbuildRunner

Mode = Literal["production", "development"]

CLIENT_ID = "@neuralis/client"
DATA = Path(__file__).resolve().parent.parent / "data" / "hostpage"
SHIM_FORMAT = 2  # bump when the files a build writes change shape: older cache entries are then not read

# Each React id the host shares, the namespace the vendor bundle exports it as, and its file name.
REACT_IDS: dict[str, tuple[str, str]] = {
    "react": ("React", "react.js"),
    "react/jsx-runtime": ("JSXRuntime", "react-jsx-runtime.js"),
    "react-dom": ("ReactDOM", "react-dom.js"),
    "react-dom/client": ("ReactDOMClient", "react-dom-client.js"),
}
CLIENT_FILE = "neuralis-client.js"
CLIENT_EXPORTS = ("useNeuralisTheme",)  # exactly what data/types/neuralis-client.d.ts declares

_IDENT = r"^[A-Za-z_$][\w$]*$"

# Resolution only (require.resolve reads package.json files, it runs no module), and the lexer
# reads each file as text, following `module.exports = require(...)` re-exports as Node does.
_EXPORTS = """\
const [lexerFile, ids, base] = JSON.parse(process.argv[1]);
const { parse } = require(lexerFile);
const fs = require("node:fs"), path = require("node:path");
function names(file, seen) {
  if (seen.has(file)) return [];
  seen.add(file);
  const { exports, reexports } = parse(fs.readFileSync(file, "utf8"));
  const found = [...exports];
  for (const spec of reexports) found.push(...names(require.resolve(spec, { paths: [path.dirname(file)] }), seen));
  return found;
}
const out = {};
for (const id of ids) {
  const file = require.resolve(id, { paths: [base] });
  out[id] = [file, [...new Set(names(file, new Set()))].sort()];
}
process.stdout.write(JSON.stringify(out));
"""


@dataclass(frozen=True)
class SharedModules:
    """The shared modules written into ``folder``: each id and the file name that serves it."""

    folder: Path
    files: Mapping[str, str]  # module id -> file name inside folder
    exports: Mapping[str, tuple[str, ...]]  # module id -> the names it exports
    react: ReactSource
    mode: Mode

    def import_map(self, base_url: str) -> dict[str, str]:
        """Import-map entries with every file under ``base_url`` (such as ``/__neuralis/vendor/``)."""
        return {module_id: base_url + name for module_id, name in sorted(self.files.items())}


def react_digest(react: ReactSource) -> str:
    """The sha256 of every file of the react, react-dom and scheduler the bundle is built from."""
    base = react.node_modules.parent
    dom = resolve_package(base, "react-dom")
    folders = [resolve_package(base, "react"), dom, resolve_package(dom, "scheduler") if dom else None]
    digest = hashlib.sha256()
    for folder in folders:
        if folder is None:
            continue
        root = folder.resolve()
        digest.update(f"package {folder.name}\0".encode())
        for current, dirs, files in os.walk(root):  # links to folders are named, not followed
            dirs.sort()
            here = Path(current)
            for name in sorted(files + [d for d in dirs if (here / d).is_symlink()]):
                path = here / name
                digest.update(path.relative_to(root).as_posix().encode("utf-8", "surrogateescape") + b"\0")
                if path.is_symlink():
                    digest.update(b"link " + os.readlink(path).encode("utf-8", "surrogateescape") + b"\0")
                if path.is_file():
                    digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def _exports(printed: Any) -> dict[str, tuple[str, list[str]]]:
    """Each React id's file and names, as the exports script prints them (a TypeError when it did not)."""
    found = {mid: (printed[mid][0], printed[mid][1]) for mid in REACT_IDS}
    for file, names in found.values():
        if not isinstance(file, str) or not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise TypeError("a file and a list of names for each id")
    return found


def _list_exports(node_modules: Path) -> dict[str, tuple[str, list[str]]]:
    """Each React id's file as Node resolves it from ``node_modules``, and the names it exports."""
    node = which("node", "install Node.js 20 or newer: it reads React's exports for the host page")
    lexer = lexer_file()
    cmd = [node, "-e", _EXPORTS, json.dumps([str(lexer), sorted(REACT_IDS), str(node_modules.parent)])]
    return json_from(run(cmd, cwd=lexer.parent, timeout=120), "list React's exports", _exports)


def _build_vendor(out: Path, react: ReactSource, mode: Mode, esbuild: EsbuildRunner) -> dict[str, list[str]]:
    """Bundle React into ``out``/vendor.js (imports by absolute path: nothing is written into the package)."""
    import re

    resolved = _list_exports(react.node_modules)
    lines = [f"import * as {name} from {json.dumps(resolved[mid][0])};" for mid, (name, _) in REACT_IDS.items()]
    lines.append(f"export {{ {', '.join(name for name, _ in REACT_IDS.values())} }};")
    (out / "entry.js").write_text("\n".join(lines) + "\n", encoding="utf-8")
    args = ["entry.js", "--bundle", "--format=esm", "--platform=browser", "--outfile=vendor.js"]
    args += [f'--define:process.env.NODE_ENV="{mode}"', "--log-level=error"]
    if mode == "production":
        args.append("--minify")
    run = esbuild.run(args, out)
    (out / "entry.js").unlink()
    if run.returncode != 0:
        raise SubprocessError(
            "esbuild could not bundle React for the host page", command=run.command, output=run.stderr
        )
    exports: dict[str, list[str]] = {}
    for module_id, (name, file) in REACT_IDS.items():
        names = [k for k in resolved[module_id][1] if re.match(_IDENT, k) and k != "default"]
        (out / file).write_text(
            f'import {{ {name} as ns }} from "./vendor.js";\n'
            "const m = ns.default ?? ns;\nexport default m;\n"
            f"export const {{ {', '.join(names)} }} = m;\n",
            encoding="utf-8",
        )
        exports[module_id] = ["default", *names]
    return exports


def _cached_exports(cached: Path) -> dict[str, tuple[str, ...]] | None:
    try:
        done = json.loads((cached / "done").read_text(encoding="utf-8"))
        return {str(k): tuple(str(n) for n in v) for k, v in done["exports"].items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None  # not built, or left half-written: built again


def build_shared_modules(
    out: Path, react: ReactSource, *, mode: Mode = "production", esbuild: EsbuildRunner | None = None
) -> SharedModules:
    """Write the host's shared modules into ``out`` (React built once per set of bytes and mode, then copied)."""
    key = f"react-{react_digest(react)[:32]}-{mode}-esbuild-{ESBUILD_VERSION}-lexer-{LEXER_VERSION}-{SHIM_FORMAT}"
    cached = cache_root() / "hostpage" / key
    names = _cached_exports(cached)
    if names is None:
        cached.parent.mkdir(parents=True, exist_ok=True)
        staged = Path(tempfile.mkdtemp(dir=cached.parent, prefix=f".{cached.name}-"))
        try:
            exports = _build_vendor(staged, react, mode, esbuild or find_esbuild(react.node_modules.parent))
            done = {"react": react.version, "origin": react.origin, "mode": mode, "exports": exports}
            (staged / "done").write_text(json.dumps(done, indent=2, sort_keys=True) + "\n")
            shutil.rmtree(cached, ignore_errors=True)
            try:
                os.replace(staged, cached)
            except OSError:
                if _cached_exports(cached) is None:
                    raise
        finally:
            shutil.rmtree(staged, ignore_errors=True)
        names = {k: tuple(v) for k, v in exports.items()}
    out.mkdir(parents=True, exist_ok=True)
    files = {"vendor.js": "vendor.js", **{mid: file for mid, (_, file) in REACT_IDS.items()}}
    for name in sorted(set(files.values())):
        shutil.copyfile(cached / name, out / name)
    shutil.copyfile(DATA / CLIENT_FILE, out / CLIENT_FILE)
    ids = {mid: file for mid, (_, file) in REACT_IDS.items()}
    ids[CLIENT_ID] = CLIENT_FILE
    names = dict(names)
    names[CLIENT_ID] = CLIENT_EXPORTS
    return SharedModules(out, ids, names, react, mode)
