"""npm's files in the image folder describe the image that was built: what npm resolved, less what was refused.

npm resolves the closure of every listed package its own stages admitted; a package refused after that
(a dependency refused, a contest lost) leaves the tree with its closure, so ``DIR/package.json`` and
``DIR/package-lock.json`` are cut down to the packages still installed: ``npm ci`` on those files
installs the image's packages at the same versions, in npm's hoisted layout (the image splits that
layout by trust, tiers.py), plus what the image leaves to the host: peers on the packages the host
profile provides, which npm installs and the image does not.
What npm resolved for all of them is kept in ``DIR/.neuralis-resolution/``: the next build hands it
back to npm, and ``--frozen`` builds from it.
"""

from __future__ import annotations

import json
import os
import shutil
from collections import deque
from collections.abc import Collection
from pathlib import Path
from typing import Any

from neuralis_build.image.resolution.npmlock import MODULES, NPM_LOCK, NpmLock
from neuralis_build.image.resolution.resolve import MANIFEST, RESOLUTION, TARBALLS, Admitted, root_manifest
from neuralis_build.util import atomic


def reachable(lock: NpmLock, roots: Collection[str], left_out: Collection[str] = ()) -> set[str]:
    """Every lock path npm would install for the listed ``roots``: each dependency, optional dependency and
    peer followed to the node ``require`` finds (as npm's lock places it), and what their tarballs bundle;
    never a ``left_out`` path (a package from outside a registry, which the image did not install)."""
    seen: set[str] = set()
    queue = deque(p for p in (f"{MODULES}{r}" for r in sorted(roots)) if p in lock.nodes)
    seen.update(queue)
    while queue:
        path = queue.popleft()
        node = lock.nodes[path]
        names = {*node.dependencies, *node.optional_dependencies, *node.peer_dependencies}
        for name in sorted(names):
            target = lock.find(path, name)
            if target is not None and target.path not in seen and target.path not in left_out:
                seen.add(target.path)
                queue.append(target.path)
    bundled = {p for p, n in lock.nodes.items() if n.in_bundle and any(p.startswith(f"{s}/{MODULES}") for s in seen)}
    return seen | bundled


def pruned_lock(lock: NpmLock, admitted: list[Admitted], left_out: Collection[str] = ()) -> str:
    """npm's lock with only what the admitted packages reach (npm's text itself when that is all of it)."""
    keep = reachable(lock, [a.name for a in admitted], left_out)
    data: dict[str, Any] = json.loads(lock.text)
    packages: dict[str, Any] = data["packages"]
    if set(lock.nodes) <= keep and set(lock.root_dependencies) == {a.name for a in admitted}:
        return lock.text
    pruned = {k: v for k, v in packages.items() if k == "" or k in keep}
    root = dict(pruned[""])
    root["dependencies"] = {a.name: a.spec for a in sorted(admitted, key=lambda a: a.name)}
    if not root["dependencies"]:
        del root["dependencies"]
    pruned[""] = root
    data["packages"] = pruned
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"  # as npm writes it: JSON.stringify(…, 2)


def write_npm_files(
    resolved: Path, staging: Path, lock: NpmLock, admitted: list[Admitted], left_out: Collection[str] = ()
) -> None:
    """Stage the image's package.json, lock and tarballs in ``staging``, and npm's whole resolution (from
    ``resolved``, the folder npm ran in) in ``staging/.neuralis-resolution``; ``left_out``: the lock's paths the
    image does not install, whoever reaches them (the packages from outside a registry)."""
    kept = staging / RESOLUTION
    kept.mkdir()
    os.replace(resolved / MANIFEST, kept / MANIFEST)
    os.replace(resolved / NPM_LOCK, kept / NPM_LOCK)
    atomic.write_text(staging / MANIFEST, root_manifest(admitted))
    atomic.write_text(staging / NPM_LOCK, pruned_lock(lock, admitted, left_out))
    tarballs = staging / TARBALLS
    os.replace(resolved / TARBALLS, tarballs)
    wanted = {a.filename for a in admitted}
    for entry in sorted(os.scandir(tarballs), key=lambda e: e.name):
        if entry.name not in wanted:
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path)
            else:
                os.remove(entry.path)
