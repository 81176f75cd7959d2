"""A listed package (one SPEC entry) as a value: what each per-package stage found, and its own verdict.

The stages (stages.py) take a ``Listed`` and return the next one; a refusal is a value too (status
``refused`` with its diagnostics), never an exception or a callback. When the per-package stages are
done, ``outcome_of`` makes the report's row for it once; the rules across packages (tree.py,
acrosspackages.py) settle what is left on that row.
"""

from __future__ import annotations

import errno
import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from neuralis_build.image.judge.contests import Facts
from neuralis_build.image.judge.report import PackageOutcome, Status
from neuralis_build.image.packages.cache import Cache, cache_key
from neuralis_build.image.packages.spec import PackageSpec
from neuralis_build.image.resolution.fetch import NB1801
from neuralis_build.util.diagnostics import Diagnostic
from neuralis_build.util.errors import NeuralisError
from neuralis_build.util.trust import Trust

if TYPE_CHECKING:
    from neuralis_build.hostprofile import HostProfile
    from neuralis_build.image.archive.extract import Entry
    from neuralis_build.package import Package


@dataclass(frozen=True, slots=True)
class Listed:
    """One SPEC entry on its way through the per-package stages: each stage returns a new one."""

    spec: PackageSpec
    name: str | None = None
    id: str | None = None
    version: str | None = None
    status: Status = "loaded"
    diagnostics: tuple[Diagnostic, ...] = ()
    key: str | None = None  # the cache key of its own verdict
    integrity: str | None = None
    package: Package | None = None  # its package.json, read once from the source (not for a cached tarball)
    tarball: Path | None = None  # the source tarball npm resolves from (a tarball or npm: source)
    tgz: bytes | None = None  # or its bytes (a folder, packed in memory)
    data: bytes | None = None  # a cached tarball's bytes, read into entries only if it is staged
    entries: tuple[Entry, ...] | None = None
    staged: Path | None = None
    path: str | None = None  # where it is installed (node_modules/<name>), once staged or kept
    facts: Facts | None = None  # its claims, when it loads
    cached: bool = False  # its own verdict is the last build's
    unobtainable: bool = False  # its source could not be had as the SPEC names it (fetch, pin): the SPEC's fault

    @property
    def alive(self) -> bool:
        return self.status != "refused"

    @property
    def settled(self) -> bool:
        """Its own verdict is known before the stages end (refused, or taken from the cache): announce it."""
        return self.cached or not self.alive

    def refused(self, *diagnostics: Diagnostic) -> Listed:
        """This package refused with ``diagnostics``."""
        return replace(self, status="refused", diagnostics=self.diagnostics + diagnostics)

    def refused_by(self, exc: NeuralisError) -> Listed:
        """Refused with the diagnostics of a refusal (exit 1); anything else is raised again."""
        diagnostics = getattr(exc, "diagnostics", None)
        if not diagnostics or exc.exit_code != 1:
            raise exc
        return self.refused(*diagnostics)

    def at_source(self, rule_id: str, message: str, hint: str | None) -> Diagnostic:
        """An error located at the SPEC's source itself (a tarball or fetch problem has no JSON pointer)."""
        return Diagnostic("error", rule_id, self.spec.source, "", message, hint or None)


def outcome_of(listed: Listed) -> PackageOutcome:
    """The report's row for a listed package, made once its own stages are done (and placed when it is staged)."""
    spec = listed.spec
    return PackageOutcome(
        source=spec.source,
        install_class=spec.install_class,
        trust=spec.trust,
        name=listed.name,
        id=listed.id,
        version=listed.version,
        status=listed.status,
        diagnostics=listed.diagnostics,
        cached=listed.cached,
        path=listed.path,
        chain=(listed.name,) if listed.path is not None and listed.name is not None else (),
    )


_ACROSS = ("NB1811", "NB1812", "NB1813", "NB1820", "NB1821", "NB1822", "NB1823")
# Verdicts the machine may have caused (a source that could not be read or fetched; node failing to
# resolve, which a file system error can cause too): never cached, so the next build asks again.
_ENVIRONMENT = ("NB1801", "NB1810")


def record_of(listed: Listed, outcome: PackageOutcome) -> dict[str, Any] | None:
    """What the cache keeps of a package's own verdict; None when the verdict may not be its bytes' alone.

    ``outcome`` is its row at the end of the build. Contests are settled anew on every build; a package
    refused only because of another one is not cached (the other one may be gone next time), nor one
    refused for what the machine may have caused.
    """
    from neuralis_build.util.diagnostics import has_errors

    own = [d for d in outcome.diagnostics if d.code not in _ACROSS]
    if outcome.status == "refused" and not has_errors(own):
        return None
    if any(d.code == "NB1811" or (d.code in _ENVIRONMENT and d.severity == "error") for d in outcome.diagnostics):
        return None
    return {
        "name": outcome.name,
        "id": outcome.id,
        "version": outcome.version,
        "integrity": listed.integrity,
        "status": "refused" if has_errors(own) else outcome.status,
        "diagnostics": [d.to_json() for d in own],
        "facts": listed.facts.to_json() if listed.facts else None,
    }


def restored(listed: Listed, record: dict[str, Any]) -> Listed:
    """The package with its own verdict taken from a cache record; ValueError when the record is malformed."""
    name, ident, version, integrity = (_text(record, k) for k in ("name", "id", "version", "integrity"))
    status = record.get("status")
    diagnostics, facts = record.get("diagnostics"), record.get("facts")
    if status not in _STATUSES or not isinstance(diagnostics, list):
        raise ValueError("status or diagnostics")
    parsed = tuple(_diag(d) for d in diagnostics)
    try:
        read = Facts.from_json(facts) if facts is not None else None
    except (KeyError, TypeError, ValueError, AttributeError):
        raise ValueError("facts") from None
    if read is not None and not _facts_ok(read):
        raise ValueError("facts")
    return replace(
        listed,
        name=name,
        id=ident,
        version=version,
        status=status,
        diagnostics=parsed,
        integrity=integrity,
        facts=read,
        cached=True,
    )


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
    tiers = tuple(Trust)
    return facts.trust in tiers and all(isinstance(s, str) for s in strings)


def key_of(listed: Listed, content: str, host: HostProfile, *extra: Any) -> str:
    """The cache key of a SPEC entry whose source content hashes to ``content``."""
    s = listed.spec
    return cache_key(s.kind, s.source, content, s.install_class, s.trust, *extra, host=host)


def cached_verdict(listed: Listed, cache: Cache) -> Listed | None:
    """The package with the last build's verdict when its key matches and the record is well formed."""
    assert listed.key is not None
    record = cache.records.get(listed.key)
    if record is None:
        return None
    try:
        return restored(listed, record)
    except ValueError:
        cache.note_bad_record(listed.key)
        return None


def in_source(listed: Listed, exc: OSError) -> bool:
    """Was the error met reading the package's own folder (its files, not the machine's state elsewhere)?"""
    where = listed.spec.path
    if where is None or not isinstance(exc.filename, str) or exc.errno in _MACHINE:
        return False
    return Path(exc.filename) == where or where in Path(exc.filename).parents


# errors about the machine, whatever file they were met at
_MACHINE = {errno.ENOSPC, errno.EDQUOT, errno.EMFILE, errno.ENFILE, errno.ENOMEM, errno.EIO, errno.EROFS}


def unreadable(listed: Listed, exc: OSError) -> Diagnostic:
    """NB1801 at the source: a file of the package's own folder could not be read."""
    shown = os.path.relpath(exc.filename, listed.spec.path) if listed.spec.path else exc.filename
    return listed.at_source(
        NB1801.id,
        f"cannot read {shown}: {exc.strerror or exc}",
        "make every file of the package folder readable (or leave it out of the package)",
    )
