"""The rule behind each diagnostic code, stored as data (data/explain/*.toml) and read only by `explain`.

Each entry says what the rule asks, why it exists (in this project's words), where the rule comes from
(a section of the spec, or the page of docs/ that records our decision), and a bad and a good
example. The code's slug and summary come from its declaration beside its rule (found through the
table of ``neuralis_build.util.codes``), so a code is named once; a test asserts that every code has an entry.
"""

from __future__ import annotations

import difflib
import re
import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from neuralis_build.util import codes
from neuralis_build.util.diagnostics import Code
from neuralis_build.util.errors import UsageError

DATA = Path(__file__).parent / "data" / "explain"
SPEC_SECTIONS = Path(__file__).parent / "data" / "spec-sections.toml"
FIELDS = ("rule", "why", "source", "bad", "good")
SPEC_PREFIX = "spec: "


@dataclass(frozen=True)
class Explanation:
    """One code explained: the registry's slug and summary, then the rule, its reason and two examples."""

    code: Code
    rule: str
    why: str
    source: str  # "spec: <section>", or "docs/<page>.md, <heading>" where our decision is recorded
    bad: str
    good: str

    @property
    def from_spec(self) -> bool:
        return self.source.startswith(SPEC_PREFIX)


def spec_sections() -> dict[str, str]:
    """The spec's sections, by the key a source names (``app.module``) → the heading as the spec writes it."""
    with SPEC_SECTIONS.open("rb") as f:
        data = tomllib.load(f)
    return {s["key"]: s["heading"] for s in data["sections"]}


@cache
def raw_entries() -> dict[str, dict[str, str]]:
    """The stored entries by code, as written in the TOML files (one file per family of codes)."""
    found: dict[str, dict[str, str]] = {}
    for path in sorted(DATA.glob("*.toml")):
        with path.open("rb") as f:
            data = tomllib.load(f)
        for code_id, fields in data.items():
            if code_id in found:
                raise ValueError(f"{path.name}: {code_id} is explained twice")
            found[code_id] = {k: str(v).strip() for k, v in fields.items()}
    return found


def entries() -> dict[str, Explanation]:
    """Every stored entry joined with its code."""
    return {c: _entry(c, fields) for c, fields in raw_entries().items() if codes.known(c)}


def _entry(code_id: str, fields: dict[str, str]) -> Explanation:
    return Explanation(codes.lookup(code_id), **{k: fields[k] for k in FIELDS})


def lookup(query: str) -> Explanation:
    """The entry for a code (``NB0501``, any case) or a slug (``surface-kind``); else a usage error with a guess."""
    wanted = query.strip()
    stored = raw_entries()
    if codes.known(wanted.upper()) and wanted.upper() in stored:  # only the module that declares it is read
        return _entry(wanted.upper(), stored[wanted.upper()])
    known = entries()
    by_slug = {e.code.slug: e for e in known.values()}
    found = known.get(wanted.upper()) or by_slug.get(wanted.lower())
    if found is not None:
        return found
    short = re.fullmatch(r"NB(\d{1,3})", wanted.upper())  # NB501: the leading zero left out
    close = [f"NB{int(short[1]):04d}"] if short and f"NB{int(short[1]):04d}" in known else []
    close += difflib.get_close_matches(wanted.upper(), list(known), n=3, cutoff=0.6)
    close += [by_slug[s].code.id for s in difflib.get_close_matches(wanted.lower(), list(by_slug), n=2, cutoff=0.6)]
    suggestions = list(dict.fromkeys(close))[:3]
    hint = (
        "did you mean " + " or ".join(f"{c} ({known[c].code.slug})" for c in suggestions) + "?"
        if suggestions
        else f"codes run from {min(known)} to {max(known)}; every diagnostic prints its code"
    )
    raise UsageError(f'no diagnostic code "{wanted}"', hint=hint)
