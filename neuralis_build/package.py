"""One typed model of a Neuralis package, read once and handed to check, ui, pack and image."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from neuralis_build.contract import Contract, discover
from neuralis_build.diagnostics import Diagnostic, code
from neuralis_build.errors import DiagnosedError, UsageError
from neuralis_build.jsonpointer import SourceMap
from neuralis_build.limits import MAX_JSON_DEPTH
from neuralis_build.regularfile import NotRegularFile, read_regular
from neuralis_build.strictjson import JSONProblem, JSONRefused, parse, position

if TYPE_CHECKING:
    from typing import Any

MANIFEST = "package.json"
BLOCK = "/neuralis"
"""The pointer of the ``neuralis`` block in package.json."""

NB0001 = code("NB0001", "manifest-missing", "the folder has no package.json")
NB0002 = code("NB0002", "manifest-invalid-json", "package.json is not valid JSON")
NB0003 = code("NB0003", "manifest-not-object", "package.json is not a JSON object")
NB0004 = code("NB0004", "manifest-unreadable", "package.json could not be read as UTF-8 text")
NB0005 = code("NB0005", "manifest-not-regular", "package.json is a symlink, a FIFO, a folder or a device")
NB0006 = code(
    "NB0006", "manifest-too-deep", f"package.json nests more than {MAX_JSON_DEPTH} levels of arrays and objects"
)
NB0007 = code("NB0007", "manifest-lone-surrogate", "a string or key of package.json holds a lone UTF-16 surrogate")
NB0008 = code("NB0008", "manifest-number-range", "a number of package.json does not fit a double (as Node reads it)")

_PROBLEM_CODES = {"syntax": NB0002, "depth": NB0006, "surrogate": NB0007, "number": NB0008}


@dataclass(frozen=True, eq=False)  # no slots: the contract is a cached_property
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
    def module(self) -> dict[str, Any] | None:
        """The declared ``app.module``, as written (the judged package has it after trust drops)."""
        return module_of(self.block)

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

    def moved_to(self, root: Path) -> Package:
        """The same package.json at another folder (an installed copy): its contract is discovered there afresh."""
        return replace(self, root=root)

    def relpath(self, path: Path) -> str:
        """``path`` relative to the package root, in POSIX form (as diagnostics name files)."""
        return path.relative_to(self.root).as_posix()

    def locate(self, diagnostic: Diagnostic) -> Diagnostic:
        """Fill in the line and column of a package.json diagnostic from its pointer."""
        if diagnostic.file != MANIFEST or diagnostic.line is not None:
            return diagnostic
        where = self.source.locate(diagnostic.pointer)
        return diagnostic.located(*where) if where else diagnostic


def module_of(block: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The ``app.module`` object of a neuralis block (declared or effective); None when absent or not an object.

    The one place the toolchain reads it: check's rules, ui, pack, image and the host page ask here.
    """
    app = block.get("app") if isinstance(block, Mapping) else None
    module = app.get("module") if isinstance(app, dict) else None
    return module if isinstance(module, dict) else None


def events_of(block: Mapping[str, Any] | None) -> list[tuple[int, dict[str, Any]]]:
    """(index, event) of each object in the block's ``events[]``."""
    events = block.get("events") if isinstance(block, Mapping) else None
    return [(i, e) for i, e in enumerate(events) if isinstance(e, dict)] if isinstance(events, list) else []


def surfaces_of(block: Mapping[str, Any] | None) -> list[tuple[int, dict[str, Any]]]:
    """(index, surface) of each object in the block's ``app.surfaces[]``."""
    app = block.get("app") if isinstance(block, Mapping) else None
    found = app.get("surfaces") if isinstance(app, dict) else None
    return [(i, s) for i, s in enumerate(found) if isinstance(s, dict)] if isinstance(found, list) else []


def _fail(message: str, diagnostic: Diagnostic, *more: Diagnostic) -> DiagnosedError:
    return DiagnosedError(message, [diagnostic, *more])


_SUMMARY = {
    "syntax": "is not valid JSON",
    "depth": "nests too deeply",
    "surrogate": "is not Unicode text",
    "number": "holds a number Node cannot read",
}


def _json_diagnostic(problem: JSONProblem, text: str, source: SourceMap) -> Diagnostic:
    """A refusal of the JSON text as a diagnostic, located by its offset or its pointer."""
    where = position(problem, text, source)
    message = f"package.json is not valid JSON: {problem.message}" if problem.kind == "syntax" else problem.message
    line, column = where if where else (None, None)
    code_ = _PROBLEM_CODES[problem.kind]
    return Diagnostic("error", code_.id, MANIFEST, problem.pointer or "", message, problem.hint, line, column)


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
        data = parse(text)
    except JSONRefused as exc:
        source = SourceMap(text)
        found = [_json_diagnostic(p, text, source) for p in exc.problems]
        raise _fail(f"package.json {_SUMMARY[exc.problems[0].kind]}", found[0], *found[1:]) from None
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
        # never through a symlink: npm packs no symlink, so the tarball would have no package.json, and a
        # link may lead out of the package
        raw = read_regular(root / MANIFEST, follow_symlinks=False)
    except NotRegularFile as exc:
        d = Diagnostic(
            "error",
            NB0005.id,
            MANIFEST,
            "",
            f"package.json is {exc.strerror}, not a regular file; npm packs regular files only, so the "
            "tarball would have no package.json",
            "replace the link by the file it points to, inside the package folder"
            if exc.strerror == "a symbolic link"
            else "make package.json a regular file",
        )
        raise _fail("package.json is not a regular file", d) from None
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
