"""Install checked files as real package folders: staged beside the image, resolved with the real node, swapped in."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from neuralis_build.image.archive.extract import Entry, write_entries
from neuralis_build.npm.fields import NpmFields
from neuralis_build.npm.names import name_problems
from neuralis_build.npm.packagejson import read_package_json
from neuralis_build.util.process import json_from, run, which

NODE_MODULES = "node_modules"

NODE_TIMEOUT = 300.0
"""Seconds the one node that resolves every listed package may take."""


def package_dir(root: Path, name: str) -> Path:
    """``root/node_modules/<name>`` (a scoped name is two folders, as npm lays it out)."""
    return root.joinpath(NODE_MODULES, *name.split("/"))


def stage(entries: Sequence[Entry], staging_root: Path, name: str) -> Path:
    """Write the package into a fresh ``staging_root/node_modules/<name>``, where node can resolve it.

    Names are unique within one build (a second entry of a name is refused before staging), so every
    package shares the one staging root and one node process resolves them all.

    A write that fails half-way (an entry refused as it is written) removes the folder it made: a refused package
    leaves nothing of it behind.
    """
    target = package_dir(staging_root, name)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.mkdir()
    try:
        write_entries(list(entries), target)
    except BaseException:
        shutil.rmtree(target, ignore_errors=True)
        raise
    return target


def bundled_folders(root: Path, npm: NpmFields) -> list[str]:
    """The ``node_modules/<name>/`` folders npm packs as bundled: the bundled names and what they depend on."""
    queue = list(npm.bundled[1])
    found: list[str] = []
    while queue:
        name = queue.pop(0)
        folder = f"node_modules/{name}/"
        if folder in found or name_problems(name) or not package_dir(root, name).joinpath("package.json").is_file():
            continue
        found.append(folder)
        # read bounded, as every package.json; an unreadable one is kept as a folder all the same, and reading
        # its facts refuses it (materialize.read_manifest)
        queue.extend(str(d) for d in read_package_json(package_dir(root, name)).npm.dependencies)
    return found


def keep_only(root: Path, keep: set[str], folders: Sequence[str] = ()) -> None:
    """Delete every file under ``root`` whose package-relative path is not in ``keep`` (nor inside one of
    ``folders``), and the folders left empty."""
    for folder, _dirs, files in os.walk(root, topdown=False):
        rel = os.path.relpath(folder, root).replace(os.sep, "/")
        prefix = "" if rel == "." else rel + "/"
        if any(prefix.startswith(f) for f in folders):
            continue
        for name in files:
            if prefix + name not in keep:
                os.remove(os.path.join(folder, name))
        if folder != str(root) and not os.listdir(folder):
            os.rmdir(folder)


_RESOLVE = r"""
const path = require("path");
const out = {};
for (const [name, from] of JSON.parse(require("fs").readFileSync(0, "utf8"))) {
  try {
    const found = require.resolve(name + "/package.json", { paths: [from] });
    const want = path.join(from, "node_modules", ...name.split("/"), "package.json");
    out[name + "\0" + from] = found === want ? null : `resolves to ${found}, not to the installed ${want}`;
  } catch (e) {
    out[name + "\0" + from] = `${e.code || "ERROR"}: ${String(e.message).split("\n")[0]}`;
  }
}
process.stdout.write(JSON.stringify(out));
"""


def resolve_all(pairs: Sequence[tuple[str, Path]]) -> dict[tuple[str, Path], str | None]:
    """Run ``require.resolve('<name>/package.json')`` from each root in one real node; None means it resolved."""
    if not pairs:
        return {}
    node = which("node", "install Node.js 20 or later; the host resolves with node")
    payload = json.dumps([[name, os.path.realpath(root)] for name, root in pairs])
    command = [node, "-e", _RESOLVE]
    done = run(command, input=payload, timeout=NODE_TIMEOUT)

    def take(result: Any) -> dict[tuple[str, Path], str | None]:
        found = {(name, root): result[f"{name}\0{os.path.realpath(root)}"] for name, root in pairs}
        if not all(v is None or isinstance(v, str) for v in found.values()):
            raise TypeError("each verdict is null or a string")
        return found

    return json_from(done, "run the resolution check", take)
