"""package.json's npm fields as typed values, read once: name, version, license, scripts, dependency maps.

What npm itself reads loosely stays loose here in the same way (a map that is not an object is no
map; a script that is not a string is no script). The npm pack port (pack/) keeps reading ``files``,
``bin``, ``exports`` and friends from the JSON as npm's JavaScript does, coercions included.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

DEPENDENCY_FIELDS = ("dependencies", "devDependencies", "peerDependencies", "optionalDependencies")


def _map(value: Any) -> dict[str, Any]:
    return dict(value) if isinstance(value, dict) else {}


@dataclass(frozen=True, slots=True)
class NpmFields:
    """The npm side of one package.json (its ``neuralis`` block is the model's, model/block.py)."""

    name: str | None = None
    version: str | None = None
    license: str | None = None
    """An SPDX expression (the old ``{type}`` and ``[{type}]`` forms read as one)."""
    scripts: Mapping[str, Any] = field(default_factory=dict)
    dependencies: Mapping[str, Any] = field(default_factory=dict)
    dev_dependencies: Mapping[str, Any] = field(default_factory=dict)
    peer_dependencies: Mapping[str, Any] = field(default_factory=dict)
    optional_dependencies: Mapping[str, Any] = field(default_factory=dict)
    has_version: bool = False
    """True when package.json has a ``version`` key at all (whatever its value)."""
    workspaces: tuple[str, ...] | None = None
    """The ``workspaces`` globs (npm's array, or Yarn's ``{packages: [...]}``); None when the key is absent."""
    declares_neuralis: bool = False
    """The package.json has a ``neuralis`` key (the host's discovery signal), whatever its value."""
    postcss: bool = False
    """package.json carries a PostCSS config (a ``postcss`` object or string), as postcss-load-config reads it."""
    bundled: tuple[str, tuple[str, ...]] = ("bundleDependencies", ())
    """The key that names the bundled dependencies, and their names as npm normalises them."""
    engines_node: str | None = None
    """The range ``engines.node`` declares (npm's EBADENGINE check reads it); None when it is not a string."""

    def ranges(self, field: str) -> Mapping[str, Any]:
        """The dependency map of ``field`` (``dependencies``, ``devDependencies``, …); empty when absent."""
        return {
            "dependencies": self.dependencies,
            "devDependencies": self.dev_dependencies,
            "peerDependencies": self.peer_dependencies,
            "optionalDependencies": self.optional_dependencies,
        }[field]

    def range_of(self, field: str, name: str) -> str | None:
        """The range ``field`` gives for ``name`` when it is a string."""
        spec = self.ranges(field).get(name)
        return spec if isinstance(spec, str) else None

    def script_text(self, name: str) -> str | None:
        """The script ``name`` when it is a string."""
        value = self.scripts.get(name)
        return value if isinstance(value, str) else None

    def script(self, name: str) -> str | None:
        """The script ``name`` when it is a non-empty value (npm runs any truthy one), as text."""
        value = self.scripts.get(name)
        return str(value) if value else None


def license_of(value: Any) -> str | None:
    """package.json's ``license`` (an SPDX expression), or the old ``{type}`` / ``[{type}]`` forms."""
    if isinstance(value, str) and value.strip():
        return value.strip()
    if isinstance(value, dict) and isinstance(value.get("type"), str):
        return str(value["type"])
    if isinstance(value, list):
        types = [str(v["type"]) for v in value if isinstance(v, dict) and isinstance(v.get("type"), str)]
        return " OR ".join(types) if types else None
    return None


def npm_fields(manifest: Mapping[str, Any] | None) -> NpmFields:
    """The npm fields of a package.json object (all absent for None)."""
    if manifest is None:
        return NpmFields()
    name, version = manifest.get("name"), manifest.get("version")
    return NpmFields(
        name=name if isinstance(name, str) else None,
        version=version if isinstance(version, str) else None,
        license=license_of(manifest.get("license")),
        scripts=_map(manifest.get("scripts")),
        dependencies=_map(manifest.get("dependencies")),
        dev_dependencies=_map(manifest.get("devDependencies")),
        peer_dependencies=_map(manifest.get("peerDependencies")),
        optional_dependencies=_map(manifest.get("optionalDependencies")),
        has_version="version" in manifest,
        workspaces=_workspaces(manifest),
        declares_neuralis="neuralis" in manifest,
        postcss=isinstance(manifest.get("postcss"), dict | str),
        bundled=_bundled(manifest),
        engines_node=_engines_node(manifest.get("engines")),
    )


def _engines_node(engines: Any) -> str | None:
    node = engines.get("node") if isinstance(engines, dict) else None
    return node if isinstance(node, str) else None


def _workspaces(manifest: Mapping[str, Any]) -> tuple[str, ...] | None:
    if "workspaces" not in manifest:
        return None
    declared = manifest["workspaces"]
    if isinstance(declared, dict):
        declared = declared.get("packages")
    return tuple(p for p in declared if isinstance(p, str)) if isinstance(declared, list) else ()


def _bundled(manifest: Mapping[str, Any]) -> tuple[str, tuple[str, ...]]:
    """The bundled dependency names as npm normalises them (``true`` means every dependency)."""
    key = "bundleDependencies" if "bundleDependencies" in manifest else "bundledDependencies"
    value = manifest.get(key)
    deps = manifest.get("dependencies")
    if value is True:
        return key, tuple(deps) if isinstance(deps, dict) else ()
    if isinstance(value, dict):
        return key, tuple(value)
    if isinstance(value, list):
        return key, tuple(v for v in value if isinstance(v, str))
    return key, ()
