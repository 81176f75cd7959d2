"""`neuralis init` as a library: add a template to an existing npm package, additively, as `npm init` does.

The author's package.json keeps every field it has; it gains the template's ``neuralis`` block and
the scripts, dependencies and ``files`` entries it lacks. The template's other files are written
where the package has none; an existing file is kept (``--force`` overwrites it). The scaffold
record is written too, so `neuralis update` can later bring the package up to newer templates.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from neuralis_build.npm.packagejson import MANIFEST, read_package_json
from neuralis_build.scaffold.merge import dump_json_like
from neuralis_build.scaffold.monorepo import RootWorkflow
from neuralis_build.scaffold.render import RECORD, PlannedFile
from neuralis_build.scaffold.wiring import LIFECYCLE, Wiring, plan_wiring, reaches_vite_build, toolchain_outputs
from neuralis_build.scaffold.writer import WritePlan, plan_write
from neuralis_build.util.errors import UsageError, UserError
from neuralis_build.util.regularfile import NotRegularFile

# Fields a template may add to an existing package.json. The others (private, type, exports, version…)
# change what the package is or how it resolves, so they stay the author's. ``config`` carries the
# toolchain's install pin, which the npm-script wrapper and the workflow read.
_MAPS = ("scripts", "dependencies", "devDependencies", "peerDependencies", "config")
# The host supplies these to a UI module: in ``dependencies`` they would install a second copy beside the host's.
_HOST_SUPPLIED = ("react", "react-dom")


@dataclass(frozen=True)
class AdoptPlan:
    """What ``neuralis init`` writes: the files, what each one is, and the notes for the author."""

    name: str
    template: str
    write: WritePlan
    marks: dict[str, str]
    notes: tuple[str, ...]
    manifest_before: str = ""
    """package.json as it was, for the diff --dry-run shows."""
    root_workflow: RootWorkflow | None = None
    """Inside an npm workspaces root: the root's workflow, which the package's own is left out for."""

    @property
    def target(self) -> Path:
        return self.write.target


def read_manifest(root: Path) -> tuple[str, dict[str, Any]]:
    """The existing package.json's text and object; there must be one (init adopts, new creates)."""
    read = read_package_json(root)
    if read.raw is None and isinstance(read.error, FileNotFoundError | NotRegularFile):
        raise UsageError(
            f"{root} has no package.json: neuralis init adds a template to an existing npm package",
            hint="run npm init first, or create a new package with neuralis new",
        )
    if read.error is not None:
        raise UserError(f"{read.path}: not readable as JSON ({read.error})", hint="fix package.json first")
    if read.object is None or read.text is None:
        raise UserError(f"{read.path}: package.json is not a JSON object")
    return read.text, read.object


def adopt_manifest(
    text: str,
    current: dict[str, Any],
    template: dict[str, Any],
    *,
    force: bool,
    packed: list[str] | None = None,
    wiring: Wiring | None = None,
) -> tuple[str, list[str]]:
    """The author's package.json with the template's block and missing entries added; notes say what was kept.

    ``packed``: what ``npm pack`` takes from the package today, for a package without ``files``: it gets a
    ``files`` list of that and the template's outputs, since the template's .gitignore leaves dist/ out, and
    npm reads .gitignore when nothing else says what to ship. ``wiring``: the scripts that move aside for
    the template's and the template scripts this package needs otherwise (see scaffold.wiring).
    """
    wiring = wiring or Wiring()
    notes: list[str] = list(wiring.notes)
    merged = dict(current)
    if "neuralis" in current and not force:
        raise UserError(
            f"{MANIFEST} already has a neuralis block",
            hint="pass --force to replace it with the template's, or edit it by hand",
        )
    merged["neuralis"] = template["neuralis"]
    template = dict(template)
    if isinstance(template.get("scripts"), dict):
        template["scripts"] = {**template["scripts"], **wiring.scripts}
    own_scripts = current.get("scripts")
    if isinstance(own_scripts, dict) and wiring.renames:
        merged["scripts"] = {wiring.renames.get(k, k): v for k, v in own_scripts.items()}
    for field in _MAPS:
        wanted = template.get(field)
        if not isinstance(wanted, dict):
            continue
        have = merged.get(field)
        if have is None:
            merged[field] = dict(wanted)
            continue
        if not isinstance(have, dict):
            notes.append(f'"{field}" is not an object, so the template\'s entries were not added')
            continue
        added = dict(have)
        for key, value in wanted.items():
            if key not in have:
                added[key] = value
            elif have[key] != value:
                notes.append(
                    f'kept your {field}["{key}"] ({json.dumps(have[key])}); the template has {json.dumps(value)}'
                )
        merged[field] = added
    notes += _move_host_supplied(merged, template)
    notes += _drop_vite_lifecycle(merged, current)
    files = current.get("files")
    wanted_files = template.get("files")
    if isinstance(files, list) and isinstance(wanted_files, list):
        merged["files"] = files + [f for f in wanted_files if f not in files]
    elif files is None and isinstance(wanted_files, list) and wiring.outputs_only:
        merged["files"] = toolchain_outputs(wanted_files, template)
    elif files is None and isinstance(wanted_files, list) and packed is not None:
        tops = sorted({p.split("/", 1)[0] for p in packed} - {"package.json"})
        merged["files"] = [*wanted_files, *(t for t in tops if t not in wanted_files)]
        notes.append(
            f'added "files": the template\'s outputs ({", ".join(wanted_files)}) and what npm packed before '
            f"({', '.join(tops) or 'nothing else'}), since the template's .gitignore leaves dist/ out of the tarball"
        )
    own_type, wanted_type = current.get("type"), template.get("type")
    block = template.get("neuralis")
    server_side = isinstance(block, dict) and ("events" in block or "routes" in block)
    if wanted_type == "module" and own_type not in (None, "module") and server_side:
        notes.append(
            f'kept your "type": {json.dumps(own_type)}; the template compiles events and routes to ES modules '
            '(dist/**/*.js), which Node loads only with "type": "module": set it, once your own .js files are ES '
            "modules (or rename them .cjs)"
        )
    return dump_json_like(merged, text), notes


def _move_host_supplied(merged: dict[str, Any], template: dict[str, Any]) -> list[str]:
    """react and react-dom move from ``dependencies`` to ``devDependencies`` when the template's UI module has
    the host supply React (a peer): the author's ranges are kept."""
    peers = template.get("peerDependencies")
    deps, dev = merged.get("dependencies"), merged.get("devDependencies")
    if not (isinstance(peers, dict) and "react" in peers and isinstance(deps, dict)):
        return []
    moving = [name for name in _HOST_SUPPLIED if name in deps]
    if not moving or (dev is not None and not isinstance(dev, dict)):
        return []
    dev = dict(dev or {})
    for name in moving:
        dev[name] = deps[name]  # the author's range wins over the template's, as for every other entry
    merged["devDependencies"] = dev
    merged["dependencies"] = {k: v for k, v in deps.items() if k not in moving}
    if not merged["dependencies"]:
        del merged["dependencies"]
    return [
        f"moved {' and '.join(moving)} from dependencies to devDependencies: the host supplies React to the UI "
        "module, and a copy in dependencies would be installed beside it"
    ]


def _drop_vite_lifecycle(merged: dict[str, Any], current: dict[str, Any]) -> list[str]:
    """Leave out a lifecycle script the template added that would run ``vite build`` (it empties dist/ before
    npm packs or installs it); name the author's own that do."""
    scripts = merged.get("scripts")
    if not isinstance(scripts, dict):
        return []
    own_scripts = current.get("scripts")
    own = own_scripts if isinstance(own_scripts, dict) else {}
    notes = []
    for event in LIFECYCLE:
        if event not in scripts or not reaches_vite_build(scripts, event):
            continue
        if event in own:
            notes.append(
                f'your scripts["{event}"] runs vite build, which empties dist/ (the UI module with it) '
                "when npm runs it: run npm run build:ui after vite build in it"
            )
        else:
            del scripts[event]
            notes.append(f'left out the template\'s scripts["{event}"]: it would run vite build, which empties dist/')
    return notes


def plan_adopt(
    root: Path, template_name: str, *, package_id: str | None, description: str | None, force: bool
) -> AdoptPlan:
    """Plan ``neuralis init`` in ``root``: everything rendered and merged in memory, nothing written."""
    from neuralis_build.scaffold.create import clean_description, default_description, render_member
    from neuralis_build.scaffold.names import check_name
    from neuralis_build.scaffold.templates import get_template

    root = root.resolve()
    if (root / RECORD).exists():
        raise UserError(
            f"{root} was already scaffolded ({RECORD} is there)",
            hint="neuralis update brings it up to the current templates",
        )
    text, current = read_manifest(root)
    from neuralis_build.workspaces import workspace_patterns

    if workspace_patterns(root) is not None:  # a monorepo's root is private and packs no members
        raise UserError(
            f"{root / MANIFEST} declares workspaces: this folder is an npm workspaces root, not a package",
            hint="run neuralis init in a member's folder, or neuralis new <name> here to make a new member",
        )
    name = current.get("name")
    if not isinstance(name, str):
        raise UserError(f"{root / MANIFEST} has no name", hint='add "name" (npm init does) and run neuralis init again')
    check_name(name, what="package name in package.json", flag='"name" in package.json')
    if package_id is not None:
        check_name(package_id, what="package id", flag="--id")
    template = get_template(template_name)
    own = current.get("description")
    text_description = clean_description(description or (own if isinstance(own, str) else "") or "")
    answers = {
        "name": name,
        "id": package_id or name,
        "description": text_description or default_description(template, name),
    }
    version = current.get("version")
    if isinstance(version, str) and version.strip():
        answers["version"] = version  # the README names the tarball npm will write
    rendered, _, workflow = render_member(template, answers, root)
    files, marks, notes = [], {}, []
    for f in rendered:
        dest = root / f.path
        if f.path == MANIFEST:
            wanted = json.loads(f.content)
            wiring = plan_wiring(root, current, wanted)
            packed = _packed_today(root, current) if "files" not in current and not wiring.outputs_only else None
            merged, kept = adopt_manifest(text, current, wanted, force=force, packed=packed, wiring=wiring)
            files.append(PlannedFile(MANIFEST, merged.encode("utf-8")))
            marks[MANIFEST], notes = "merge", kept
        elif not dest.exists():
            files.append(f)
            marks[f.path] = "new"
        elif dest.is_file() and dest.read_bytes() == f.content:
            continue
        elif force and dest.is_file():
            files.append(f)
            marks[f.path] = "overwrite"
        else:
            marks[f.path] = "kept yours"
    write = plan_write(root, files, force=True)
    return AdoptPlan(name, template.name, write, marks, tuple(notes), text, workflow)


def _packed_today(root: Path, manifest: dict[str, Any]) -> list[str] | None:
    """What ``npm pack`` takes from the package as it is, or None when that cannot be listed."""
    from neuralis_build.pack.packlist import packlist
    from neuralis_build.util.errors import NeuralisError

    try:
        return packlist(root, manifest)
    except NeuralisError:
        return None
