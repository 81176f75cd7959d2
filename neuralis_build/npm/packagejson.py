"""The one reader of a package.json (a package's own, or an installed dependency's).

Every command reads package.json here and gets a value back: the bytes, the text, the parsed JSON,
or the error that stopped the read. Callers decide what a failure means for them (a located
diagnostic for the package being checked, a warning for a dependency, a refused tarball), but the
reading itself, its bounds and its failures are one behaviour: a FIFO or a device is refused, never
waited on; a file over ``MAX_JSON_BYTES`` is refused from its size (``TooLarge``), never read whole; a
byte-order mark is dropped, as npm drops it; the JSON is read as Node reads it (strictjson), so a
nesting too deep or a number Node cannot hold is an error, not a crash.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from neuralis_build.npm.fields import NpmFields, npm_fields
from neuralis_build.util.limits import MAX_JSON_BYTES
from neuralis_build.util.regularfile import TooLarge, read_regular
from neuralis_build.util.strictjson import JSONRefused, parse

if TYPE_CHECKING:
    from typing import Any

MANIFEST = "package.json"
BOM = "\ufeff"


def decode(raw: bytes) -> str:
    """package.json bytes as text: UTF-8 (a decode error names the byte from the file's start), no BOM."""
    text = raw.decode("utf-8")
    return text[1:] if text.startswith(BOM) else text  # npm strips a byte-order mark too


def parse_text(raw: bytes) -> tuple[str, Any]:
    """The text and the JSON value of package.json bytes; UnicodeDecodeError or JSONRefused when Node could not."""
    text = decode(raw)
    return text, parse(text)


@dataclass(frozen=True, slots=True)
class PackageJson:
    """What reading one package.json gave: its bytes, text and JSON, or the error that stopped it."""

    path: Path
    raw: bytes | None = None
    text: str | None = None
    data: Any = None
    error: OSError | ValueError | None = None
    """FileNotFoundError, NotRegularFile, TooLarge or another OSError; UnicodeDecodeError or JSONRefused."""

    @property
    def missing(self) -> bool:
        """True when there is no file at all (a folder that is no package)."""
        return isinstance(self.error, FileNotFoundError)

    @property
    def object(self) -> dict[str, Any] | None:
        """The package.json object; None when it could not be read or is not an object."""
        return self.data if self.error is None and isinstance(self.data, dict) else None

    @property
    def npm(self) -> NpmFields:
        """The npm fields of the object (all absent when there is none)."""
        return npm_fields(self.object)

    def parse(self) -> PackageJson:
        """This read with its text and JSON value (a read that failed, or is parsed already, is kept)."""
        if self.raw is None or self.error is not None or self.text is not None:
            return self
        if len(self.raw) > MAX_JSON_BYTES:  # bytes read from elsewhere (a tarball's entry) have the same cap
            return replace(self, error=TooLarge(self.path, len(self.raw), MAX_JSON_BYTES))
        try:
            text, data = parse_text(self.raw)
        except (UnicodeDecodeError, JSONRefused) as exc:
            return replace(self, error=exc)
        return replace(self, text=text, data=data)

    @property
    def reason(self) -> str:
        """Why the read failed, in the words a warning about a dependency uses."""
        error = self.error
        if isinstance(error, UnicodeDecodeError):
            return f"not UTF-8 text (byte {error.start})"
        if isinstance(error, JSONRefused):
            return f"not valid JSON: {error.problems[0].message}"
        if isinstance(error, OSError):
            return error.strerror or str(error)
        return "not a JSON object" if self.object is None else ""


def read_package_json(folder: Path, *, follow_symlinks: bool = True, parse: bool = True) -> PackageJson:
    """Read ``folder``/package.json; ``parse=False`` stops at the bytes (for a cheap look before parsing)."""
    path = folder / MANIFEST
    try:
        # a FIFO is refused, never waited on; a file past the cap, never read whole
        raw = read_regular(path, follow_symlinks=follow_symlinks, limit=MAX_JSON_BYTES)
    except OSError as exc:
        return PackageJson(path, error=exc)
    read = PackageJson(path, raw)
    return read.parse() if parse else read
