"""What the packed file list covers: ``files`` entries that pack nothing, declared build outputs left out."""

from __future__ import annotations

import os
import posixpath
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from neuralis_build.judged import JudgedPackage
from neuralis_build.npm.packagejson import MANIFEST
from neuralis_build.pack.fields import files_rules
from neuralis_build.pack.rules import RuleSet, parse_rules
from neuralis_build.pack.walker import DEFAULT_RULES
from neuralis_build.package import Package
from neuralis_build.record.sharedimports import RECORD_NAME
from neuralis_build.util.diagnostics import Diagnostic, code
from neuralis_build.util.outdir import OUT_DIR

if TYPE_CHECKING:
    from neuralis_build.model.block import Render

NB1704 = code("NB1704", "files-entry-matches-nothing", "a files entry matches no file that gets packed")
NB1705 = code("NB1705", "output-not-packed", "a declared build output exists but the file list leaves it out")
NB1706 = code("NB1706", "output-not-built", "a declared build output does not exist, so it cannot be packed")

BUILD_UI = "run neuralis-build ui (the package's build:ui script) before packing"
_SKIP_DIRS = {".git", "node_modules"}


def _matches(rules: RuleSet, path: str) -> bool:
    return any(rule.match("/" + path) or rule.match(path) for rule in rules.rules)


def _directories(root: Path) -> Iterator[str]:
    for dirpath, dirnames, _ in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS)
        rel = Path(dirpath).relative_to(root).as_posix()
        for d in dirnames:
            yield d if rel == "." else f"{rel}/{d}"


def files_entry_diagnostics(package: Package, packed: list[str], outputs: list[Output]) -> list[Diagnostic]:
    """A positive ``files`` entry that packs nothing: a warning, as npm packs such a package without a word.

    npm-packlist itself lists a ``bin/`` it does not have and semver@7.6.0 lists a ``lib/``, so an
    empty entry alone is no reason to refuse. When the entry is the one that would carry a declared
    build output that is missing, the output rule (NB1706) refuses the package and names the entry,
    so it is not reported twice.
    """
    files = package.manifest.get("files")
    if not isinstance(files, list):
        return []
    in_tarball = set(packed)
    missing = [out for out in outputs if out.path not in in_tarball]
    found = []
    for i, entry in enumerate(files):
        if not isinstance(entry, str) or entry.startswith("!"):
            continue
        rules = entry_rules(package, entry)
        if any(_matches(rules, p) for p in packed) or any(_carries(package, entry, out.path) for out in missing):
            continue
        found.append(
            Diagnostic(
                "warning",
                NB1704.id,
                MANIFEST,
                f"/files/{i}",
                f'files[{i}] "{entry}" matches no file that gets packed; npm packs the package without it',
                _entry_hint(package, entry, rules),
            )
        )
    return found


def entry_rules(package: Package, entry: str) -> RuleSet:
    """The rules one ``files`` entry adds to npm's walk (the entry, and the folder forms npm derives from it)."""
    package_rules, strict, _ = files_rules(package.root, [entry])
    return parse_rules("\n".join(package_rules[1:] + strict))


def _entry_hint(package: Package, entry: str, rules: RuleSet) -> str:
    stripped = entry.strip()
    if not stripped or stripped.startswith("#"):
        return "npm drops an empty entry or one that starts with # (a comment): remove it"
    folders = [d for d in _directories(package.root) if _matches(rules, d)]
    if folders:
        shown = " and ".join(f'"{f}"' for f in folders[:2]) + (
            f" ({len(folders) - 2} more)" if len(folders) > 2 else ""
        )
        what = "folders" if len(folders) > 1 else "folder"
        return (
            f"the entry matches the {what} {shown} but npm packs a folder's files only when the entry names the "
            f'folder exactly or ends in /**: write "{stripped.rstrip("/")}/**"'
        )
    return "nothing in the package matches it (names are case-sensitive on disk): fix the path or remove it"


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


def _iframes(judged: JudgedPackage) -> list[tuple[str, Render]]:
    """(its key, the block) of every iframe ``component``/``render`` the host loads."""
    return [(key, block) for s in judged.surfaces for key, block in s.blocks if block.renderer == "iframe"]


def declared_outputs(judged: JudgedPackage) -> list[Output]:
    """The build outputs the effective block declares: the UI module, its css and record, events, iframe roots.

    Read from what the host loads at the package's trust (an ``app.module`` dropped below first-party
    declares nothing), with each pointer back at its line of package.json.
    """
    outputs: list[Output] = []
    module = judged.module
    if module is not None:
        for key, value, what in (
            ("entry", module.entry, "the UI module entry"),
            ("css", module.css, "the UI module stylesheet"),
        ):
            path = _clean(value)
            if path:
                outputs.append(Output(path, module.at.child(key).pointer, what, BUILD_UI))
        entry = _clean(module.entry)
        record = posixpath.join(posixpath.dirname(entry), RECORD_NAME) if entry else f"{OUT_DIR}/{RECORD_NAME}"
        outputs.append(Output(record, module.at.pointer, "the shared-imports record", BUILD_UI))
    seen: set[str] = set()
    for event in judged.events:
        subject = event.subject
        path = _clean(f"dist/src/events/{subject}.js") if subject else None
        if path and subject not in seen:
            seen.add(str(subject))
            hint = f"compile src/events/{subject}.ts to {path} before packing"
            pointer = event.at.child("subject").pointer
            outputs.append(Output(path, pointer, f'the compiled event subject "{subject}"', hint))
    for _, block in _iframes(judged):
        path = _clean(block.url)
        if path:
            outputs.append(
                Output(
                    path, block.at.child("url").pointer, "the iframe surface entry", "create the surface's entry file"
                )
            )
    return outputs


def output_diagnostics(judged: JudgedPackage, packed: list[str]) -> list[Diagnostic]:
    """Each declared output must be in the tarball: refuse a package that ships without what it declares."""
    package = judged.package
    assert package is not None
    in_tarball = set(packed)
    found = []
    for out in declared_outputs(judged):
        if out.path in in_tarball:
            continue
        if not (package.root / out.path).is_file():
            carrier = _carrier(package, out.path)
            found.append(
                Diagnostic(
                    "error",
                    NB1706.id,
                    MANIFEST,
                    out.pointer,
                    f"{out.what} {out.path} does not exist, so the tarball would ship without it"
                    + (f" ({carrier} is meant to carry it)" if carrier else ""),
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
    found.extend(_bundle_root_diagnostics(judged, in_tarball))
    return found


def _carries(package: Package, entry: str, path: str) -> bool:
    """Would ``entry`` pack ``path`` once it is built? A folder not built yet gains ``/**`` then, as npm adds it."""
    if _matches(entry_rules(package, entry), path):
        return True
    folder = entry.removeprefix("./").rstrip("/")
    return bool(folder) and _matches(parse_rules(f"!{folder}/**"), path)


def _carrier(package: Package, path: str) -> str | None:
    """The ``files`` entry that would pack ``path`` once it is built (``files[0] "dist"``), if any."""
    files = package.manifest.get("files")
    for i, entry in enumerate(files if isinstance(files, list) else []):
        if isinstance(entry, str) and not entry.startswith("!") and _carries(package, entry, path):
            return f'files[{i}] "{entry}"'
    return None


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


def _bundle_root_diagnostics(judged: JudgedPackage, packed: set[str]) -> list[Diagnostic]:
    """An iframe surface with ``assetMode: "bundle"`` is served with its siblings: all of them must ship."""
    package = judged.package
    assert package is not None
    defaults = parse_rules("\n".join(DEFAULT_RULES))
    found = []
    for _, spec in _iframes(judged):
        entry = _clean(spec.url)
        if spec.asset_mode != "bundle" or entry is None:
            continue
        folder = _surface_root(entry)
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
                    spec.at.child("assetMode").pointer,
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
