"""`neuralis-build ui`: bundle a package's UI module to dist/app/ with esbuild and write its record."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from neuralis_build.diagnostics import Diagnostic, code
from neuralis_build.errors import DiagnosedError
from neuralis_build.hostprofile import HostProfile
from neuralis_build.package import MANIFEST, Package
from neuralis_build.ui.driver import locate_import, run_build, write_tsconfig
from neuralis_build.ui.esbuild import EsbuildRunner, find_esbuild
from neuralis_build.ui.outdir import remove, staging_dir, swap_in
from neuralis_build.ui.record import INSTALL_EXPORT, RECORD_NAME, SharedImportsRecord
from neuralis_build.ui.resolve import (
    declared_react_major,
    installed_react_major,
    installed_ui_packages,
    package_name_of,
)

NB1902 = code("NB1902", "ui-entry-missing", "the package has no UI module entry src/app/host.{tsx,ts,jsx,js}")
NB1903 = code("NB1903", "ui-require-external", "the bundle require()s a shared module, which breaks in the browser")
NB1904 = code("NB1904", "ui-unpublished-import", "the bundle imports a module another UI package does not publish")
NB1905 = code("NB1905", "ui-unprovided-import", "the bundle imports a subpath of a shared module the host lacks")
NB1906 = code("NB1906", "ui-install-export", "the entry exports no install<Name>HostComponents function")
NB1907 = code("NB1907", "ui-react-major-unknown", "the bundle reads React but no React major can be found")
NB1908 = code("NB1908", "ui-module-undeclared", "package.json declares no neuralis.app.module for the built module")
NB1909 = code("NB1909", "ui-module-entry", "app.module.entry does not name the module the build emits")
NB1910 = code("NB1910", "ui-module-css", "app.module.css does not match whether the build emits a stylesheet")
NB1911 = code("NB1911", "ui-react-major-host", "the package resolves a React major the host does not provide")
NB1912 = code("NB1912", "ui-entry-outside", "the UI entry lies outside the package")

OUT_DIR = "dist/app"
OUT_JS = f"{OUT_DIR}/host.js"
OUT_CSS = f"{OUT_DIR}/host.css"
MODULE = "/neuralis/app/module"


@dataclass(frozen=True)
class UiBuildResult:
    """A UI module built and swapped into dist/app/: what was written and what it reads."""

    root: Path
    entry: str
    outputs: tuple[str, ...]
    record: SharedImportsRecord
    exports: tuple[str, ...]
    warnings: list[Diagnostic] = field(default_factory=list)

    @property
    def css(self) -> bool:
        return OUT_CSS in self.outputs

    def size(self, rel: str) -> int:
        return (self.root / rel).stat().st_size


def pascal_name(package_id: str) -> str:
    """``@acme/reports`` → ``AcmeReports`` (the scaffold's <Name> in install<Name>HostComponents)."""
    return "".join(part[:1].upper() + part[1:] for part in re.split(r"[^A-Za-z0-9]+", package_id) if part)


def find_entry(package: Package, entry: str | None = None) -> str:
    """The UI entry: ``entry`` when given (package-relative), else src/app/host.{tsx,ts,jsx,js}."""
    if entry is None:
        found = package.contract.ui_entry
        if found is None:
            raise DiagnosedError(
                "nothing to bundle: the package has no UI module entry",
                [
                    Diagnostic(
                        "error",
                        NB1902.id,
                        "src/app/host.tsx",
                        "",
                        "no src/app/host.tsx, host.ts, host.jsx or host.js",
                        "create src/app/host.tsx exporting install<Name>HostComponents, or pass --entry",
                    )
                ],
            )
        return found.path
    path = (package.root / entry).resolve()
    if not path.is_relative_to(package.root):
        raise DiagnosedError(
            "the UI entry lies outside the package",
            [
                Diagnostic(
                    "error",
                    NB1912.id,
                    entry,
                    "",
                    f"{entry} is outside {package.root}",
                    "name a file inside the package",
                )
            ],
        )
    if not path.is_file():
        raise DiagnosedError(
            "the UI entry does not exist",
            [Diagnostic("error", NB1902.id, entry, "", f"{entry} does not exist", "pass an existing file to --entry")],
        )
    return path.relative_to(package.root).as_posix()


def _module_block(package: Package) -> dict[str, Any] | None:
    app = package.block.get("app") if package.block else None
    module = app.get("module") if isinstance(app, dict) else None
    return module if isinstance(module, dict) else None


def _line(package: Package, pointer: str) -> int | None:
    where = package.source.locate(pointer)
    return where[0] if where else None


def _manifest_diag(package: Package, c: Any, pointer: str, message: str, hint: str) -> Diagnostic:
    return package.locate(Diagnostic("error", c.id, MANIFEST, pointer, message, hint))


def _check_declaration(package: Package, css: bool) -> list[Diagnostic]:
    """The build fails when app.module does not match what it emitted; hints name the line to change."""
    module = _module_block(package)
    if module is None:
        wanted = {"entry": OUT_JS, "css": OUT_CSS} if css else {"entry": OUT_JS}
        line = _line(package, "/neuralis")
        at = f" (line {line} of package.json)" if line else ""
        return [
            _manifest_diag(
                package,
                NB1908,
                MODULE,
                f"package.json declares no neuralis.app.module, so the host never loads {OUT_JS}",
                f'add "app": {{"module": {json.dumps(wanted)}}} to the neuralis block{at}',
            )
        ]
    problems = []
    entry = module.get("entry")
    if entry != OUT_JS:
        line = _line(package, f"{MODULE}/entry") or _line(package, MODULE)
        problems.append(
            _manifest_diag(
                package,
                NB1909,
                f"{MODULE}/entry" if "entry" in module else MODULE,
                f"app.module.entry is {_show(entry)}, but the build emits {OUT_JS}",
                f'set "entry": "{OUT_JS}" on line {line} of package.json',
            )
        )
    declared_css = module.get("css")
    if css and declared_css != OUT_CSS:
        pointer = f"{MODULE}/css" if "css" in module else MODULE
        line = _line(package, pointer)
        action = "set" if "css" in module else "add"
        problems.append(
            _manifest_diag(
                package,
                NB1910,
                pointer,
                f"the entry imports CSS, so the build emits {OUT_CSS}, but app.module.css is {_show(declared_css)}",
                f'{action} "css": "{OUT_CSS}" in app.module (line {line} of package.json)',
            )
        )
    elif not css and "css" in module:
        line = _line(package, f"{MODULE}/css")
        problems.append(
            _manifest_diag(
                package,
                NB1910,
                f"{MODULE}/css",
                f"app.module.css is {_show(declared_css)}, but the entry imports no CSS, so the build emits none",
                f'remove the "css" line (line {line} of package.json), or import a stylesheet from the entry',
            )
        )
    return problems


def _show(value: Any) -> str:
    return "absent" if value is None else f'"{value}"' if isinstance(value, str) else repr(value)


def _importers(meta: Mapping[str, Any], module_id: str, kinds: tuple[str, ...] | None = None) -> list[str]:
    """The input files whose import of external ``module_id`` (of one of ``kinds``) reached the bundle."""
    found = []
    for path, info in meta.get("inputs", {}).items():
        for imp in info.get("imports", []):
            if imp.get("external") and imp.get("path") == module_id and (kinds is None or imp.get("kind") in kinds):
                found.append(path)
                break
    return sorted(found)


def _located(root: Path, c: Any, file: str, module_id: str, message: str, hint: str) -> Diagnostic:
    where = locate_import(root, file, module_id)
    line, column = where if where else (None, None)
    return Diagnostic("error", c.id, file, "", message, hint, line, column)


@dataclass(frozen=True)
class _Scope:
    """What the build may import: host ids, published ids, and the packages that ship UI modules."""

    shared: frozenset[str]
    published: Mapping[str, str]  # id -> publishing package name
    ui_packages: Mapping[str, Path | None]  # name -> folder when installed

    @property
    def allowed(self) -> frozenset[str]:
        return self.shared | frozenset(self.published)

    @property
    def externals(self) -> list[str]:
        # Whole package names, so esbuild leaves every subpath external and the build can name the bad ones.
        names = {package_name_of(m) for m in self.shared} | set(self.ui_packages) | set(self.published)
        return sorted(names)


def _scope(package: Package, host: HostProfile, published: Mapping[str, str] | None) -> _Scope:
    installed = installed_ui_packages(package.root, exclude=package.name)
    if published is None:
        published = {pid: pkg.name for pkg in installed.values() for pid in pkg.provides}
    own = package.name
    published = {pid: name for pid, name in sorted(published.items()) if name != own}
    ui: dict[str, Path | None] = {name: pkg.root for name, pkg in installed.items()}
    for name in published.values():
        ui.setdefault(name, None)
    return _Scope(frozenset(host.shared_modules), published, ui)


def _check_imports(root: Path, meta: Mapping[str, Any], out: Mapping[str, Any], scope: _Scope) -> list[Diagnostic]:
    problems: list[Diagnostic] = []
    for imp in out.get("imports", []):
        if imp.get("external") and imp.get("kind") == "require-call":
            module_id = imp["path"]
            for file in _importers(meta, module_id, ("require-call",)) or ["<bundle>"]:
                problems.append(
                    _located(
                        root,
                        NB1903,
                        file,
                        module_id,
                        f'require("{module_id}") of a module the host shares: the browser cannot run it',
                        "use an ES import instead, or, when a bundled CommonJS dependency does the require, "
                        "replace it with an ES module build of that dependency",
                    )
                )
    ids = sorted({i["path"] for i in out.get("imports", []) if i.get("external")})
    for module_id in ids:
        if module_id in scope.allowed:
            continue
        owner = package_name_of(module_id)
        files = _importers(meta, module_id) or ["<bundle>"]
        if owner in scope.ui_packages:
            offered = sorted(pid for pid, name in scope.published.items() if name == owner)
            what = ", ".join(f'"{p}"' for p in offered) if offered else "nothing"
            message = f'imports "{module_id}", a module of {owner}, which ships a UI module and publishes {what}'
            hint = (
                f"import only what {owner} publishes in app.module.provides"
                if offered
                else f"{owner} publishes no modules; ask its authors to add the id to app.module.provides"
            )
            problems += [_located(root, NB1904, f, module_id, message, hint) for f in files]
        else:
            provided = ", ".join(sorted(m for m in scope.shared if package_name_of(m) == owner))
            message = f'imports "{module_id}", which the host does not provide (it provides {provided} of {owner})'
            hint = f"import only {provided}; the host hands the module exactly the ids of its profile"
            problems += [_located(root, NB1905, f, module_id, message, hint) for f in files]
    problems += _check_inputs(root, meta, scope)
    return problems


def _check_inputs(root: Path, meta: Mapping[str, Any], scope: _Scope) -> list[Diagnostic]:
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


def _react_major(package: Package) -> int | None:
    major = installed_react_major(package.root)
    return major if major is not None else declared_react_major(package.manifest)


def _has_react(package: Package, key: str) -> bool:
    deps = package.manifest.get(key)
    return isinstance(deps, dict) and "react" in deps


def _react_problems(package: Package, record: SharedImportsRecord, host: HostProfile) -> list[Diagnostic]:
    if record.react_major is None and record.reads_react:
        return [
            _manifest_diag(
                package,
                NB1907,
                "/devDependencies",
                "the bundle reads React, but no react is installed and package.json declares no single-major range",
                f'install it (npm install --save-dev react@{host.react_major}) or declare "react": '
                f'"^{host.react_major}.0.0" in devDependencies or peerDependencies',
            )
        ]
    if record.react_major is not None and record.react_major != host.react_major:
        declared = [k for k in ("devDependencies", "dependencies", "peerDependencies") if _has_react(package, k)]
        return [
            _manifest_diag(
                package,
                NB1911,
                f"/{declared[0]}/react" if declared else "/devDependencies",
                f"the package resolves React {record.react_major}, but the host provides React {host.react_major}",
                f"move react to ^{host.react_major}.0.0 and reinstall, or build for another host with --host",
            )
        ]
    return []


def esbuild_args(
    entry: str, outdir: str, tsconfig: Path, externals: list[str], *, minify: bool, sourcemap: bool
) -> list[str]:
    """The esbuild CLI arguments of a UI module build (also what the bench runs esbuild alone with)."""
    args = [
        entry,
        "--bundle",
        "--format=esm",
        "--platform=browser",
        "--jsx=automatic",
        f"--tsconfig={tsconfig}",
        f"--outdir={outdir}",
        "--entry-names=host",
        *[f"--external:{e}" for e in externals],
    ]
    if minify:
        args.append("--minify")
    if sourcemap:
        args.append("--sourcemap=linked")
    return args


def build_ui(
    package: Package,
    *,
    host: HostProfile,
    published: Mapping[str, str] | None = None,
    minify: bool = False,
    sourcemap: bool = False,
    entry: str | None = None,
    esbuild: EsbuildRunner | None = None,
) -> UiBuildResult:
    """Bundle the package's UI module into dist/app/ and write dist/app/shared-imports.json.

    ``published`` maps every module id other packages publish to the publishing package's name;
    ``None`` discovers them from the ``node_modules`` folders Node would search from the package.
    Refusals raise DiagnosedError; the previous dist/app/ then stays exactly as it was.
    """
    root = package.root
    entry_rel = find_entry(package, entry)
    scope = _scope(package, host, published)
    runner = esbuild or find_esbuild(root)
    staged = staging_dir(root / "dist", ".app-")
    try:
        tsconfig = write_tsconfig(root, staged)
        meta_path = staged / "meta.json"
        outdir = staged.relative_to(root).as_posix()
        args = esbuild_args(entry_rel, outdir, tsconfig, scope.externals, minify=minify, sourcemap=sourcemap)
        built = run_build(runner, root, args, meta_path, entry_rel)
        tsconfig.unlink()
        meta_path.unlink()
        result = _judge_output(package, host, scope, built.meta, outdir, entry_rel, built.warnings)
        (staged / RECORD_NAME).write_text(result.record.dumps(), encoding="utf-8")
        swap_in(staged, root / OUT_DIR)
    finally:
        remove(staged)
    return result


def _judge_output(
    package: Package,
    host: HostProfile,
    scope: _Scope,
    meta: Mapping[str, Any],
    outdir: str,
    entry_rel: str,
    warnings: list[Diagnostic],
) -> UiBuildResult:
    root = package.root
    out = meta.get("outputs", {}).get(f"{outdir}/host.js", {})
    css = "cssBundle" in out
    problems = _check_imports(root, meta, out, scope)
    exports = tuple(sorted(out.get("exports", [])))
    if not any(INSTALL_EXPORT.match(name) for name in exports):
        expected = f"install{pascal_name(package.id or 'Package')}HostComponents"
        shown = ", ".join(exports) or "nothing"
        problems.append(
            Diagnostic(
                "error",
                NB1906.id,
                entry_rel,
                "",
                f"{entry_rel} exports {shown}, but no install<Name>HostComponents function",
                f"add: export function {expected}(host) {{ ... }}",
            )
        )
    shared = tuple(sorted({i["path"] for i in out.get("imports", []) if i.get("external")} & scope.allowed))
    record = SharedImportsRecord(host.host_api_version, _react_major(package), shared)
    problems += _react_problems(package, record, host)
    problems += _check_declaration(package, css)
    if problems:
        n = len(problems)
        raise DiagnosedError(f"the UI module was not written ({n} problem{'s' if n != 1 else ''})", problems + warnings)
    outputs = sorted(
        str(PurePosixPath(OUT_DIR) / PurePosixPath(p).name)
        for p in meta.get("outputs", {})
        if p.startswith(outdir + "/")
    )
    outputs.append(f"{OUT_DIR}/{RECORD_NAME}")
    return UiBuildResult(root, entry_rel, tuple(sorted(outputs)), record, exports, warnings)
