"""dataLayout: the directory names a package uses in its zone, and the files it writes on its own.

Spec: "dataLayout — where the package keeps its files" and "machineWritten — the files the package
writes on its own". The names land in every agent's cached prompt prefix, so the validator is
fail-closed: every problem is an error. machineWritten is used for trusted and first-party
packages only; on an untrusted package it is dropped with a warning.
"""

from __future__ import annotations

from neuralis_build.manifest.compound import Arr, Field, Obj
from neuralis_build.manifest.engine import Section
from neuralis_build.manifest.paths import GLOB_PATTERN, zone_glob_problem
from neuralis_build.manifest.shape import JudgedStr, Str
from neuralis_build.model import block as model
from neuralis_build.util.diagnostics import code
from neuralis_build.util.trust import Trust

NB1301 = code("NB1301", "datalayout-key", "dataLayout (or a machineWritten entry) has a key its shape does not allow")
NB1302 = code("NB1302", "datalayout-name", "a dataLayout directory name is not a plain name (traversal, separator…)")
NB1303 = code("NB1303", "datalayout-duplicate", "a directory name is listed twice in the same list")
NB1304 = code("NB1304", "machine-written-path", "a machineWritten glob leaves the zone or has a bad character")
NB1305 = code("NB1305", "machine-written-class", "a machineWritten class is not metrics, log or runtime-text")
NB1306 = code("NB1306", "machine-written-duplicate", "two machineWritten entries declare the same path")
NB1307 = code("NB1307", "machine-written-untrusted", "machineWritten on an untrusted package is dropped")

NAME_PATTERN = r"^(?!.*\.\.)[A-Za-z0-9._-]{1,64}$"
CLASSES = ("metrics", "log", "runtime-text")
MAX_NAME = 64


def name_problem(name: str) -> str | None:
    """Why ``name`` is not a plain first-level directory name, or None when it is one."""
    if name == "":
        return "is empty"
    if name == "." or ".." in name:
        return "is a traversal; a name is one directory inside the zone"
    if "/" in name or "\\" in name:
        return "has a path separator; list the first-level directory name only"
    if "<" in name or ">" in name:
        return "has a placeholder such as <self>; the zone is implied, write the bare name"
    if "{" in name or "}" in name:
        return "has a brace; list each name as its own entry"
    if "," in name:
        return "has a comma; list each name as its own entry"
    if any(ch.isspace() for ch in name):
        return "has whitespace; names only, no descriptions"
    bad = [ch for ch in name if not (ch.isascii() and (ch.isalnum() or ch in "._-"))]
    if bad:
        return f"has the character {bad[0]!r}; a name uses letters, digits, ., _ and -"
    if len(name) > MAX_NAME:
        return f"has {len(name)} characters; at most {MAX_NAME} are allowed"
    return None


def _names(what: str) -> Arr:
    return Arr(
        JudgedStr(
            judge=name_problem,
            judge_code=NB1302,
            judge_hint='write a bare first-level directory name, such as "cache"',
            schema_pattern=NAME_PATTERN,
            description="A first-level directory name: letters, digits, ., _ and -.",
        ),
        unique=lambda name: name,
        unique_code=NB1303,
        unique_what="directory name",
        description=what,
    )


MACHINE_WRITTEN_ENTRY = Obj(
    fields={
        "path": Field(
            JudgedStr(
                judge=zone_glob_problem,
                judge_code=NB1304,
                judge_hint="a glob relative to your zone: letters, digits, ., _, -, * (one segment), ** (any depth)",
                schema_pattern=GLOB_PATTERN,
                description="A glob relative to the package's zone: * is one path segment, ** any depth.",
            ),
            required=True,
        ),
        "class": Field(
            Str(
                enum=CLASSES,
                enum_code=NB1305,
                description="metrics (numbers only, left out of the index), log (default exclude) or runtime-text "
                "(searchable runtime state).",
            ),
            required=True,
        ),
    },
    unknown_code=NB1301,
    what="a machineWritten entry (exactly { path, class })",
    model=model.MachineWritten,
)

DATA_LAYOUT = Obj(
    fields={
        "directories": Field(_names("Package-level folders: data://<zone>/<name>/.")),
        "agentDirectories": Field(_names("Folders keyed by agent id: data://<zone>/<agentId>/<name>/.")),
        "machineWritten": Field(
            Arr(
                MACHINE_WRITTEN_ENTRY,
                unique=lambda entry: entry["path"],
                unique_code=NB1306,
                unique_what="machineWritten path",
                unique_pointer=lambda at: at + "/path",
                description="Counters, logs and runtime state the package writes on its own; never rendered into "
                "the prompt.",
            ),
            min_trust=Trust.TRUSTED,
            drop_code=NB1307,
            drop_message="machineWritten is used for trusted and first-party packages only; it is dropped at load",
        ),
    },
    unknown_code=NB1301,
    what="dataLayout (exactly { directories?, agentDirectories?, machineWritten? })",
    description="Where the package keeps its files under its data:// zone; rendered into every agent's prompt.",
    model=model.DataLayout,
)

SECTION = Section(name="dataLayout", fields={"dataLayout": Field(DATA_LAYOUT)})
