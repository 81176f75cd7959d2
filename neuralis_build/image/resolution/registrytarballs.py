"""The registry tarballs of the closure: fetched in parallel, verified against the lock's integrity, kept by hash.

A tarball is fetched straight from the ``resolved`` URL npm wrote in the lock. When that fails (a
registry that wants credentials, a proxy, a certificate only npm's configuration knows), the
tarball is fetched by ``npm pack <url>`` instead, so the user's ``.npmrc`` registries, auth, proxy and
CA settings apply. Either way the bytes must match the lock's integrity before anyone reads them,
and they are kept under ``DIR/.neuralis-cache/registry/`` by their hash: a rebuild or ``--frozen``
reads them from there.

No answer is read past the tarball cap (``Limits.max_tarball_bytes``, what the reader would let a tarball
inflate to): a ``Content-Length`` above it is refused before a byte of the body is read, and a body without
one is read in chunks and dropped as soon as it passes the cap. Such a tarball is refused (``TooLarge``, a
hostile-input refusal of that package, NB1806), never handed to npm to fetch instead.
"""

from __future__ import annotations

import json
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from neuralis_build import __version__
from neuralis_build.image.archive.extract import NB1806, ArchiveRefused
from neuralis_build.image.archive.integrity import matches, strongest
from neuralis_build.image.resolution.npmcli import NpmFailed, Runner, run_npm
from neuralis_build.image.resolution.npmlock import LockNode
from neuralis_build.util import atomic
from neuralis_build.util.errors import UsageError

FETCH_TIMEOUT = 120.0
CHUNK = 1 << 20  # bytes read at a time from an answer that does not say its size


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


class TooLarge(ArchiveRefused):
    """A registry answered with more bytes than the image reads of one tarball: that package is refused."""

    def __init__(self, w: Wanted, size: str, cap: int) -> None:
        super().__init__(
            NB1806,
            f"{w.label}: the answer from {w.resolved} {size}, more than the {cap:,} bytes the image reads of one "
            "tarball (the most its reader lets a package inflate to; no flag raises it)",
            "check what the registry serves for this version (a real package is far smaller), or depend on another",
        )


def read_capped(response: Any, w: Wanted, cap: int) -> bytes:
    """The body of an HTTP answer (``http.client.HTTPResponse``), never more than ``cap`` bytes of it: a length
    above the cap is refused before the body is read, a body without one is read in chunks up to it."""
    announced = response.length  # the Content-Length http.client will read, or None (chunked, or until close)
    if announced is not None:
        if announced > cap:
            raise TooLarge(w, f"is {announced:,} bytes (its Content-Length; none of it was read)", cap)
        data: bytes = response.read()
        return data
    chunks: list[bytes] = []
    total = 0
    while chunk := response.read(min(CHUNK, cap + 1 - total)):
        total += len(chunk)
        if total > cap:
            raise TooLarge(w, f"passed {cap:,} bytes without saying its size, where the download stopped", cap)
        chunks.append(chunk)
    return b"".join(chunks)


def download_workers(jobs: int) -> int:
    """Threads for direct downloads: they wait on the network, so more than cores pay off."""
    return max(4, min(16, jobs * 4))


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
        """The verified tarball: from the store, else straight from its URL (then kept); None when that failed.

        TooLarge when the answer passes the download cap: that tarball is refused, not fetched another way."""
        data = self.get(wanted.integrity)
        if data is None:
            data = downloads.get(wanted)
            if data is None or not matches(data, wanted.integrity):
                return None
            self.put(wanted.integrity, data)
        return data

    def fetch_through_npm(self, failed: list[Wanted], cap: int, npm: Runner = run_npm) -> dict[str, TooLarge]:
        """Fetch what ``fetch`` could not with ``npm pack <url>`` (the user's registry settings apply); the tarballs
        npm wrote that are larger than ``cap`` are not read, and come back refused, by integrity."""
        refused: dict[str, TooLarge] = {}
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
                packed = where / Path(filename).name
                size = packed.stat().st_size
                if size > cap:  # npm has no cap; what it wrote is not read into memory
                    refused[w.integrity] = TooLarge(w, f"is {size:,} bytes (as npm pack fetched it)", cap)
                    packed.unlink()
                    continue
                data = packed.read_bytes()
                if not matches(data, w.integrity):
                    raise UsageError(
                        f"{w.label}: the registry served bytes that do not match npm's lock ({w.resolved})",
                        hint="the published tarball changed or a mirror serves other bytes: check the registry",
                    )
                self.put(w.integrity, data)
        return refused


class Downloads:
    """Tarballs fetched straight from their URLs, each worker thread keeping one connection per host alive
    (a TLS handshake per host, not per file); every connection is closed when the block ends."""

    def __init__(self, cap: int) -> None:
        self.cap = cap  # the most read of one answer (Limits.max_tarball_bytes)
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
        """The bytes at ``w.resolved`` with no credentials; None on any failure (npm then fetches it), TooLarge
        when the answer passes the cap (nothing is fetched then)."""
        if not w.resolved.startswith(("https://", "http://")):
            return None
        import http.client  # only when something is fetched: a rebuild from the cache never loads them
        import urllib.parse
        import urllib.request

        url = urllib.parse.urlsplit(w.resolved)
        if urllib.request.getproxies() and not urllib.request.proxy_bypass(url.hostname or ""):
            return _through_urllib(w, self.cap)  # a proxy: urllib's handling of it, a connection per file
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
                status = response.status
                data = read_capped(response, w, self.cap) if status == 200 else b""
            except TooLarge:
                connection.close()  # the rest of the body is never read: the connection cannot be reused
                del pool[key]
                raise
            except (http.client.HTTPException, OSError, ValueError):
                connection.close()
                del pool[key]
                if attempt:
                    return None
                continue
            if status == 200:
                return data
            connection.close()  # its body unread (it may be of any length): the connection cannot be reused
            del pool[key]
            if status in (301, 302, 303, 307, 308):
                return _through_urllib(w, self.cap)  # a redirect (a mirror, a CDN): urllib follows it
            return None
        return None


def _through_urllib(w: Wanted, cap: int) -> bytes | None:
    import http.client
    import urllib.error
    import urllib.request

    request = urllib.request.Request(w.resolved, headers={"User-Agent": f"neuralis-build/{__version__}"})
    try:
        with urllib.request.urlopen(request, timeout=FETCH_TIMEOUT) as response:
            return read_capped(response, w, cap)
    except (urllib.error.URLError, http.client.HTTPException, OSError, ValueError):
        return None
