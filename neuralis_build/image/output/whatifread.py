"""An image as ``image what-if`` reads it: its report, and of its tree only what the host would read.

Each installed folder of the report's closure, with its package.json read (its ``engines.node``, its peer
ranges, its ``neuralis`` block) once per registry tarball, since its copies in the tiers are links to one
store entry, and once per listed or bundled folder; and the packages the host loads, as the report has them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from neuralis_build.image.judge.report import REPORT
from neuralis_build.model.block import Block, block_of
from neuralis_build.npm.fields import NpmFields, npm_fields
from neuralis_build.npm.packagejson import MANIFEST, read_package_json
from neuralis_build.util.errors import UsageError

SourceKind = Literal["directory", "tarball", "npm", "dependency"]


@dataclass(frozen=True)
class Folder:
    """One installed folder: where, what, who brings it in, how it came (for the fix), and its package.json."""

    path: str
    name: str
    version: str
    chain: tuple[str, ...]
    source: str
    kind: SourceKind
    npm: NpmFields
    block: Block | None


@dataclass(frozen=True)
class LoadedFolder:
    """A package the host loads (a row of the report's ``packages``), with its installed folder."""

    id: str
    trust: str
    module: dict[str, Any] | None  # the image's verdict on its UI module, None when it has none
    at: Folder


def image_folder(out: Path) -> Path:
    """The image folder ``out``; a UsageError (exit 2) saying why, when it is not one."""
    hint = "pass the folder of an image (the --out of neuralis-build image): what-if reads its report and its tree"
    if not out.exists():
        raise UsageError(f"{out}: no such folder", hint=hint)
    if out.is_file():
        raise UsageError(f"{out} is a file; what-if needs the image folder, whose tree it reads", hint=hint)
    if not (out / REPORT).is_file():
        raise UsageError(f"{out} holds no {REPORT}: it is not an image", hint=hint)
    if not (out / "node_modules").is_dir():
        raise UsageError(f"{out} holds no node_modules: the image's tree is gone", hint=hint)
    return out


def rows(data: Mapping[str, Any], key: str) -> list[dict[str, Any]]:
    """The objects of the report's list ``key`` (none when it has no such list)."""
    value = data.get(key)
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _source_kind(source: str) -> SourceKind:
    if source.startswith("npm:"):
        return "npm"
    return "tarball" if source.endswith(".tgz") else "directory"


def installed_of(image: Path, report: Mapping[str, Any]) -> dict[str, Folder]:
    """Every installed folder of the report's closure, by path, with its package.json read: once per registry
    tarball (its copies are links to one store entry), once per listed or bundled folder."""
    listed = {r.get("path"): str(r.get("source")) for r in rows(report, "packages") if len(r.get("chain") or ()) == 1}
    by_integrity: dict[str, tuple[NpmFields, Block | None]] = {}
    out: dict[str, Folder] = {}
    for row in sorted(rows(report, "closure"), key=lambda r: str(r.get("path"))):
        path, integrity = str(row.get("path")), row.get("integrity")
        shared = isinstance(integrity, str) and path not in listed and "bundled" not in (row.get("flags") or ())
        read = by_integrity.get(integrity) if shared and isinstance(integrity, str) else None
        if read is None:
            read = _package_json(image, path, bundled="bundled" in (row.get("flags") or ()))
            if shared and isinstance(integrity, str):
                by_integrity[integrity] = read
        source = listed.get(path, str(row.get("resolved")))
        out[path] = Folder(
            path,
            str(row.get("name")),
            str(row.get("version")),
            tuple(str(c) for c in row.get("chain") or ()),
            source,
            _source_kind(source) if path in listed else "dependency",
            *read,
        )
    return out


def _package_json(image: Path, path: str, *, bundled: bool) -> tuple[NpmFields, Block | None]:
    read = read_package_json(image.joinpath(*path.split("/")))
    if read.missing and bundled:
        return NpmFields(), None  # a folder a bundle shipped without a package.json: npm installs it so
    manifest = read.object
    if manifest is None:
        raise UsageError(
            f"{image}/{path}/{MANIFEST} cannot be read ({read.reason}): the tree is not the one its report describes",
            hint="build the image again; what-if judges an image as its build left it",
        )
    return npm_fields(manifest), block_of(manifest)


def loaded_of(report: Mapping[str, Any], installed: Mapping[str, Folder]) -> list[LoadedFolder]:
    """The packages the host loads, in the report's order, each with its installed folder."""
    out = []
    for row in rows(report, "packages"):
        at = installed.get(str(row.get("path")))
        if row.get("status") != "loaded" or at is None:
            continue
        module = row.get("module") if isinstance(row.get("module"), dict) else None
        out.append(LoadedFolder(str(row.get("id") or at.name), str(row.get("trust")), module, at))
    return out
