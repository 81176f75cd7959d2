"""npm's package-name rules (validate-npm-package-name, "new package" strictness)."""

from __future__ import annotations

import re
import urllib.parse

MAX_LENGTH = 214
_SCOPED = re.compile(r"^(?:@([^/]+?)\/)?([^/]+?)$")
_SPECIAL = re.compile(r"[~'!()*]")
# Node's built-in modules (node:… ids are not valid package names either).
_BUILTINS = frozenset(
    "assert async_hooks buffer child_process cluster console constants crypto dgram diagnostics_channel dns "
    "domain events fs http http2 https inspector module net os path perf_hooks process punycode querystring "
    "readline repl stream string_decoder sys timers tls trace_events tty url util v8 vm wasi worker_threads "
    "zlib".split()
)
_BLOCKED = frozenset({"node_modules", "favicon.ico"})


def name_problems(name: str) -> list[str]:
    """Every reason npm would refuse ``name`` for a new package; empty when it is valid."""
    problems: list[str] = []
    if not name:
        return ["the name is empty"]
    if name != name.strip():
        problems.append("the name has leading or trailing spaces")
    if len(name) > MAX_LENGTH:
        problems.append(f"the name is {len(name)} characters long; npm allows at most {MAX_LENGTH}")
    if name.startswith("."):
        problems.append('the name starts with "."')
    if name.startswith("_"):
        problems.append('the name starts with "_"')
    if name.lower() in _BLOCKED:
        problems.append(f'"{name}" is a blocked name')
    if name.lower() in _BUILTINS:
        problems.append(f'"{name}" is the name of a Node.js built-in module')
    if name != name.lower():
        problems.append("the name has uppercase letters")
    if _SPECIAL.search(name.split("/")[-1]):
        problems.append("the name has one of the characters ~'!()*")
    m = _SCOPED.match(name)
    if name.startswith("@") and (not m or not m.group(1)):
        problems.append('a scoped name is "@scope/name"')
    elif m:
        scope, bare = m.group(1), m.group(2)
        for part in filter(None, (scope, bare)):
            if urllib.parse.quote(part, safe="") != part:
                problems.append(f'"{part}" has characters that are not URL-safe')
                break
        if scope and (bare.startswith(".") or bare.startswith("_")):
            problems.append('the part after the scope starts with "." or "_"')
    else:
        problems.append("the name has a slash outside of a scope")
    return problems


def suggest_name(name: str) -> str:
    """A valid name close to ``name``: lowercase, URL-safe characters, no leading dots or underscores."""
    scope, _, bare = name.strip().rpartition("/") if name.strip().startswith("@") else ("", "", name.strip())

    def clean(part: str) -> str:
        part = re.sub(r"[^a-z0-9._-]+", "-", part.lower()).strip("-")
        return part.lstrip("._") or "package"

    bare = clean(bare)[:MAX_LENGTH]
    if bare in _BUILTINS or bare in _BLOCKED:
        bare = f"{bare}-package"
    if scope:
        return f"@{clean(scope.lstrip('@'))}/{bare}"[:MAX_LENGTH]
    return bare


def tarball_stem(name: str, version: str) -> str:
    """npm's tarball file name without .tgz: ``@scope/name`` → ``scope-name-<version>``."""
    return f"{name.replace('@', '', 1).replace('/', '-')}-{version}"


def is_builtin(module_id: str) -> bool:
    """True for a Node.js built-in module id (``fs``, ``node:path``, ``fs/promises``)."""
    bare = module_id.removeprefix("node:").split("/")[0]
    return module_id.startswith("node:") or bare in _BUILTINS
