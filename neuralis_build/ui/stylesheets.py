"""What a package's stylesheets need besides esbuild: a PostCSS config, Sass, Less, and the tools to install.

esbuild bundles plain CSS and CSS modules itself. A package with a PostCSS config (any file PostCSS's
own config loader looks for in the package folder, or a ``postcss`` key in package.json), or with
.scss/.sass/.less stylesheets, is built through the style host instead (stylehost.py), which hands
each stylesheet to the tool the author installed. A look at the package folder and one walk of
src/ decide, before esbuild runs; a stylesheet found only later (imported from outside src/) is
caught by esbuild's "no loader" error and the build goes through the host then.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from neuralis_build.package import Package
from neuralis_build.util.diagnostics import Diagnostic, code

if TYPE_CHECKING:
    from neuralis_build.esbuild.runner import Message

NB1920 = code("NB1920", "ui-style-tool-missing", "a stylesheet needs a tool (Sass, Less, PostCSS) not installed")
NB1921 = code("NB1921", "ui-style-tool-message", "a stylesheet tool (Sass, Less, PostCSS) reported a problem")

POSTCSS_CONFIGS = tuple(
    [f".postcssrc{ext}" for ext in ("", ".json", ".yaml", ".yml", ".ts", ".cts", ".mts", ".js", ".cjs", ".mjs")]
    + [f"postcss.config.{ext}" for ext in ("ts", "cts", "mts", "js", "cjs", "mjs")]
)
"""The files postcss-load-config looks for, in its order (package.json's ``postcss`` key comes first)."""

TOOLS = {".scss": ("sass", "sass-embedded"), ".sass": ("sass", "sass-embedded"), ".less": ("less",)}
"""The npm packages that compile each stylesheet language, the first the one to install."""

LOCAL = re.compile(r"\.module\.(?:css|scss|sass|less)$")
"""A CSS module: its class names are local to it (esbuild's local-css loader)."""


@dataclass(frozen=True, slots=True)
class Styling:
    """What the package's stylesheets need: its PostCSS config, the languages under src/, CSS modules."""

    postcss: str | None = None  # the config file (or "package.json"), package-relative
    languages: frozenset[str] = frozenset()  # ".scss", ".sass", ".less" found under src/
    modules: bool = False  # a CSS module under src/ (the first esbuild run then writes the maps scoping needs)

    @property
    def needs_host(self) -> bool:
        return self.postcss is not None or bool(self.languages)


def postcss_config(package: Package) -> str | None:
    """The package's PostCSS config, as postcss-load-config finds it in the package folder."""
    if package.npm.postcss:
        return "package.json"
    return next((name for name in POSTCSS_CONFIGS if (package.root / name).is_file()), None)


def scan(package: Package) -> Styling:
    """The package's styling needs: its PostCSS config and one walk of src/ (dot folders, node_modules left out)."""
    languages: set[str] = set()
    modules = False
    for _folder, dirs, files in os.walk(package.root / "src"):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d != "node_modules"]
        for name in files:
            ext = name[name.rfind(".") :]
            if ext in TOOLS:
                languages.add(ext)
            if not modules and LOCAL.search(name):
                modules = True
    return Styling(postcss_config(package), frozenset(languages), modules)


def installed_tool(root: Path, ext: str) -> str | None:
    """The package that compiles ``ext`` as Node resolves it from the package, else None."""
    from neuralis_build.npm.nodemodules import resolve_package

    return next((name for name in TOOLS[ext] if resolve_package(root, name) is not None), None)


def install_hint(tool: str, needed_by: str | None = None) -> str:
    why = f" ({needed_by} names it)" if needed_by else ""
    return (
        f"install it in the package: npm install --save-dev {tool}{why}; neuralis-build uses the stylesheet "
        "tools the package installs, never copies of its own"
    )


def missing_tool(
    stylesheet: str, tool: str, at: str | None = None, line: int | None = None, column: int | None = None
) -> Diagnostic:
    """NB1920: ``stylesheet`` needs ``tool``, which is not installed; located at its import when ``at`` is given."""
    ext = stylesheet[stylesheet.rfind(".") :] if "." in stylesheet else ""
    if ext in TOOLS:
        language = {".less": "Less"}.get(ext, "Sass")
        message = f"{stylesheet} is {language}, which needs {tool} to compile it, and {tool} is not installed"
    else:
        message = f"{stylesheet} needs {tool}, which is not installed"
    return Diagnostic("error", NB1920.id, at or stylesheet, "", message, install_hint(tool), line, column)


_NO_LOADER = re.compile(r'^No loader is configured for "(?P<ext>\.(?:scss|sass|less))" files: (?P<file>.+)$')


def unloaded(diagnostics: list[Diagnostic]) -> list[tuple[Diagnostic, str, str]]:
    """esbuild's CLI errors for a Sass or Less stylesheet it has no loader for: (error, stylesheet, extension)."""
    found = []
    for d in diagnostics:
        m = _NO_LOADER.match(d.message) if d.severity == "error" else None
        if m:
            found.append((d, m["file"], m["ext"]))
    return found


def config_plugin_missing(config: str, plugin: str) -> Diagnostic:
    """NB1920: the PostCSS config names a plugin (or PostCSS itself is missing)."""
    if plugin == "postcss":
        message = f"the package has a PostCSS config ({config}), but postcss itself is not installed"
        return Diagnostic("error", NB1920.id, config, "", message, install_hint(plugin))
    message = f"the PostCSS config {config} names {plugin}, which is not installed"
    return Diagnostic("error", NB1920.id, config, "", message, install_hint(plugin, config))


def tool_diagnostic(message: Message, file: str, missing_for: str) -> Diagnostic:
    """A message of the style host: a tool to install (NB1920), or what a tool said of a stylesheet (NB1921)."""
    if message.missing is not None:
        if missing_for == "package.json" or Path(missing_for).name in POSTCSS_CONFIGS:
            return config_plugin_missing(missing_for, message.missing)
        return missing_tool(missing_for or file, message.missing)
    tool = f"{message.tool} {message.tool_version}" if message.tool_version else str(message.tool)
    if message.severity == "error":
        hint = f"fix the stylesheet at this line and column ({tool} compiles it, as it would anywhere else)"
    else:
        hint = f"the build still succeeded; {tool} warns about the stylesheet at this line"
    return Diagnostic(
        message.severity, NB1921.id, file, "", f"{tool}: {message.text}", hint, message.line, message.column
    )


def outputs_read(config: str | None, files: list[str]) -> Diagnostic:
    """NB1921 (a warning): a PostCSS plugin read the build's own output (Tailwind scanning dist/ for class names)."""
    built = [f for f in files if "/." not in f]  # not the folder a build stages in (named per process)
    shown = ", ".join(built[:3]) + (f" and {len(built) - 3} more" if len(built) > 3 else "")
    return Diagnostic(
        "warning",
        NB1921.id,
        config or "package.json",
        "",
        f"a PostCSS plugin read the build's own output in dist/{f' ({shown})' if shown else ''}: class names of "
        "the last build are kept in the next one even when the sources drop them, so the same sources can build "
        "different stylesheets",
        "add dist/ to the package's .gitignore (Tailwind leaves out what .gitignore lists), or narrow the "
        "plugin's sources (Tailwind v4: @source; v3: content in tailwind.config)",
    )
