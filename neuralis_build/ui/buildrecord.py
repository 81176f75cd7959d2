"""What a build read, written beside what it wrote, so that `check` and `pack` can tell a stale build.

``neuralis-build ui`` writes ``build-inputs.json`` into each output folder it swaps in (dist/app/,
dist/src/events/), inside the staged folder, so the record and the outputs it describes are replaced
together or not at all. It maps each output file to the inputs esbuild's metafile says it read, with
a BLAKE2b-256 digest of their bytes. An output is stale when one of its inputs changed, or is gone, since.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from neuralis_build.regularfile import read_regular

try:  # the builtin module: hashlib's import loads OpenSSL first (about 8 ms), which every `ui` run would pay
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - a Python built without it
    from hashlib import blake2b

RECORD = "build-inputs.json"
DIGEST = "blake2b-256"

Inputs = Mapping[str, str]
"""Input path (package-relative, as the metafile names it) → hex digest of its bytes."""


def digest(data: bytes) -> str:
    """The content digest the record holds (BLAKE2b with 32 bytes: fast in pure software, and collision-safe)."""
    return blake2b(data, digest_size=32).hexdigest()


def _inside(rel: str) -> bool:
    """A metafile input that is a file of this package: not ``../…`` (a sibling package), not a virtual module.

    String tests only: a large build reads thousands of inputs, and every build pays for this list.
    """
    return bool(rel) and rel[0] != "/" and ":" not in rel and "<" not in rel and ".." not in rel.split("/")


def hash_inputs(root: Path, inputs: Iterable[str]) -> dict[str, str]:
    """The digest of each input that is a file inside the package, sorted by path."""
    found: dict[str, str] = {}
    base = str(root)
    for rel in sorted(set(inputs)):
        if not _inside(rel):
            continue
        try:
            found[rel] = digest(read_regular(os.path.join(base, rel)))
        except OSError:
            continue  # esbuild read it a moment ago; a file gone since is stale at the next check anyway
    return found


def render(outputs: Mapping[str, Inputs]) -> str:
    """The record's text: output file name (in its folder) → its inputs; the same build gives the same bytes."""
    data = {
        "digest": DIGEST,
        "outputs": {name: dict(sorted(inputs.items())) for name, inputs in sorted(outputs.items())},
    }
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


@dataclass(frozen=True)
class Stale:
    """An output built from sources that have changed since: which inputs changed or are gone."""

    output: str  # package-relative (dist/app/host.js)
    changed: tuple[str, ...]
    gone: tuple[str, ...]

    def describe(self) -> str:
        """The changed inputs in words, the first three by name."""
        names = [*(f"{p} changed" for p in self.changed), *(f"{p} is gone" for p in self.gone)]
        shown = ", ".join(names[:3])
        return shown + (f" (and {len(names) - 3} more)" if len(names) > 3 else "")


@dataclass(frozen=True)
class BuildState:
    """What the last build of a package read, held against the sources as they are now."""

    read: tuple[str, ...] = ()  # the record files read
    stale: tuple[Stale, ...] = ()
    unreadable: tuple[tuple[str, str], ...] = ()  # (record file, why it could not be read)

    def of(self, output: str) -> Stale | None:
        return next((s for s in self.stale if s.output == output), None)


def _parse(text: str) -> dict[str, dict[str, str]]:
    data = json.loads(text)
    if isinstance(data, dict) and data.get("digest") != DIGEST:
        raise ValueError(f"written with another digest ({data.get('digest')!r}, not {DIGEST!r}): rebuild to compare")
    outputs = data.get("outputs") if isinstance(data, dict) else None
    if not isinstance(outputs, dict) or not all(
        isinstance(inputs, dict) and all(isinstance(v, str) for v in inputs.values()) for inputs in outputs.values()
    ):
        raise ValueError('expected {"digest": "blake2b-256", "outputs": {"<file>": {"<input>": "<digest>"}}}')
    return outputs


def _compare(root: Path, output: str, inputs: Mapping[str, str]) -> Stale | None:
    """Changed inputs of one output; None when unchanged, or when its sources are not here at all.

    An installed or packed copy carries dist/ without src/: with none of the package's own inputs
    present there is nothing to compare, so it is not judged. An input under node_modules that is
    gone (dependencies not installed) is not judged either; one that changed is.
    """
    changed, gone, present = [], [], 0
    for rel, recorded in inputs.items():
        vendored = rel.startswith("node_modules/") or "/node_modules/" in rel
        try:
            data = read_regular(root / rel)  # an input swapped for a FIFO is refused, never waited on
        except OSError:
            if not vendored:
                gone.append(rel)
            continue
        present += not vendored
        if digest(data) != recorded:
            changed.append(rel)
    if not present or not (changed or gone):
        return None
    return Stale(output, tuple(changed), tuple(gone))


def read_state(root: Path, outputs: Iterable[str]) -> BuildState:
    """Compare each of ``outputs`` (package-relative built files) with what its folder's record says it read."""
    by_folder: dict[str, list[str]] = {}
    for out in outputs:
        folder, _, name = out.rpartition("/")
        by_folder.setdefault(folder, []).append(name)
    read, stale, unreadable = [], [], []
    for folder, names in sorted(by_folder.items()):
        rel = f"{folder}/{RECORD}" if folder else RECORD
        try:
            record = _parse(read_regular(root / rel).decode("utf-8"))
        except FileNotFoundError:
            continue  # built by another tool, or before records were written: nothing to compare
        except (OSError, ValueError) as exc:  # a FIFO, bad JSON, a wrong shape, not UTF-8
            unreadable.append((rel, getattr(exc, "strerror", None) or str(exc)))
            continue
        read.append(rel)
        for name in sorted(names):
            found = _compare(root, f"{folder}/{name}", record.get(name, {}))
            if found is not None:
                stale.append(found)
    return BuildState(tuple(read), tuple(stale), tuple(unreadable))
