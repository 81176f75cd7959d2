"""A listed package's dependencies come from a registry: one on a file, a folder, git or a URL is named before npm runs.

The image installs registry packages only (each with the registry's integrity, fetched from its
``resolved`` URL), so npm resolves the closure with git and folder sources turned off. A listed package
that depends on such a source would stop the whole build with npm's error (EALLOWGIT,
EALLOWDIRECTORY, or ENOENT for a tarball path npm cannot find where it looks), naming neither the
package nor what to do; one on a tarball URL npm would fetch, and the image would install code no
registry vouches for under a registry package's name. Each dependency spec is read by npm's own parser
(``npm-package-arg``, in the npm on PATH) before npm runs, and the package that needs a non-registry
source is refused with the way out: publish it, or list it in the SPEC. What a registry package brings
in from outside a registry is refused by the lock check (resolve.py).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace

from neuralis_build.image.packages.listed import Listed
from neuralis_build.npm.home import npm_module
from neuralis_build.npm.packagejson import MANIFEST
from neuralis_build.util.diagnostics import Diagnostic, code
from neuralis_build.util.jsonpointer import escape
from neuralis_build.util.process import json_from, run, which

NB1815 = code(
    "NB1815", "dependency-not-from-registry", "a listed package depends on a file, a folder, a git repository or a URL"
)

# the fields npm installs from, in the order npm reads them (an optional one npm leaves out when it fails)
FIELDS = ("dependencies", "peerDependencies", "optionalDependencies")
_KINDS = {
    "file": "a tarball file",
    "directory": "a folder",
    "git": "a git repository",
    "remote": "a URL",
}

_SCRIPT = r"""
const npa = require(process.argv[1]);
const out = JSON.parse(require("fs").readFileSync(0, "utf8")).map(([name, spec]) => {
  try {
    const parsed = npa.resolve(name, spec, "/");
    return parsed.type === "alias" ? parsed.subSpec.type : parsed.type;
  } catch (e) {
    return `error: ${e.code || "ERROR"} ${String(e.message).split("\n")[0]}`;
  }
});
process.stdout.write(JSON.stringify(out));
"""


@dataclass(frozen=True)
class Spec:
    """One dependency of one listed package, as its package.json writes it."""

    index: int  # the listed package's place in the SPEC
    field: str
    name: str
    spec: str


def npm_package_arg() -> str:
    """Where npm's own spec parser is (``<npm>/node_modules/npm-package-arg``), from the npm on PATH."""
    return str(npm_module("npm-package-arg") or "")


def kinds(specs: list[Spec]) -> list[str]:
    """npm's type of each spec (``range``, ``tag``, ``version``, ``remote``, ``file``, ``directory``, ``git``),
    or ``error: <code> <message>`` for one npm cannot read; one node process for them all."""
    if not specs:
        return []
    node = which("node", "install Node.js 20 or later; the image build runs npm's own spec parser with node")
    done = run(
        [node, "-e", _SCRIPT, npm_package_arg()], input=json.dumps([[s.name, s.spec] for s in specs]), timeout=120.0
    )

    def take(data: object) -> list[str]:
        if not isinstance(data, list) or len(data) != len(specs) or not all(isinstance(k, str) for k in data):
            raise TypeError("one type per spec")
        return [str(k) for k in data]

    return json_from(done, "read the dependency specs with npm's parser", take)


def _specs(one: Listed) -> list[Spec]:
    package = one.package
    if package is None:
        return []
    bundled = set(package.npm.bundled[1])  # inside the package's own tarball: npm fetches none of them
    out = []
    for field in FIELDS:
        for name, spec in sorted(package.npm.ranges(field).items()):
            if isinstance(spec, str) and name not in bundled:
                out.append(Spec(one.spec.index, field, str(name), spec))
    return out


def refuse_unregistered(listed: list[Listed]) -> list[Listed]:
    """Refuse each listed package with a dependency npm would take from a file, a folder, git or a URL (or
    cannot read at all); an optional one is a warning: it is left out, as npm leaves out what it cannot install."""
    pending = [one for one in listed if one.alive and not one.cached]
    specs = [s for one in pending for s in _specs(one)]
    found: dict[int, list[Diagnostic]] = {}
    for s, kind in zip(specs, kinds(specs), strict=True):
        diagnostic = _diagnostic(s, kind)
        if diagnostic is not None:
            found.setdefault(s.index, []).append(diagnostic)
    out = []
    for one in listed:
        diagnostics = found.get(one.spec.index, [])
        if any(d.severity == "error" for d in diagnostics):
            out.append(one.refused(*diagnostics))
        elif diagnostics:
            out.append(replace(one, diagnostics=one.diagnostics + tuple(diagnostics)))
        else:
            out.append(one)
    return out


def _diagnostic(s: Spec, kind: str) -> Diagnostic | None:
    pointer = f"/{s.field}/{escape(s.name)}"
    shown = json.dumps(s.spec, ensure_ascii=False)
    if kind.startswith("error: "):
        what = f"npm cannot read the spec {shown} ({kind.removeprefix('error: ')})"
    elif kind in _KINDS:
        what = f"{s.name} comes from {_KINDS[kind]} ({shown})"
    else:
        return None
    fix = (
        f"publish {s.name} to your registry and depend on a version of it, or list it in the image SPEC as a "
        f'package of its own (source = its .tgz or folder) and depend on its version ("{s.name}": "<version>")'
    )
    if s.field == "optionalDependencies":
        return Diagnostic(
            "warning",
            NB1815.id,
            MANIFEST,
            pointer,
            f"{what}: the image installs registry packages only, so this optional dependency is left out "
            "(npm goes on without an optional dependency it cannot install)",
            fix,
        )
    return Diagnostic(
        "error",
        NB1815.id,
        MANIFEST,
        pointer,
        f"{what}: the image installs registry packages only (each checked against the registry's integrity), "
        "so npm's resolution of the closure cannot take it",
        fix,
    )
