"""``require()`` of a host-shared module inside a bundled CommonJS library, turned into an ES import.

A CommonJS dependency (use-sync-external-store, react-redux, swr, …) calls ``require("react")``.
With react external and ESM output, esbuild leaves that call to its ``__require`` shim, which uses
a ``require`` in scope when there is one and otherwise throws "Dynamic require of "react" is not
supported". The build therefore gives such a bundle a banner that imports exactly the ids
the metafile shows as ``require-call`` and defines ``require`` over them, put in front of the
built module (esbuild's own ``--banner`` would cost a second build to learn the ids first): the bundle then imports
React once from the host, like every ES import does, and the record lists exactly those ids.
A ``require`` the host cannot satisfy still throws the same error (and the build refuses any id
outside the host's shared modules and the published ids before it gets that far).
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
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


def prepend_banner(js_path: Path, ids: list[str]) -> None:
    """Put the banner before the built module; its map (when kept) moves down by the banner's lines."""
    text = banner(ids) + "\n"
    js_path.write_text(text + js_path.read_text("utf-8"), "utf-8")
    map_path = js_path.with_name(js_path.name + ".map")
    if map_path.is_file():  # a map's lines are ';'-separated: new empty lines in front shift the rest
        data = json.loads(map_path.read_text("utf-8"))
        data["mappings"] = ";" * text.count("\n") + data.get("mappings", "")
        map_path.write_text(json.dumps(data, indent=2) + "\n", "utf-8")
