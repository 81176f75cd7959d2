"""Styling libraries that need a compile step the build does not run (NB1922): named at build time, never silent.

vanilla-extract, Linaria, StyleX and Compiled turn their styles into CSS with a bundler or Babel plugin;
bundled without it, their calls throw when the module loads (or render unstyled), while esbuild
builds without a word. Panda's and Tailwind's CSS comes from their PostCSS plugin: without it the
class names are there and the rules are not. The metafile says which of them the bundle holds; a
plain build pays one pass over its input paths (and, with a stylesheet, a look at host.css).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from neuralis_build.util.diagnostics import Diagnostic, code

if TYPE_CHECKING:
    from typing import Any

    from neuralis_build.package import Package
    from neuralis_build.ui.stylesheets import Styling

NB1922 = code("NB1922", "ui-compile-time-styles", "a styling library needs a compile step the build does not run")


LIBRARIES: tuple[tuple[str, tuple[str, ...], str, str], ...] = (
    (
        "vanilla-extract",
        ("@vanilla-extract/css",),
        "its bundler plugin, which turns each .css.ts file into a stylesheet",
        "its style() calls throw when the module loads",
    ),
    (
        "Linaria",
        ("@linaria/core", "@linaria/react", "@linaria/atomic"),
        "its bundler plugin (wyw-in-js), which evaluates the css and styled tags into a stylesheet",
        "its css and styled tags throw when the module loads",
    ),
    (
        "StyleX",
        ("@stylexjs/stylex",),
        "its Babel or bundler plugin, which turns stylex.create() into atomic classes and a stylesheet",
        "stylex.create() throws when the module loads",
    ),
    (
        "Compiled",
        ("@compiled/react",),
        "its Babel plugin, which turns the css prop and styled() into classes and a stylesheet",
        "its components throw when they render",
    ),
)
"""Each library whose styles exist only after its own compile step: its name, its runtime packages as they
appear in the bundle, what compiles it, and what happens without it. (A table of tuples: a class per row
would cost every build its creation at import.)"""

TO_DO = (
    "write these styles as CSS the build compiles itself (a .module.css, or .module.scss with sass installed), or "
    "compile them ahead with the library's own tooling into a .css file the module imports"
)


def _own_importer(meta: Mapping[str, Any], folder: str) -> tuple[str, str] | None:
    """The first of the package's own files that imports a file of ``folder``: (file, the id it wrote)."""
    for path, info in sorted(meta.get("inputs", {}).items()):
        if "node_modules/" in path:
            continue
        for imp in info.get("imports", []):
            if folder in imp.get("path", ""):
                return path, imp.get("original", imp["path"])
    return None


def _library_problems(root: Path, meta: Mapping[str, Any], entry: str) -> list[Diagnostic]:
    from neuralis_build.ui.driver import locate_import

    inputs = meta.get("inputs", {})
    problems = []
    for name, packages, step, fails in LIBRARIES:
        marks = [f"node_modules/{p}/" for p in packages]
        if not any(m in path for path in inputs for m in marks):
            continue
        found = next((hit for m in marks if (hit := _own_importer(meta, m)) is not None), None)
        file, module_id = found if found is not None else (entry, packages[0])
        where = locate_import(root, file, module_id) if found is not None else None
        line, column = where if where else (None, None)
        message = (
            f"{file} uses {name} ({module_id}), whose styles are made at build time by {step}; "
            f"neuralis-build ui runs no bundler plugins, so {fails}"
        )
        problems.append(Diagnostic("error", NB1922.id, file, "", message, TO_DO, line, column))
    return problems


_DIRECTIVE = r"@tailwind\s|@apply\s|@theme\b"  # compiled on first use (re caches it): most builds never look


def _tailwind_problem(package: Package, meta: Mapping[str, Any], staged: Path, styling: Styling) -> Diagnostic | None:
    """Tailwind's directives left in host.css: its PostCSS plugin did not run (no config, or not in it)."""
    css_path = staged / "host.css"
    if not css_path.is_file() or not re.search(_DIRECTIVE, css_path.read_text("utf-8")):
        return None
    from neuralis_build.npm.nodemodules import resolve_package
    from neuralis_build.npm.packagejson import read_package_json

    root = package.root
    folder = resolve_package(root, "tailwindcss")
    version = read_package_json(folder).npm.version if folder is not None else None
    v4 = not (version is not None and version.startswith(("0.", "1.", "2.", "3.")))
    own = sorted(p for p in meta.get("inputs", {}) if p.endswith(".css") and "node_modules/" not in p)
    file = next((p for p in own if _mentions_tailwind(root / p)), own[0] if own else "package.json")
    config = styling.postcss
    where = f"the PostCSS config {config} does not run it" if config else "the package has no PostCSS config"
    plugin = '"@tailwindcss/postcss": {}' if v4 else "tailwindcss: {}, autoprefixer: {}"
    install = "@tailwindcss/postcss postcss" if v4 else "tailwindcss@3 postcss autoprefixer"
    return Diagnostic(
        "error",
        NB1922.id,
        file,
        "",
        f"{file} uses Tailwind, whose directives reach the stylesheet uncompiled: Tailwind's CSS is made by its "
        f"PostCSS plugin, and {where}",
        f"npm install --save-dev {install}, and add postcss.config.mjs: export default {{ plugins: {{ {plugin} }} }}",
    )


def _mentions_tailwind(path: Path) -> bool:
    try:
        text = path.read_text("utf-8", errors="replace")
    except OSError:
        return False
    return "tailwind" in text or re.search(_DIRECTIVE, text) is not None


def _panda_problem(package: Package, meta: Mapping[str, Any], styling: Styling) -> Diagnostic | None:
    """Panda's generated styled-system/ bundled while no PostCSS config runs Panda's plugin."""
    generated = sorted(p for p in meta.get("inputs", {}) if "styled-system/" in p and "node_modules/" not in p)
    if not generated:
        return None
    from neuralis_build.npm.nodemodules import resolve_package

    root = package.root
    if resolve_package(root, "@pandacss/dev") is None:
        return None
    if styling.postcss is not None and "pandacss" in _text(root / styling.postcss):
        return None
    return Diagnostic(
        "error",
        NB1922.id,
        generated[0],
        "",
        "the bundle uses Panda's generated styled-system, whose CSS is made by Panda's PostCSS plugin, and "
        + ("the PostCSS config does not run it" if styling.postcss else "the package has no PostCSS config"),
        'add postcss.config.mjs: export default { plugins: { "@pandacss/dev/postcss": {} } }, and a stylesheet '
        "with @layer reset, base, tokens, recipes, utilities; that the module imports",
    )


def _text(path: Path) -> str:
    try:
        return path.read_text("utf-8", errors="replace")
    except OSError:
        return ""


def compile_time_problems(
    package: Package, meta: Mapping[str, Any], staged: Path, entry: str, styling: Styling
) -> list[Diagnostic]:
    """NB1922 for each library in the bundle whose compile step did not run."""
    problems = _library_problems(package.root, meta, entry)
    for found in (_tailwind_problem(package, meta, staged, styling), _panda_problem(package, meta, styling)):
        if found is not None:
            problems.append(found)
    return problems
