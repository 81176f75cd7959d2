"""runtime: how the package executes and what its sandbox may touch (spec: "runtime — how the package executes").

The spec prints one example only. Our reading (docs/spec-decisions.md, "runtime"): every object is
closed, the sandbox permissions use closed vocabularies (an unknown value is an error, fail-closed),
and the descriptive values (type, binding, skillScripts) warn when this toolchain does not know them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from neuralis_build.manifest.checker import Checker
from neuralis_build.manifest.compound import Arr, Field, Obj, OneOfType
from neuralis_build.manifest.engine import Section
from neuralis_build.manifest.sections.contributions import tool_names
from neuralis_build.manifest.shape import Bool, Str, StrCheck
from neuralis_build.model import block as model
from neuralis_build.util.diagnostics import Code, code
from neuralis_build.util.jsonpointer import join

NB0301 = code("NB0301", "runtime-key", "the runtime block or one of its objects carries a key it does not define")
NB0302 = code("NB0302", "runtime-value-unknown", "runtime.type, binding or skillScripts has a value not known here")
NB0303 = code("NB0303", "runtime-permission", "runtime.permissions.fs or .net is not one of its closed values")
NB0304 = code("NB0304", "hosted-tool-unknown", "runtime.hosted.tools names a tool the package does not define")
NB0305 = code("NB0305", "hosted-tool-duplicate", "runtime.hosted.tools names a tool twice")
NB0306 = code("NB0306", "hosted-tools-value", 'runtime.hosted.tools is neither "all", "none" nor a list of tool names')

TYPES = ("wasm", "node")
BINDINGS = ("none", "wasi", "component")
SKILL_SCRIPTS = ("none", "sandboxed")
FS = ("none", "data-only", "full")
NET = ("none", "full")
HOSTED_TOOLS = ("all", "none")


def _known(values: Sequence[str], what: str) -> StrCheck:
    def check(value: str, pointer: str, c: Checker) -> None:
        if value not in values:
            c.warning(
                NB0302,
                pointer,
                f'{what} "{value}" is not one this toolchain knows ({", ".join(values)}); the host may refuse it',
                "check the value against the host you deploy to",
            )

    return check


def _closed(values: Sequence[str], what: str, code: Code = NB0303) -> Str:
    return Str(enum=values, enum_code=code, description=f"{what}: one of {', '.join(values)}.")


PERMISSIONS = Obj(
    fields={
        "fs": Field(_closed(FS, "File-system access (data-only: the package's own data:// zone)")),
        "net": Field(_closed(NET, "Network access")),
        "exec": Field(Bool(description="Whether the package may start processes.")),
    },
    unknown_code=NB0301,
    what="runtime.permissions (exactly { fs?, net?, exec? })",
    description="What the package's sandbox may touch; an omitted permission is not granted.",
    model=model.Permissions,
)

HOSTED = Obj(
    fields={
        "tools": Field(
            OneOfType(
                {
                    "string": Str(
                        enum=HOSTED_TOOLS,
                        enum_code=NB0306,
                        description='"all" or "none" of the package\'s tools.',
                    ),
                    "array": Arr(
                        Str(min_length=1),
                        unique=lambda name: name,
                        unique_code=NB0305,
                        unique_what="tool",
                        description="The names of the package's tools the host runs.",
                    ),
                },
                description='Which of the package\'s tools the host runs: "all", "none" or a list of tool names.',
            )
        )
    },
    unknown_code=NB0301,
    what="runtime.hosted (exactly { tools? })",
    description="What the host runs on the package's behalf.",
    model=model.Hosted,
)

RUNTIME = Obj(
    fields={
        "type": Field(
            Str(min_length=1, checks=(_known(TYPES, "runtime type"),), description="How the code runs: wasm or node."),
            required=True,
        ),
        "binding": Field(
            Str(
                min_length=1,
                checks=(_known(BINDINGS, "binding"),),
                description="How the code binds to the host: none, wasi or component.",
            )
        ),
        "permissions": Field(PERMISSIONS),
        "hosted": Field(HOSTED),
        "skillScripts": Field(
            Str(
                min_length=1,
                checks=(_known(SKILL_SCRIPTS, "skillScripts"),),
                description="Whether scripts bundled with skills may run: none or sandboxed.",
            )
        ),
    },
    unknown_code=NB0301,
    what="runtime (exactly { type, binding?, permissions?, hosted?, skillScripts? })",
    description="How the package executes, and what its sandbox may touch.",
    model=model.Runtime,
)


def _hosted_tools_exist(block: dict[str, Any], c: Checker) -> None:
    ptr = "/neuralis/runtime/hosted/tools"
    runtime = block.get("runtime")
    hosted = runtime.get("hosted") if isinstance(runtime, dict) else None
    listed = hosted.get("tools") if isinstance(hosted, dict) else None
    if not isinstance(listed, list) or not c.usable(ptr):
        return
    if c.package is None or not isinstance(block.get("tools", []), list):
        return
    defined = set(tool_names(c.package))
    for index, name in enumerate(listed):
        if name not in defined:
            c.warning(
                NB0304,
                join(ptr, index),
                f'"{name}" is not a tool of this package',
                f"add tools/{name}.ts (or an inline tools[] entry), or remove the name",
            )


SECTION = Section(name="runtime", fields={"runtime": Field(RUNTIME)}, rules=(_hosted_tools_exist,))
