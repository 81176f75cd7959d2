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
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from neuralis_build import __version__, atomic
from neuralis_build.errors import UsageError
from neuralis_build.image.npmcli import NpmFailed, Runner, run_npm
from neuralis_build.image.npmlock import LockNode

_STRENGTH = {"sha512": 4, "sha384": 3, "sha256": 2, "sha1": 1}
FETCH_TIMEOUT = 120.0


@dataclass(frozen=True)
class Wanted:
    """One tarball the lock names: where npm resolved it, its integrity, and ``name@version`` for messages."""

    resolved: str
    integrity: str
    label: str

    @classmethod
    def of(cls, node: LockNode) -> Wanted:
        assert node.integrity is not None
        return cls(node.resolved or "", node.integrity, f"{node.package_name}@{node.version}")


def download_workers(jobs: int) -> int:
    """Threads for direct downloads: they wait on the network, so more than cores pay off."""
    return max(4, min(16, jobs * 4))


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

    def fetch(self, wanted: Wanted, downloads: Downloads) -> bytes | None:
        """The verified tarball: from the store, else straight from its URL (then kept); None when that failed."""
        data = self.get(wanted.integrity)
        if data is None:
            data = downloads.get(wanted)
            if data is None or not matches(data, wanted.integrity):
                return None
            self.put(wanted.integrity, data)
        return data

    def fetch_through_npm(self, failed: list[Wanted], npm: Runner = run_npm) -> None:
        """Fetch what ``fetch`` could not with ``npm pack <url>`` (the user's registry settings apply)."""
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


class Downloads:
    """Tarballs fetched straight from their URLs, each worker thread keeping one connection per host alive
    (a TLS handshake per host, not per file); every connection is closed when the block ends."""

    def __init__(self) -> None:
        self._local = threading.local()
        self._lock = threading.Lock()
        self._opened: list[Any] = []

    def __enter__(self) -> Downloads:
        return self

    def __exit__(self, *exc: object) -> None:
        with self._lock:
            for connection in self._opened:
                connection.close()
            self._opened.clear()

    def get(self, w: Wanted) -> bytes | None:
        """The bytes at ``w.resolved`` with no credentials; None on any failure (npm then fetches it)."""
        if not w.resolved.startswith(("https://", "http://")):
            return None
        import http.client  # only when something is fetched: a rebuild from the cache never loads them
        import urllib.parse
        import urllib.request

        url = urllib.parse.urlsplit(w.resolved)
        if urllib.request.getproxies() and not urllib.request.proxy_bypass(url.hostname or ""):
            return _through_urllib(w)  # a proxy: urllib's handling of it, a connection per file
        pool: dict[tuple[str, str], Any] = self._local.__dict__.setdefault("pool", {})
        key = (url.scheme, url.netloc)
        target = url.path + (f"?{url.query}" if url.query else "")
        for attempt in (0, 1):  # a kept connection the server closed meanwhile fails once: open a new one
            connection = pool.get(key)
            if connection is None:
                kind = http.client.HTTPSConnection if url.scheme == "https" else http.client.HTTPConnection
                connection = pool[key] = kind(url.netloc, timeout=FETCH_TIMEOUT)
                with self._lock:
                    self._opened.append(connection)
            try:
                connection.request("GET", target, headers={"User-Agent": f"neuralis-build/{__version__}"})
                response = connection.getresponse()
                data: bytes = response.read()
            except (http.client.HTTPException, OSError, ValueError):
                connection.close()
                del pool[key]
                if attempt:
                    return None
                continue
            if response.status == 200:
                return data
            if response.status in (301, 302, 303, 307, 308):
                return _through_urllib(w)  # a redirect (a mirror, a CDN): urllib follows it
            return None
        return None


def _through_urllib(w: Wanted) -> bytes | None:
    import http.client
    import urllib.error
    import urllib.request

    request = urllib.request.Request(w.resolved, headers={"User-Agent": f"neuralis-build/{__version__}"})
    try:
        with urllib.request.urlopen(request, timeout=FETCH_TIMEOUT) as response:
            data: bytes = response.read()
            return data
    except (urllib.error.URLError, http.client.HTTPException, OSError, ValueError):
        return None
