"""Judge an installed UI module against the host the image is built for (spec: "app.module")."""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from neuralis_build.hostprofile import HostProfile

RECORD = "dist/app/shared-imports.json"

# The build-output rules of `check` that judge a UI module (NB16xx). In the image a refused module
# keeps its package loaded, so these verdicts go to the report's "module" field, never refuse a package.
MODULE_VERDICT_CODES = frozenset(
    {"NB1601", "NB1602", "NB1604", "NB1605", "NB1606", "NB1607", "NB1608", "NB1609", "NB1610", "NB1611"}
)
REBUILD = "rebuild with neuralis-build ui"
_INSTALL_EXPORT = re.compile(r"^install[A-Z][A-Za-z0-9]*HostComponents$")
_EXPORT_CLAUSE = re.compile(r"\bexport\s*\{([^}]*)\}")
_EXPORT_DECL = re.compile(
    r"\bexport\s+(?:default\s+)?(?:async\s+)?(?:function\s*\*?|const|let|var|class)\s+([A-Za-z_$][\w$]*)"
)


@dataclass(frozen=True)
class ModuleVerdict:
    """Accepted, or refused with a reason a person can act on."""

    status: Literal["accepted", "refused"]
    reason: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"status": self.status, "reason": self.reason}


def _refused(reason: str) -> ModuleVerdict:
    return ModuleVerdict("refused", reason)


def reads_react(ids: Collection[str]) -> bool:
    """True when a bundle imports React or React DOM (or any of their subpaths)."""
    return any(i in ("react", "react-dom") or i.startswith(("react/", "react-dom/")) for i in ids)


def exported_names(source: str) -> set[str]:
    """The names an ES module exports, read from its export statements (esbuild writes one export clause)."""
    names: set[str] = set()
    for clause in _EXPORT_CLAUSE.findall(source):
        for item in clause.split(","):
            words = item.split()
            if words:
                names.add(words[-1].strip("\"'"))
    names.update(_EXPORT_DECL.findall(source))
    return names


def _record_problem(record: Any) -> str | None:
    if not isinstance(record, dict):
        return "is not a JSON object"
    missing = sorted({"hostApiVersion", "reactMajor", "sharedImports"} - set(record))
    if missing:
        return f"lacks {', '.join(missing)}"
    if not isinstance(record["hostApiVersion"], str):
        return "has a hostApiVersion that is not a string"
    major = record["reactMajor"]
    if major is not None and (not isinstance(major, int) or isinstance(major, bool)):
        return "has a reactMajor that is neither a whole number nor null"
    imports = record["sharedImports"]
    if not isinstance(imports, list) or not all(isinstance(i, str) for i in imports):
        return "has sharedImports that is not a list of module ids"
    return None


def judge_module(root: Path, module: dict[str, Any], host: HostProfile, published: Collection[str]) -> ModuleVerdict:
    """Accept the module at ``root`` only when the host could render it; ``published`` are the loaded packages' ids."""
    entry = module.get("entry")
    if not isinstance(entry, str) or not (root / entry).is_file():
        return _refused(f"the module entry {entry} is not in the installed package: {REBUILD} and keep dist/ in files")
    try:
        record = json.loads((root / RECORD).read_text("utf-8"))
    except FileNotFoundError:
        return _refused(f"there is no {RECORD} beside the bundle: {REBUILD}")
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        return _refused(f"{RECORD} cannot be read ({exc}): {REBUILD}")
    problem = _record_problem(record)
    if problem:
        return _refused(f"{RECORD} {problem}: {REBUILD}")
    if record["hostApiVersion"] != host.host_api_version:
        return _refused(f"built for host API {record['hostApiVersion']}, host is {host.host_api_version}: {REBUILD}")
    imports: list[str] = record["sharedImports"]
    if reads_react(imports):
        major = record["reactMajor"]
        if major is None:
            return _refused(f"the bundle reads React but its record names no React major: install react and {REBUILD}")
        if major != host.react_major:
            return _refused(
                f"built against React {major}, host has React {host.react_major}: "
                f"move react to ^{host.react_major} and {REBUILD}"
            )
    try:
        source = (root / entry).read_text("utf-8", errors="replace")
    except OSError as exc:
        return _refused(f"the module entry {entry} cannot be read ({exc})")
    if not any(_INSTALL_EXPORT.match(name) for name in exported_names(source)):
        return _refused(
            f"{entry} exports no install<Name>HostComponents function: export one from src/app/host and {REBUILD}"
        )
    available = set(host.shared_modules) | set(published)
    unknown = sorted(set(imports) - available)
    if unknown:
        return _refused(
            f"reads {', '.join(unknown)}, which neither the host nor any loaded package publishes: install the package "
            "that publishes it (app.module.provides), or bundle it and " + REBUILD
        )
    return ModuleVerdict("accepted")
