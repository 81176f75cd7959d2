"""A UI module built for development (``neuralis-build ui --watch``) is named; pack refuses to ship it.

The build record beside the bundle (dist/app/build-inputs.json) names the mode the build defined
``process.env.NODE_ENV`` as. A development build keeps its libraries' development-only code (checks,
warnings, larger and slower), so check warns and pack refuses it (pack/refusals.py) until the production
build (``npm run build:ui``) runs again.
"""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import TYPE_CHECKING

from neuralis_build.manifest.checker import Checker
from neuralis_build.manifest.paths import path_problem
from neuralis_build.util.diagnostics import code
from neuralis_build.util.trust import at_least

if TYPE_CHECKING:
    from neuralis_build.model.block import Block
    from neuralis_build.outputs import OutputFacts

NB1617 = code("NB1617", "build-development", "the UI module was built for development (ui --watch), not production")

ENTRY = "/neuralis/app/module/entry"
PRODUCTION_BUILD = "run the production build: npm run build:ui (neuralis-build ui)"


def development_build(block: Block, c: Checker, found: OutputFacts) -> None:
    """The built app.module entry's record says "development": a warning at the entry's line.

    Run after the module's own outputs rules: an entry they refused (not built, leading out) is not judged again.
    """
    from neuralis_build.record.stale import built_mode

    module = block.module
    package = c.package
    if package is None or module is None or not at_least(c.trust, "first-party"):
        return
    entry = module.entry
    if entry is None or not c.usable(ENTRY) or path_problem(entry) is not None:
        return
    output = str(PurePosixPath(entry))
    if not (package.root / output).is_file() or built_mode(package.root, output) != "development":
        return
    c.warning(
        NB1617,
        ENTRY,
        f"{output} was built for development (neuralis-build ui --watch): its libraries' development-only code "
        'is in it and process.env.NODE_ENV is "development"',
        PRODUCTION_BUILD,
    )
