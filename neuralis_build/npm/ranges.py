"""npm's version ranges, read with semantic_version's ``NpmSpec`` (npm's range grammar and semantics).

Two questions the image build asks: does a version satisfy a range (a peer, ``engines.node``), and
do several ranges meet, i.e. does one version satisfy them all (two copies of one package in the
tree). The second is answered with a witness: a range's set of versions is a union of intervals whose
ends are the versions it names, so if the ranges share a version they share one of the versions
they name, the next patch after one (``>1.2.3`` starts at 1.2.4) or its release (``>1.2.3-beta``
admits 1.2.3). The tests hold both answers to node-semver's (``satisfies``, ``intersects``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

_OPERATOR_SPACE = re.compile(r"(<=|>=|<|>|=|~|\^)\s+(?=[0-9xX*vV])")


def _spec(text: str) -> Any:
    import semantic_version  # type: ignore[import-untyped]

    # node-semver lets an operator stand apart from its version (">= 10", common in engines); NpmSpec does not
    return semantic_version.NpmSpec(_OPERATOR_SPACE.sub(r"\1", text.strip()) or "*")


def _version(text: str) -> Any:
    import semantic_version

    return semantic_version.Version(text.strip().removeprefix("v").removeprefix("="))


def satisfies(version: str, spec: str) -> bool | None:
    """npm's reading of ``version`` against the range ``spec``; None when either cannot be read."""
    try:
        return bool(_spec(spec).match(_version(version)))
    except ValueError:
        return None


def _named(clause: Any) -> Iterator[Any]:
    """Every version a parsed range names (the targets of its comparators)."""
    target = getattr(clause, "target", None)
    if target is not None:
        yield target
    for inner in getattr(clause, "clauses", ()):
        yield from _named(inner)


def meeting_version(specs: Iterable[str], also: Iterable[str] = ()) -> str | None:
    """A version every range of ``specs`` admits (the lowest such witness, tried first among ``also``),
    or None when they do not meet. Raises ValueError when a range or a version cannot be read."""
    parsed = [_spec(s) for s in specs]
    candidates = [_version(v) for v in also]
    named = [t for p in parsed for t in _named(p.clause)]
    candidates += sorted({c for t in named for c in (t, t.truncate(), t.next_patch())} | {_version("0.0.0")})
    for candidate in candidates:
        if all(p.match(candidate) for p in parsed):
            return str(candidate)
    return None
