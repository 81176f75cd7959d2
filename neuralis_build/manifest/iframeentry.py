"""An iframe surface's entry page on disk: it exists in the package, and it loads only what its asset mode serves.

The page is scanned for the files it references (htmlrefs); a self-contained entry may reference none,
a bundle entry only files under its surface root. Each reference is resolved as a browser resolves it
(urlpath), so a hidden ``..`` cannot reach a file the platform does not serve.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from neuralis_build.manifest import htmlrefs
from neuralis_build.manifest.paths import resolve_inside
from neuralis_build.manifest.urlpath import served_path
from neuralis_build.util.diagnostics import Code, code
from neuralis_build.util.regularfile import is_regular, read_regular

if TYPE_CHECKING:
    from neuralis_build.util.diagnostics import Severity

NB0509 = code("NB0509", "surface-entry-missing", "the file an iframe url names does not exist in the package")
NB0510 = code("NB0510", "surface-sibling-reference", "a self-contained iframe entry references a sibling file")
NB0514 = code("NB0514", "bundle-reference-unserved", "a bundle-mode iframe entry references a file that is not served")
NB0515 = code("NB0515", "surface-entry-not-scanned", "an iframe entry is too large to scan for references in full")

MAX_REPORTED = 20
"""Reference findings listed per entry; the rest are counted in one more finding."""


@dataclass(frozen=True)
class Problem:
    severity: Severity
    code: Code
    message: str
    hint: str


def entry_problems(root: Path, url: str, served: str, mode: str) -> Iterator[Problem]:
    """What is wrong with an iframe entry on disk: missing, or loading files its asset mode does not serve."""
    entry = resolve_inside(root, url)
    if entry is None or not is_regular(entry):
        why = (
            "leads out of the package"
            if entry is None
            else "is not a regular file"
            if os.path.lexists(entry)
            else "does not exist"
        )
        yield Problem("error", NB0509, f"the entry {url} {why}", f"build or create {url}, or fix the url")
        return
    try:
        html = read_regular(entry).decode("utf-8", errors="replace")
    except OSError as exc:
        yield Problem("error", NB0509, f"the entry {url} cannot be read ({exc.strerror})", "make it readable")
        return
    found = htmlrefs.file_references(html)
    if found.stopped_at is not None:
        yield Problem(
            "warning",
            NB0515,
            f"{url} is too large to scan in full: check stopped at line {found.stopped_at:,} ({found.why}), "
            "so references after it are not judged",
            'split the page, or move inline content into files served with "assetMode": "bundle"',
        )
    problems = _reference_problems(root, url, entry.name, found.references, served, mode)
    for count, problem in enumerate(problems):
        if count == MAX_REPORTED:  # a page with thousands of references would drown every other finding
            rest = 1 + sum(1 for _ in problems)
            yield Problem(
                problem.severity,
                problem.code,
                f"{url} has {rest:,} more references like these, not listed",
                "fix the references listed above, then check again",
            )
            break
        yield problem


def _reference_problems(
    root: Path, url: str, name: str, references: list[htmlrefs.Reference], served: str, mode: str
) -> Iterator[Problem]:
    entry_dir = PurePosixPath(url).parent
    for ref in references:
        if mode == "self-contained":
            yield Problem(
                "error",
                NB0510,
                f'{url} line {ref.line} references the file "{ref.url}", but a self-contained entry is served alone',
                f'inline "{ref.url}" into {name}, or set "assetMode": "bundle" so the platform serves the '
                "entry's sibling files",
            )
            continue
        target = _resolve_reference(entry_dir, ref.url)
        if target is None or not target.startswith(served) or not is_regular(root / target):
            yield Problem(
                "warning",
                NB0514,
                f'{url} line {ref.line} references "{ref.url}", which is not a file under {served}',
                f"the platform serves only the files under {served}: put the file there, or fix the reference",
            )


def _resolve_reference(base: PurePosixPath, url: str) -> str | None:
    """The package file a relative reference loads, resolved against the entry's folder as a browser
    resolves it; None when it is root-relative (the host's origin, not the package) or names no file."""
    if url.strip().startswith(("/", "\\")):
        return None
    served = served_path(url, "" if str(base) == "." else str(base))
    return served.path if served is not None else None
