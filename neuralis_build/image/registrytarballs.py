"""The registry tarballs of the closure: fetched in parallel, verified against the lock's integrity, kept by hash.

A tarball is fetched straight from the ``resolved`` URL npm wrote in the lock. When that fails (a
registry that wants credentials, a proxy, a certificate only npm's configuration knows), the
tarball is fetched by ``npm pack <url>`` instead, so the user's ``.npmrc`` registries, auth, proxy and
CA settings apply. Either way the bytes must match the lock's integrity before anyone reads them,
and they are kept under ``DIR/.neuralis-cache/registry/`` by their hash: a rebuild or ``--frozen``
reads them from there.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import tempfile
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from neuralis_build import __version__, atomic
from neuralis_build.errors import UsageError
from neuralis_build.image.npmcli import NpmFailed, Runner, run_npm

_STRENGTH = {"sha512": 4, "sha384": 3, "sha256": 2, "sha1": 1}
FETCH_TIMEOUT = 120.0


@dataclass(frozen=True)
class Wanted:
    """One tarball the lock names: where npm resolved it, its integrity, and ``name@version`` for messages."""

    resolved: str
    integrity: str
    label: str


def strongest(integrity: str) -> tuple[str, bytes] | None:
    """The strongest hash of an SRI string (``sha512-<base64> sha1-<base64>``): algorithm and digest."""
    best: tuple[str, bytes] | None = None
    for item in integrity.split():
        algo, _, rest = item.partition("-")
        if algo not in _STRENGTH:
            continue
        try:
            digest = base64.b64decode(rest.split("?")[0], validate=True)
        except (binascii.Error, ValueError):
            continue
        if best is None or _STRENGTH[algo] > _STRENGTH[best[0]]:
            best = (algo, digest)
    return best


def matches(data: bytes, integrity: str) -> bool:
    best = strongest(integrity)
    return best is not None and hashlib.new(best[0], data).digest() == best[1]


class TarballStore:
    """Tarballs kept by hash in one folder; every read is verified."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def path(self, integrity: str) -> Path:
        best = strongest(integrity)
        if best is None:
            raise UsageError(f"npm's lock has an integrity this build cannot check: {integrity!r}")
        return self.folder / f"{best[0]}-{best[1].hex()}.tgz"

    def get(self, integrity: str) -> bytes | None:
        try:
            data = self.path(integrity).read_bytes()
        except OSError:
            return None
        return data if matches(data, integrity) else None

    def put(self, integrity: str, data: bytes) -> None:
        target = self.path(integrity)
        self.folder.mkdir(parents=True, exist_ok=True)
        atomic.write_bytes(target, data)

    def fetch_all(self, wanted: Iterable[Wanted], jobs: int, npm: Runner = run_npm) -> None:
        """Make every wanted tarball present: from the store, else fetched (directly, then through npm)."""
        todo = {w.integrity: w for w in wanted if self.get(w.integrity) is None}
        if not todo:
            return
        with ThreadPoolExecutor(max_workers=max(4, min(16, jobs * 4))) as pool:
            fetched = list(pool.map(_direct, todo.values()))
        failed = []
        for w, data in zip(todo.values(), fetched, strict=True):
            if data is not None and matches(data, w.integrity):
                self.put(w.integrity, data)
            else:
                failed.append(w)
        if failed:
            self._through_npm(failed, npm)

    def _through_npm(self, failed: list[Wanted], npm: Runner) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=self.folder, prefix=".npm-pack-") as scratch:
            where = Path(scratch)
            for w in failed:  # one call each: npm pack names its file by name and version only
                args = ["pack", w.resolved, "--json", "--ignore-scripts", "--pack-destination", scratch]
                try:
                    done = npm([*args, "--loglevel=error", "--update-notifier=false"], where, 600.0)
                except NpmFailed as exc:
                    raise NpmFailed(f"cannot fetch {w.label} from {w.resolved}: {exc.message}", code=exc.code) from None
                try:
                    filename = json.loads(done.stdout)[0]["filename"]
                except (ValueError, LookupError, TypeError):
                    raise UsageError(f"npm pack {w.resolved} printed no JSON") from None
                data = (where / Path(filename).name).read_bytes()
                if not matches(data, w.integrity):
                    raise UsageError(
                        f"{w.label}: the registry served bytes that do not match npm's lock ({w.resolved})",
                        hint="the published tarball changed or a mirror serves other bytes: check the registry",
                    )
                self.put(w.integrity, data)


def _direct(w: Wanted) -> bytes | None:
    """The tarball from its URL with no credentials; None on any failure (npm then fetches it)."""
    if not w.resolved.startswith(("https://", "http://")):
        return None
    import http.client  # only when something is fetched: a rebuild from the cache never loads them
    import urllib.error
    import urllib.request

    request = urllib.request.Request(w.resolved, headers={"User-Agent": f"neuralis-build/{__version__}"})
    try:
        with urllib.request.urlopen(request, timeout=FETCH_TIMEOUT) as response:
            data: bytes = response.read()
            return data
    except (urllib.error.URLError, http.client.HTTPException, OSError, ValueError):
        return None
