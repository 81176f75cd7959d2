"""One esbuild run as the UI build needs it: common flags, the forced JSX tsconfig, located messages."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from neuralis_build.diagnostics import Diagnostic, code
from neuralis_build.errors import DiagnosedError, SubprocessError
from neuralis_build.ui.esbuild import EsbuildRunner, Message, parse_messages

NB1900 = code("NB1900", "esbuild-error", "esbuild could not build the sources")
NB1901 = code("NB1901", "esbuild-warning", "esbuild warned about the sources")

LOG_FLAGS = ("--log-level=warning", "--log-limit=0", "--color=false", "--log-style=visualstudio")


def write_tsconfig(root: Path, where: Path) -> Path:
    """A tsconfig that extends the package's own and forces React's automatic JSX runtime.

    A package tsconfig's ``jsx`` setting beats esbuild's ``--jsx`` flag silently, so the build
    hands esbuild this file instead; it keeps the package's ``paths`` and other options.
    """
    options = {"jsx": "react-jsx", "jsxImportSource": "react"}
    data: dict[str, Any] = {"compilerOptions": options}
    own = root / "tsconfig.json"
    if own.is_file():
        data = {"extends": own.resolve().as_posix(), "compilerOptions": options}
    path = where / "tsconfig.json"
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    return path


_UNRESOLVED = re.compile(r'^Could not resolve "(?P<id>[^"]+)"')


def _hint(message: Message) -> str:
    m = _UNRESOLVED.match(message.text)
    if m:
        target = m["id"]
        if target.startswith((".", "/")):
            return "check the path: it is resolved from the importing file's folder"
        return (
            f'install the package that provides "{target}" (npm install), or, if the host or another '
            "package provides it, check the id against the host profile and their app.module.provides"
        )
    if message.severity == "warning":
        return "fix the source at this line and column (esbuild still built it)"
    return "fix the source at this line and column"


def to_diagnostic(message: Message, root: Path) -> Diagnostic:
    """An esbuild message as a located diagnostic, its file relative to the package root."""
    file = message.file or ""
    if file:
        path = Path(file)
        try:
            file = path.resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            file = path.as_posix()
    severity = message.severity
    return Diagnostic(
        severity,
        (NB1900 if severity == "error" else NB1901).id,
        file,
        "",
        message.text,
        _hint(message),
        message.line,
        message.column,
    )


@dataclass(frozen=True)
class Built:
    """A successful esbuild run: its metafile and the warnings it printed."""

    meta: dict[str, Any]
    warnings: list[Diagnostic]


def run_build(esbuild: EsbuildRunner, root: Path, args: Sequence[str], metafile: Path, what: str) -> Built:
    """Run esbuild in ``root``; errors raise a DiagnosedError with every message located."""
    run = esbuild.run([*args, f"--metafile={metafile}", *LOG_FLAGS], root)
    diagnostics = [to_diagnostic(m, root) for m in parse_messages(run.stderr)]
    if run.returncode != 0:
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
    return Built(meta, [d for d in diagnostics if d.severity == "warning"])


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
