"""`neuralis-build ui`: bundle a package's UI module to dist/app/ with esbuild and write its record."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from neuralis_build.esbuild.runner import find_esbuild
from neuralis_build.hostprofile import HostProfile
from neuralis_build.package import Package
from neuralis_build.record.inputs import RECORD as BUILD_RECORD
from neuralis_build.record.inputs import hash_inputs
from neuralis_build.record.inputs import render as render_build_record
from neuralis_build.record.sharedimports import RECORD_NAME, SharedImportsRecord
from neuralis_build.record.verdict import NB1610, install_export_problem
from neuralis_build.ui.compiletime import compile_time_problems
from neuralis_build.ui.declaration import OUT_CSS, OUT_JS, check_declaration
from neuralis_build.ui.driver import Built, run_build, write_tsconfig
from neuralis_build.ui.duplicates import duplicate_copies
from neuralis_build.ui.entry import find_entry
from neuralis_build.ui.env import define_args
from neuralis_build.ui.imports import Scope, check_imports, scope_of
from neuralis_build.ui.react import react_major, react_problems
from neuralis_build.ui.stylesheets import LOCAL, scan
from neuralis_build.util import outdir as folders
from neuralis_build.util.diagnostics import Diagnostic
from neuralis_build.util.errors import DiagnosedError, UsageError
from neuralis_build.util.outdir import OUT_DIR

if TYPE_CHECKING:
    from typing import Any

    from neuralis_build.esbuild.runner import EsbuildRunner
    from neuralis_build.ui.env import Mode
    from neuralis_build.ui.sourcemap import SourceMap

__all__ = ["OUT_CSS", "OUT_DIR", "OUT_JS", "UiBuildResult", "build_ui", "esbuild_args"]


@dataclass(frozen=True, slots=True)
class UiBuildResult:
    """A UI module built (staged until committed, then in dist/app/): what was written and what it reads."""

    root: Path
    entry: str
    outputs: tuple[str, ...]
    record: SharedImportsRecord
    exports: tuple[str, ...]
    warnings: list[Diagnostic] = field(default_factory=list)
    mode: Mode = "production"
    staged: Path | None = None
    inputs: tuple[str, ...] = ()  # every file bundled, as esbuild's metafile names it (package-relative)
    minified: bool = False

    @property
    def css(self) -> bool:
        return OUT_CSS in self.outputs

    def size(self, rel: str) -> int:
        return (self.root / rel).stat().st_size

    def commit(self) -> None:
        """Swap the staged folder in as dist/app/ (a failure puts the previous one back)."""
        if self.staged is not None:
            folders.swap_in(self.staged, self.root / OUT_DIR)

    def discard(self) -> None:
        if self.staged is not None:
            folders.remove(self.staged)


def esbuild_args(
    entry: str,
    outdir: str,
    tsconfig: Path,
    externals: list[str],
    *,
    minify: bool,
    sourcemap: bool | str,
    mode: Mode = "production",
) -> list[str]:
    """The esbuild CLI arguments of a UI module build (also what the bench runs esbuild alone with)."""
    from neuralis_build.ui.assets import loader_args

    args = [
        entry,
        "--bundle",
        "--format=esm",
        "--platform=browser",
        "--jsx=automatic",
        f"--tsconfig={tsconfig}",
        f"--outdir={outdir}",
        "--entry-names=host",
        *loader_args(),
        *define_args(mode),
        *[f"--external:{e}" for e in externals],
    ]
    if minify:
        args.append("--minify")
    if sourcemap:
        args.append(f"--sourcemap={'linked' if sourcemap is True else sourcemap}")
    return args


def build_ui(
    package: Package,
    *,
    host: HostProfile,
    published: Mapping[str, str] | None = None,
    minify: bool = True,
    sourcemap: bool = False,
    entry: str | None = None,
    esbuild: EsbuildRunner | None = None,
    mode: Mode = "production",
    commit: bool = True,
) -> UiBuildResult:
    """Bundle the package's UI module into dist/app/ and write dist/app/shared-imports.json.

    A production build is minified unless ``minify`` is False (--no-minify, --watch, the dev page).
    ``published`` maps every module id other packages publish to the publishing package's name;
    ``None`` discovers them from the ``node_modules`` folders Node would search from the package.
    Refusals raise DiagnosedError; the previous dist/app/ then stays exactly as it was. With
    ``commit=False`` the result stays staged until ``result.commit()`` (or ``discard()``).
    """
    root = package.root
    entry_rel = find_entry(package, entry)
    scope = scope_of(package, host, published)
    runner = esbuild or find_esbuild(root)
    staged = folders.staging_dir(root / folders.DIST, folders.UI_STAGING)
    job = None
    try:
        job = _Job(package, host, scope, runner, staged, entry_rel, minify, sourcemap, mode)
        result = job.run()
    except OSError as exc:
        folders.remove(staged)
        raise environment_error(exc) from None
    except BaseException:
        folders.remove(staged)
        raise
    finally:
        if job is not None:
            job.drop_copies()
    if commit:
        result.commit()
        return replace(result, staged=None)
    return result


class _Job:
    """One UI build in its staged folder: esbuild, the second passes it may need, judging, finishing."""

    def __init__(
        self,
        package: Package,
        host: HostProfile,
        scope: Scope,
        runner: EsbuildRunner,
        staged: Path,
        entry: str,
        minify: bool,
        sourcemap: bool,
        mode: Mode,
    ) -> None:
        self.package, self.host, self.scope, self.runner, self.staged = package, host, scope, runner, staged
        self.entry, self.minify, self.sourcemap, self.mode = entry, minify, sourcemap, mode
        self.meta_urls: list[Path | None] = []  # the file each new URL(…, import.meta.url) names, in order
        self.js_map: SourceMap | None = None  # staged/host.js.map, decoded once for every pass that reads it
        self.styling = scan(package)  # whether the stylesheets need the author's tools (the style host)
        self.style_host = self.styling.needs_host
        self.loaded: Path | None = None  # the style host's copies of what its tools handed esbuild

    def runner_now(self) -> EsbuildRunner:
        """The esbuild CLI, or esbuild's JS API with the author's stylesheet tools when the package needs them."""
        if not self.style_host:
            return self.runner
        from neuralis_build.esbuild.runner import Esbuild
        from neuralis_build.ui.stylehost import StyleHost

        binary = self.runner if isinstance(self.runner, Esbuild) else find_esbuild(self.package.root)
        if self.loaded is None:
            self.loaded = folders.staging_dir(self.package.root / folders.DIST, folders.UI_STAGING)
        for stale in self.loaded.iterdir():  # each run copies every stylesheet again
            folders.remove(stale)
        return StyleHost(binary, self.styling.postcss, self.mode, self.loaded)

    def drop_copies(self) -> None:
        if self.loaded is not None:
            folders.remove(self.loaded)
            self.loaded = None

    @property
    def outdir(self) -> str:
        return self.staged.relative_to(self.package.root).as_posix()

    def esbuild(self, maps: bool) -> Built:
        root = self.package.root
        for stale in self.staged.iterdir():  # a second pass starts from an empty folder
            folders.remove(stale)
        tsconfig = write_tsconfig(root, self.staged, self.entry)
        sourcemap: bool | str = True if self.sourcemap else ("external" if maps else False)
        args = esbuild_args(
            self.entry,
            self.outdir,
            tsconfig,
            self.scope.externals,
            minify=self.minify,
            sourcemap=sourcemap,
            mode=self.mode,
        )
        meta_path = self.staged.parent / f"{self.staged.name}.meta.json"
        try:
            built = run_build(self.runner_now(), root, args, meta_path, self.entry)
        except DiagnosedError as exc:
            if not self.style_host and self._unloaded_stylesheets(exc.diagnostics):
                self.style_host = True  # a Sass or Less stylesheet outside src/, its tool installed
                return self.esbuild(maps)
            from neuralis_build.ui.nodebuiltins import regroup

            def rebuild(ids: list[str]) -> Mapping[str, Any]:
                externals = [f"--external:{i}" for i in ids]
                return run_build(self.runner_now(), root, [*args, *externals], meta_path, self.entry).meta

            regrouped = regroup(exc.diagnostics, root, self.entry, rebuild)
            if regrouped is None:
                raise
            raise DiagnosedError(not_written(sum(d.severity == "error" for d in regrouped)), regrouped) from None
        finally:
            meta_path.unlink(missing_ok=True)
            tsconfig.unlink(missing_ok=True)
        return built

    def _unloaded_stylesheets(self, diagnostics: list[Diagnostic]) -> bool:
        """True when esbuild's CLI met Sass or Less it cannot load and the tools are installed (build again
        through the style host); raises NB1920 at each import of one whose tool is not installed."""
        from neuralis_build.ui.stylesheets import TOOLS, installed_tool, missing_tool, unloaded

        found = unloaded(diagnostics)
        if not found:
            return False
        root = self.package.root
        missing = [
            missing_tool(sheet, TOOLS[ext][0], d.file, d.line, d.column)
            for d, sheet, ext in found
            if installed_tool(root, ext) is None
        ]
        if missing:
            raise DiagnosedError(not_written(len(missing)), missing)
        return True

    def run(self) -> UiBuildResult:
        from neuralis_build.ui.cjs import required_ids

        uses_modules = self.styling.modules
        built = self.esbuild(uses_modules)
        css_modules = any(LOCAL.search(p) for p in built.meta.get("inputs", {}))
        if css_modules and not uses_modules and not self.sourcemap:
            built = self.esbuild(True)  # CSS modules outside src/: scoping needs the maps
        out = self._out(built)
        required = required_ids(out, self.scope.allowed)
        warnings = [*self.scope.warnings, *built.warnings]
        js = (self.staged / "host.js").read_text("utf-8")
        warnings += self._located(js, built)
        problems = check_imports(self.package.root, built.meta, out, self.scope, self.entry)
        problems += compile_time_problems(self.package, built.meta, self.staged, self.entry, self.styling)
        copies = duplicate_copies(self.package, built.meta, self.entry)
        problems += [d for d in copies if d.severity == "error"]
        warnings += [d for d in copies if d.severity != "error"]
        exports = tuple(sorted(out.get("exports", [])))
        problems += self._unbound(built, exports)
        missing = install_export_problem(self.entry, exports, self.package.id)
        if missing is not None:
            problems.append(Diagnostic("error", NB1610.id, self.entry, "", *missing))
        imported = {i["path"] for i in out.get("imports", []) if i.get("external")} | set(required)
        shared = tuple(sorted(imported & self.scope.allowed))
        record = SharedImportsRecord(self.host.host_api_version, react_major(self.package), shared)
        problems += react_problems(self.package, record, self.host)
        problems += check_declaration(self.package, "cssBundle" in out)
        if problems:
            raise DiagnosedError(not_written(len(problems)), problems + warnings)
        warnings += self._outside_css(built)  # about the stylesheet the host would load: a written one
        self._finish(built.meta, css_modules, required)
        (self.staged / RECORD_NAME).write_text(record.dumps(), encoding="utf-8")
        here = self.package.root.resolve()
        named = [Path(os.path.relpath(p, here)).as_posix() for p in self.meta_urls if p is not None]
        tools = [Path(os.path.relpath(p, here)).as_posix() for p in built.reads]  # Sass partials, PostCSS config
        outputs_read = [p for p in tools if p.startswith(f"{folders.DIST}/")]
        if outputs_read:  # never an input of the next build's record: it would always be stale
            from neuralis_build.ui.stylesheets import outputs_read as outputs_read_warning

            warnings.append(outputs_read_warning(self.styling.postcss, outputs_read))
            tools = [p for p in tools if p not in outputs_read]
        read = hash_inputs(self.package.root, [*built.meta.get("inputs", {}), *named, *tools])
        (self.staged / BUILD_RECORD).write_text(render_build_record({"host.js": read}, self.mode), encoding="utf-8")
        folders.normalize_modes(self.staged)
        # the build record is the build's own bookkeeping, not an output of the module
        outputs = sorted(
            f"{OUT_DIR}/{p.relative_to(self.staged).as_posix()}"
            for p in _files(self.staged)
            if p != self.staged / BUILD_RECORD
        )
        inputs = tuple(sorted({*built.meta.get("inputs", {}), *tools}))
        return UiBuildResult(
            self.package.root,
            self.entry,
            tuple(outputs),
            record,
            exports,
            warnings,
            self.mode,
            self.staged,
            inputs,
            self.minify,
        )

    def _outside_css(self, built: Built) -> list[Diagnostic]:
        """NB1926: the rules of host.css that style elements outside the module (a warning per file)."""
        key = f"{self.outdir}/host.css"
        if key not in built.meta.get("outputs", {}):
            return []
        from neuralis_build.ui.globalcss import outside_rules

        root_class = re.sub(r"[^a-z0-9]+", "-", (self.package.name or self.package.root.name).lower()).strip("-")
        return outside_rules(self.package.root, built.meta, key, self.entry, built.loaded, root_class)

    def _unbound(self, built: Built, exports: tuple[str, ...]) -> list[Diagnostic]:
        """NB1925: names a TypeScript re-export leaves unbound (esbuild drops them as types, without a word)."""
        from neuralis_build.ui.unbound import unbound_imports

        root = self.package.root
        return unbound_imports(root, built.meta, self.entry, exports, self.runner, mode=self.mode, minify=self.minify)

    def _out(self, built: Built) -> Mapping[str, Any]:
        out: Mapping[str, Any] = built.meta.get("outputs", {}).get(f"{self.outdir}/host.js", {})
        return out

    def _located(self, js: str, built: Built) -> list[Diagnostic]:
        """What needs the source map to find its file: env reads and ``new URL(…, import.meta.url)``.

        Errors raise here, warnings are returned; the files the URLs name are kept for ``_finish``.
        """
        from neuralis_build.ui.env import has_env_reads
        from neuralis_build.ui.metaurl import has_meta_urls

        if not has_env_reads(js) and not has_meta_urls(js):
            return []
        map_path = self.staged / "host.js.map"
        if not map_path.is_file():  # locate them through a map of the same build, written aside
            probe = folders.staging_dir(self.package.root / folders.DIST, folders.UI_STAGING)
            try:
                own = ("meta_urls", "js_map", "styling", "style_host", "loaded")
                same = {k: v for k, v in self.__dict__.items() if k not in own}
                job = _Job(**{**same, "staged": probe, "sourcemap": False})
                job.style_host = self.style_host
                try:
                    job.esbuild(True)
                finally:
                    job.drop_copies()
                return self._located_from((probe / "host.js").read_text("utf-8"), probe / "host.js.map", built)
            finally:
                folders.remove(probe)
        return self._located_from(js, map_path, built)

    def _located_from(self, js: str, map_path: Path, built: Built) -> list[Diagnostic]:
        from neuralis_build.ui.env import env_problems
        from neuralis_build.ui.metaurl import locate
        from neuralis_build.ui.sourcemap import SourceMap

        smap = SourceMap(json.loads(map_path.read_text("utf-8")))
        if map_path == self.staged / "host.js.map":
            self.js_map = smap  # the CSS-module pass reads the same map: a big bundle's takes a second to decode
        root = self.package.root
        found = env_problems(root, js, smap, map_path.parent, built.meta, self.entry)
        self.meta_urls, named = locate(root, js, smap, map_path.parent, built.meta, self.entry)
        found += named
        errors = [d for d in found if d.severity == "error"]
        if errors:
            raise DiagnosedError(not_written(len(errors)), found)
        return found

    def _interop(self, meta: Mapping[str, Any]) -> None:
        """A CommonJS default import is the module's ``exports.default`` when it marks ``__esModule`` (interop.py)."""
        from neuralis_build.ui.interop import patch_bundle

        patch_bundle(self.staged / "host.js", meta)

    def _finish(self, meta: Mapping[str, Any], css_modules: bool, required: list[str]) -> None:
        """CSS-module names scoped to the package, CommonJS defaults read as webpack does, assets placed, require()
        imports prepended, maps dropped."""
        from neuralis_build.ui.assets import place_assets
        from neuralis_build.ui.cjs import prepend_banner

        if any(p is not None for p in self.meta_urls):  # first: the offsets are still esbuild's
            from neuralis_build.ui.metaurl import place

            place(self.staged, self.meta_urls)
            self.js_map = None  # the map moved with the placed URLs: read it again
        if css_modules:
            from neuralis_build.ui.cssmodules import scope_local_names, scope_prefix

            name = self.package.name or self.package.root.name
            prefix = scope_prefix(name, self.minify)
            scope_local_names(self.staged, prefix, keep_maps=self.sourcemap, js_map=self.js_map)
        if not self.sourcemap:
            for extra in self.staged.glob("*.map"):
                extra.unlink()
        self._interop(meta)
        place_assets(self.staged, self.outdir, meta, keep_maps=self.sourcemap)
        if required:
            prepend_banner(self.staged / "host.js", required)


def not_written(n: int) -> str:
    return f"the UI module was not written ({n} problem{'s' if n != 1 else ''})"


def environment_error(exc: OSError) -> UsageError:
    """A write that failed because of the machine (full disk, permissions): exit 2, with the path and cause."""
    where = f" {exc.filename}" if exc.filename else ""
    return UsageError(
        f"cannot write the build output{where}: {exc.strerror or exc}",
        hint="free some space or fix the permissions of the package's dist/ folder, then build again",
    )


def _files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file())
