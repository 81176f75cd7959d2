"""One typed model of a Neuralis package, read once and handed to check, ui, pack and image."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from neuralis_build.contract import Contract, discover
from neuralis_build.model.block import BLOCK as BLOCK
from neuralis_build.model.block import block_of
from neuralis_build.npm.fields import NpmFields, npm_fields
from neuralis_build.npm.packagejson import MANIFEST, decode, read_package_json
from neuralis_build.util.diagnostics import Diagnostic, code
from neuralis_build.util.errors import DiagnosedError, UsageError
from neuralis_build.util.jsonpointer import PointerMap, split
from neuralis_build.util.limits import MAX_JSON_BYTES, MAX_JSON_DEPTH
from neuralis_build.util.regularfile import NotRegularFile, TooLarge, size_text
from neuralis_build.util.strictjson import JSONProblem, JSONRefused, parse, position

if TYPE_CHECKING:
    from typing import Any

    from neuralis_build.model.block import Block, Module


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
NB0010 = code(
    "NB0010", "manifest-too-large", f"package.json is larger than the {size_text(MAX_JSON_BYTES)} the toolchain reads"
)

ABSENT: Any = type("Absent", (), {"__repr__": lambda self: "ABSENT", "__slots__": ()})()
"""What ``Package.written`` gives for a pointer package.json has no value at (JSON has no such value)."""

_PROBLEM_CODES = {"syntax": NB0002, "depth": NB0006, "surrogate": NB0007, "number": NB0008}


@dataclass(frozen=True, eq=False)  # no slots: the contract is a cached_property
class Package:
    """A package folder: its raw and parsed package.json, where each value sits, and its contract files."""

    root: Path
    raw: bytes
    manifest: dict[str, Any]
    source: PointerMap = field(repr=False)

    @cached_property
    def npm(self) -> NpmFields:
        """package.json's npm fields (name, version, scripts, dependency maps) as typed values."""
        return npm_fields(self.manifest)

    @property
    def name(self) -> str | None:
        return self.npm.name

    @property
    def version(self) -> str | None:
        return self.npm.version

    @cached_property
    def declared(self) -> Block | None:
        """The ``neuralis`` block as declared (nothing dropped), as typed values; None when it is not an object.

        For what the host loads at a trust tier, ask the judged package (``JudgedPackage.block``).
        """
        return block_of(self.manifest, self.source)

    @property
    def module(self) -> Module | None:
        """The declared ``app.module`` (the judged package has it after trust drops)."""
        return self.declared.module if self.declared is not None else None

    @property
    def is_neuralis(self) -> bool:
        """The discovery signal: the host loads a dependency iff its package.json has a neuralis key."""
        return "neuralis" in self.manifest

    @property
    def reference_only(self) -> bool:
        return self.declared is not None and self.declared.reference_only is True

    @property
    def id(self) -> str | None:
        """The neuralis id, defaulting to the npm name."""
        declared = self.declared
        if declared is not None and declared.id is not None:
            return declared.id
        return self.name

    @cached_property
    def contract(self) -> Contract:
        return discover(self.root)

    def as_written(self, pointer: str) -> Any:
        """The value at ``pointer`` as package.json spells it, whatever its type; ``ABSENT`` when there is none.

        For messages and hints that quote what the author wrote (a wrong type included); decisions read
        the typed values (``declared``, or the judged package's ``block``).
        """
        value: Any = self.manifest
        for token in split(pointer):
            if isinstance(value, dict) and token in value:
                value = value[token]
            elif isinstance(value, list) and token.isdigit() and int(token) < len(value):
                value = value[int(token)]
            else:
                return ABSENT
        return value

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


def _fail(message: str, diagnostic: Diagnostic, *more: Diagnostic) -> DiagnosedError:
    return DiagnosedError(message, [diagnostic, *more])


_SUMMARY = {
    "syntax": "is not valid JSON",
    "depth": "nests too deeply",
    "surrogate": "is not Unicode text",
    "number": "holds a number Node cannot read",
}


def _json_diagnostic(problem: JSONProblem, text: str, source: PointerMap) -> Diagnostic:
    """A refusal of the JSON text as a diagnostic, located by its offset or its pointer."""
    where = position(problem, text, source)
    message = f"package.json is not valid JSON: {problem.message}" if problem.kind == "syntax" else problem.message
    line, column = where if where else (None, None)
    code_ = _PROBLEM_CODES[problem.kind]
    return Diagnostic("error", code_.id, MANIFEST, problem.pointer or "", message, problem.hint, line, column)


def _too_large(size: int) -> DiagnosedError:
    d = Diagnostic(
        "error",
        NB0010.id,
        MANIFEST,
        "",
        f"package.json is {TooLarge(MANIFEST, size, MAX_JSON_BYTES).strerror}; it was not read",
        "a package.json holds a package's metadata, well under 1 MiB: move large data (text, schemas, lists) "
        "into files of the package",
    )
    return _fail("package.json is too large", d)


def parse_manifest(raw: bytes, root: Path) -> Package:
    """Build the model from package.json bytes; bad bytes raise a DiagnosedError with line and column."""
    if len(raw) > MAX_JSON_BYTES:  # bytes from a tarball: the cap read_package_json holds a file to
        raise _too_large(len(raw))
    try:
        text = decode(raw)
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
    try:
        data = parse(text)
    except JSONRefused as exc:
        source = PointerMap(text)
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
    return Package(root=root, raw=raw, manifest=data, source=PointerMap(text))


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
    # never through a symlink: npm packs no symlink, so the tarball would have no package.json, and a
    # link may lead out of the package
    read = read_package_json(root, follow_symlinks=False, parse=False)
    exc = read.error
    if isinstance(exc, NotRegularFile):
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
    if isinstance(exc, TooLarge):
        raise _too_large(exc.size) from None
    if isinstance(exc, FileNotFoundError):
        d = Diagnostic(
            "error",
            NB0001.id,
            MANIFEST,
            "",
            f"{root} has no package.json",
            "a Neuralis package is an npm package: create package.json (neuralis new scaffolds one)",
        )
        raise _fail("no package.json", d) from None
    if isinstance(exc, OSError):
        raise UsageError(f"{root / MANIFEST}: {exc.strerror}") from None
    assert read.raw is not None
    return parse_manifest(read.raw, root)


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
