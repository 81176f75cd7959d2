"""The image SPEC: a TOML file naming the host profile, the packages and the MCP servers of one host image."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from neuralis_build.util.errors import UsageError
from neuralis_build.util.limits import MAX_JSON_BYTES
from neuralis_build.util.regularfile import TooLarge, read_regular
from neuralis_build.util.trust import INSTALL_CLASSES, InstallClass, Trust, trust_for_class

SourceKind = Literal["directory", "tarball", "npm"]

# npm:<name>@<exact version>; a range would make the image depend on the day it was built.
_NPM_SPEC = re.compile(r"^npm:(?P<name>(?:@[^/@\s]+/)?[^/@\s]+)@(?P<version>\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.+-]+)?)$")
_INTEGRITY = re.compile(r"^sha512-[A-Za-z0-9+/]{86}==$")
_PACKAGE_KEYS = {"source", "class", "trust", "integrity"}
_MCP_KEYS = {"server", "tools"}
_TOP_KEYS = {"host", "packages", "mcp"}


@dataclass(frozen=True)
class PackageSpec:
    """One ``[[packages]]`` entry: where the package comes from and the class the host installs it as."""

    index: int
    source: str
    kind: SourceKind
    install_class: InstallClass
    trust: Trust
    integrity: str | None
    line: int | None
    path: Path | None = None  # the resolved file or folder of a directory or tarball source
    npm_name: str | None = None
    npm_version: str | None = None


@dataclass(frozen=True)
class McpServer:
    """One ``[[mcp]]`` entry: an MCP server the deployment connects and the tool names it offers."""

    server: str
    tools: tuple[str, ...]


@dataclass(frozen=True)
class ImageSpec:
    """A whole SPEC: its file, the host profile it names (if any), its packages and MCP servers."""

    path: Path
    host_profile: Path | None
    packages: tuple[PackageSpec, ...]
    mcp: tuple[McpServer, ...] = ()


def _lines_of_tables(text: str, table: str) -> list[int]:
    """The 1-based line of each ``[[table]]`` header, so a bad entry can be named by its line."""
    pattern = re.compile(rf"^\s*\[\[\s*{re.escape(table)}\s*\]\]")
    return [n for n, line in enumerate(text.splitlines(), start=1) if pattern.match(line)]


def load_spec(path: Path | str) -> ImageSpec:
    """Read and validate a SPEC; any problem is a UsageError (exit 2) naming the file and line."""
    spec_path = Path(path)
    try:
        # a FIFO is refused, not waited on; a file past the cap, never read whole
        text = read_regular(spec_path, limit=MAX_JSON_BYTES).decode("utf-8")
    except FileNotFoundError:
        raise UsageError(
            f"{spec_path}: no such image spec", hint="pass the TOML file that lists the packages"
        ) from None
    except TooLarge as exc:
        raise UsageError(
            f"{spec_path}: the image spec is {exc.strerror}; it was not read",
            hint="an image spec lists packages and servers, a few KiB: pass the spec itself",
        ) from None
    except OSError as exc:
        raise UsageError(f"{spec_path}: cannot read the image spec ({exc.strerror})") from None
    except UnicodeDecodeError as exc:
        raise UsageError(f"{spec_path}: the image spec is not UTF-8 text (byte {exc.start})") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        # tomllib's message ends with "(at line L, column C)"
        raise UsageError(f"{spec_path}: not valid TOML: {exc}", hint="fix the TOML syntax at that line") from None
    except RecursionError:  # tomllib recurses once per nested array or inline table
        raise UsageError(
            f"{spec_path}: arrays or inline tables nest too deeply to read",
            hint="an image spec nests at most a list of tool names inside a table",
        ) from None
    return parse_spec(data, spec_path.resolve(), text)


def parse_spec(data: dict[str, Any], spec_path: Path, text: str = "") -> ImageSpec:
    """Validate parsed TOML; ``text`` (the file's source) lets errors name a line."""
    where = str(spec_path)
    unknown = sorted(set(data) - _TOP_KEYS)
    if unknown:
        raise UsageError(
            f"{where}: unknown table or key {', '.join(unknown)}",
            hint="an image spec has [host], [[packages]], [[mcp]]",
        )
    base = spec_path.parent
    host_profile = _host(data.get("host", {}), base, where, text)
    raw_packages = data.get("packages", [])
    if not isinstance(raw_packages, list) or not raw_packages:
        raise UsageError(f"{where}: no [[packages]] entry", hint='add [[packages]] with source = "path/to/package"')
    lines = _lines_of_tables(text, "packages")
    packages = tuple(
        _package(entry, i, lines[i] if i < len(lines) else None, base, where) for i, entry in enumerate(raw_packages)
    )
    _refuse_duplicates(packages, where)
    raw_mcp = data.get("mcp", [])
    mcp_lines = _lines_of_tables(text, "mcp")
    if not isinstance(raw_mcp, list):
        raise UsageError(f"{where}: mcp must be an array of tables ([[mcp]])")
    mcp = tuple(_mcp(entry, mcp_lines[i] if i < len(mcp_lines) else None, where) for i, entry in enumerate(raw_mcp))
    servers = [m.server for m in mcp]
    for name in servers:
        if servers.count(name) > 1:
            raise UsageError(f"{where}: the MCP server {name!r} is listed twice")
    return ImageSpec(spec_path, host_profile, packages, mcp)


def _refuse_duplicates(packages: tuple[PackageSpec, ...], where: str) -> None:
    """A source listed twice, or one npm name at two versions, is a mistake of the SPEC: said at the later entry's
    line, before anything is fetched (the image could install one of them only)."""
    seen: dict[tuple[str, str], PackageSpec] = {}
    for p in packages:
        keys = [("path", str(p.path))] if p.path is not None else []
        if p.npm_name is not None:
            keys.append(("npm", p.npm_name))
        for key in keys:
            first = seen.get(key)
            if first is not None:
                what = (
                    f"npm:{p.npm_name} is listed at two versions" if key[0] == "npm" else f"{p.source} is listed twice"
                )
                earlier = f"line {first.line}" if first.line is not None else f"entry {first.index + 1}"
                raise UsageError(
                    f"{_at(where, p.line)}: {what} (first at {earlier})",
                    hint="list each package once: the image installs one version of each name",
                )
            seen[key] = p


def _at(where: str, line: int | None) -> str:
    return f"{where}:{line}" if line else where


def _host(host: Any, base: Path, where: str, text: str) -> Path | None:
    line = next(iter(_lines_of_tables(text.replace("[host]", "[[host]]"), "host")), None)
    if not isinstance(host, dict):
        raise UsageError(f"{_at(where, line)}: host must be a table ([host])")
    unknown = sorted(set(host) - {"profile"})
    if unknown:
        raise UsageError(
            f"{_at(where, line)}: unknown key(s) in [host]: {', '.join(unknown)}", hint="[host] has profile"
        )
    profile = host.get("profile")
    if profile is None:
        return None
    if not isinstance(profile, str) or not profile:
        raise UsageError(f"{_at(where, line)}: host.profile must be a path to a host profile JSON file")
    return (base / profile).resolve()


def _package(entry: Any, index: int, line: int | None, base: Path, where: str) -> PackageSpec:
    at = _at(where, line)
    if not isinstance(entry, dict):
        raise UsageError(f"{at}: a [[packages]] entry must be a table")
    unknown = sorted(set(entry) - _PACKAGE_KEYS)
    if unknown:
        raise UsageError(
            f"{at}: unknown key(s) {', '.join(unknown)} in [[packages]]",
            hint="a package entry has source, class, trust and integrity",
        )
    source = entry.get("source")
    if not isinstance(source, str) or not source:
        raise UsageError(f'{at}: [[packages]] needs source = "<folder>", "<file>.tgz" or "npm:<name>@<version>"')
    install_class = entry.get("class", "host-dependency")
    if install_class not in INSTALL_CLASSES:
        raise UsageError(f"{at}: class {install_class!r} is not one of {', '.join(INSTALL_CLASSES)}")
    trust_value = entry.get("trust")
    if trust_value is not None and install_class != "installed":
        raise UsageError(
            f'{at}: trust is only for class = "installed"; {install_class} packages get the host\'s tier by class'
        )
    if trust_value is not None and trust_value not in ("trusted", "untrusted"):
        raise UsageError(f'{at}: trust must be "trusted" or "untrusted", not {trust_value!r}')
    trust = trust_for_class(install_class, trust_value or "untrusted")
    integrity = entry.get("integrity")
    if integrity is not None and (not isinstance(integrity, str) or not _INTEGRITY.match(integrity)):
        raise UsageError(
            f"{at}: integrity must be sha512-<base64 of 64 bytes>, as npm pack --json prints it",
        )
    if source.startswith("npm:"):
        m = _NPM_SPEC.match(source)
        if not m:
            raise UsageError(
                f"{at}: {source!r} is not npm:<name>@<exact version>",
                hint="name an exact version (npm:@acme/reports@1.2.0), so the image does not change by itself",
            )
        return PackageSpec(index, source, "npm", install_class, trust, integrity, line, None, m["name"], m["version"])
    path = (base / source).resolve()
    if source.endswith(".tgz"):
        if not path.is_file():
            raise UsageError(f"{at}: {source}: no such tarball ({path})")
        return PackageSpec(index, source, "tarball", install_class, trust, integrity, line, path)
    if not path.is_dir():
        raise UsageError(
            f"{at}: {source}: no such package folder ({path})", hint="a source is a folder, a .tgz or npm:"
        )
    if integrity is not None:
        raise UsageError(f"{at}: integrity is for tarball and npm sources; a folder is built from its files")
    return PackageSpec(index, source, "directory", install_class, trust, None, line, path)


def _mcp(entry: Any, line: int | None, where: str) -> McpServer:
    at = _at(where, line)
    if not isinstance(entry, dict):
        raise UsageError(f"{at}: an [[mcp]] entry must be a table")
    unknown = sorted(set(entry) - _MCP_KEYS)
    if unknown:
        raise UsageError(f"{at}: unknown key(s) {', '.join(unknown)} in [[mcp]]", hint="an MCP entry has server, tools")
    server = entry.get("server")
    tools = entry.get("tools", [])
    if not isinstance(server, str) or not server:
        raise UsageError(f'{at}: [[mcp]] needs server = "<name>"')
    if not isinstance(tools, list) or not all(isinstance(t, str) and t for t in tools):
        raise UsageError(f"{at}: [[mcp]] tools must be an array of tool names")
    return McpServer(server, tuple(tools))


def frozen_problems(spec: ImageSpec) -> list[str]:
    """Why ``--frozen`` cannot build this SPEC: every tarball and npm source needs its integrity."""
    return [
        f"{_at(str(spec.path), p.line)}: {p.source} has no integrity (required with --frozen)"
        for p in spec.packages
        if p.kind != "directory" and p.integrity is None
    ]
