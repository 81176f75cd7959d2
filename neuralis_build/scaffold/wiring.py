"""How `neuralis init` wires an existing package's scripts to the toolchain, beyond adding what it lacks.

A Vite app (``npm create vite``) already has ``dev`` and ``build`` scripts that run Vite, a
solution-style tsconfig.json (``"files": []`` and ``references``, under which a bare ``tsc`` checks
nothing) and no ``files`` list, so npm would pack its sources. Kept as they are, ``npm run dev`` would
start Vite instead of the dev page, ``prepack`` would run ``vite build``, which empties ``dist/`` (the
UI module with it) before npm packs, and the tarball would carry ``src/``, ``public/`` and
``index.html``, none of which the host loads. So for a Vite app: Vite's scripts that the template
also defines move to ``vite:<name>``, the template's take their names; ``typecheck`` runs ``tsc -b``
(what Vite's own build runs) when tsconfig.json is solution-style; ``files`` holds only the folders the
toolchain writes (``dist/app``, not ``dist``, where ``vite build`` writes the app's own build).
Whatever the package is, a lifecycle script the template would add that ends up running ``vite build``
is left out.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

VITE_CONFIGS = tuple(f"vite.config.{ext}" for ext in ("ts", "mts", "cts", "js", "mjs", "cjs"))
# The scripts npm runs by itself (install, pack, publish), whose output would be what npm packs or installs.
LIFECYCLE = (
    "preinstall",
    "install",
    "postinstall",
    "prepublish",
    "preprepare",
    "prepare",
    "postprepare",
    "prepack",
    "postpack",
    "prepublishOnly",
    "publish",
    "postpublish",
)
_RUNS_VITE = re.compile(r"(?:^|[\s;&|(])(?:npx\s+|pnpm\s+(?:exec\s+)?|yarn\s+)?vite(?=\s|$|[;&|)])")
_VITE_BUILD = re.compile(r"(?:^|[\s;&|(])(?:npx\s+)?vite\s+build\b")
_NPM_RUN = re.compile(r"\bnpm\s+(?:run|run-script)\s+([^\s;&|]+)")


@dataclass(frozen=True)
class Wiring:
    """What init does to the author's scripts and ``files`` besides adding the template's."""

    renames: Mapping[str, str] = field(default_factory=dict)
    """The author's script → the name it moves to (a Vite script the template's takes the place of)."""
    scripts: Mapping[str, str] = field(default_factory=dict)
    """Template scripts as this package needs them (``typecheck`` under a solution-style tsconfig)."""
    outputs_only: bool = False
    """``files`` gets the template's outputs only, not what npm packed before."""
    notes: tuple[str, ...] = ()


def is_vite_app(root: Path, manifest: Mapping[str, Any]) -> bool:
    """A package that depends on vite, or has a vite.config file."""
    for field_name in ("dependencies", "devDependencies"):
        deps = manifest.get(field_name)
        if isinstance(deps, dict) and "vite" in deps:
            return True
    return any((root / name).is_file() for name in VITE_CONFIGS)


def runs_vite(command: str) -> bool:
    """True when a script's command starts Vite (``vite``, ``vite build``, ``npx vite preview``)."""
    return bool(_RUNS_VITE.search(command))


def solution_style(root: Path) -> bool:
    """tsconfig.json is a solution (``"files": []`` and ``references``): only ``tsc -b`` checks its projects."""
    from neuralis_build.ui.tsconfig import read_tsconfig
    from neuralis_build.util.errors import NeuralisError

    path = root / "tsconfig.json"
    if not path.is_file():
        return False
    try:
        data = read_tsconfig(path)
    except NeuralisError:
        return False
    refs = data.get("references")
    return data.get("files") == [] and isinstance(refs, list) and bool(refs)


def plan_wiring(root: Path, manifest: Mapping[str, Any], template: Mapping[str, Any]) -> Wiring:
    """What init changes in this package's scripts and ``files``, with a note for each."""
    own = manifest.get("scripts")
    own = own if isinstance(own, dict) else {}
    wanted = template.get("scripts")
    wanted = wanted if isinstance(wanted, dict) else {}
    scripts: dict[str, str] = {}
    notes: list[str] = []
    if wanted.get("typecheck") == "tsc" and solution_style(root):
        scripts["typecheck"] = "tsc -b"
        notes.append(
            'typecheck runs "tsc -b": tsconfig.json is solution-style ("files": [] and references), '
            "so a bare tsc would check nothing"
        )
    if not is_vite_app(root, manifest):
        return Wiring(scripts=scripts, notes=tuple(notes))
    renames: dict[str, str] = {}
    for name, command in own.items():
        if name not in wanted or not isinstance(command, str) or not runs_vite(command):
            continue
        if scripts.get(name, wanted[name]) == command:
            continue
        target = f"vite:{name}"
        if target in own:
            notes.append(f'kept your scripts["{name}"] ({command!r}): scripts["{target}"] is taken')
            continue
        renames[name] = target
    if renames:
        moved = ", ".join(f"{old} → {new}" for old, new in renames.items())
        notes.append(
            f"a Vite app: your Vite scripts keep working under new names ({moved}); "
            f"{', '.join(renames)} now run the toolchain"
        )
    if any(_VITE_BUILD.search(str(own[old])) for old in renames):
        notes.append(
            "vite build writes dist/ and empties it first, the UI module in dist/app/ with it: "
            "run npm run build:ui after it, or point build.outDir in the Vite config elsewhere"
        )
    notes.append(
        "files lists only what the toolchain builds: the host loads dist/app/, so the app's sources, index.html, "
        "public/ and Vite's own build in dist/ stay out of the tarball"
    )
    notes.append(
        "src/app/host.tsx is the UI module's entry: render your components from its widget "
        "(index.html and your Vite entry stay for vite:dev)"
    )
    return Wiring(renames, scripts, True, tuple(notes))


def toolchain_outputs(files: list[Any], template: Mapping[str, Any]) -> list[Any]:
    """The template's ``files`` for a Vite app, whose dist/ also holds Vite's own build (index.html, assets/):
    ``dist`` narrows to the folders the toolchain writes there (dist/app/ for the UI module, dist/src/events/
    for events)."""
    block = template.get("neuralis")
    block = block if isinstance(block, dict) else {}
    app = block.get("app")
    dist = ["dist/app"] if isinstance(app, dict) and isinstance(app.get("module"), dict) else []
    if block.get("events"):
        dist.append("dist/src/events")
    narrowed: list[Any] = []
    for entry in files:
        narrowed += dist if entry in ("dist", "dist/") and dist else [entry]
    return narrowed


def reaches_vite_build(scripts: Mapping[str, Any], name: str, _seen: frozenset[str] = frozenset()) -> bool:
    """True when ``npm run name`` would run ``vite build``: its command, ``npm run`` of another script
    (with that script's pre and post scripts), followed through."""
    if name in _seen:
        return False
    seen = _seen | {name}
    for part in (f"pre{name}", name, f"post{name}"):
        command = scripts.get(part)
        if not isinstance(command, str):
            continue
        if _VITE_BUILD.search(command):
            return True
        if any(reaches_vite_build(scripts, called, seen) for called in _NPM_RUN.findall(command)):
            return True
    return False
