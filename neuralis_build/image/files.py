"""Apply a package's ``files`` whitelist to the paths of an unpacked tarball, as npm's packlist would select them."""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable
from typing import Any

_ALWAYS = re.compile(r"^(readme|copying|license|licence)(\..*[^~$])?$", re.IGNORECASE)
_NEVER_ROOT = {"package-lock.json", "yarn.lock", "pnpm-lock.yaml", "bun.lockb"}


def _never(path: str) -> bool:
    parts = path.split("/")
    return (
        ".git" in parts
        or parts[0] == "node_modules"
        or parts[-1] == ".npmrc"
        or (len(parts) == 1 and path in _NEVER_ROOT)
        or parts[-1] in (".DS_Store", "npm-debug.log")
    )


def _bins(manifest: dict[str, Any]) -> list[str]:
    bin_field = manifest.get("bin")
    if isinstance(bin_field, str):
        return [bin_field]
    if isinstance(bin_field, dict):
        return [v for v in bin_field.values() if isinstance(v, str)]
    return []


def _forced(manifest: dict[str, Any]) -> set[str]:
    """main, browser and bin targets, normalised the way npm-normalize-package-bin does for bins."""
    out = {v for v in (manifest.get("main"), manifest.get("browser")) if isinstance(v, str)}
    out.update(b.removeprefix("./") for b in _bins(manifest))
    return out


def _pattern_matches(pattern: str, path: str) -> bool:
    pattern = pattern.removeprefix("./").removeprefix("/").rstrip("/")
    if pattern.endswith("/*"):
        pattern = pattern[:-2] + "/**"
    if not pattern:
        return False
    low, pat = path.lower(), pattern.lower()
    if low == pat or (low.startswith(pat + "/") and not any(ch in pat for ch in "*?[{")):
        return True
    regex = _glob(pat)
    if "/" not in pat:
        # matchBase: a slash-less pattern matches base names, but npm walks only the folders it matches too
        return all(regex.fullmatch(part) for part in low.split("/"))
    return regex.fullmatch(low) is not None


def _glob(pattern: str) -> re.Pattern[str]:
    """A minimatch-like glob: ``**`` spans folders, ``*`` and ``?`` stay within one, ``{a,b}`` alternates."""
    out = ""
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if pattern.startswith("**/", i):
            out += "(?:.*/)?"
            i += 3
            continue
        if pattern.startswith("**", i):
            out += ".*"
            i += 2
            continue
        if ch == "*":
            out += "[^/]*"
        elif ch == "?":
            out += "[^/]"
        elif ch == "{" and "}" in pattern[i:]:
            end = pattern.index("}", i)
            out += "(?:" + "|".join(re.escape(alt) for alt in pattern[i + 1 : end].split(",")) + ")"
            i = end + 1
            continue
        elif ch == "[" and "]" in pattern[i:]:
            end = pattern.index("]", i)
            out += fnmatch.translate(pattern[i : end + 1])[4:-3]
            i = end + 1
            continue
        else:
            out += re.escape(ch)
        i += 1
    return re.compile(out)


def select(paths: Iterable[str], manifest: dict[str, Any]) -> set[str]:
    """The paths the host installs: npm's always-included files plus what ``files`` admits, minus the never-packed."""
    every = set(paths)
    kept = {p for p in every if not _never(p)}
    files = manifest.get("files")
    if not isinstance(files, list):
        return kept
    forced = _forced(manifest)
    positives = [f for f in files if isinstance(f, str) and not f.startswith("!")]
    negatives = [f[1:] for f in files if isinstance(f, str) and f.startswith("!")]
    chosen: set[str] = set()
    for path in kept:
        always = path == "package.json" or ("/" not in path and _ALWAYS.match(path)) or path in forced
        admitted = any(_pattern_matches(f, path) for f in positives)
        if always or (admitted and not any(_pattern_matches(f, path) for f in negatives)):
            chosen.add(path)
    return chosen
