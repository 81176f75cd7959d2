"""sources[]: declared source instances (spec: "sources — declared source instances").

Trust gates drop the declaration with a warning (the package still loads, the source is not
seeded): ``seed: "auto"`` needs trusted+, a ``${appRoot}`` root needs first-party, and an
untrusted package may only declare project-scoped, project-relative, discoverable sources.
"""

from __future__ import annotations

import re
from typing import Any

from neuralis_build.manifest.checker import Checker
from neuralis_build.manifest.compound import Arr, Field, Obj
from neuralis_build.manifest.engine import Section
from neuralis_build.manifest.sections.connectors import SLUG
from neuralis_build.manifest.shape import JudgedStr, Str
from neuralis_build.model import block as model
from neuralis_build.util.diagnostics import code
from neuralis_build.util.trust import at_least

NB0901 = code(
    "NB0901", "source-key", "a sources[] entry has a key outside { source, kind, root, scope, description, seed }"
)
NB0902 = code("NB0902", "source-slug", "a source slug or kind is not a lower-case slug")
NB0903 = code("NB0903", "source-scope", "a source scope is not project, agent, user or global")
NB0904 = code("NB0904", "source-seed", 'a source seed is not "auto" or "discoverable"')
NB0905 = code("NB0905", "source-root", "a source root is not a relative path or ${appRoot}[/<path>]")
NB0906 = code("NB0906", "source-duplicate", "two sources[] entries declare the same source slug")
NB0907 = code("NB0907", "source-seed-auto-gated", 'seed "auto" on a package below trusted: the source is dropped')
NB0908 = code("NB0908", "source-app-root-gated", "a ${appRoot} root on a package below first-party: dropped")
NB0909 = code("NB0909", "source-untrusted-scope", "an untrusted package declares a source outside project scope")

SCOPES = ("project", "agent", "user", "global")
SEEDS = ("auto", "discoverable")
APP_ROOT = "${appRoot}"
_DRIVE = re.compile(r"^[A-Za-z]:")


def is_app_root(root: str) -> bool:
    """True when ``root`` is the platform root ``${appRoot}`` or a path under it."""
    return root == APP_ROOT or root.startswith(APP_ROOT + "/")


def root_problem(root: str) -> str | None:
    """What is wrong with a source root: a path relative to the scope's root, or ``${appRoot}[/<path>]``."""
    if root == "":
        return 'is empty; use "." for the scope\'s own root'
    body = root
    if root.startswith("${"):
        name = root[2:].split("}", 1)[0]
        if name != "appRoot":
            return f"uses the unknown placeholder ${{{name}}}; only ${{appRoot}} is known"
        if root == APP_ROOT:
            return None
        if not root.startswith(APP_ROOT + "/"):
            return "must continue with / after ${appRoot}"
        body = root[len(APP_ROOT) + 1 :]
    if "$" in body or "{" in body or "}" in body:
        return "has a placeholder that is not at its start; only a leading ${appRoot} is known"
    if body.startswith("~"):
        return "starts with ~; a root is relative to the scope, or under ${appRoot}"
    if body.startswith(("/", "\\")) or _DRIVE.match(body):
        return "is an absolute path; a root is relative to the scope's root, or under ${appRoot}"
    if "\\" in body:
        return "uses a backslash; roots use /"
    segments = body.split("/")
    if ".." in segments:
        return "has a .. segment, which could lead out of the scope"
    if "" in segments:
        return "has an empty segment (// or a trailing /)"
    return None


def _gates(entry: dict[str, Any], pointer: str, c: Checker) -> None:
    gated = False
    if entry["seed"] == "auto" and not at_least(c.trust, "trusted"):
        c.warning(
            NB0907,
            pointer + "/seed",
            f'seed "auto" needs a trusted or first-party package ({c.trust}); the source "{entry["source"]}" '
            "is dropped at load",
            'use "seed": "discoverable" so a project owner can add it on demand',
        )
        gated = True
    if is_app_root(entry["root"]) and not at_least(c.trust, "first-party"):
        c.warning(
            NB0908,
            pointer + "/root",
            f"a ${{appRoot}} root is a platform root, honored for first-party packages only ({c.trust}); the source "
            f'"{entry["source"]}" is dropped at load',
            "use a project-relative root such as data/<name>",
        )
        gated = True
    if c.trust == "untrusted" and entry["scope"] != "project":
        c.warning(
            NB0909,
            pointer + "/scope",
            f'an untrusted package may only declare project sources, not "{entry["scope"]}"; the source '
            f'"{entry["source"]}" is dropped at load',
            'use "scope": "project"',
        )
        gated = True
    if gated:
        c.dropped.add(pointer)


SOURCE = Obj(
    fields={
        "source": Field(
            Str(
                pattern=SLUG,
                pattern_code=NB0902,
                pattern_message="is not a slug: start with a lower-case letter, then up to 63 of a-z, 0-9, _ or -",
                description="The source slug, unique in the package; the package becomes its origin.",
            ),
            required=True,
        ),
        "kind": Field(
            Str(
                pattern=SLUG,
                pattern_code=NB0902,
                pattern_message="is not a slug: start with a lower-case letter, then up to 63 of a-z, 0-9, _ or -",
                description="A registered source kind (a connectors[] source kind of this or another package).",
            ),
            required=True,
        ),
        "root": Field(
            JudgedStr(
                judge=root_problem,
                judge_code=NB0905,
                judge_hint='a path relative to the scope\'s root ("data", "docs/specs", ".") or ${appRoot}/<path>',
                description='Relative to the scope\'s root ("." is the root itself), or ${appRoot}[/<path>] for a '
                "platform root (first-party only).",
            ),
            required=True,
        ),
        "scope": Field(
            Str(
                enum=SCOPES,
                enum_code=NB0903,
                description="Who owns the source instance: project, agent, user or global (untrusted: project only).",
            ),
            required=True,
        ),
        "description": Field(
            Str(min_length=1, description="Rendered into the agent's runtime-stack prompt block."), required=True
        ),
        "seed": Field(
            Str(
                enum=SEEDS,
                enum_code=NB0904,
                description="auto: seeded into every new project (trusted+); discoverable: added on demand.",
            ),
            required=True,
        ),
    },
    unknown_code=NB0901,
    what="a sources[] entry (exactly { source, kind, root, scope, description, seed })",
    checks=(_gates,),
    description="A concrete source instance of a registered kind.",
    model=model.Source,
)

SECTION = Section(
    name="sources",
    fields={
        "sources": Field(
            Arr(
                SOURCE,
                unique=lambda entry: entry["source"],
                unique_code=NB0906,
                unique_what="source slug",
                unique_pointer=lambda at: at + "/source",
                description="Source instances the platform seeds into new projects or offers for on-demand add.",
            )
        )
    },
)
