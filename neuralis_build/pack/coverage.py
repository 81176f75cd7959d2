"""What the packed file list covers: ``files`` entries that pack nothing, declared build outputs left out."""

from __future__ import annotations

import os
import posixpath
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from neuralis_build.diagnostics import Diagnostic, code
from neuralis_build.jsonpointer import join
from neuralis_build.pack.fields import files_rules
from neuralis_build.pack.walker import DEFAULT_RULES, RuleSet, parse_rules
from neuralis_build.package import MANIFEST, Package

NB1704 = code("NB1704", "files-entry-matches-nothing", "a files entry matches no file that gets packed")
NB1705 = code("NB1705", "output-not-packed", "a declared build output exists but the file list leaves it out")
NB1706 = code("NB1706", "output-not-built", "a declared build output does not exist, so it cannot be packed")

SHARED_IMPORTS = "dist/app/shared-imports.json"
_SKIP_DIRS = {".git", "node_modules"}


def _matches(rules: RuleSet, path: str) -> bool:
    return any(rule.match("/" + path) or rule.match(path) for rule in rules.rules)


def _directories(root: Path) -> Iterator[str]:
    for dirpath, dirnames, _ in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS)
        rel = Path(dirpath).relative_to(root).as_posix()
        for d in dirnames:
            yield d if rel == "." else f"{rel}/{d}"


def files_entry_diagnostics(package: Package, packed: list[str]) -> list[Diagnostic]:
    """Every positive ``files`` entry must pack at least one file; a folder-name glob packs none."""
    files = package.manifest.get("files")
    if not isinstance(files, list):
        return []
    found = []
    for i, entry in enumerate(files):
        if not isinstance(entry, str) or entry.startswith("!"):
            continue
        package_rules, strict, _ = files_rules(package.root, [entry])
        rules = parse_rules("\n".join(package_rules[1:] + strict))
        if any(_matches(rules, p) for p in packed):
            continue
        found.append(
            Diagnostic(
                "error",
                NB1704.id,
                MANIFEST,
                f"/files/{i}",
                f'files[{i}] "{entry}" matches no file that gets packed',
                _entry_hint(package, entry, rules),
            )
        )
    return found


def _entry_hint(package: Package, entry: str, rules: RuleSet) -> str:
    stripped = entry.strip()
    if not stripped or stripped.startswith("#"):
        return "npm drops an empty entry or one that starts with # (a comment): remove it"
    folder = stripped.removeprefix("./").strip("/")
    outputs = declared_outputs(package.block) if package.block is not None else []
    if folder and any(out.path.startswith(folder + "/") for out in outputs) and not (package.root / folder).exists():
        return f"{folder}/ holds the declared build outputs and has not been built yet: {outputs[0].build_hint}"
    folders = [d for d in _directories(package.root) if _matches(rules, d)]
    if folders:
        return (
            f'the glob matches the folder "{folders[0]}" but npm packs a folder\'s files only when the entry '
            f'names the folder exactly or ends in /**: write "{folders[0]}" or "{folders[0]}/**"'
        )
    return "nothing in the package matches it (names are case-sensitive on disk): fix the path or remove the entry"


@dataclass(frozen=True)
class Output:
    """A file the manifest declares the build produces, and where it is declared."""

    path: str
    pointer: str
    what: str
    build_hint: str


def _clean(path: Any) -> str | None:
    """A package-relative path from a manifest value; None when it is not one (check reports those)."""
    if not isinstance(path, str) or not path or path.startswith("/") or "\\" in path:
        return None
    norm = posixpath.normpath(path)
    if norm == "." or norm.startswith("../") or norm == ".." or ".." in path.split("/"):
        return None
    return norm


def declared_outputs(block: dict[str, Any]) -> list[Output]:
    """The build outputs a ``neuralis`` block declares: the UI module, its css and record, events, iframe roots."""
    outputs: list[Output] = []
    ui = "run neuralis-build ui (the package's build:ui script) before packing"
    app = block.get("app")
    module = app.get("module") if isinstance(app, dict) else None
    if isinstance(module, dict):
        for key, what in (("entry", "the UI module entry"), ("css", "the UI module stylesheet")):
            path = _clean(module.get(key))
            if path:
                outputs.append(Output(path, f"/neuralis/app/module/{key}", what, ui))
        outputs.append(Output(SHARED_IMPORTS, "/neuralis/app/module", "the shared-imports record", ui))
    events = block.get("events")
    seen: set[str] = set()
    for i, event in enumerate(events if isinstance(events, list) else []):
        subject = event.get("subject") if isinstance(event, dict) else None
        path = _clean(f"dist/src/events/{subject}.js") if isinstance(subject, str) and subject else None
        if path and subject not in seen:
            seen.add(str(subject))
            hint = f"compile src/events/{subject}.ts to {path} before packing"
            outputs.append(
                Output(path, f"/neuralis/events/{i}/subject", f'the compiled event subject "{subject}"', hint)
            )
    surfaces = app.get("surfaces") if isinstance(app, dict) else None
    for i, surface in enumerate(surfaces if isinstance(surfaces, list) else []):
        if not isinstance(surface, dict):
            continue
        for key in ("component", "render"):
            block_ = surface.get(key)
            if not isinstance(block_, dict) or block_.get("renderer") != "iframe":
                continue
            path = _clean(block_.get("url"))
            if path:
                pointer = join("/neuralis/app/surfaces", i, key, "url")
                outputs.append(Output(path, pointer, "the iframe surface entry", "create the surface's entry file"))
    return outputs


def output_diagnostics(package: Package, packed: list[str]) -> list[Diagnostic]:
    """Each declared output must be in the tarball: refuse a package that ships without what it declares."""
    block = package.block
    if block is None:
        return []
    in_tarball = set(packed)
    found = []
    for out in declared_outputs(block):
        if out.path in in_tarball:
            continue
        if not (package.root / out.path).is_file():
            found.append(
                Diagnostic(
                    "error",
                    NB1706.id,
                    MANIFEST,
                    out.pointer,
                    f"{out.what} {out.path} does not exist, so the tarball would ship without it",
                    out.build_hint,
                )
            )
            continue
        found.append(
            Diagnostic(
                "error",
                NB1705.id,
                MANIFEST,
                out.pointer,
                f"{out.what} {out.path} exists but the file list leaves it out of the tarball",
                _left_out_hint(package, out.path),
            )
        )
    found.extend(_bundle_root_diagnostics(package, block, in_tarball))
    return found


def _left_out_hint(package: Package, path: str) -> str:
    top = path.split("/", 1)[0]
    if isinstance(package.manifest.get("files"), list):
        return f'add "{top}" to "files" in package.json'
    if (package.root / ".npmignore").exists():
        return f'a rule in .npmignore excludes {path}: remove it, or list what to publish in "files"'
    return (
        f"with no .npmignore npm applies .gitignore, which excludes {path}: "
        f'list what to publish in "files" (e.g. ["{top}"]) or add an .npmignore'
    )


def _bundle_root_diagnostics(package: Package, block: dict[str, Any], packed: set[str]) -> list[Diagnostic]:
    """An iframe surface with ``assetMode: "bundle"`` is served with its siblings: all of them must ship."""
    app = block.get("app")
    surfaces = app.get("surfaces") if isinstance(app, dict) else None
    found = []
    for i, surface in enumerate(surfaces if isinstance(surfaces, list) else []):
        for key in ("component", "render"):
            spec = surface.get(key) if isinstance(surface, dict) else None
            if not isinstance(spec, dict) or spec.get("renderer") != "iframe" or spec.get("assetMode") != "bundle":
                continue
            entry = _clean(spec.get("url"))
            if entry is None:
                continue
            parts = entry.split("/")
            folder = (
                "/".join(parts[:4]) if parts[:2] == ["app", "surfaces"] and len(parts) > 4 else posixpath.dirname(entry)
            )
            defaults = parse_rules("\n".join(DEFAULT_RULES))
            missing = sorted(
                rel
                for rel in _files_under(package.root, folder)
                if rel not in packed and rel != entry and not _matches(defaults, rel)
            )
            if missing:
                shown = ", ".join(missing[:3]) + (f" and {len(missing) - 3} more" if len(missing) > 3 else "")
                found.append(
                    Diagnostic(
                        "error",
                        NB1705.id,
                        MANIFEST,
                        join("/neuralis/app/surfaces", i, key, "assetMode"),
                        f"the surface is served as a bundle from {folder}/ but the tarball leaves out {shown}",
                        _left_out_hint(package, missing[0]),
                    )
                )
    return found


def _surface_root(entry: str) -> str:
    """The canonical root ``app/surfaces/{kind}/{surfaceId}`` of an entry, else the entry's folder."""
    parts = entry.split("/")
    if parts[:2] == ["app", "surfaces"] and len(parts) > 4:
        return "/".join(parts[:4])
    return posixpath.dirname(entry)


def _files_under(root: Path, folder: str) -> Iterator[str]:
    base = root / folder
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames[:] = sorted(d for d in dirnames if not os.path.islink(os.path.join(dirpath, d)))
        for name in filenames:
            full = Path(dirpath) / name
            if full.is_file() and not full.is_symlink():
                yield full.relative_to(root).as_posix()
