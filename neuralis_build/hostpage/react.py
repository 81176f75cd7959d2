"""Which React the host page gets, and the toolchain's pinned copies of what it needs from npm.

Only a first-party package's own React is used, since only there is the package the author's own;
below first-party the page gets the toolchain's pinned React, whatever the package ships in its
node_modules (through bundleDependencies or an alias, a package under review could ship anything
under the name ``react``). Either way nothing of it runs in Node: esbuild bundles it for the
browser, and its export names are read from its files (``vendor``).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from neuralis_build.errors import SubprocessError, ToolMissingError, UsageError
from neuralis_build.hostprofile import HostProfile
from neuralis_build.npm.nodemodules import resolve_package
from neuralis_build.npm.packagejson import read_package_json
from neuralis_build.process import run
from neuralis_build.trust import Trust
from neuralis_build.ui.binary import cache_root

PINNED_REACT: dict[int, str] = {19: "19.2.0"}
"""The React the toolchain fetches (through npm, into its cache) when it cannot use the package's own."""

LEXER = "cjs-module-lexer"
LEXER_VERSION = "2.2.0"
"""The lexer Node itself uses to name a CommonJS module's exports for ``import`` (Node 20.19 and 22 ship 2.x)."""


@dataclass(frozen=True)
class ReactSource:
    """Where the page's React comes from: a node_modules folder holding react and react-dom."""

    node_modules: Path
    version: str
    origin: Literal["package", "pinned"]


def _version(folder: Path | None) -> str | None:
    return read_package_json(folder).npm.version if folder is not None else None


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


def npm_install(home: Path, specs: Sequence[str], wanted: dict[str, str]) -> Path:
    """``home``/node_modules holding each of ``wanted`` (name → exact version), installed by npm once.

    npm runs in a fresh folder beside ``home`` with no install scripts, and the folder is swapped
    in whole, so a failed or concurrent first run never leaves half a copy.
    """
    node_modules = home / "node_modules"
    if all(_version(node_modules / name) == version for name, version in wanted.items()):
        return node_modules
    npm = shutil.which("npm")
    if npm is None:
        raise ToolMissingError("npm is needed to fetch the host page's React", hint="install Node.js 20 or newer")
    home.parent.mkdir(parents=True, exist_ok=True)
    staged = Path(tempfile.mkdtemp(dir=home.parent, prefix=f".{home.name}-"))
    try:
        (staged / "package.json").write_text('{"name": "neuralis-host-tools", "private": true}\n')
        cmd = [npm, "install", "--no-package-lock", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"]
        cmd += list(specs)
        done = run(cmd, cwd=staged, timeout=600)
        if done.returncode != 0:
            raise SubprocessError(
                f"npm could not fetch {' '.join(specs)}",
                command=cmd,
                output=done.stderr + done.stdout,
                hint="check that npm reaches your registry (npm ping)",
            )
        shutil.rmtree(home, ignore_errors=True)
        try:
            os.replace(staged, home)
        except OSError:
            if not all(_version(node_modules / n) == v for n, v in wanted.items()):  # not a concurrent run that won
                raise
    finally:
        shutil.rmtree(staged, ignore_errors=True)
    return node_modules


def pinned_react(host: HostProfile) -> ReactSource:
    """The toolchain's pinned React for the host's major, installed once with npm into the cache."""
    version = PINNED_REACT.get(host.react_major)
    if version is None:
        raise UsageError(
            f"the toolchain pins no React for React {host.react_major}",
            hint=f"install react@{host.react_major} and react-dom@{host.react_major} in the package (npm install -D)",
        )
    wanted = {"react": version, "react-dom": version}
    node_modules = npm_install(cache_root() / "react" / version, [f"{n}@{v}" for n, v in wanted.items()], wanted)
    return ReactSource(node_modules, version, "pinned")


def lexer_file() -> Path:
    """The pinned cjs-module-lexer's plain-JavaScript build, installed once with npm into the cache."""
    wanted = {LEXER: LEXER_VERSION}
    node_modules = npm_install(cache_root() / LEXER / LEXER_VERSION, [f"{LEXER}@{LEXER_VERSION}"], wanted)
    return node_modules / LEXER / "lexer.js"


def find_react(start: Path, host: HostProfile, trust: Trust) -> ReactSource:
    """A first-party package's own React when it fits the host; otherwise the toolchain's pinned copy."""
    own = package_react(start, host) if trust == "first-party" else None
    return own or pinned_react(host)
