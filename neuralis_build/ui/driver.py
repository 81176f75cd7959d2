"""One esbuild run as the UI build needs it: common flags, the forced JSX tsconfig, located messages."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from neuralis_build.esbuild.runner import Message, parse_messages, with_notes
from neuralis_build.util.diagnostics import Diagnostic, code
from neuralis_build.util.errors import DiagnosedError, SubprocessError, UsageError

if TYPE_CHECKING:
    from typing import Any

    from neuralis_build.esbuild.runner import EsbuildRunner

NB1900 = code("NB1900", "esbuild-error", "esbuild could not build the sources")
NB1901 = code("NB1901", "esbuild-warning", "esbuild warned about the sources")

LOG_FLAGS = ("--log-level=warning", "--log-limit=0", "--color=false", "--log-style=visualstudio")
NOTES_FLAGS = ("--log-level=warning", "--log-limit=0", "--color=false")  # the default style: with notes
STYLE_CONDITIONS = "--conditions=style,module"
"""A stylesheet's package import resolves with the ``style`` condition (``module`` is esbuild's default, kept)."""
STYLESHEET = re.compile(r"\.(?:css|scss|sass|less)$")


def write_tsconfig(root: Path, where: Path, entry: str | None = None) -> Path:
    """A tsconfig that extends the package's own and forces the automatic JSX runtime.

    A package tsconfig's ``jsx`` setting beats esbuild's ``--jsx`` flag silently, so the build
    hands esbuild this file instead; it keeps the package's ``paths`` and other options. For a
    solution-style tsconfig.json it extends the referenced project that includes ``entry``. The
    runtime is React's (``react/jsx-runtime``, which the host shares) unless the package's tsconfig
    names another ``jsxImportSource`` (Emotion's ``@emotion/react``, whose runtime is bundled and
    imports React itself): its ``css`` prop would otherwise be rendered as ``css="[object Object]"``.
    """
    from neuralis_build.ui.tsconfig import governing_tsconfig, jsx_import_source

    own = governing_tsconfig(root, entry) if entry is not None else root / "tsconfig.json"
    source = jsx_import_source(own) if own is not None and own.is_file() else None
    options = {"jsx": "react-jsx", "jsxImportSource": source or "react"}
    data: dict[str, Any] = {"compilerOptions": options}
    if own is not None and own.is_file():
        data = {"extends": own.resolve().as_posix(), "compilerOptions": options}
    path = where / "tsconfig.json"
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    return path


# patterns for failed builds and esbuild's messages, compiled on first use (re caches them)
_ENVIRONMENT = r"(?i)no space left on device|disk quota exceeded|read-only file system|permission denied|file too large"
UNRESOLVED = r'^Could not resolve "(?P<id>[^"]+)"'
_NO_LOADER = r'^No loader is configured for "(?P<ext>[^"]+)" files'
NO_EXPORT = r'^No matching export in "(?P<file>[^"]+)" for import "(?P<name>[^"]+)"'


def _no_export_hint(file: str, name: str, root: Path) -> str:
    """What to do about an import of a name the imported file does not export (a library's API changed)."""
    from neuralis_build.ui.unbound import missing_export_hint

    suffix = re.search(r"\?(url|raw|inline|worker|sharedworker)\b", file)
    if suffix is not None:  # esbuild read the file; the suffix is Vite's, and means nothing to it
        return (
            f'"?{suffix[1]}" is a Vite import suffix, which this build does not know: import the file itself '
            '(an asset import gives its URL: import logo from "./logo.svg"), or new URL("./file", import.meta.url) '
            "for a file beside the module; a Web Worker has no place in a host's module"
        )
    return missing_export_hint(file, name, root)


def _hint(message: Message, root: Path) -> str:
    from neuralis_build.npm.names import is_builtin

    m = re.match(UNRESOLVED, message.text)
    if m:
        target = m["id"]
        if any("is not currently exported by package" in n for n in message.notes):
            return (
                f'"{target}" is installed, but its package.json "exports" offers this path to no condition a '
                "browser build uses (esbuild's notes above say which it offers): import a path the package "
                "exports, or the build of it meant for browsers"
            )
        if target.startswith((".", "/")):
            return "check the path: it is resolved from the importing file's folder"
        if target.startswith("~") and len(target) > 1 and target[1] != "/":  # "~/x" is an alias, not this
            return (
                f'the "~" prefix is webpack\'s way to name a package; write "{target[1:]}": '
                "the build resolves packages from node_modules without it"
            )
        if is_builtin(target):
            return (
                f'"{target}" is a Node.js built-in module, which a browser does not have: use a browser API or '
                "library instead, or do this work on the server side, in a tool or a route of the package"
            )
        return (
            f'install the package that provides "{target}" (npm install), or, if the host or another '
            "package provides it, check the id against the host profile and their app.module.provides"
        )
    m = re.match(NO_EXPORT, message.text)
    if m:
        return _no_export_hint(m["file"], m["name"], root)
    m = re.match(_NO_LOADER, message.text)
    if m:
        from neuralis_build.ui.assets import MIME_TYPES

        return (
            f"the UI build bundles JavaScript, TypeScript, JSX, CSS, JSON and these assets: "
            f"{' '.join(sorted(MIME_TYPES))}; a {m['ext']} file is none of them: convert it (data to .json, an "
            "image to .svg/.png/.webp), or serve it from elsewhere and fetch it at run time"
        )
    if message.severity == "warning":
        return "esbuild still built it; fix the source at this line and column to silence the warning"
    return "fix the source at this line and column"


def relative(file: str | None, root: Path) -> str:
    """A path esbuild or a tool printed, relative to the package root when it is inside it."""
    if not file:
        return ""
    path = Path(root, file)
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return Path(file).as_posix()


def to_diagnostic(message: Message, root: Path) -> Diagnostic:
    """An esbuild message as a located diagnostic, its file relative to the package root, with esbuild's notes."""
    if message.missing is not None or message.tool is not None:
        from neuralis_build.ui.stylesheets import tool_diagnostic  # a build with stylesheet tools only

        return tool_diagnostic(message, relative(message.file, root), relative(message.missing_for, root))
    severity = message.severity
    text = message.text + (f": {'; '.join(message.notes)}" if message.notes else "")
    return Diagnostic(
        severity,
        _code(message),
        relative(message.file, root),
        "",
        text,
        _hint(message, root),
        message.line,
        message.column,
    )


def _code(message: Message) -> str:
    """NB1925 for an import of a name the target does not export (esbuild's own, in JavaScript), else NB1900/1."""
    if message.severity == "error" and re.match(NO_EXPORT, message.text):
        from neuralis_build.ui.unbound import NB1925

        return NB1925.id
    return (NB1900 if message.severity == "error" else NB1901).id


@dataclass(frozen=True, slots=True)
class Built:
    """A successful esbuild run: its metafile, the warnings it printed, the files its stylesheet tools read and
    what they handed esbuild."""

    meta: dict[str, Any]
    warnings: list[Diagnostic]
    reads: tuple[str, ...] = ()  # absolute paths (Sass partials, the PostCSS config), beside the metafile's inputs
    loaded: tuple[tuple[str, str], ...] = ()  # (stylesheet, a copy of what its tools handed esbuild), absolute


def _wants_style(messages: Sequence[Message], args: Sequence[str]) -> bool:
    """A package a stylesheet imports did not resolve, and the ``style`` condition was not on yet.

    esbuild resolves every import with one set of conditions, and a stylesheet's ``@import "tailwindcss"``
    needs ``style`` (its package.json exports the stylesheet under that condition alone). Turning it on
    for every build would let it pick a stylesheet for a script's import of a package that lists
    ``style`` first; so it is turned on only for a build whose stylesheet needs it.
    """
    if any(a.startswith("--conditions=") for a in args):
        return False
    for m in messages:
        hit = re.match(UNRESOLVED, m.text) if m.severity == "error" and m.file else None
        if hit and STYLESHEET.search(m.file or "") and not hit["id"].startswith((".", "/")):
            return True
    return False


def run_build(esbuild: EsbuildRunner, root: Path, args: Sequence[str], metafile: Path, what: str) -> Built:
    """Run esbuild in ``root``; errors raise a DiagnosedError with every message located."""
    run = esbuild.run([*args, f"--metafile={metafile}", *LOG_FLAGS], root)
    messages = list(run.messages) if run.messages is not None else parse_messages(run.stderr)
    if run.returncode != 0 and _wants_style(messages, args):
        return run_build(esbuild, root, [*args, STYLE_CONDITIONS], metafile, what)
    if run.returncode != 0 and run.messages is None and messages:
        messages = with_notes(messages, esbuild.run([*args, *NOTES_FLAGS], root).stderr)
    diagnostics = list(dict.fromkeys(to_diagnostic(m, root) for m in messages))  # one per missing tool, not per file
    if run.returncode != 0:
        environment = next((d for d in diagnostics if re.search(_ENVIRONMENT, d.message)), None)
        if environment is not None:  # the disk, not the source: an environment error (exit 2)
            raise UsageError(
                f"esbuild could not write the output: {environment.message}",
                hint="free some space or fix the permissions of the package's dist/ folder, then build again",
            )
        errors = [d for d in diagnostics if d.severity == "error"]
        if not errors:
            raise SubprocessError(f"esbuild failed while building {what}", command=run.command, output=run.stderr)
        n = len(errors)
        raise DiagnosedError(f"esbuild could not build {what} ({n} error{'s' if n != 1 else ''})", diagnostics)
    try:
        meta = json.loads(metafile.read_text("utf-8"))
    except (OSError, ValueError) as exc:
        raise SubprocessError(
            f"esbuild wrote no readable metafile ({exc})", command=run.command, output=run.stderr
        ) from None
    return Built(meta, [d for d in diagnostics if d.severity == "warning"], run.reads, run.loaded)


def locate_import(root: Path, file: str, module_id: str) -> tuple[int, int] | None:
    """Line and column of the first quoted ``module_id`` in ``file`` (best effort, for diagnostics)."""
    try:
        text = (root / file).read_text("utf-8", errors="replace")
    except OSError:
        return None
    for quote in ('"', "'", "`"):
        at = text.find(f"{quote}{module_id}{quote}")
        if at >= 0:
            line = text.count("\n", 0, at) + 1
            return line, at - (text.rfind("\n", 0, at) + 1) + 1
    return None
