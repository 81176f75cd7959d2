"""One SPEC entry on its way through the image build, and what the cache keeps of its own verdict."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from neuralis_build.diagnostics import Diagnostic, DiagnosticJSON, has_errors
from neuralis_build.hostprofile import HostProfile
from neuralis_build.image.cache import Cache, cache_key
from neuralis_build.image.contests import Facts
from neuralis_build.image.extract import Entry
from neuralis_build.image.report import PackageOutcome
from neuralis_build.image.spec import PackageSpec
from neuralis_build.package import Package


@dataclass(frozen=True)
class PackageFinished:
    """Progress: one package's own verdict is known (before the contests across packages)."""

    index: int
    total: int
    outcome: PackageOutcome


@dataclass
class Work:
    """One SPEC entry on its way through the stages."""

    spec: PackageSpec
    outcome: PackageOutcome
    key: str | None = None
    integrity: str | None = None
    entries: list[Entry] | None = None
    manifest: dict[str, Any] | None = None
    source_package: Package | None = None
    staged: Path | None = None
    facts: Facts | None = None
    cached: bool = False
    tarball: Path | None = None  # the source tarball npm resolves from (a tarball or npm: source)
    tgz: bytes | None = None  # or its bytes (a folder, packed in memory)

    @property
    def alive(self) -> bool:
        return self.outcome.status != "refused"

    def refuse(self, diagnostic: Diagnostic) -> None:
        self.outcome.status = "refused"
        self.outcome.diagnostics.append(diagnostic)


def source_diag(work: Work, rule_id: str, message: str, hint: str | None) -> Diagnostic:
    """An error located at the SPEC's source itself (a tarball or fetch problem has no JSON pointer)."""
    return Diagnostic("error", rule_id, work.spec.source, "", message, hint or None)


_ACROSS = ("NB1811", "NB1812", "NB1813", "NB1820", "NB1821", "NB1822", "NB1823")


def record_of(work: Work) -> dict[str, Any] | None:
    """What the cache keeps of a package's own verdict; None when the verdict depends on the other packages.

    Contests are settled anew on every build; a package refused only because of another one is not
    cached (the other one may be gone next time).
    """
    o = work.outcome
    own = [d for d in o.diagnostics if d.code not in _ACROSS]
    if o.status == "refused" and not has_errors(own):
        return None
    if any(d.code == "NB1811" for d in o.diagnostics):
        return None
    return {
        "name": o.name,
        "id": o.id,
        "version": o.version,
        "integrity": work.integrity,
        "status": "refused" if has_errors(own) else o.status,
        "diagnostics": [d.to_json() for d in own],
        "facts": work.facts.to_json() if work.facts else None,
    }


def restore(work: Work, record: dict[str, Any]) -> None:
    """Take a package's own verdict from its cache record (its files are already installed, untouched)."""
    o = work.outcome
    o.name, o.id, o.version = record["name"], record["id"], record["version"]
    o.status = record["status"]
    o.diagnostics = [_diag(d) for d in record["diagnostics"]]
    o.cached = True
    work.integrity = record["integrity"]
    work.facts = Facts.from_json(record["facts"]) if record["facts"] else None
    work.cached = True


def _diag(d: DiagnosticJSON) -> Diagnostic:
    return Diagnostic(
        d["severity"], d["code"], d["file"], d["pointer"], d["message"], d["hint"], d["line"], d["column"]
    )


def key_of(work: Work, content: str, host: HostProfile, *extra: Any) -> str:
    """The cache key of a SPEC entry whose source content hashes to ``content``."""
    s = work.spec
    return cache_key(s.kind, s.source, content, s.install_class, s.trust, *extra, host=host)


def cached_verdict(work: Work, cache: Cache) -> bool:
    """Take the last build's verdict when the key matches (the files are staged afresh either way)."""
    assert work.key is not None
    record = cache.records.get(work.key)
    if record is None:
        return False
    restore(work, record)
    return True
