"""Where the npm on PATH keeps its own modules (semver, npm-package-arg, map-workspaces), which the toolchain
runs with node so that npm's own rules are applied, never a copy of them."""

from __future__ import annotations

import os
import shutil
from pathlib import Path


def npm_module(name: str) -> Path | None:
    """``<npm's folder>/node_modules/<name>`` of the npm on PATH (its ``bin/npm-cli.js`` followed to its folder),
    or None when there is no npm or it does not ship that module there."""
    npm = shutil.which("npm")
    if npm is None:
        return None
    folder = Path(os.path.realpath(npm)).parent.parent / "node_modules" / name
    return folder if (folder / "package.json").is_file() else None
