"""Which React the host page gets, and the toolchain's pinned copies of what it needs from npm.

Only a first-party package's own React is used, since only there is the package the author's own;
below first-party the page gets the toolchain's pinned React, whatever the package ships in its
node_modules (through bundleDependencies or an alias, a package under review could ship anything
under the name ``react``). Either way nothing of it runs in Node: esbuild bundles it for the
browser, and its export names are read from its files (``vendor``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from neuralis_build.hostprofile import HostProfile
from neuralis_build.npm.cache import locked_install
from neuralis_build.npm.nodemodules import resolve_package
from neuralis_build.npm.packagejson import read_package_json
from neuralis_build.util.errors import UsageError
from neuralis_build.util.trust import Trust

HOST_TOOLS = Path(__file__).resolve().parent.parent / "data" / "hosttools"
"""package.json and package-lock.json of what the host page needs from npm, pinned with their integrity."""

PINNED_REACT: dict[int, str] = {19: "19.2.0"}
"""The React the page gets when it cannot use the package's own (HOST_TOOLS pins this version)."""

LEXER = "cjs-module-lexer"
LEXER_VERSION = "2.2.0"
"""The lexer Node itself uses to name a CommonJS module's exports for ``import`` (Node 20.19 and 22 ship 2.x);
HOST_TOOLS pins this version."""


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


def host_tools() -> Path:
    """The node_modules of the host page's own tools (pinned React, the lexer), installed once with npm ci."""
    return locked_install(HOST_TOOLS, purpose="the host page's React and module lexer")


def pinned_react(host: HostProfile) -> ReactSource:
    """The toolchain's pinned React for the host's major, from the host page's tools."""
    version = PINNED_REACT.get(host.react_major)
    if version is None:
        raise UsageError(
            f"the toolchain pins no React for React {host.react_major}",
            hint=f"install react@{host.react_major} and react-dom@{host.react_major} in the package (npm install -D)",
        )
    node_modules = host_tools()
    return ReactSource(node_modules, version, "pinned")


def lexer_file() -> Path:
    """The pinned cjs-module-lexer's plain-JavaScript build, from the host page's tools."""
    return host_tools() / LEXER / "lexer.js"


def find_react(start: Path, host: HostProfile, trust: Trust) -> ReactSource:
    """A first-party package's own React when it fits the host; otherwise the toolchain's pinned copy."""
    own = package_react(start, host) if trust == "first-party" else None
    return own or pinned_react(host)
