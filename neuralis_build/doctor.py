"""What the toolchain needs here (Node, npm, the pinned esbuild, its JS API, the sandbox), and whether it is there."""

from __future__ import annotations

import shutil
import sys
from dataclasses import asdict, dataclass
from typing import Any

from neuralis_build.esbuild.binary import ESBUILD_VERSION, NPM_HINT, sha256_file, target
from neuralis_build.esbuild.runner import OVERRIDE_ENV, PROBE_TIMEOUT, cached_esbuild, find_esbuild
from neuralis_build.util.errors import NeuralisError
from neuralis_build.util.process import run


@dataclass(frozen=True)
class ToolStatus:
    """One tool: found or not, its version and path, and what to do when it is missing."""

    name: str
    ok: bool
    version: str | None = None
    path: str | None = None
    note: str | None = None
    required: bool = True  # a missing optional tool (the sandbox) is said, and the doctor still exits 0

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _version_of(name: str, hint: str) -> ToolStatus:
    path = shutil.which(name)
    if path is None:
        return ToolStatus(name, False, note=hint)
    try:
        done = run([path, "--version"], timeout=PROBE_TIMEOUT)
    except NeuralisError as exc:  # it cannot start, or it hangs: say so in the report, never wait
        return ToolStatus(name, False, path=path, note=f"{path} --version failed: {exc.message}")
    if done.returncode != 0:
        return ToolStatus(name, False, path=path, note=f"{path} --version failed: {done.stderr.strip()}")
    return ToolStatus(name, True, done.stdout.strip().splitlines()[0] if done.stdout.strip() else "", path)


def _esbuild(fetch: bool, npm_ok: bool) -> ToolStatus:
    try:
        platform = target().platform
        found = find_esbuild() if fetch else cached_esbuild()
    except NeuralisError as exc:
        return ToolStatus("esbuild", False, note=exc.message + (f" ({exc.hint})" if exc.hint else ""))
    if found is None:
        if npm_ok:
            return ToolStatus(
                "esbuild",
                True,
                note=f"{ESBUILD_VERSION} ({platform}) not fetched yet; the first build (or doctor --fetch) fetches it",
            )
        return ToolStatus("esbuild", False, note=f"{ESBUILD_VERSION} is not cached and cannot be fetched: {NPM_HINT}")
    if found.source == "cache":
        # a build trusts the cache's stamp (size, mtime, hash); the doctor hashes the bytes themselves
        expected = target().sha256
        try:
            actual = sha256_file(found.path)
        except OSError as exc:
            actual = f"unreadable ({exc.strerror})"
        if actual != expected:
            return ToolStatus(
                "esbuild",
                False,
                found.version,
                str(found.path),
                f"{platform}, cached binary does not match the sha256 esbuild publishes (got {actual}, expected "
                f"{expected}); delete it and run neuralis-build doctor --fetch",
            )
    how = {
        "override": f"from {OVERRIDE_ENV}, not verified (it is your binary)",
        "cache": "cached, sha256 of the bytes verified now",
        "node_modules": "copied from node_modules, sha256 verified",
        "npm": "fetched with npm pack, sha256 verified",
    }[found.source]
    return ToolStatus("esbuild", True, found.version, str(found.path), f"{platform}, {how}")


def _stylehost(fetch: bool, npm_ok: bool) -> ToolStatus:
    """esbuild's JS API, which packages with stylesheet tools (PostCSS, Sass, Less) are built through."""
    from neuralis_build.ui.stylehost import ensure_installed, install_dir

    name = "esbuild-api"
    what = f"esbuild {ESBUILD_VERSION}'s JS API and postcss-load-config, for packages with stylesheet tools"
    folder = install_dir()
    if fetch and npm_ok:
        try:
            ensure_installed()
        except NeuralisError as exc:
            return ToolStatus(name, False, note=exc.message + (f" ({exc.hint})" if exc.hint else ""))
    if (folder / "node_modules" / ".package-lock.json").is_file():
        return ToolStatus(name, True, ESBUILD_VERSION, str(folder), f"{what}; installed with npm ci")
    if npm_ok:
        return ToolStatus(name, True, note=f"{what}: not installed yet; the first such build (or doctor --fetch) does")
    return ToolStatus(name, False, note=f"{what}: not installed, and npm is needed to install it")


def _sandbox(node: ToolStatus) -> ToolStatus:
    """The OS sandbox ``image`` loads packages in (bubblewrap); without it, no package's code is loaded."""
    from neuralis_build.util.sandbox import NoSandbox, find_sandbox

    if node.path is None:
        return ToolStatus("sandbox", False, note="node is needed to try it", required=False)
    found = find_sandbox(node.path)
    if isinstance(found, NoSandbox):
        note = f"{found.reason}: image loads no package with an install script (each is 'not checked')"
        return ToolStatus("sandbox", False, note=note, required=False)
    version = _version_of(found.bwrap, "").version
    return ToolStatus("sandbox", True, version, found.bwrap, "image loads packages with install scripts in it")


def diagnose(*, fetch: bool = False) -> list[ToolStatus]:
    """Python, Node, npm, esbuild and its JS API, the sandbox; with ``fetch``, obtain what is not there yet."""
    python = ToolStatus("python", True, sys.version.split()[0], sys.executable)
    node = _version_of("node", "install Node.js 20 or newer")
    npm = _version_of("npm", "npm comes with Node.js: install Node.js 20 or newer")
    esbuild = _esbuild(fetch, npm.ok)
    return [python, node, npm, esbuild, _stylehost(fetch and esbuild.ok, npm.ok), _sandbox(node)]
