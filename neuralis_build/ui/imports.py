"""What a UI bundle may import, and the refusals of what it may not (NB1904, NB1905), each site once.

A refusal names the file that imports the id and, for a file deep in node_modules, the dependency
the author's own code imported that brought it in (the import chain from esbuild's metafile).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from neuralis_build.hostprofile import HostProfile
from neuralis_build.npm.nodemodules import package_name_of
from neuralis_build.npm.resolve import installed_ui_packages
from neuralis_build.package import Package
from neuralis_build.ui.driver import locate_import
from neuralis_build.util.diagnostics import Code, Diagnostic, code

if TYPE_CHECKING:
    from typing import Any

NB1904 = code("NB1904", "ui-unpublished-import", "the bundle imports a module another UI package does not publish")
NB1905 = code("NB1905", "ui-unprovided-import", "the bundle imports a subpath of a shared module the host lacks")


@dataclass(frozen=True, slots=True)
class Scope:
    """What the build may import: host ids, published ids, and the packages that ship UI modules."""

    shared: frozenset[str]
    published: Mapping[str, str]  # id -> publishing package name
    ui_packages: Mapping[str, Path | None]  # name -> folder when installed
    warnings: tuple[Diagnostic, ...] = ()  # dependencies whose package.json could not be read

    @property
    def allowed(self) -> frozenset[str]:
        return self.shared | frozenset(self.published)

    @property
    def externals(self) -> list[str]:
        # Whole package names, so esbuild leaves every subpath external and the build can name the bad ones.
        names = {package_name_of(m) for m in self.shared} | set(self.ui_packages) | set(self.published)
        return sorted(names)


def scope_of(package: Package, host: HostProfile, published: Mapping[str, str] | None) -> Scope:
    """The scope of a build: ``published`` when given, else what the installed UI packages publish."""
    installed = installed_ui_packages(package.root, exclude=package.name)
    if published is None:
        published = {pid: pkg.name for pkg in installed.packages.values() for pid in pkg.provides}
    own = package.name
    published = {pid: name for pid, name in sorted(published.items()) if name != own}
    ui: dict[str, Path | None] = {name: pkg.root for name, pkg in installed.packages.items()}
    for name in published.values():
        ui.setdefault(name, None)
    return Scope(frozenset(host.shared_modules), published, ui, tuple(installed.diagnostics(package.root)))


def importers(meta: Mapping[str, Any], module_id: str) -> list[str]:
    """The input files whose import of external ``module_id`` reached the bundle."""
    found = []
    for path, info in meta.get("inputs", {}).items():
        if any(i.get("external") and i.get("path") == module_id for i in info.get("imports", [])):
            found.append(path)
    return sorted(found)


def located(
    root: Path, c: Code, meta: Mapping[str, Any], entry: str, file: str, module_id: str, message: str, hint: str
) -> Diagnostic:
    """A refusal at the import of ``module_id`` in ``file``; a dependency's file names who brought it in."""
    from neuralis_build.ui.graph import describe_chain, first_dependency, import_chain, package_of  # refusals only

    where = locate_import(root, file, module_id)
    line, column = where if where else (None, None)
    owner = package_of(file)
    if owner is not None:
        chain = import_chain(meta, entry, file)
        top = first_dependency(chain) or owner
        message = f"{owner} {message}; it is bundled because of {top} ({describe_chain(chain)})"
        hint = f"{hint}; or use another version of {top} (or another library) that does not import it"
    return Diagnostic("error", c.id, file, "", message, hint, line, column)


def check_imports(
    root: Path, meta: Mapping[str, Any], out: Mapping[str, Any], scope: Scope, entry: str
) -> list[Diagnostic]:
    """NB1904/NB1905 for each external id outside the scope, once per importing file."""
    problems: list[Diagnostic] = []
    ids = sorted({i["path"] for i in out.get("imports", []) if i.get("external")})
    for module_id in ids:
        if module_id in scope.allowed:
            continue
        owner = package_name_of(module_id)
        files = importers(meta, module_id) or ["<bundle>"]
        if owner in scope.ui_packages:
            offered = sorted(pid for pid, name in scope.published.items() if name == owner)
            what = ", ".join(f'"{p}"' for p in offered) if offered else "nothing"
            message = f'imports "{module_id}", a module of {owner}, which ships a UI module and publishes {what}'
            hint = (
                f"import only what {owner} publishes in app.module.provides"
                if offered
                else f"{owner} publishes no modules; ask its authors to add the id to app.module.provides"
            )
            problems += [located(root, NB1904, meta, entry, f, module_id, message, hint) for f in files]
        else:
            provided = ", ".join(sorted(m for m in scope.shared if package_name_of(m) == owner))
            message = f'imports "{module_id}", which the host does not provide (it provides {provided} of {owner})'
            hint = f"import only {provided}; the host hands the module exactly the ids of its profile"
            problems += [located(root, NB1905, meta, entry, f, module_id, message, hint) for f in files]
    problems += _check_inputs(root, meta, scope)
    return problems


def _check_inputs(root: Path, meta: Mapping[str, Any], scope: Scope) -> list[Diagnostic]:
    """Refuse files bundled from inside another UI package's folder (a relative path into it)."""
    homes = [(name, folder.resolve()) for name, folder in scope.ui_packages.items() if folder is not None]
    problems: list[Diagnostic] = []
    if not homes:
        return problems
    for path in sorted(meta.get("inputs", {})):
        if not path.startswith("../") and "node_modules/" not in path:
            continue  # a file below the package's own folder (not via node_modules) is its own
        full = (root / path).resolve()
        for name, home in homes:
            if full.is_relative_to(home):
                problems.append(
                    Diagnostic(
                        "error",
                        NB1904.id,
                        path,
                        "",
                        f"bundles {path}, a file of {name}, which ships a UI module of its own",
                        f"import only the ids {name} publishes in app.module.provides",
                    )
                )
    return problems
