"""Run npm for the image build: every call has a timeout, and its failures are translated here, in one place.

The user's npm configuration (``.npmrc`` files, ``npm_config_*``: registries, scopes, auth, proxies,
cache) applies as it would to their own ``npm install``; only the settings that would change what the
image build relies on are overridden on the command line, where npm gives them the highest precedence.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from neuralis_build.util.errors import SubprocessError, ToolMissingError, UsageError
from neuralis_build.util.process import run

TIMEOUT = 900.0
"""Seconds one npm call may take (a cold resolution of a large closure on a slow registry stays far below)."""

# What the resolution relies on, whatever the user's configuration says (each would break a rule otherwise):
OVERRIDES = (
    "--ignore-scripts",  # install scripts never run
    "--install-strategy=hoisted",  # npm's own layout, whatever the user's config says (tiers.py lays it out)
    "--omit-lockfile-registry-resolved=false",  # every registry entry keeps its resolved URL (for --frozen)
    "--package-lock=true",
    "--lockfile-version=3",
    "--legacy-peer-deps=false",  # peers are resolved, so a peer range can be checked against the host
    "--strict-peer-deps=false",  # a peer conflict is named by the image build, not an npm stack
    # a git dependency is code no registry's integrity covers, a directory one a link out of the image; the
    # allow-file and allow-remote switches are left alone: npm applies them to bundled packages too
    "--allow-git=none",
    "--allow-directory=none",
    "--workspaces=false",
    "--global=false",
    "--force=false",
    "--dry-run=false",
    "--audit=false",
    "--fund=false",
    "--update-notifier=false",
    "--json",
    "--loglevel=error",
)


@dataclass(frozen=True)
class NpmResult:
    """What an npm call printed."""

    stdout: str
    stderr: str


Runner = Callable[[Sequence[str], Path, float], NpmResult]
"""Runs ``npm ARGS`` in a folder with a timeout; raises :class:`NpmFailed` (a seam for unit tests)."""


class NpmFailed(UsageError):
    """npm could not do what the image build asked: one line with npm's error code and summary, never a stack."""

    def __init__(self, message: str, *, code: str, hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.code = code


_HINTS = {
    "E404": "check the name and the registry npm is configured for (.npmrc, npm_config_registry)",
    "ETARGET": "no published version matches that range: fix the range, or publish the version",
    "ENOVERSIONS": "the registry lists no versions for that package",
    "ECONNREFUSED": "the registry is unreachable: check the registry URL and the network (or the proxy setting)",
    "ENOTFOUND": "the registry's host name does not resolve: check the registry URL and DNS",
    "ETIMEDOUT": "the registry did not answer in time: check the network, or retry",
    "E401": "the registry wants credentials: log in (npm login) or set the token in .npmrc",
    "E403": "the registry refused access: check the token's permissions in .npmrc",
    "EINTEGRITY": "the registry served bytes that do not match their published integrity: retry, then report it",
    "ERESOLVE": "npm could not settle the dependency ranges; the message names the packages",
    "EALLOWGIT": "a dependency comes from git and the image installs registry packages only: publish it to your "
    "registry and depend on a version, or list it in the image SPEC as a package of its own (.tgz or folder)",
    "EALLOWREMOTE": "a dependency is a tarball URL, which the image does not install: depend on a published version",
    "EALLOWDIRECTORY": "a dependency is a folder and the image installs registry packages only: publish it to your "
    "registry and depend on a version, or list it in the image SPEC as a package of its own (.tgz or folder)",
    "EUNSUPPORTEDPROTOCOL": "a dependency spec uses a protocol npm cannot install here",
}


def npm_executable() -> str:
    npm = shutil.which("npm")
    if npm is None:
        raise ToolMissingError("npm is not on PATH", hint="install Node.js 20 or later with npm 10 or later")
    return npm


def run_npm(args: Sequence[str], cwd: Path, timeout: float = TIMEOUT) -> NpmResult:
    """Run ``npm ARGS`` in ``cwd``; a failure becomes :class:`NpmFailed` with npm's own code and summary."""
    try:
        done = run([npm_executable(), *args], cwd=cwd, timeout=timeout)
    except SubprocessError:  # stopped at the timeout, with everything it started
        raise NpmFailed(
            f"npm {args[0]} did not finish within {timeout:.0f} s",
            code="ETIMEOUT",
            hint="the registry may be unreachable or very slow: check the network and the registry URL",
        ) from None
    if done.returncode != 0:
        raise translate(args, done.stdout, done.stderr, done.returncode)
    return NpmResult(done.stdout, done.stderr)


def translate(args: Sequence[str], stdout: str, stderr: str, returncode: int | None = None) -> NpmFailed:
    """One line for a failed npm call: ``--json`` puts ``{"error": {code, summary, detail}}`` on stdout; when npm
    said nothing of its own (it ran out of memory, its node would not start, a signal ended it), the last thing
    it printed and how it ended."""
    code, summary, detail = "", "", ""
    try:
        error = json.loads(stdout[stdout.find("{") :])["error"]
        code, summary, detail = (
            str(error.get("code") or ""),
            str(error.get("summary") or ""),
            str(error.get("detail") or ""),
        )
    except (ValueError, KeyError, TypeError, AttributeError):
        lines = [ln.removeprefix("npm error ").strip() for ln in stderr.splitlines() if ln.startswith("npm error")]
        for line in lines:
            if line.startswith("code "):
                code = line[5:].strip()
            elif not summary and line and not line.startswith(("A complete log", "errno", "syscall", "at ")):
                summary = line
    summary = _one_line(summary) or _how_it_ended(stderr, returncode)
    wanted = re.search(r"'([^']+@[^']+)'", detail)  # E404's detail names the spec it looked for
    if wanted and wanted.group(1) not in summary:
        summary += f" ({wanted.group(1)})"
    if code == "ERESOLVE" and detail:
        summary = _eresolve(detail) or summary
    label = f"{code} " if code else ""
    return NpmFailed(f"npm {args[0]} failed: {label}{summary}", code=code or "EUNKNOWN", hint=_HINTS.get(code))


def _how_it_ended(stderr: str, returncode: int | None) -> str:
    """What npm printed last (V8's "heap out of memory", a node that would not start), and its exit or signal."""
    import signal

    lines = [ln.strip() for ln in stderr.splitlines() if ln.strip() and not ln.lstrip().startswith("at ")]
    fatal = next((ln for ln in lines if "FATAL ERROR" in ln or "out of memory" in ln), None)
    said = fatal or (lines[-1] if lines else "")
    ended = ""
    if returncode is not None and returncode < 0:
        try:
            ended = f"it was ended by {signal.Signals(-returncode).name}"
        except ValueError:
            ended = f"it was ended by signal {-returncode}"
    elif returncode is not None:
        ended = f"it exited with {returncode}"
    return "; ".join(p for p in (said[:300], ended) if p) or "npm failed without saying why"


def _one_line(text: str) -> str:
    # a FetchError's summary is one line; anything after it is a stack npm printed into the summary
    first = text.strip().splitlines()[0] if text.strip() else ""
    return re.sub(r"^(FetchError|Error): ", "", first)


def _eresolve(detail: str) -> str:
    """The two facts of an ERESOLVE report: what was found and what could not be resolved."""
    found = re.search(r"^Found: (.+)$", detail, re.M)
    conflict = re.search(r"^Could not resolve dependency:\n(.+)$", detail, re.M)
    parts = [f"found {found.group(1).strip()}" if found else "", conflict.group(1).strip() if conflict else ""]
    return "; ".join(p for p in parts if p)
