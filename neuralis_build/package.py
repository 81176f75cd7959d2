"""One typed model of a Neuralis package, read once and handed to check, ui, pack and image."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from neuralis_build.contract import Contract, discover
from neuralis_build.diagnostics import Diagnostic, code
from neuralis_build.errors import DiagnosedError, UsageError
from neuralis_build.jsonpointer import SourceMap

MANIFEST = "package.json"

NB0001 = code("NB0001", "manifest-missing", "the folder has no package.json")
NB0002 = code("NB0002", "manifest-invalid-json", "package.json is not valid JSON")
NB0003 = code("NB0003", "manifest-not-object", "package.json is not a JSON object")
NB0004 = code("NB0004", "manifest-unreadable", "package.json could not be read as UTF-8 text")


@dataclass(frozen=True, eq=False)
class Package:
    """A package folder: its raw and parsed package.json, where each value sits, and its contract files."""

    root: Path
    raw: bytes
    manifest: dict[str, Any]
    source: SourceMap = field(repr=False)

    @property
    def name(self) -> str | None:
        value = self.manifest.get("name")
        return value if isinstance(value, str) else None

    @property
    def version(self) -> str | None:
        value = self.manifest.get("version")
        return value if isinstance(value, str) else None

    @property
    def block(self) -> dict[str, Any] | None:
        """The ``neuralis`` block when it is an object; ``None`` when absent or malformed."""
        value = self.manifest.get("neuralis")
        return value if isinstance(value, dict) else None

    @property
    def is_neuralis(self) -> bool:
        """The discovery signal: the host loads a dependency iff its package.json has a neuralis key."""
        return "neuralis" in self.manifest

    @property
    def reference_only(self) -> bool:
        return self.block is not None and self.block.get("referenceOnly") is True

    @property
    def id(self) -> str | None:
        """The neuralis id, defaulting to the npm name."""
        block = self.block
        if block is not None and isinstance(block.get("id"), str):
            return str(block["id"])
        return self.name

    @cached_property
    def contract(self) -> Contract:
        return discover(self.root)

    def relpath(self, path: Path) -> str:
        """``path`` relative to the package root, in POSIX form (as diagnostics name files)."""
        return path.relative_to(self.root).as_posix()

    def locate(self, diagnostic: Diagnostic) -> Diagnostic:
        """Fill in the line and column of a package.json diagnostic from its pointer."""
        if diagnostic.file != MANIFEST or diagnostic.line is not None:
            return diagnostic
        where = self.source.locate(diagnostic.pointer)
        return diagnostic.located(*where) if where else diagnostic


def _fail(message: str, diagnostic: Diagnostic) -> DiagnosedError:
    return DiagnosedError(message, [diagnostic])


def parse_manifest(raw: bytes, root: Path) -> Package:
    """Build the model from package.json bytes; bad bytes raise a DiagnosedError with line and column."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        d = Diagnostic(
            "error",
            NB0004.id,
            MANIFEST,
            "",
            f"package.json is not UTF-8 text (byte {exc.start})",
            "save package.json as UTF-8",
        )
        raise _fail("package.json is not UTF-8", d) from None
    if text.startswith("\ufeff"):
        text = text[1:]  # npm strips a byte-order mark too
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        d = Diagnostic(
            "error",
            NB0002.id,
            MANIFEST,
            "",
            f"package.json is not valid JSON: {exc.msg}",
            _json_hint(exc.msg),
            exc.lineno,
            exc.colno,
        )
        raise _fail("package.json is not valid JSON", d) from None
    if not isinstance(data, dict):
        d = Diagnostic(
            "error",
            NB0003.id,
            MANIFEST,
            "",
            f"package.json holds a JSON {json_type(data)}, not an object",
            'a package.json is one object: { "name": ..., "version": ... }',
            1,
            1,
        )
        raise _fail("package.json is not an object", d)
    return Package(root=root, raw=raw, manifest=data, source=SourceMap(text))


def load_package(path: Path | str) -> Package:
    """Read the package folder at ``path``; a missing folder is a usage error, a bad manifest a diagnostic."""
    root = Path(path)
    if not root.exists():
        raise UsageError(f"{root}: no such folder", hint="pass the folder that holds the package's package.json")
    if root.is_file() and root.name == MANIFEST:
        root = root.parent
    if not root.is_dir():
        raise UsageError(f"{root}: not a folder", hint="pass the folder that holds the package's package.json")
    root = root.resolve()
    try:
        raw = (root / MANIFEST).read_bytes()
    except FileNotFoundError:
        d = Diagnostic(
            "error",
            NB0001.id,
            MANIFEST,
            "",
            f"{root} has no package.json",
            "a Neuralis package is an npm package: create package.json (neuralis new scaffolds one)",
        )
        raise _fail("no package.json", d) from None
    except OSError as exc:
        raise UsageError(f"{root / MANIFEST}: {exc.strerror}") from None
    return parse_manifest(raw, root)


def json_type(value: Any) -> str:
    """The JSON name of a Python value's type, as messages say it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


_TRAILING_COMMA = re.compile(r"Expecting (property name|value)")


def _json_hint(msg: str) -> str:
    if _TRAILING_COMMA.match(msg):
        return "look for a trailing comma or a missing value just before this point"
    if msg.startswith("Expecting ',' delimiter"):
        return "a comma is missing between two entries, or a quote is not closed"
    if msg.startswith("Invalid control character"):
        return "strings cannot hold raw newlines or tabs: escape them as \\n or \\t"
    return "fix the JSON syntax at this line and column"
