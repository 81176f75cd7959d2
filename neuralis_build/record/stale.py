"""A stale build: an output whose recorded inputs (buildrecord.py) changed, or are gone, since it was built.

`check` reports it as a warning at the output's pointer (NB1615), `pack` refuses it; a record that
cannot be read is named (NB1616). Read only by the judge, never by the build, so `ui` never pays for it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from neuralis_build.record.inputs import DIGEST, RECORD
from neuralis_build.util.cachedir import digest
from neuralis_build.util.limits import MAX_JSON_BYTES
from neuralis_build.util.regularfile import read_regular
from neuralis_build.util.strictjson import parse


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
    data = parse(text)
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
            record = _parse(read_regular(root / rel, limit=MAX_JSON_BYTES).decode("utf-8"))
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


def built_mode(root: Path, output: str) -> str | None:
    """The mode the record beside ``output`` says built it ("production", "development"); None when not known.

    A build without a record, or with one written before records named the mode, is not judged.
    """
    folder, _, _ = output.rpartition("/")
    try:
        data = parse(read_regular(root / folder / RECORD, limit=MAX_JSON_BYTES).decode("utf-8"))
    except (OSError, ValueError):
        return None  # a missing record says nothing; an unreadable one is named by NB1616
    mode = data.get("mode") if isinstance(data, dict) else None
    return mode if isinstance(mode, str) else None
