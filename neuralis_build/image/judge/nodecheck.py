"""The installed closure as the real node sees it: each dependency edge found where npm placed it, and peer ranges.

Node's own lookup (``Module._nodeModulePaths``, the folders ``require`` walks from a package, then
the real path of the folder it finds, as node follows a link) must find each dependency in the
folder the image's layout placed it in (tiers.py); a peer range on a package the host
provides is checked against the host's major with npm's own ``semver`` (the copy inside npm).
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from neuralis_build.npm.home import npm_module
from neuralis_build.util.process import json_from, run, which

_SCRIPT = r"""
const Module = require("module");
const fs = require("fs");
const path = require("path");
const input = JSON.parse(fs.readFileSync(0, "utf8"));
const edges = input.edges.map(([from, name, want]) => {
  for (const dir of Module._nodeModulePaths(from)) {
    const candidate = path.join(dir, ...name.split("/"));
    if (fs.existsSync(path.join(candidate, "package.json"))) {
      const real = fs.realpathSync(candidate);  // node loads a linked package from its real path
      return real === want ? null : `node finds ${real}, not ${want}`;
    }
  }
  return "node finds no folder for it";
});
let semver = null;
try { semver = require(input.semver); } catch (e) { semver = null; }
const peers = input.peers.map(([range, major]) => {
  if (!semver) return null;
  if (!semver.validRange(range)) return false;
  return semver.intersects(range, `>=${major}.0.0 <${major + 1}.0.0-0`, { includePrerelease: true });
});
process.stdout.write(JSON.stringify({ edges, peers }));
"""


@dataclass(frozen=True)
class NodeVerdicts:
    """One problem (or None) per edge; True/False per peer range (None: npm's semver could not be loaded)."""

    edges: list[str | None]
    peers: list[bool | None]


def npm_semver() -> str:
    """Where npm's own ``semver`` is (``<npm>/node_modules/semver``), from the npm on PATH."""
    return str(npm_module("semver") or "")


def check_with_node(
    edges: Sequence[tuple[Path, str, Path]], peers: Sequence[tuple[str, int]], timeout: float = 300.0
) -> NodeVerdicts:
    """Run the checks in one real node process."""
    if not edges and not peers:
        return NodeVerdicts([], [])
    node = which("node", "install Node.js 20 or later; the host resolves with node")
    payload = {
        "edges": [[os.path.realpath(a), name, os.path.realpath(b)] for a, name, b in edges],
        "peers": [list(p) for p in peers],
        "semver": npm_semver(),
    }
    command = [node, "-e", _SCRIPT]
    done = run(command, input=json.dumps(payload), timeout=timeout)
    return json_from(done, "run the closure check", _verdicts)


def _verdicts(data: Any) -> NodeVerdicts:
    edges, peers = data["edges"], data["peers"]
    if not isinstance(edges, list) or not isinstance(peers, list):
        raise TypeError("edges and peers are lists")
    return NodeVerdicts(edges, peers)


def node_version() -> str:
    """The version of the node on PATH (``20.20.2``): the one that resolves and loads the image's packages."""
    node = which("node", "install Node.js 20 or later; the host resolves with node")
    done = run([node, "--version"], timeout=60.0)
    return done.stdout.strip().removeprefix("v")
