"""Subresource Integrity (npm's ``integrity``): the string of some bytes, their strongest hash, a check of bytes."""

from __future__ import annotations

import base64
import binascii
import hashlib

_STRENGTH = {"sha512": 4, "sha384": 3, "sha256": 2, "sha1": 1}


def integrity_of(data: bytes) -> str:
    """npm's Subresource Integrity string: ``sha512-`` and the base64 digest."""
    return "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode("ascii")


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
