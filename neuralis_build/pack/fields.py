"""The package.json fields npm's packer reads (files, bin, main, browser), their shapes and npm's normalisation."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

from neuralis_build.npm.packagejson import MANIFEST
from neuralis_build.pack import nodepath
from neuralis_build.util.diagnostics import Diagnostic, code
from neuralis_build.util.limits import MAX_PATH_DEPTH

NB1701 = code("NB1701", "name-version-missing", "npm packs only a package with a name and a version")
NB1702 = code("NB1702", "files-not-array", "package.json files is not an array of path patterns")
NB1703 = code("NB1703", "files-entry-not-string", "an entry of package.json files is not a string")


def js_truthy(value: Any) -> bool:
    """JavaScript truthiness of a JSON value (an empty array or object is truthy)."""
    if isinstance(value, list | dict):
        return True
    return bool(value)


def js_string(value: Any) -> str:
    """``String(value)`` for a JSON value, as npm interpolates ``main`` or ``browser`` into a rule."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, dict):
        return "[object Object]"
    if isinstance(value, list):
        return ",".join("" if v is None else js_string(v) for v in value)
    return str(value)


def identity_diagnostics(manifest: dict[str, Any]) -> list[Diagnostic]:
    """npm refuses to pack without a ``name`` and a ``version`` ("must have name and version")."""
    found = []
    for key, example in (("name", '"name": "@acme/reports"'), ("version", '"version": "1.0.0"')):
        value = manifest.get(key)
        if not isinstance(value, str) or not value:
            found.append(
                Diagnostic(
                    "error",
                    NB1701.id,
                    MANIFEST,
                    f"/{key}" if key in manifest else "",
                    f"package.json has no {key} string; npm packs only a package with a name and a version",
                    f"{'set' if key in manifest else 'add'} {example}",
                )
            )
    return found


def files_diagnostics(manifest: dict[str, Any]) -> list[Diagnostic]:
    """``files`` must be an array of strings: npm iterates a string per character and throws on the rest."""
    files = manifest.get("files")
    if not js_truthy(files):
        return []
    if isinstance(files, str):
        return [
            Diagnostic(
                "error",
                NB1702.id,
                MANIFEST,
                "/files",
                f'"files" is the string "{files}"; npm reads a string one character at a time and would pack '
                f"the root files named after each character",
                f'make it an array: "files": ["{files}"]',
            )
        ]
    if not isinstance(files, list):
        return [
            Diagnostic(
                "error",
                NB1702.id,
                MANIFEST,
                "/files",
                '"files" must be an array of paths or patterns; npm fails on anything else',
                'list what to publish: "files": ["dist", "README.md"]',
            )
        ]
    return [
        Diagnostic(
            "error",
            NB1703.id,
            MANIFEST,
            f"/files/{i}",
            f"files[{i}] is not a string; npm fails on it",
            "write each entry as a path or a glob in quotes",
        )
        for i, entry in enumerate(files)
        if not isinstance(entry, str)
    ]


def normalize_bin(manifest: dict[str, Any], root: Path | None = None) -> dict[str, str]:
    """``bin`` as @npmcli/package-json normalises it: command name → package-relative target."""
    bin_ = manifest.get("bin")
    directories = manifest.get("directories")
    if not js_truthy(bin_) and isinstance(directories, dict) and js_truthy(directories.get("bin")) and root:
        return _bin_directory(root, nodepath.secure_unixify(js_string(directories["bin"])))
    if not js_truthy(bin_):
        return {}
    name = manifest.get("name")
    if isinstance(bin_, str):
        if not js_truthy(name):
            return {}
        bin_ = {js_string(name): bin_}
    elif isinstance(bin_, list):
        bin_ = {nodepath.basename(k) if isinstance(k, str) else js_string(k): k for k in bin_}
    if not isinstance(bin_, dict):
        return {}
    # JavaScript's for-in over an object it mutates: keys added during the loop are not visited
    obj = dict(bin_)
    for key in list(bin_):
        if key not in obj:
            continue
        value = obj[key]
        base = nodepath.basename(nodepath.secure_unixify(key)) if isinstance(value, str) else ""
        target = nodepath.secure_unixify(value) if isinstance(value, str) else ""
        if not base or not target:
            del obj[key]
            continue
        if base != key:
            del obj[key]
        obj[base] = target
    return obj


def _bin_directory(root: Path, bin_dir: str) -> dict[str, str]:
    """``directories.bin``: every entry below it that glob's ``**`` lists (dot names left out)."""
    found: dict[str, str] = {}
    base = root / bin_dir
    # never follow a symlink out of the package: "lib" -> /usr would otherwise list (and walk) all of /usr
    real_root = os.path.realpath(root)
    if os.path.commonpath([os.path.realpath(base), real_root]) != real_root:
        return found
    for dirpath, dirnames, filenames in os.walk(base):
        rel_dir = Path(dirpath).relative_to(base).as_posix()
        # a bin deeper than any package path can be packed is no bin (and os.walk recurses per level)
        deep = rel_dir.count("/") + len(bin_dir.split("/")) >= MAX_PATH_DEPTH
        dirnames[:] = [] if deep else sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(filenames + dirnames):
            if name.startswith("."):
                continue
            rel = name if rel_dir == "." else f"{rel_dir}/{name}"
            found[nodepath.basename(rel)] = f"{bin_dir}/{nodepath.secure_unixify(rel)}"
    return found


def files_rules(root: Path, files: list[str]) -> tuple[list[str], list[str], list[str]]:
    """npm-packlist's ``processPackage`` for ``files``: (package.json rules, strict rules, required files).

    An entry naming an existing file becomes a strict include; an existing folder gains ``/**``; anything
    else (a glob, a wrong-case name) stays a bare pattern; a symlink is dropped.
    """
    ignores: list[str] = []
    strict: list[str] = []
    required: list[str] = []
    for entry in files:
        f = entry[1:] if entry.startswith("./") else entry
        if f.endswith("/*"):
            f += "*"
        inverse = "!" + f
        try:
            st = os.lstat(nodepath.join(str(root), f.lstrip("!")))
        except (OSError, ValueError):
            ignores.append(inverse)
            continue
        if stat.S_ISREG(st.st_mode):
            strict.insert(0, inverse)
            required.append(f[1:] if f.startswith("/") else f)
        elif stat.S_ISDIR(st.st_mode):
            ignores.extend((inverse, inverse + "/**"))
    return ["*", *ignores], strict, required
