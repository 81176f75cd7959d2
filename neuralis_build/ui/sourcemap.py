"""Source maps (v3) as esbuild writes them: look a generated position up, and edit a file without losing its map.

The build rewrites a few spans of esbuild's output after the fact (asset URLs, scoped CSS-module
names); each edit shifts the columns after it on its line, so ``apply_edits`` moves the map's
segments with the text. esbuild escapes non-ASCII output by default, so a column is a character.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

_B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_VALUE = {c: i for i, c in enumerate(_B64)}

Segment = list[int]  # [generated column, source, source line, source column(, name)] (absolute values)


_DECODED: dict[str, list[int]] = {}
_ENCODED: dict[int, str] = {}


def _decode_vlq(text: str) -> list[int]:
    cached = _DECODED.get(text)
    if cached is not None:  # a big map repeats few distinct segments: decode each once
        return cached
    values: list[int] = []
    value = shift = 0
    for ch in text:
        digit = _VALUE[ch]
        value += (digit & 31) << shift
        if digit & 32:
            shift += 5
            continue
        values.append(-(value >> 1) if value & 1 else value >> 1)
        value = shift = 0
    _DECODED[text] = values
    return values


def _encode_vlq(value: int) -> str:
    cached = _ENCODED.get(value)
    if cached is not None:
        return cached
    v = (-value << 1) | 1 if value < 0 else value << 1
    out = ""
    while True:
        digit = v & 31
        v >>= 5
        out += _B64[digit | (32 if v else 0)]
        if not v:
            _ENCODED[value] = out
            return out


def decode(mappings: str) -> list[list[Segment]]:
    """Every generated line's segments with absolute (not delta) values."""
    decoder = _Decoder(mappings)
    decoder.upto(len(decoder.raw))
    return decoder.lines


class _Decoder:
    """The mappings decoded line by line, as far as asked: a lookup near the top of a 30 MB map (one env read
    in monaco) leaves the rest undecoded. A bundle's map holds hundreds of thousands of segments, and every
    field of each is added by hand (no slicing, no enumerate): a fifth less time than a general loop."""

    def __init__(self, mappings: str) -> None:
        self.raw = mappings.split(";")
        self.lines: list[list[Segment]] = []
        self.state = (0, 0, 0, 0)  # source, line, column, name: carried over lines

    def upto(self, count: int) -> None:
        """Decode the first ``count`` generated lines (those not decoded yet)."""
        cache = _DECODED
        source, line, column, name = self.state
        lines = self.lines
        for raw in self.raw[len(lines) : count]:
            segments: list[Segment] = []
            lines.append(segments)
            if not raw:
                continue
            col = 0
            add = segments.append
            for part in raw.split(","):
                fields = cache.get(part)
                if fields is None:
                    fields = _decode_vlq(part)
                col += fields[0]
                size = len(fields)
                if size >= 4:
                    source += fields[1]
                    line += fields[2]
                    column += fields[3]
                    if size >= 5:
                        name += fields[4]
                        add([col, source, line, column, name])
                    else:
                        add([col, source, line, column])
                else:
                    add([col])
        self.state = (source, line, column, name)


def encode(lines: Sequence[Sequence[Segment]]) -> str:
    """The mappings string of absolute segments (the inverse of ``decode``)."""
    state = [0, 0, 0, 0, 0]
    out = []
    for segments in lines:
        col = 0
        parts = []
        for seg in segments:
            text = _encode_vlq(seg[0] - col)
            col = seg[0]
            for i, value in enumerate(seg[1:]):
                text += _encode_vlq(value - state[i])
                state[i] = value
            parts.append(text)
        out.append(",".join(parts))
    return ";".join(out)


@dataclass(frozen=True, slots=True)
class Origin:
    """Where a generated position came from: the source path as the map names it, 0-based line and column."""

    source: str
    line: int
    column: int
    name: str | None


class SourceMap:
    """A parsed map: its sources and names, and decoded segments per generated line."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data
        self.sources: list[str] = list(data.get("sources", []))
        self.names: list[str] = list(data.get("names", []))
        self._decoder = _Decoder(data.get("mappings", ""))

    @property
    def lines(self) -> list[list[Segment]]:
        """Every generated line's segments (decoded in full on first use; ``origin`` decodes only what it needs)."""
        self._decoder.upto(len(self._decoder.raw))
        return self._decoder.lines

    def origin(self, line: int, column: int) -> Origin | None:
        """The segment covering 0-based ``line``/``column`` (the last one that starts at or before it)."""
        decoder = self._decoder
        if line >= len(decoder.raw):
            return None
        decoder.upto(line + 1)
        found = None
        for seg in decoder.lines[line]:
            if seg[0] > column:
                break
            found = seg
        if found is None or len(found) < 4:
            return None
        name = self.names[found[4]] if len(found) > 4 else None
        return Origin(self.sources[found[1]], found[2], found[3], name)

    def named(self) -> Iterable[tuple[int, int, str]]:
        """(line, column, original name) of every segment that carries a name."""
        for line, segments in enumerate(self.lines):
            for seg in segments:
                if len(seg) > 4:
                    yield line, seg[0], self.names[seg[4]]

    def to_json(self) -> dict[str, Any]:
        return {**self.data, "mappings": encode(self.lines)}


@dataclass(frozen=True, slots=True)
class Edit:
    """Replace ``text[start:end]`` with ``new`` (offsets into the whole file; never across a line break)."""

    start: int
    end: int
    new: str


def line_starts(text: str) -> list[int]:
    starts = [0]
    at = text.find("\n")
    while at >= 0:
        starts.append(at + 1)
        at = text.find("\n", at + 1)
    return starts


def position(starts: Sequence[int], offset: int) -> tuple[int, int]:
    """0-based (line, column) of a character offset."""
    import bisect

    line = bisect.bisect_right(starts, offset) - 1
    return line, offset - starts[line]


def apply_edits(text: str, edits: Iterable[Edit], smap: SourceMap | None = None) -> str:
    """``text`` with every edit applied; the map's segments after each edit move with the text."""
    ordered = sorted(edits, key=lambda e: (e.start, e.end, e.new))
    if not ordered:
        return text
    starts = line_starts(text) if smap is not None else []
    pieces = []
    last = 0
    for edit in ordered:
        pieces += [text[last : edit.start], edit.new]
        last = edit.end
    pieces.append(text[last:])
    if smap is not None:
        for edit in reversed(ordered):  # from the right, so earlier columns stay valid
            line, col = position(starts, edit.start)
            delta = len(edit.new) - (edit.end - edit.start)
            if delta and line < len(smap.lines):
                for seg in smap.lines[line]:
                    if seg[0] > col:
                        seg[0] += delta
    return "".join(pieces)
