"""The pinned esbuild binary: which one this machine needs, where it is cached, and how it is fetched.

Fetched once per machine with ``npm pack @esbuild/<os>-<arch>@<version>`` (so npm's registry, proxy
and auth settings apply), checked against the sha256 esbuild itself publishes, and cached per version
(``NEURALIS_BUILD_CACHE`` moves the cache). esbuild.py finds it and runs it.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from neuralis_build.util.cachedir import cache_root
from neuralis_build.util.errors import SubprocessError, ToolMissingError
from neuralis_build.util.process import run

if TYPE_CHECKING:
    from typing import Literal

    Source = Literal["override", "cache", "node_modules", "npm"]

ESBUILD_VERSION = "0.28.2"
"""The one esbuild the toolchain drives; 0.28.2 is the first with ``--log-style=visualstudio``."""

FETCH_TIMEOUT = 600.0
"""Seconds the one-time ``npm pack`` of the binary may take on a slow registry."""


# The sha256 of each platform binary, copied from the ``esbuild.binaryHashes`` field that
# esbuild@0.28.2's own package.json publishes (npm view esbuild@0.28.2 --json).
BINARY_HASHES: dict[str, str] = {
    "@esbuild/aix-ppc64/bin/esbuild": "6de148b932fc5d3b28a97f9f0bc4de8e2b47db478b8ad679e0eaa6b96e00420d",
    "@esbuild/android-arm64/bin/esbuild": "84efbbd2cbf21bbfec2aaf304bee79cb2a4a05fe2ea7b861a87f7b8f213ac27d",
    "@esbuild/darwin-arm64/bin/esbuild": "10b6243df618d374bb2d5c9cfbe7052e1405f6aa4e53a6164f11a91b9f2e1384",
    "@esbuild/darwin-x64/bin/esbuild": "7fe5c9c905fff0a05d92db98929434ab4d3b6dd92d7a7688922db74380c75df3",
    "@esbuild/freebsd-arm64/bin/esbuild": "6aba108a68b93064e491bfb1ecfa28843b4d4e504dff0627f53f68f6bb015c01",
    "@esbuild/freebsd-x64/bin/esbuild": "8a237e222bee0e50556e7b00d83ec2ff43721bf72f19811a5f0ee56f1d40177c",
    "@esbuild/linux-arm/bin/esbuild": "d88f751b22095b2f3b42c8c2e8a3f36fabc1705438c5d6e78366b681f8b4e7a5",
    "@esbuild/linux-arm64/bin/esbuild": "90bd269553d258e80b19e3ccab4f98f0831f87442a2f056510ce24fd1b425fc2",
    "@esbuild/linux-ia32/bin/esbuild": "b1e2d87d79f9a2baa0d3043cdf0dc6716f9f2eea66c58f47588641fd6019f36f",
    "@esbuild/linux-loong64/bin/esbuild": "55a66f9854d6798f36b2b5471db74f2e552481887ea14d8bda1634a512383a43",
    "@esbuild/linux-mips64el/bin/esbuild": "6bf7921a3af4a801051e056d85c360fe24bb446f488ef3da25f0b8e5cf973db1",
    "@esbuild/linux-ppc64/bin/esbuild": "c30df60d09bb0ba4853d7b06e244ce966890d61ce60cadd9b22335f6379c316a",
    "@esbuild/linux-riscv64/bin/esbuild": "36bdcdc8230eef385838cdfeb0d9a1565cbe4b9ace30097a511d77e894de36a1",
    "@esbuild/linux-s390x/bin/esbuild": "bbbc1f92a76a5ca6e2976065222e42b02797363a1f119490dda315f74047741f",
    "@esbuild/linux-x64/bin/esbuild": "e1698a3d5c6c0798fee4fd3b5cc816651f460c63d390a7a26ea4beb0b1884100",
    "@esbuild/netbsd-arm64/bin/esbuild": "62548519d7ae875d060aa8c94bfb8ed38ef191671a5173d9f626bdb6b7516970",
    "@esbuild/netbsd-x64/bin/esbuild": "f9d0e59d2b404559e3a0c958164d96960ebf0e04583b878b1d64d8f1c3698fcc",
    "@esbuild/openbsd-arm64/bin/esbuild": "e10c45a0b62456632da41df058d7626b2e7cfe710780a2dc7f9f84681753f3aa",
    "@esbuild/openbsd-x64/bin/esbuild": "720bbe607736716f2ecd37962436c5589d801966e868a2ae4e0e7e62d1e4e887",
    "@esbuild/sunos-x64/bin/esbuild": "01a3bd9183631ca749f34d15601ea21ba6834614184c5c859f99d54bd683203d",
    "@esbuild/win32-arm64/esbuild.exe": "530fb3933af14eefe85dfd06502f826e6ef60fdf4e75228ea67c696db312ecb1",
    "@esbuild/win32-ia32/esbuild.exe": "b2e62af5c17e00939583be0a0762fdc469f352869a617edc91371b00454c76f0",
    "@esbuild/win32-x64/esbuild.exe": "c7bee37877d0aa6a046e52783fa0a2cf1a9ce5579d68bb3083bda99d4bff18ef",
}

_OS = {"Linux": "linux", "Darwin": "darwin", "Windows": "win32", "FreeBSD": "freebsd", "OpenBSD": "openbsd"}
_ARCH = {
    "x86_64": "x64",
    "amd64": "x64",
    "aarch64": "arm64",
    "arm64": "arm64",
    "i386": "ia32",
    "i686": "ia32",
    "x86": "ia32",
    "armv7l": "arm",
    "ppc64le": "ppc64",
    "s390x": "s390x",
    "riscv64": "riscv64",
    "loongarch64": "loong64",
}

NPM_HINT = (
    "install Node.js 20 or newer (it brings npm), or set NEURALIS_ESBUILD_BINARY to an esbuild "
    f"{ESBUILD_VERSION} binary"
)


@dataclass(frozen=True, slots=True)
class Target:
    """The esbuild platform package for this machine and the binary's path inside it."""

    platform: str  # "linux-x64"
    member: str  # "bin/esbuild" or "esbuild.exe"

    @property
    def package(self) -> str:
        return f"@esbuild/{self.platform}"

    @property
    def sha256(self) -> str:
        return BINARY_HASHES[f"{self.package}/{self.member}"]


def target(system: str | None = None, machine: str | None = None) -> Target:
    """The esbuild platform package for ``system``/``machine`` (this machine by default)."""
    if system is None or machine is None:
        if hasattr(os, "uname"):  # cheaper than importing platform, which start-up would pay on every build
            uname = os.uname()
            system, machine = system or uname.sysname, machine or uname.machine
        else:
            import platform

            system, machine = system or platform.system(), machine or platform.machine()
    machine = machine.lower()
    name = f"{_OS.get(system, system.lower())}-{_ARCH.get(machine, machine)}"
    member = "esbuild.exe" if name.startswith("win32-") else "bin/esbuild"
    if f"@esbuild/{name}/{member}" not in BINARY_HASHES:
        raise ToolMissingError(
            f"esbuild {ESBUILD_VERSION} ships no native binary for this machine ({system} {machine})",
            hint=f"build esbuild {ESBUILD_VERSION} yourself and point NEURALIS_ESBUILD_BINARY at it",
        )
    return Target(name, member)


def cached_path(t: Target) -> Path:
    return cache_root() / "esbuild" / ESBUILD_VERSION / t.platform / Path(t.member).name


def sha256_file(path: Path) -> str:
    import hashlib

    h = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _stamp(path: Path) -> Path:
    return path.with_name(path.name + ".verified")


def _stamp_text(path: Path, digest: str) -> str:
    st = path.stat()
    return f"{digest} {st.st_size} {st.st_mtime_ns}\n"


def _write_atomic(target_path: Path, data: bytes, mode: int = 0o644) -> None:
    from neuralis_build.util.atomic import write_bytes

    target_path.parent.mkdir(parents=True, exist_ok=True)
    write_bytes(target_path, data, mode=mode)


def store(t: Target, data: bytes) -> Path:
    """Put verified binary bytes into the cache atomically; concurrent first runs are safe."""
    import hashlib

    digest = hashlib.sha256(data).hexdigest()
    if digest != t.sha256:
        raise ToolMissingError(
            f"the {t.package}@{ESBUILD_VERSION} binary does not match the sha256 that esbuild publishes "
            f"(got {digest}, expected {t.sha256})",
            hint="your registry or proxy served a different file; check npm's registry setting (npm config get "
            "registry), or set NEURALIS_ESBUILD_BINARY to a verified binary",
        )
    dest = cached_path(t)
    _write_atomic(dest, data, 0o755)
    _write_atomic(_stamp(dest), _stamp_text(dest, digest).encode())
    return dest


def cache_is_good(t: Target, path: Path) -> bool:
    """True when the cached binary is intact: its stamp matches, or a fresh hash does."""
    try:
        if _stamp(path).read_text() == _stamp_text(path, t.sha256):
            return True
        if sha256_file(path) == t.sha256:
            _write_atomic(_stamp(path), _stamp_text(path, t.sha256).encode())
            return True
    except OSError:
        return False
    return False


def from_node_modules(t: Target, start: Path) -> bytes | None:
    """The pinned binary from an installed ``@esbuild/<platform>``, walking up as Node resolves."""
    import hashlib

    for folder in (start, *start.parents):
        candidate = folder / "node_modules" / "@esbuild" / t.platform / t.member
        try:
            data = candidate.read_bytes()
        except OSError:
            continue
        if hashlib.sha256(data).hexdigest() == t.sha256:
            return data
    return None


def npm_pack_binary(t: Target, cwd: Path | None) -> bytes:
    """``npm pack @esbuild/<platform>@<version>`` into a temp folder; npm knows the registry, proxy and auth."""
    import shutil
    import tarfile
    import tempfile

    from neuralis_build.util.progress import step

    npm = shutil.which("npm")
    if npm is None:
        raise ToolMissingError(
            f"esbuild {ESBUILD_VERSION} is not cached yet and npm is not on PATH to fetch it", hint=NPM_HINT
        )
    spec = f"{t.package}@{ESBUILD_VERSION}"
    with (
        step(f"fetching esbuild {ESBUILD_VERSION} with npm pack {spec} (once per machine)"),
        tempfile.TemporaryDirectory(prefix="neuralis-esbuild-") as tmp,
    ):
        cmd = [npm, "pack", spec, "--pack-destination", tmp, "--json", "--loglevel=error", "--ignore-scripts"]
        done = run(cmd, cwd=cwd or Path(tmp), timeout=FETCH_TIMEOUT)
        if done.returncode != 0:
            raise SubprocessError(
                f"npm could not fetch {spec}",
                command=cmd,
                output=done.stderr + done.stdout,
                hint="check that npm reaches your registry (npm ping), or set NEURALIS_ESBUILD_BINARY",
            )
        try:
            filename = json.loads(done.stdout)[0]["filename"]
        except (ValueError, LookupError, TypeError):
            raise SubprocessError(f"npm pack {spec} printed no tarball name", command=cmd, output=done.stdout) from None
        with tarfile.open(Path(tmp) / Path(filename).name, "r:gz") as tar:
            member = tar.extractfile(f"package/{t.member}")
            if member is None:
                raise SubprocessError(f"{spec} holds no {t.member}", command=cmd, output="")
            return member.read()
