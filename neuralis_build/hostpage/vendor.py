"""The host's shared modules for the browser: React and react-dom as ESM, and the dev `@neuralis/client`.

React 19 ships CommonJS only, so the real esbuild bundles it once into one ESM file (one React for
every module on the page) and each shared id gets a small ESM file that re-exports its names. The
names come from Node itself (``Object.keys(require(id))``), so the shims follow whatever React the
page is given. Each build is cached per React version, mode and esbuild version.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from neuralis_build.errors import SubprocessError, ToolMissingError, UsageError
from neuralis_build.hostprofile import HostProfile
from neuralis_build.process import run
from neuralis_build.ui.binary import ESBUILD_VERSION, cache_root
from neuralis_build.ui.esbuild import find_esbuild
from neuralis_build.ui.resolve import read_manifest, resolve_package

if TYPE_CHECKING:
    from neuralis_build.ui.esbuild import EsbuildRunner

Mode = Literal["production", "development"]

PINNED_REACT: dict[int, str] = {19: "19.2.0"}
"""The React the toolchain fetches (through npm, into its cache) when a package has none of its own."""

CLIENT_ID = "@neuralis/client"
DATA = Path(__file__).resolve().parent.parent / "data" / "hostpage"

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


@dataclass(frozen=True)
class ReactSource:
    """Where the page's React comes from: a node_modules folder holding react and react-dom."""

    node_modules: Path
    version: str
    origin: Literal["package", "pinned"]


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


def _version(folder: Path | None) -> str | None:
    manifest = read_manifest(folder) if folder is not None else None
    version = manifest.get("version") if manifest else None
    return version if isinstance(version, str) else None


def package_react(start: Path, host: HostProfile) -> ReactSource | None:
    """The react and react-dom Node resolves from ``start``, when both exist, match and fit the host."""
    react = resolve_package(start, "react")
    dom = resolve_package(start, "react-dom")
    version = _version(react)
    if react is None or dom is None or version is None or _version(dom) != version:
        return None
    if not version.split(".", 1)[0].isdigit() or int(version.split(".", 1)[0]) != host.react_major:
        return None
    return ReactSource(react.parent, version, "package")


def pinned_react(host: HostProfile) -> ReactSource:
    """The toolchain's pinned React for the host's major, installed once with npm into the cache."""
    version = PINNED_REACT.get(host.react_major)
    if version is None:
        raise UsageError(
            f"the toolchain pins no React for React {host.react_major}",
            hint=f"install react@{host.react_major} and react-dom@{host.react_major} in the package (npm install -D)",
        )
    home = cache_root() / "react" / version
    node_modules = home / "node_modules"
    if _version(node_modules / "react") == version and _version(node_modules / "react-dom") == version:
        return ReactSource(node_modules, version, "pinned")
    npm = shutil.which("npm")
    if npm is None:
        raise ToolMissingError("npm is needed to fetch React for the host page", hint="install Node.js 20 or newer")
    home.parent.mkdir(parents=True, exist_ok=True)
    staged = Path(tempfile.mkdtemp(dir=home.parent, prefix=f".{version}-"))
    try:
        (staged / "package.json").write_text('{"name": "neuralis-host-react", "private": true}\n')
        cmd = [npm, "install", "--no-package-lock", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"]
        cmd += [f"react@{version}", f"react-dom@{version}"]
        done = run(cmd, cwd=staged, timeout=600)
        if done.returncode != 0:
            raise SubprocessError(
                f"npm could not fetch react@{version}",
                command=cmd,
                output=done.stderr + done.stdout,
                hint="check that npm reaches your registry (npm ping)",
            )
        shutil.rmtree(home, ignore_errors=True)
        try:
            os.replace(staged, home)
        except OSError:
            if _version(node_modules / "react") != version:  # not a concurrent first run that won
                raise
    finally:
        shutil.rmtree(staged, ignore_errors=True)
    return ReactSource(node_modules, version, "pinned")


def find_react(start: Path, host: HostProfile) -> ReactSource:
    """The package's own React when it fits the host, else the toolchain's pinned copy."""
    return package_react(start, host) or pinned_react(host)


def _resolve_ids(node_modules: Path) -> dict[str, tuple[str, list[str]]]:
    """Each React id's file as Node resolves it from ``node_modules``, and the names it exports."""
    script = (
        "const [ids, base] = JSON.parse(process.argv[1]); const out = {};"
        "for (const id of ids) { const file = require.resolve(id, { paths: [base] });"
        " out[id] = [file, Object.keys(require(file)).sort()]; }"
        "console.log(JSON.stringify(out));"
    )
    node = shutil.which("node")
    if node is None:
        raise ToolMissingError("node is needed to build the host page's React", hint="install Node.js 20 or newer")
    cmd = [node, "-e", script, json.dumps([sorted(REACT_IDS), str(node_modules.parent)])]
    done = run(cmd, cwd=node_modules.parent, timeout=120)
    if done.returncode != 0:
        raise SubprocessError("node could not load React to list its exports", command=cmd, output=done.stderr)
    found: dict[str, tuple[str, list[str]]] = {k: (v[0], v[1]) for k, v in json.loads(done.stdout).items()}
    return found


def _build_vendor(out: Path, react: ReactSource, mode: Mode, esbuild: EsbuildRunner) -> dict[str, list[str]]:
    """Bundle React into ``out``/vendor.js (imports by absolute path: nothing is written into the package)."""
    import re

    resolved = _resolve_ids(react.node_modules)
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


def build_shared_modules(
    out: Path, react: ReactSource, *, mode: Mode = "production", esbuild: EsbuildRunner | None = None
) -> SharedModules:
    """Write the host's shared modules into ``out`` (React built once per version and mode, then copied)."""
    cached = cache_root() / "hostpage" / f"react-{react.version}-{mode}-esbuild-{ESBUILD_VERSION}"
    if not (cached / "done").is_file():
        cached.parent.mkdir(parents=True, exist_ok=True)
        staged = Path(tempfile.mkdtemp(dir=cached.parent, prefix=f".{cached.name}-"))
        try:
            exports = _build_vendor(staged, react, mode, esbuild or find_esbuild(react.node_modules.parent))
            done = {"react": react.version, "mode": mode, "exports": exports}
            (staged / "done").write_text(json.dumps(done, indent=2, sort_keys=True) + "\n")
            shutil.rmtree(cached, ignore_errors=True)
            try:
                os.replace(staged, cached)
            except OSError:
                if not (cached / "done").is_file():
                    raise
        finally:
            shutil.rmtree(staged, ignore_errors=True)
    out.mkdir(parents=True, exist_ok=True)
    files = {"vendor.js": "vendor.js", **{mid: file for mid, (_, file) in REACT_IDS.items()}}
    for name in sorted(set(files.values())):
        shutil.copyfile(cached / name, out / name)
    shutil.copyfile(DATA / CLIENT_FILE, out / CLIENT_FILE)
    ids = {mid: file for mid, (_, file) in REACT_IDS.items()}
    ids[CLIENT_ID] = CLIENT_FILE
    names = {k: tuple(v) for k, v in json.loads((cached / "done").read_text())["exports"].items()}
    names[CLIENT_ID] = CLIENT_EXPORTS
    return SharedModules(out, ids, names, react, mode)
