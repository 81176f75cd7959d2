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

from neuralis_build.errors import UsageError, UserError
from neuralis_build.scaffold.merge import dump_json_like
from neuralis_build.scaffold.render import RECORD, PlannedFile
from neuralis_build.scaffold.writer import WritePlan, plan_write
from neuralis_build.strictjson import parse

MANIFEST = "package.json"
# Fields a template may add to an existing package.json. The others (private, type, exports, version…)
# change what the package is or how it resolves, so they stay the author's.
_MAPS = ("scripts", "dependencies", "devDependencies", "peerDependencies")


@dataclass(frozen=True)
class AdoptPlan:
    """What ``neuralis init`` writes: the files, what each one is, and the notes for the author."""

    name: str
    template: str
    write: WritePlan
    marks: dict[str, str]
    notes: tuple[str, ...]

    @property
    def target(self) -> Path:
        return self.write.target


def read_manifest(root: Path) -> tuple[str, dict[str, Any]]:
    """The existing package.json's text and object; there must be one (init adopts, new creates)."""
    path = root / MANIFEST
    if not path.is_file():
        raise UsageError(
            f"{root} has no package.json: neuralis init adds a template to an existing npm package",
            hint="run npm init first, or create a new package with neuralis new",
        )
    try:
        text = path.read_bytes().decode("utf-8")
        data = parse(text)
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise UserError(f"{path}: not readable as JSON ({exc})", hint="fix package.json first") from None
    if not isinstance(data, dict):
        raise UserError(f"{path}: package.json is not a JSON object")
    return text, data


def adopt_manifest(
    text: str, current: dict[str, Any], template: dict[str, Any], *, force: bool, packed: list[str] | None = None
) -> tuple[str, list[str]]:
    """The author's package.json with the template's block and missing entries added; notes say what was kept.

    ``packed``: what ``npm pack`` takes from the package today, for a package without ``files``: it gets a
    ``files`` list of that and the template's outputs, since the template's .gitignore leaves dist/ out, and
    npm reads .gitignore when nothing else says what to ship.
    """
    notes: list[str] = []
    merged = dict(current)
    if "neuralis" in current and not force:
        raise UserError(
            f"{MANIFEST} already has a neuralis block",
            hint="pass --force to replace it with the template's, or edit it by hand",
        )
    merged["neuralis"] = template["neuralis"]
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
    files = current.get("files")
    wanted_files = template.get("files")
    if isinstance(files, list) and isinstance(wanted_files, list):
        merged["files"] = files + [f for f in wanted_files if f not in files]
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


def plan_adopt(
    root: Path, template_name: str, *, package_id: str | None, description: str | None, force: bool
) -> AdoptPlan:
    """Plan ``neuralis init`` in ``root``: everything rendered and merged in memory, nothing written."""
    from neuralis_build.scaffold.create import clean_description, default_description, render_package
    from neuralis_build.scaffold.names import check_name
    from neuralis_build.scaffold.templates import get_template

    root = root.resolve()
    if (root / RECORD).exists():
        raise UserError(
            f"{root} was already scaffolded ({RECORD} is there)",
            hint="neuralis update brings it up to the current templates",
        )
    text, current = read_manifest(root)
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
    files, marks, notes = [], {}, []
    for f in render_package(template, answers):
        dest = root / f.path
        if f.path == MANIFEST:
            packed = _packed_today(root, current) if "files" not in current else None
            merged, kept = adopt_manifest(text, current, json.loads(f.content), force=force, packed=packed)
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
    return AdoptPlan(name, template.name, write, marks, tuple(notes))


def _packed_today(root: Path, manifest: dict[str, Any]) -> list[str] | None:
    """What ``npm pack`` takes from the package as it is, or None when that cannot be listed."""
    from neuralis_build.errors import NeuralisError
    from neuralis_build.pack.packlist import packlist

    try:
        return packlist(root, manifest)
    except NeuralisError:
        return None
