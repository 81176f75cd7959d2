"""Render a template into memory: every output path and its bytes, before anything touches the disk."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any

from neuralis_build.scaffold.templates import DOT_PREFIX, JINJA_SUFFIX, Template
from neuralis_build.util.errors import UsageError

if TYPE_CHECKING:
    from jinja2 import Environment

RECORD = ".neuralis-scaffold.json"
"""Where a generated package records its template and toolchain version, for a later ``neuralis update``."""


@dataclass(frozen=True)
class PlannedFile:
    """One file a scaffold writes: its package-relative POSIX path and its exact bytes."""

    path: str
    content: bytes


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def environment() -> Environment:
    """The Jinja2 environment every template of the toolchain renders in (new, init, update, the root workflow).

    A sandbox, and an immutable one (the templates only read their context): a template is data, and
    one that reaches for Python (``cycler.__init__.__globals__.os``) is refused with a SecurityError
    instead of running as the author. The templates come only from the toolchain's own folder
    (scaffold/history.py); the sandbox is there for the day one comes from elsewhere all the same.
    """
    from jinja2 import StrictUndefined
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    # StrictUndefined: a name the context lacks is an error, never an empty string left in a file.
    env = ImmutableSandboxedEnvironment(undefined=StrictUndefined, keep_trailing_newline=True, autoescape=False)
    env.filters["json"] = _json
    return env


def _output_path(env: Environment, rel: PurePosixPath, context: Mapping[str, Any]) -> str:
    parts = []
    for part in rel.parts:
        if "{" in part:
            part = env.from_string(part).render(context)
        if part.startswith(DOT_PREFIX):
            part = "." + part[len(DOT_PREFIX) :]
        parts.append(part)
    if parts[-1].endswith(JINJA_SUFFIX):
        parts[-1] = parts[-1][: -len(JINJA_SUFFIX)]
    if any(p in ("", ".", "..") or "/" in p or "\\" in p for p in parts):
        raise ValueError(f"renders to an unsafe path {'/'.join(parts)!r}")
    return "/".join(parts)


def _normalise_json(path: str, text: str) -> str:
    """Parse a rendered JSON file and print it the way npm does (two spaces, final newline)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"renders to invalid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})") from None
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def render_template(template: Template, context: Mapping[str, Any]) -> list[PlannedFile]:
    """Every file of ``template`` rendered with ``context``, sorted by path; a template bug is a UsageError."""
    from jinja2 import TemplateError

    env = environment()
    planned: dict[str, PlannedFile] = {}
    for rel in template.files():
        source = rel.as_posix()
        try:
            path = _output_path(env, PurePosixPath(source), context)
            raw = (template.root / rel).read_bytes()
            if source.endswith(JINJA_SUFFIX):
                text = env.from_string(raw.decode("utf-8")).render(context)
                if path.endswith(".json"):
                    text = _normalise_json(path, text)
                raw = text.encode("utf-8")
            if path in planned:
                raise ValueError(f"renders to {path}, which another file of the template also writes")
        except (TemplateError, ValueError, UnicodeDecodeError) as exc:
            raise UsageError(
                f"the {template.name} template is broken: {source}: {exc}",
                hint="this is a bug in neuralis-build's templates; please report it",
            ) from None
        planned[path] = PlannedFile(path, raw)
    return [planned[p] for p in sorted(planned)]


def scaffold_record(
    template: Template, toolchain_version: str, answers: Mapping[str, str], *, react_major: int
) -> PlannedFile:
    """The record of where a package came from: template, toolchain version, the answers given, and the
    values the toolchain put in (so `neuralis update` can render the same base again)."""
    record = {
        "$comment": "Written by `neuralis new`. `neuralis update` reads it to bring this package up to date "
        "with its template; keep it in version control.",
        "template": template.name,
        "toolchainVersion": toolchain_version,
        "answers": dict(answers),
        "reactMajor": react_major,
    }
    return PlannedFile(RECORD, (json.dumps(record, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))
