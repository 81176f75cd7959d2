"""One SPEC entry on its way through the image build, and what the cache keeps of its own verdict."""

from __future__ import annotations

import errno
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from neuralis_build.diagnostics import Diagnostic, has_errors
from neuralis_build.errors import NeuralisError
from neuralis_build.hostprofile import HostProfile
from neuralis_build.image.cache import Cache, cache_key
from neuralis_build.image.contests import Facts
from neuralis_build.image.extract import Entry
from neuralis_build.image.fetch import NB1801
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
    source_package: Package | None = None
    staged: Path | None = None
    facts: Facts | None = None
    cached: bool = False
    tarball: Path | None = None  # the source tarball npm resolves from (a tarball or npm: source)
    tgz: bytes | None = None  # or its bytes (a folder, packed in memory)
    data: bytes | None = None  # a cached tarball's bytes, read into entries only if it is staged

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
# Verdicts the machine may have caused (a source that could not be read or fetched; node failing to
# resolve, which a file system error can cause too): never cached, so the next build asks again.
_ENVIRONMENT = ("NB1801", "NB1810")


def record_of(work: Work) -> dict[str, Any] | None:
    """What the cache keeps of a package's own verdict; None when the verdict may not be its bytes' alone.

    Contests are settled anew on every build; a package refused only because of another one is not
    cached (the other one may be gone next time), nor one refused for what the machine may have caused.
    """
    o = work.outcome
    own = [d for d in o.diagnostics if d.code not in _ACROSS]
    if o.status == "refused" and not has_errors(own):
        return None
    if any(d.code == "NB1811" or d.code in _ENVIRONMENT for d in o.diagnostics):
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
    """Take a package's own verdict from its cache record; ValueError (and nothing changed) when it is malformed."""
    name, ident, version, integrity = (_text(record, k) for k in ("name", "id", "version", "integrity"))
    status = record.get("status")
    diagnostics, facts = record.get("diagnostics"), record.get("facts")
    if status not in _STATUSES or not isinstance(diagnostics, list):
        raise ValueError("status or diagnostics")
    parsed = [_diag(d) for d in diagnostics]
    try:
        read = Facts.from_json(facts) if facts is not None else None
    except (KeyError, TypeError, ValueError, AttributeError):
        raise ValueError("facts") from None
    if read is not None and not _facts_ok(read):
        raise ValueError("facts")
    o = work.outcome
    o.name, o.id, o.version, o.status, o.diagnostics = name, ident, version, status, parsed
    o.cached = True
    work.integrity = integrity
    work.facts = read
    work.cached = True


_STATUSES = ("loaded", "reference-only", "not-neuralis", "refused")
_SEVERITIES = ("error", "warning", "note")


def _text(record: dict[str, Any], key: str) -> str | None:
    value = record.get(key)
    if value is not None and not isinstance(value, str):
        raise ValueError(key)
    return value


def _diag(d: Any) -> Diagnostic:
    if not isinstance(d, dict) or d.get("severity") not in _SEVERITIES:
        raise ValueError("diagnostic")
    texts = [d.get(k) for k in ("code", "file", "pointer", "message")]
    numbers = [d.get(k) for k in ("line", "column")]
    hint = d.get("hint")
    if not all(isinstance(t, str) for t in texts) or not (hint is None or isinstance(hint, str)):
        raise ValueError("diagnostic")
    if not all(n is None or (isinstance(n, int) and not isinstance(n, bool)) for n in numbers):
        raise ValueError("diagnostic")
    return Diagnostic(d["severity"], d["code"], d["file"], d["pointer"], d["message"], hint, numbers[0], numbers[1])


def _facts_ok(facts: Facts) -> bool:
    claims = (*facts.tools, *facts.services, *facts.config_keys)
    strings = [facts.id, facts.trust, *facts.published, *(part for claim in claims for part in claim)]
    tiers = ("first-party", "trusted", "untrusted")
    return facts.trust in tiers and all(isinstance(s, str) for s in strings)


def key_of(work: Work, content: str, host: HostProfile, *extra: Any) -> str:
    """The cache key of a SPEC entry whose source content hashes to ``content``."""
    s = work.spec
    return cache_key(s.kind, s.source, content, s.install_class, s.trust, *extra, host=host)


def cached_verdict(work: Work, cache: Cache) -> bool:
    """Take the last build's verdict when the key matches and the record is well formed."""
    assert work.key is not None
    record = cache.records.get(work.key)
    if record is None:
        return False
    try:
        restore(work, record)
    except ValueError:
        cache.note_bad_record(work.key)
        return False
    return True


def refused(work: Work, diagnostic: Diagnostic, finish: Callable[[Work], None]) -> None:
    """Refuse the package with ``diagnostic`` and announce it."""
    work.refuse(diagnostic)
    finish(work)


def refused_by(work: Work, exc: NeuralisError, finish: Callable[[Work], None]) -> None:
    """Refuse the package with the diagnostics of a refusal (exit 1); anything else is raised again."""
    diagnostics = getattr(exc, "diagnostics", None)
    if not diagnostics or exc.exit_code != 1:
        raise exc
    work.outcome.status = "refused"
    work.outcome.diagnostics.extend(diagnostics)
    finish(work)


def in_source(work: Work, exc: OSError) -> bool:
    """Was the error met reading the package's own folder (its files, not the machine's state elsewhere)?"""
    where = work.spec.path
    if where is None or not isinstance(exc.filename, str) or exc.errno in _MACHINE:
        return False
    return Path(exc.filename) == where or where in Path(exc.filename).parents


# errors about the machine, whatever file they were met at
_MACHINE = {errno.ENOSPC, errno.EDQUOT, errno.EMFILE, errno.ENFILE, errno.ENOMEM, errno.EIO, errno.EROFS}


def unreadable(work: Work, exc: OSError) -> Diagnostic:
    """NB1801 at the source: a file of the package's own folder could not be read."""
    shown = os.path.relpath(exc.filename, work.spec.path) if work.spec.path else exc.filename
    return source_diag(
        work,
        NB1801.id,
        f"cannot read {shown}: {exc.strerror or exc}",
        "make every file of the package folder readable (or leave it out of the package)",
    )
