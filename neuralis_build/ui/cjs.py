"""``require()`` of a host-shared module inside a bundled CommonJS library, turned into an ES import.

A CommonJS dependency (use-sync-external-store, react-redux, swr, …) calls ``require("react")``.
With react external and ESM output, esbuild leaves that call to its ``__require`` shim, which uses
a ``require`` in scope when there is one and otherwise throws "Dynamic require of "react" is not
supported". The build therefore rebuilds such a bundle with a banner that imports exactly the ids
the metafile shows as ``require-call`` and defines ``require`` over them: the bundle then imports
React once from the host, like every ES import does, and the record lists exactly those ids.
A ``require`` the host cannot satisfy still throws the same error (and the build refuses any id
outside the host's shared modules and the published ids before it gets that far).
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from typing import Any


def required_ids(out: Mapping[str, Any], allowed: Collection[str]) -> list[str]:
    """The shared or published ids the bundle ``require()``s, sorted."""
    return sorted(
        {
            i["path"]
            for i in out.get("imports", [])
            if i.get("external") and i.get("kind") == "require-call" and i["path"] in allowed
        }
    )


def banner(ids: list[str]) -> str:
    """A module prologue importing ``ids`` and defining ``require`` over them (what esbuild's shim calls)."""
    lines = [f"import * as __neuralis_require_{i} from {json.dumps(m)};" for i, m in enumerate(ids)]
    table = ", ".join(f"{json.dumps(m)}: __neuralis_require_{i}" for i, m in enumerate(ids))
    lines.append(f"var __neuralis_required = {{ {table} }};")
    lines.append(
        "var require = (id) => { if (Object.prototype.hasOwnProperty.call(__neuralis_required, id)) "
        "return __neuralis_required[id]; throw Error('Dynamic require of \"' + id + '\" is not supported'); };"
    )
    return "\n".join(lines)


def banner_arg(ids: list[str]) -> str:
    return f"--banner:js={banner(ids)}"
