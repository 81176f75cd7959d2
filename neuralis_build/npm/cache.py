"""Node packages the toolchain needs for itself, pinned by a lockfile it ships and installed once per machine.

Each set is a folder of the toolchain's data holding a package.json and its package-lock.json (every
package with its integrity). ``npm ci`` installs it, without install scripts and without optional
dependencies, into the cache under a digest of the lock, so a new pin gets a new folder and npm checks
every tarball against the integrity the toolchain ships. npm runs in a fresh folder beside the target
and the folder is swapped in whole: a failed or concurrent first run never leaves half a copy.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from neuralis_build.util.errors import SubprocessError
from neuralis_build.util.process import run, which

INSTALL_TIMEOUT = 600.0
NPM_HINT = "install Node.js 20 or newer (it ships npm)"


def locked_dir(spec: Path) -> Path:
    """Where the set pinned by ``spec`` (a folder with package.json and package-lock.json) is installed."""
    from neuralis_build.util.cachedir import cache_root, digest

    return cache_root() / spec.name / digest((spec / "package-lock.json").read_bytes())[:16]


def is_installed(spec: Path) -> bool:
    """Whether ``spec``'s set is installed already (npm ci completed into its folder)."""
    return (locked_dir(spec) / "node_modules" / ".package-lock.json").is_file()


def locked_install(spec: Path, *, purpose: str) -> Path:
    """The node_modules of the set pinned by ``spec``, installed with ``npm ci`` on first use.

    ``purpose`` says what the set is for, in the progress line and in an error.
    """
    folder = locked_dir(spec)
    if is_installed(spec):
        return folder / "node_modules"
    from neuralis_build.util.progress import step

    npm = which("npm", NPM_HINT)
    folder.parent.mkdir(parents=True, exist_ok=True)
    with step(f"installing {purpose} with npm ci (once per machine)"):
        work = Path(tempfile.mkdtemp(prefix=f".{spec.name}-", dir=folder.parent))
        try:
            for name in ("package.json", "package-lock.json"):
                shutil.copyfile(spec / name, work / name)
            cmd = [npm, "ci", "--ignore-scripts", "--omit=optional", "--no-audit", "--no-fund", "--loglevel=error"]
            done = run(cmd, cwd=work, timeout=INSTALL_TIMEOUT)
            if done.returncode != 0:
                raise SubprocessError(
                    f"npm could not install {purpose}",
                    command=cmd,
                    output=done.stderr + done.stdout,
                    hint="check that npm reaches your registry (npm ping), then run the command again",
                )
            try:
                os.replace(work, folder)  # atomic: a concurrent first run either wins or finds it done
            except OSError:
                if not is_installed(spec):
                    raise
        finally:
            if work.exists():
                shutil.rmtree(work, ignore_errors=True)
    return folder / "node_modules"
