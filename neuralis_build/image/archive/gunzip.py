"""The gzip layer of a package tarball, inflated as a stream under a cap, every member of it read."""

from __future__ import annotations

import io
import re
import zlib

_NONZERO = re.compile(rb"[^\0]")


class GzipRefused(Exception):
    """The gzip layer is corrupt, ends early, hides other bytes, or inflates past the cap (``bomb``)."""

    def __init__(self, message: str, *, bomb: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.bomb = bomb


class Gunzip(io.RawIOBase):
    """A read-only stream of the decompressed bytes that refuses to inflate past a cap.

    Every gzip member is read, one after another (RFC 1952 allows several, and gzip and Node's zlib,
    which npm's tar uses, read them all): a reader that stopped after the first would install something
    other than what npm installs. Zero padding after the last member ends the stream; any other bytes
    there are refused.
    """

    def __init__(self, data: bytes, cap: int) -> None:
        self._raw = data
        self._data = memoryview(data)
        self._pos = 0
        self._inflate = zlib.decompressobj(16 + zlib.MAX_WBITS)
        self._carry = b""  # input the last member did not use: the start of the next one
        self._pending = b""
        self._done = False
        self._cap = cap
        self.total = 0
        self.members = 1

    def readable(self) -> bool:
        return True

    def _next_input(self) -> bytes:
        if self._inflate.unconsumed_tail:
            return self._inflate.unconsumed_tail
        if self._carry:
            chunk, self._carry = self._carry, b""
            return chunk
        chunk = bytes(self._data[self._pos : self._pos + 65536])
        self._pos += len(chunk)
        return chunk

    def _member_ended(self) -> None:
        rest = self._inflate.unused_data + self._carry
        head = (rest + bytes(self._data[self._pos : self._pos + 2]))[:2]
        if head == b"\x1f\x8b":
            self._inflate = zlib.decompressobj(16 + zlib.MAX_WBITS)
            self._carry = rest
            self.members += 1
        elif rest.strip(b"\0") == b"" and _NONZERO.search(self._raw, self._pos) is None:
            self._done = True  # nothing, or zero padding, after the last member (Node ignores it too)
        else:
            raise GzipRefused(f"the file holds bytes after gzip member {self.members} that are not another gzip member")

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        want = len(buffer)
        out = self._pending
        while len(out) < want and not self._done:
            if self._inflate.eof:
                self._member_ended()
                continue
            chunk = self._next_input()
            if not chunk:
                raise GzipRefused("the gzip stream ends before its end marker")
            try:
                out += self._inflate.decompress(chunk, max(want - len(out), 65536))
            except zlib.error as exc:
                raise GzipRefused(f"the gzip stream is corrupt ({exc})") from None
            if self.total + len(out) > self._cap:
                raise GzipRefused(
                    f"the tarball inflates past {self._cap:,} bytes (a gzip bomb or an oversized package); "
                    "refused while decompressing, nothing was extracted",
                    bomb=True,
                )
        n = min(want, len(out))
        buffer[:n] = out[:n]
        self._pending = out[n:]
        self.total += n
        return n
