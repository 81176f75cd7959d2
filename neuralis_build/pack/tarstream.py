"""The uncompressed tar stream npm writes (node-tar 7 in ``portable`` mode), byte for byte, and its gzip frame.

Every entry is a regular file: ustar header, ``package/`` prefix, mode ``(m | 0o600) & ~0o022``, mtime
1985-10-26T08:15:00Z, no owner; a PAX ``x`` header goes first when the path is long or not ASCII. The
archive ends with two zero blocks and no record padding. Strings follow JavaScript's UTF-16 rules where
node-tar's do (lengths, slices), so the bytes match for any name.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable
from dataclasses import dataclass

from neuralis_build.pack import nodepath

NPM_MTIME = 499162500  # new Date('1985-10-26T08:15:00.000Z') / 1000
BLOCK = 512
GZIP_HEADER = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff"  # no name, mtime 0, XFL 2 (level 9), OS 0xff
_MAXNUM = {12: 0o77777777777, 8: 0o7777777}


@dataclass(frozen=True)
class TarEntry:
    """One regular file: its path inside the archive, its bytes and its mode as stat gives it."""

    path: str
    data: bytes
    mode: int


def js_length(s: str) -> int:
    """``s.length`` in JavaScript: UTF-16 code units."""
    return len(s) + sum(1 for c in s if ord(c) > 0xFFFF)


def js_slice(s: str, end: int) -> str:
    """``s.slice(0, end)`` in JavaScript; may cut a surrogate pair and leave a lone high surrogate."""
    units = s.encode("utf-16-le", "surrogatepass")[: 2 * end]
    return units.decode("utf-16-le", "surrogatepass")


def js_utf8(s: str) -> bytes:
    """``Buffer.from(s, 'utf8')``: a lone surrogate becomes U+FFFD."""
    try:
        return s.encode("utf-8")
    except UnicodeEncodeError:
        return "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in s).encode("utf-8")


def _write_string(buf: bytearray, off: int, size: int, s: str | None) -> bool:
    """node-tar's ``encString``: UTF-8, cut at a character boundary; True when PAX is needed."""
    if s is None:
        return False
    if s.isascii():
        data = s[:size].encode("ascii")
        buf[off : off + len(data)] = data
        return len(s) > size
    data = b""
    for c in s:
        piece = js_utf8(c)
        if len(data) + len(piece) > size:
            break
        data += piece
    buf[off : off + len(data)] = data
    length = js_length(s)
    return length != len(js_utf8(s)) or length > size


def _write_number(buf: bytearray, off: int, size: int, num: int | None) -> bool:
    """node-tar's ``encNumber``: zero-padded octal, then space and NUL; base-256 past the octal range."""
    if num is None:
        return False
    if num > _MAXNUM[size] or num < 0:
        buf[off] = 0x80
        buf[off + 1 : off + size] = num.to_bytes(size - 1, "big")
        return True
    digits = format(num, "o")
    text = digits + "\0" if len(digits) == size - 1 else "0" * (size - len(digits) - 2) + digits + " \0"
    buf[off : off + size] = text.encode("ascii")
    return False


def _split_prefix(p: str) -> tuple[str, str, bool]:
    """node-tar's ``splitPrefix`` for a 155-byte prefix field: (name, prefix, needs PAX)."""
    if (len(p) < 100 and p.isascii()) or len(js_utf8(p)) < 100:
        return p, "", False
    prefix, pp = nodepath.dirname(p), nodepath.basename(p)
    while True:
        if len(js_utf8(pp)) <= 100 and len(js_utf8(prefix)) <= 155:
            return pp, prefix, False
        if len(js_utf8(prefix)) <= 155:
            return js_slice(pp, 99), prefix, True
        pp = nodepath.join(nodepath.basename(prefix), pp)
        prefix = nodepath.dirname(prefix)
        if prefix == ".":
            return js_slice(p, 99), "", True


def _header(path: str, mode: int, size: int, typeflag: str, *, pax_block: bool = False) -> tuple[bytearray, bool]:
    buf = bytearray(BLOCK)
    name, prefix, need = _split_prefix(path)
    need = _write_string(buf, 0, 100, name) or need
    need = _write_number(buf, 100, 8, mode) or need
    need = _write_number(buf, 124, 12, size) or need
    need = _write_number(buf, 136, 12, NPM_MTIME) or need
    buf[156] = ord(typeflag)
    need = _write_string(buf, 157, 100, "" if pax_block else None) or need
    buf[257:265] = b"ustar\x0000"
    need = _write_string(buf, 265, 32, "" if pax_block else None) or need
    need = _write_string(buf, 297, 32, "" if pax_block else None) or need
    need = _write_number(buf, 329, 8, 0) or need
    need = _write_number(buf, 337, 8, 0) or need
    need = _write_string(buf, 345, 155, prefix) or need
    checksum = sum(buf[:148]) + 8 * 0x20 + sum(buf[156:])
    _write_number(buf, 148, 8, checksum)
    return buf, need


def _pax_record(key: str, value: str) -> str:
    body = f" {key}={value}\n"
    size = len(js_utf8(body))
    digits = len(str(size))
    if size + digits >= 10**digits:
        digits += 1
    return f"{digits + size}{body}"


def _pax(path: str, size: int) -> bytes:
    body = js_utf8(_pax_record("path", path) + _pax_record("mtime", str(NPM_MTIME)) + _pax_record("size", str(size)))
    header, _ = _header(js_slice("PaxHeader/" + nodepath.basename(path), 99), 0o644, len(body), "x", pax_block=True)
    return bytes(header) + body + b"\0" * (-len(body) % BLOCK)


def portable_mode(mode: int) -> int:
    """node-tar's ``modeFix`` for files in portable mode: owner can read and write, no group or other write."""
    return ((mode & 0o7777) | 0o600) & ~0o022


def entry_name(path: str, prefix: str = "package/") -> str:
    """The archive name node-tar gives a packed path: drive roots stripped, a leading ``./`` dropped, prefixed."""
    stripped = nodepath.strip_absolute(path) or "./"
    if stripped == "." or stripped.startswith("./"):
        stripped = stripped[2:] if stripped.startswith("./") else ""
    return prefix.rstrip("/") + "/" + stripped


def tar_stream(entries: Iterable[TarEntry]) -> bytes:
    """The uncompressed archive: each entry as npm writes it, then two zero blocks."""
    out = bytearray()
    for entry in entries:
        mode = portable_mode(entry.mode)
        header, need_pax = _header(entry.path, mode, len(entry.data), "0")
        if need_pax:
            out += _pax(entry.path, len(entry.data))
        out += header
        out += entry.data
        out += b"\0" * (-len(entry.data) % BLOCK)
    out += b"\0" * (2 * BLOCK)
    return bytes(out)


def gzip_npm(tar: bytes) -> bytes:
    """gzip as npm frames it: level 9, fixed 10-byte header (OS 0xff), CRC32 and size trailer."""
    deflate = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS, 8)
    body = deflate.compress(tar) + deflate.flush()
    trailer = (zlib.crc32(tar) & 0xFFFFFFFF).to_bytes(4, "little") + (len(tar) & 0xFFFFFFFF).to_bytes(4, "little")
    return GZIP_HEADER + body + trailer
