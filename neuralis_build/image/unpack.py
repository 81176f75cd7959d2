"""Each distinct registry tarball of the closure, once: fetched and verified, read, extracted into the store.

The stage's values, per integrity: the verified tarball (``registrytarballs``), its entries as the
hostile-input reader checked them, and the store entry they were extracted to with the facts of its
package.json (``Unpacked``); or the refusal of a tarball that breaks a rule. A tarball goes from
the network to the disk in one worker, so the first extractions overlap the last downloads; an
entry the store already holds untouched is neither fetched nor read again.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from neuralis_build.image.extract import ArchiveRefused, Entry, Limits, read_tarball
from neuralis_build.image.materialize import Written, facts_of_folder, manifest_of, written_of
from neuralis_build.image.npmcli import Runner
from neuralis_build.image.registrytarballs import Downloads, TarballStore, Wanted
from neuralis_build.image.store import Extracted, Store
from neuralis_build.npm.packagejson import MANIFEST, PackageJson
from neuralis_build.pack.fields import normalize_bin


@dataclass(frozen=True)
class Unpacked:
    """A registry tarball extracted into the store, with the facts of its package.json (read once)."""

    entry: Extracted
    written: Written


Outcome = Unpacked | ArchiveRefused


def unpack_all(
    wanted: Sequence[Wanted], tarballs: TarballStore, store: Store, limits: Limits, jobs: int, npm: Runner
) -> dict[str, Outcome]:
    """Every wanted tarball in the store (by integrity), or its refusal; fetched directly, else through npm."""

    def one(w: Wanted, downloads: Downloads | None) -> Outcome | None:
        entry = store.get(w.integrity)
        try:
            if entry is not None:
                return Unpacked(entry, facts_of_folder(entry.folder))
            data = tarballs.fetch(w, downloads) if downloads is not None else tarballs.get(w.integrity)
            return None if data is None else extract(store, w.integrity, data, limits)
        except ArchiveRefused as exc:
            return exc

    # fetching waits on the network: more workers than cores pay off
    with Downloads() as downloads, ThreadPoolExecutor(max_workers=max(4, min(16, jobs * 4))) as pool:
        got = dict(zip((w.integrity for w in wanted), pool.map(lambda w: one(w, downloads), wanted), strict=True))
    failed = [w for w in wanted if got[w.integrity] is None]
    if failed:
        tarballs.fetch_through_npm(failed, npm)  # raises when npm cannot fetch one either
        got.update((w.integrity, one(w, None)) for w in failed)
    out: dict[str, Outcome] = {}
    for integrity, outcome in got.items():
        if outcome is None:
            raise FileNotFoundError(f"the tarball {integrity} is not in the store after npm fetched it")
        out[integrity] = outcome
    return out


def extract(store: Store, integrity: str, data: bytes, limits: Limits) -> Unpacked:
    """Read a verified tarball as a dependency's (any first folder) and write it into the store.

    ArchiveRefused when it breaks a hostile-input rule or its package.json is not one Node reads; then
    nothing of it is written.
    """
    entries = read_tarball(data, limits, any_root=True)
    raw = next(e.data for e in entries if e.path == MANIFEST)  # read_tarball refuses a tarball without one
    manifest = manifest_of(PackageJson(Path(MANIFEST), raw).parse())
    entry = store.put(integrity, entries, _bin_targets(manifest, entries))
    return Unpacked(entry, written_of(manifest, any(e.path == "binding.gyp" for e in entries)))


def _bin_targets(manifest: dict[str, object], entries: Sequence[Entry]) -> frozenset[str]:
    """npm (pacote) installs every ``bin`` target executable, whatever mode the tarball gave it."""
    files = {e.path for e in entries}
    return frozenset(rel for t in normalize_bin(manifest).values() if (rel := t.removeprefix("./")) in files)
