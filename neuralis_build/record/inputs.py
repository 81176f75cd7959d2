"""What a build read, written beside what it wrote, so that `check` and `pack` can tell a stale build.

``neuralis-build ui`` writes ``build-inputs.json`` into each output folder it swaps in (dist/app/,
dist/src/events/), inside the staged folder, so the record and the outputs it describes are replaced
together or not at all. It maps each output file to the inputs esbuild's metafile says it read, with
a BLAKE2b-256 digest of their bytes; the UI module's record also names the mode it was built in. An
output is stale when one of its inputs changed, or is gone, since (stale.py reads the record back for
`check` and `pack`; this module is what every build pays for).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path

from neuralis_build.util.cachedir import digest
from neuralis_build.util.regularfile import read_regular

RECORD = "build-inputs.json"
DIGEST = "blake2b-256"

Inputs = Mapping[str, str]
"""Input path (package-relative, as the metafile names it) → hex digest of its bytes."""


def _inside(rel: str) -> bool:
    """A metafile input that is a file of this package: not ``../…`` (a sibling package), not a virtual module.

    String tests only: a large build reads thousands of inputs, and every build pays for this list.
    """
    return bool(rel) and rel[0] != "/" and ":" not in rel and "<" not in rel and ".." not in rel.split("/")


def hash_inputs(root: Path, inputs: Iterable[str]) -> dict[str, str]:
    """The digest of each input that is a file inside the package, sorted by path."""
    found: dict[str, str] = {}
    base = str(root)
    for rel in sorted(set(inputs)):
        if not _inside(rel):
            continue
        try:
            found[rel] = digest(read_regular(os.path.join(base, rel)))
        except OSError:
            continue  # esbuild read it a moment ago; a file gone since is stale at the next check anyway
    return found


def render(outputs: Mapping[str, Inputs], mode: str | None = None) -> str:
    """The record's text: output file name (in its folder) → its inputs; the same build gives the same bytes.

    ``mode`` is what the UI build defined NODE_ENV as ("production", or "development" under --watch):
    check warns about a development build, and pack refuses to ship one.
    """
    data: dict[str, object] = {"digest": DIGEST}
    if mode is not None:
        data["mode"] = mode
    data["outputs"] = {name: dict(sorted(inputs.items())) for name, inputs in sorted(outputs.items())}
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
