"""Would ``require.resolve('<name>/package.json')`` work? Node 20's ``exports`` resolution, statically.

The host finds a package's root through that call (spec, "Distribution"), so an ``exports`` map must
keep ``./package.json`` reachable under the conditions ``require()`` uses: ``require``, ``node``,
``module-sync`` and ``default``. This follows ``packageExportsResolve`` in Node's
``lib/internal/modules/esm/resolve.js``: exact keys, ``*`` patterns (longest prefix wins), nested
conditions in key order, arrays as fallbacks, and ``null`` targets that stop the search.
"""

from __future__ import annotations

import json
import posixpath
import re
import urllib.parse
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any, Literal

from neuralis_build.npm.packagejson import MANIFEST
from neuralis_build.util.diagnostics import Code, Diagnostic, code
from neuralis_build.util.jsonpointer import join

REQUIRE_CONDITIONS = frozenset({"require", "node", "module-sync"})
SUBPATH = "./package.json"
_INVALID_SEGMENT = re.compile(
    r"(^|\\|/)((\.|%2e)(\.|%2e)?|(n|%6e|%4e)(o|%6f|%4f)(d|%64|%44)(e|%65|%45)(_|%5f)(m|%6d|%4d)(o|%6f|%4f)"
    r"(d|%64|%44)(u|%75|%55)(l|%6c|%4c)(e|%65|%45)(s|%73|%53))?(\\|/|$)",
    re.IGNORECASE,
)
_DEPRECATED_SEGMENT = re.compile(_INVALID_SEGMENT.pattern.replace(")?(\\\\|/|$)", ")(\\\\|/|$)"), re.IGNORECASE)
_ENCODED_SEP = re.compile(r"%2F|%5C", re.IGNORECASE)

Outcome = Literal["ok", "not-exported", "invalid-config", "invalid-target"]


@dataclass(frozen=True)
class Resolution:
    """The outcome, the package-relative file it maps to (when it maps), and the pointer that decided it."""

    outcome: Outcome
    target: str | None
    pointer: str
    detail: str = ""


class _Fail(Exception):
    def __init__(self, outcome: Outcome, pointer: str, detail: str) -> None:
        super().__init__(detail)
        self.outcome: Outcome = outcome
        self.pointer = pointer
        self.detail = detail


def _is_array_index(key: str) -> bool:
    return key.isdigit() and str(int(key)) == key and int(key) < 0xFFFFFFFF


def _sugar(exports: Any) -> bool:
    """Node's ``isConditionalExportsMainSugar``: a string, an array, or an object of condition keys only."""
    if isinstance(exports, str | list):
        return True
    if not isinstance(exports, dict):
        return False
    kinds = {key == "" or not key.startswith(".") for key in exports}
    if len(kinds) > 1:
        raise _Fail(
            "invalid-config",
            "/exports",
            '"exports" mixes keys that start with "." and keys that do not',
        )
    return kinds == {True}


def _pattern_key_compare(a: str, b: str) -> int:
    a_star, b_star = a.find("*"), b.find("*")
    base_a = len(a) if a_star == -1 else a_star + 1
    base_b = len(b) if b_star == -1 else b_star + 1
    if base_a != base_b:
        return -1 if base_a > base_b else 1
    if a_star == -1:
        return 1
    if b_star == -1:
        return -1
    if len(a) != len(b):
        return -1 if len(a) > len(b) else 1
    return 0


def _target_string(target: str, subpath: str, pattern: bool, pointer: str) -> str:
    if not target.startswith("./"):
        raise _Fail("invalid-target", pointer, f'the target "{target}" does not start with "./"')
    rest = target[2:]
    if _INVALID_SEGMENT.search(rest) and _DEPRECATED_SEGMENT.search(rest):
        raise _Fail("invalid-target", pointer, f'the target "{target}" has a ".", ".." or node_modules segment')
    if subpath and _INVALID_SEGMENT.search(subpath) and _DEPRECATED_SEGMENT.search(subpath):
        raise _Fail("invalid-target", pointer, f'"{subpath}" is not a valid subpath')
    resolved = rest.replace("*", subpath) if pattern else rest
    resolved = re.split(r"[?#]", resolved.replace("\\", "/"), maxsplit=1)[0]  # a URL: query and fragment go
    if _ENCODED_SEP.search(resolved):
        raise _Fail("invalid-target", pointer, f'the target "{target}" encodes a path separator')
    return posixpath.normpath("/" + urllib.parse.unquote(resolved)).lstrip("/")


def _target(target: Any, subpath: str, pattern: bool, pointer: str, conditions: Collection[str]) -> str | bool | None:
    """A file path, None for a ``null`` that stops the search, False for "no condition matched"."""
    if isinstance(target, str):
        return _target_string(target, subpath, pattern, pointer)
    if isinstance(target, list):
        if not target:
            return None
        last: _Fail | bool | None = False
        for i, item in enumerate(target):
            try:
                result = _target(item, subpath, pattern, join(pointer, i), conditions)
            except _Fail as exc:
                if exc.outcome != "invalid-target":
                    raise
                last = exc
                continue
            if result is False:
                continue
            if result is None:
                last = None
                continue
            return result
        if isinstance(last, _Fail):
            raise last
        return None if last is None else False
    if isinstance(target, dict):
        for key in target:
            if _is_array_index(key):
                raise _Fail("invalid-config", join(pointer, key), '"exports" cannot contain numeric keys')
        for key, value in target.items():
            if key == "default" or key in conditions:
                result = _target(value, subpath, pattern, join(pointer, key), conditions)
                if result is False:
                    continue
                return result
        return False
    if target is None:
        return None
    raise _Fail("invalid-target", pointer, f"the target {json.dumps(target)} is not a string, array or object")


def resolve_subpath(
    exports: Any, subpath: str = SUBPATH, conditions: Collection[str] = REQUIRE_CONDITIONS
) -> Resolution:
    """Resolve ``subpath`` through ``exports`` (the manifest's value; None means absent or null)."""
    if exports is None:
        return Resolution("ok", subpath[2:], "")
    try:
        if _sugar(exports):
            return Resolution("not-exported", None, "/exports", "exports only defines the main entry")
        keys = list(exports) if isinstance(exports, dict) else []
        if subpath in keys and "*" not in subpath and not subpath.endswith("/"):
            pointer = join("/exports", subpath)
            result = _target(exports[subpath], "", False, pointer, conditions)
            return _finish(result, pointer)
        best, best_sub = "", ""
        for key in keys:
            star = key.find("*")
            if star == -1 or not subpath.startswith(key[:star]):
                continue
            trailer = key[star + 1 :]
            if (
                len(subpath) >= len(key)
                and subpath.endswith(trailer)
                and _pattern_key_compare(best, key) == 1
                and key.rfind("*") == star
            ):
                best, best_sub = key, subpath[star : len(subpath) - len(trailer)]
        if best:
            pointer = join("/exports", best)
            return _finish(_target(exports[best], best_sub, True, pointer, conditions), pointer)
        return Resolution("not-exported", None, "/exports", f'no key of "exports" matches "{subpath}"')
    except _Fail as exc:
        return Resolution(exc.outcome, None, exc.pointer, exc.detail)


def _finish(result: str | bool | None, pointer: str) -> Resolution:
    if isinstance(result, str):
        return Resolution("ok", result, pointer)
    if result is None:
        return Resolution("not-exported", None, pointer, "the target is null, which hides the subpath")
    return Resolution("not-exported", None, pointer, "no condition require() uses (require, node, default) matches")


NB1707 = code("NB1707", "exports-hides-package-json", "require.resolve('<name>/package.json') would fail")
NB1708 = code("NB1708", "exports-invalid", "the exports map is invalid, so Node rejects every lookup through it")


def _fix(exports: Any) -> str:
    """The hint: add the exact key, or set it when "exports" already has one (a second would be a duplicate)."""
    where = 'in "exports"' if isinstance(exports, dict) and "./package.json" in exports else 'to "exports"'
    verb = "set" if where.startswith("in") else "add"
    return f'{verb} "./package.json": "./package.json" {where} (an exact key wins over patterns and conditions)'


def exports_diagnostics(manifest: dict[str, Any], packed: Collection[str]) -> list[Diagnostic]:
    """The host resolves the package root with ``require.resolve('<name>/package.json')``: keep it working."""
    if "exports" not in manifest:
        return []
    exports = manifest["exports"]
    name = manifest.get("name") if isinstance(manifest.get("name"), str) else "<name>"
    res = resolve_subpath(exports)
    call = f"require.resolve('{name}/package.json')"
    if res.outcome in ("invalid-config", "invalid-target"):
        return [
            _d(
                NB1708,
                res.pointer,
                f"{call} fails: {res.detail}",
                _fix(exports)
                if res.outcome == "invalid-target"
                else 'keep either only subpath keys (".", "./x") or only condition keys (import, require) in "exports"',
            )
        ]
    if res.outcome == "not-exported":
        hint = _fix(exports)
        if res.pointer == "/exports" and exports is not None and _is_main_only(exports):
            value = json.dumps(exports, ensure_ascii=False)
            hint = f'write "exports": {{".": {value}, "./package.json": "./package.json"}}'
        return [_d(NB1707, res.pointer, f"{call} would fail with ERR_PACKAGE_PATH_NOT_EXPORTED: {res.detail}", hint)]
    assert res.target is not None
    if res.target != "package.json":
        return [
            _d(
                NB1707,
                res.pointer,
                f"{call} would resolve to {res.target}, not to the package's package.json",
                _fix(exports),
            )
        ]
    if res.target not in packed:
        return [_d(NB1707, res.pointer, f"{call} would fail: {res.target} is not in the tarball", _fix(exports))]
    return []


def _is_main_only(exports: Any) -> bool:
    try:
        return _sugar(exports)
    except _Fail:
        return False


def _d(c: Code, pointer: str, message: str, hint: str) -> Diagnostic:
    return Diagnostic("error", c.id, MANIFEST, pointer, message, hint)
