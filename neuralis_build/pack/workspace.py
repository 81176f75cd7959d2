"""The ignore files npm reads above a workspace member it packs (npm-packlist's ``readOutOfTreeIgnoreFiles``).

``npm pack`` run in a folder walks up from it. When an ancestor's package.json lists the folder among
its ``workspaces`` (@npmcli/config's ``loadLocalPrefix``), npm packs it as a workspace of that root, and
npm-packlist adds the ignore file of the root and of every folder between the root and the member (its
``.npmignore``, else its ``.gitignore``) to the member's default rules: a root ``.gitignore`` of
``*.log`` keeps ``debug.log`` out of every member's tarball. Whether the folder is a workspace is
npm's own glob matching (@npmcli/map-workspaces: negations, ``node_modules`` left out, dot folders),
so npm is asked (``npm prefix``), and only when some ancestor's package.json declares ``workspaces``
at all: a package outside a monorepo costs a few ``stat`` calls.
"""

from __future__ import annotations

import os
from pathlib import Path

from neuralis_build.npm.packagejson import read_package_json
from neuralis_build.pack.walker import IGNORE_FILES
from neuralis_build.util.errors import NeuralisError, UsageError, UserError
from neuralis_build.util.process import run, which
from neuralis_build.util.regularfile import read_regular


def _declares_workspaces(folder: Path) -> bool:
    # unreadable reads as no workspaces: npm's read-package-json-fast fails and moves on up
    return read_package_json(folder).npm.workspaces is not None


def workspace_root(member: Path) -> Path | None:
    """The workspace root npm finds for ``npm pack`` run in ``member``, or None when it packs it on its own."""
    here = Path(os.path.realpath(member))  # npm starts from process.cwd(), a physical path
    if not any(_declares_workspaces(parent) for parent in here.parents):
        return None
    npm = which(
        "npm",
        hint=f"a folder above {member} declares workspaces; whether npm packs this folder as one of them (and "
        "reads that root's ignore files) is npm's to say: put npm on PATH",
    )
    try:
        done = run([npm, "prefix", "--no-global"], cwd=here, timeout=120)
    except NeuralisError as exc:
        raise UsageError(f"cannot ask npm where the workspace root of {member} is: {exc}", hint=exc.hint) from None
    found = done.stdout.strip().splitlines()[-1:] if done.returncode == 0 else []
    if not found:
        raise UsageError(
            f"cannot ask npm where the workspace root of {member} is (npm prefix exited {done.returncode})",
            hint=done.stderr.strip().splitlines()[-1] if done.stderr.strip() else None,
        )
    root = Path(os.path.realpath(found[0]))
    return root if root != here and root in here.parents else None


def outside_ignore_texts(member: Path) -> list[str]:
    """The ignore files npm adds to ``member``'s default rules: the workspace root's, then each folder's down to
    the member's parent (``.npmignore``, else ``.gitignore``); none when npm packs it on its own."""
    root = workspace_root(member)
    if root is None:
        return []
    here = Path(os.path.realpath(member))
    texts = []
    folder = root
    for part in (None, *here.parent.relative_to(root).parts):
        if part is not None:
            folder = folder / part
        for name in IGNORE_FILES:
            try:
                texts.append(read_regular(folder / name).decode("utf-8", errors="replace"))
            except FileNotFoundError:
                continue
            except OSError as exc:  # a folder or a FIFO by that name: npm's readFile fails, and so does npm pack
                raise UserError(
                    f"{folder / name}: {exc.strerror or exc}; npm pack fails on it too",
                    hint="make it a regular file, or remove it",
                ) from None
            break
    return texts
