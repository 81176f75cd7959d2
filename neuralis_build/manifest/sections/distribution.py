"""Distribution: the host finds a package's root with ``require.resolve('<name>/package.json')``.

The spec ("Distribution") asks an ``exports`` map to keep ``./package.json`` resolvable. One rule,
run by ``check`` here, by ``pack`` (which refuses what check refuses) and by ``image`` (which checks
every package it loads): Node's own ``exports`` resolution, ported in ``npm/exports.py``.
"""

from __future__ import annotations

from typing import Any

from neuralis_build.manifest.checker import Checker
from neuralis_build.manifest.engine import Section
from neuralis_build.npm.exports import NB1707, NB1708, exports_diagnostics
from neuralis_build.npm.packagejson import MANIFEST

__all__ = ["NB1707", "NB1708", "SECTION"]


def package_json_resolvable(block: dict[str, Any], c: Checker) -> None:
    """``exports`` must let ``require.resolve('<name>/package.json')`` reach the package's own package.json."""
    if c.package is None:
        return
    # npm packs package.json whatever "files" says, so the file the call must reach is always there
    c.diags.extend(exports_diagnostics(c.package.manifest, [MANIFEST]))


SECTION = Section(name="distribution", fields={}, rules=(package_json_resolvable,))
