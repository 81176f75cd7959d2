"""What the build says about stylesheets and styling libraries: a tool to install (NB1920), a tool's own error
at the author's line (NB1921), a library that needs a compile step (NB1922), a stylesheet's package import
(the style condition) and esbuild's notes, and which packages go through the style host at all."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest

from neuralis_build.hostprofile import default_host_profile
from neuralis_build.package import load_package
from neuralis_build.ui.build import build_ui, esbuild_args
from neuralis_build.ui.stylehost import js_options
from neuralis_build.util.errors import DiagnosedError
from tests.ui.ui_helpers import HOST_TSX, ui_manifest

pytestmark = pytest.mark.e2e

WITH_CSS = {"entry": "dist/app/host.js", "css": "dist/app/host.css"}
INSTALL = "export function installAcmeWidgetsHostComponents(host: { registerWidget(t: string, c: unknown): void }) {}\n"


def styled(make_pkg, files: dict[str, str], imports: str, **extra) -> Path:
    """A package (no node_modules: no tool installed) whose entry imports ``imports``."""
    return make_pkg({"package.json": ui_manifest(WITH_CSS, **extra), "src/app/host.tsx": imports + INSTALL, **files})


def test_sass_not_installed_names_what_to_install(make_pkg, build):
    root = styled(make_pkg, {"src/app/theme.scss": ".a { .b { color: red; } }\n"}, 'import "./theme.scss";\n')
    with pytest.raises(DiagnosedError) as err:
        build(root)
    [d] = err.value.diagnostics
    assert (d.code, d.file, d.message) == (
        "NB1920",
        "src/app/theme.scss",
        "src/app/theme.scss is Sass, which needs sass to compile it, and sass is not installed",
    )
    assert d.hint.startswith("install it in the package: npm install --save-dev sass;")
    assert not (root / "dist/app").exists()


def test_less_not_installed_names_what_to_install(make_pkg, build):
    root = styled(make_pkg, {"src/app/a.less": "@c: red; .a { color: @c; }\n"}, 'import "./a.less";\n')
    with pytest.raises(DiagnosedError) as err:
        build(root)
    assert [(d.code, d.file, d.message) for d in err.value.diagnostics] == [
        (
            "NB1920",
            "src/app/a.less",
            "src/app/a.less is Less, which needs less to compile it, and less is not installed",
        ),
    ]


def test_a_stylesheet_outside_src_is_found_by_esbuild_and_named_at_its_import(make_pkg, build):
    """No .scss under src/: the CLI builds, meets a Sass file it has no loader for; sass is missing: NB1920 at the
    import (today's "No loader is configured" with its hint to convert to .json or .svg is gone)."""
    root = styled(make_pkg, {"lib/x.scss": ".a { .b { color: red; } }\n"}, 'import "../../lib/x.scss";\n')
    with pytest.raises(DiagnosedError) as err:
        build(root)
    [d] = err.value.diagnostics
    assert (d.code, d.file, d.line, d.column) == ("NB1920", "src/app/host.tsx", 1, 8)
    assert d.message == "lib/x.scss is Sass, which needs sass to compile it, and sass is not installed"


def test_a_stylesheet_outside_src_goes_through_sass_when_installed(realworld, build):
    root = realworld("sass")
    (root / "lib").mkdir()
    (root / "lib/extra.scss").write_text("$w: 3px;\n.extra { .inner { border-width: $w; } }\n")
    entry = root / "src/app/host.tsx"
    entry.write_text('import "../../lib/extra.scss";\n' + entry.read_text())
    build(root)
    assert ".extra .inner {\n  border-width: 3px;\n}" in (root / "dist/app/host.css").read_text()


def test_a_postcss_config_naming_a_plugin_not_installed(realworld, build):
    root = realworld("tailwind4")
    (root / "postcss.config.mjs").write_text('export default { plugins: { "postcss-preset-env": {} } };\n')
    with pytest.raises(DiagnosedError) as err:
        build(root)
    assert [(d.code, d.file, d.message) for d in err.value.diagnostics] == [
        (
            "NB1920",
            "postcss.config.mjs",
            "the PostCSS config postcss.config.mjs names postcss-preset-env, which is not installed",
        )
    ]
    assert err.value.diagnostics[0].hint.startswith(
        "install it in the package: npm install --save-dev postcss-preset-env (postcss.config.mjs names it);"
    )


def test_a_postcss_config_without_postcss(make_pkg, build):
    root = styled(
        make_pkg,
        {"src/app/a.css": ".a { color: red; }\n", "postcss.config.cjs": "module.exports = { plugins: {} };\n"},
        'import "./a.css";\n',
    )
    with pytest.raises(DiagnosedError) as err:
        build(root)
    assert [(d.code, d.file, d.message) for d in err.value.diagnostics] == [
        (
            "NB1920",
            "postcss.config.cjs",
            "the package has a PostCSS config (postcss.config.cjs), but postcss itself is not installed",
        )
    ]


def test_postcss_in_package_json_is_a_config(realworld, build):
    """PostCSS's own loader reads a "postcss" key of package.json: so does the build (here with autoprefixer)."""
    root = realworld("less")
    manifest = json.loads((root / "package.json").read_text())
    manifest.update(postcss={"plugins": {"autoprefixer": {}}}, browserslist=["safari 10"])
    (root / "package.json").write_text(json.dumps(manifest))
    (root / "src/app/notice.less").write_text(".notice { user-select: none; }\n")
    result = build(root)
    assert "-webkit-user-select: none" in (root / "dist/app/host.css").read_text()
    assert "package.json" in result.inputs


def test_tool_errors_are_located_in_the_authors_stylesheet(realworld, build):
    sass = realworld("sass")
    (sass / "src/app/theme.scss").write_text('@use "./styles/palette" as p;\n.panel {\n  color: p.$nothere;\n}\n')
    with pytest.raises(DiagnosedError) as err:
        build(sass)
    [d] = err.value.diagnostics
    assert (d.code, d.file, d.line, d.column, d.message) == (
        "NB1921",
        "src/app/theme.scss",
        3,
        10,
        "sass 1.108.2: Undefined variable.",
    )
    less = realworld("less")
    (less / "src/app/notice.less").write_text(".notice {\n  color: @missing;\n}\n")
    with pytest.raises(DiagnosedError) as err:
        build(less)
    assert [(d.code, d.file, d.line, d.message) for d in err.value.diagnostics] == [
        ("NB1921", "src/app/notice.less", 2, "less 4.9.1: variable @missing is undefined")
    ]
    tailwind = realworld("tailwind4")
    (tailwind / "src/app/styles.css").write_text('@import "tailwindcss";\n\n.x {\n  @apply not-a-utility;\n}\n')
    with pytest.raises(DiagnosedError) as err:
        build(tailwind)
    # Tailwind places its own errors at the top of the stylesheet (line 1): the build keeps the tool's location
    assert [(d.code, d.file, d.line, d.message) for d in err.value.diagnostics] == [
        ("NB1921", "src/app/styles.css", 1, "tailwindcss: Cannot apply unknown utility class `not-a-utility`")
    ]


def test_a_sass_deprecation_is_a_located_warning(realworld, build):
    root = realworld("sass")
    (root / "src/app/theme.scss").write_text('@import "./styles/palette";\n.panel { color: $ink; }\n')
    result = build(root)
    [w] = [d for d in result.warnings if d.code == "NB1921"]
    assert (w.severity, w.file, w.line) == ("warning", "src/app/theme.scss", 1)
    assert w.message.startswith("sass 1.108.2: deprecated: import: Sass @import rules are deprecated")


def test_a_package_without_stylesheet_tools_keeps_the_cli(make_pkg, realworld, esbuild):
    """A recording runner sees every esbuild run of the CLI: a plain package's, and none of a Sass package's
    (those go through the style host, which drives the same pinned binary through the JS API)."""

    class Recording:
        def __init__(self) -> None:
            self.runs: list[list[str]] = []

        def run(self, args, cwd):
            self.runs.append(list(args))
            return esbuild.run(args, cwd)

    plain = make_pkg(
        {
            "package.json": ui_manifest(WITH_CSS),
            "src/app/host.tsx": 'import "./a.css";\nimport s from "./b.module.css";\n' + HOST_TSX,
            "src/app/a.css": ".a { color: red; }\n",
            "src/app/b.module.css": ".b { color: blue; }\n",
        }
    )
    seen = Recording()
    build_ui(load_package(plain), host=default_host_profile(), esbuild=seen)
    assert len(seen.runs) == 1
    sass = realworld("sass")
    seen = Recording()
    build_ui(load_package(sass), host=default_host_profile(), esbuild=seen)
    assert seen.runs == []
    assert (sass / "dist/app/host.css").is_file()


def test_every_flag_of_the_build_becomes_a_js_api_option(tmp_path):
    args = esbuild_args(
        "src/app/host.tsx", "dist/.app-1", tmp_path / "tsconfig.json", ["react"], minify=True, sourcemap="external"
    )
    options, metafile = js_options([*args, "--metafile=m.json", "--log-level=warning", "--conditions=style,module"])
    assert metafile == "m.json"
    assert options["entryPoints"] == ["src/app/host.tsx"]
    assert options["bundle"] is True and options["minify"] is True and options["sourcemap"] == "external"
    assert options["external"] == ["react"] and options["conditions"] == ["style", "module"]
    assert options["loader"][".png"] == "file" and options["assetNames"] == "assets/[name]-[hash]"
    assert options["define"]["process.env.NODE_ENV"] == '"production"'
    with pytest.raises(ValueError, match="--splitting"):
        js_options([*args, "--splitting"])


def test_a_stylesheets_package_import_resolves_with_the_style_condition(make_pkg, build):
    """A package exporting its stylesheet under "style" only (as Tailwind v4 does): a stylesheet's @import of it
    builds; a script's import of another package whose exports list "style" first is not turned into CSS."""
    root = styled(
        make_pkg,
        {
            "src/app/a.css": '@import "tokens";\n',
            "node_modules/tokens/package.json": json.dumps(
                {"name": "tokens", "version": "1.0.0", "exports": {".": {"style": "./tokens.css"}}}
            ),
            "node_modules/tokens/tokens.css": ".token { color: rgb(1, 2, 3); }\n",
            "node_modules/widgets/package.json": json.dumps(
                {"name": "widgets", "version": "1.0.0", "exports": {".": {"default": "./index.js"}}}
            ),
            "node_modules/widgets/index.js": "export const widget = 1;\n",
        },
        'import "./a.css";\nimport { widget } from "widgets";\nexport const w = widget;\n',
    )
    build(root)
    assert ".token {\n  color: rgb(1, 2, 3);\n}" in (root / "dist/app/host.css").read_text()
    assert "widget = 1" in (root / "dist/app/host.js").read_text()


def test_esbuilds_notes_are_kept_and_the_hint_follows_them(make_pkg, build):
    root = styled(
        make_pkg,
        {
            "src/app/a.css": '@import "tokens";\n',
            "node_modules/tokens/package.json": json.dumps(
                {"name": "tokens", "version": "1.0.0", "exports": {".": {"sass": "./tokens.scss"}}}
            ),
            "node_modules/tokens/tokens.scss": "$a: 1;\n",
        },
        'import "./a.css";\n',
    )
    with pytest.raises(DiagnosedError) as err:
        build(root)
    [d] = err.value.diagnostics
    assert (d.code, d.file, d.line, d.column) == ("NB1900", "src/app/a.css", 1, 9)
    assert d.message == (
        'Could not resolve "tokens": The path "." is not currently exported by package "tokens" '
        '(node_modules/tokens/package.json:1); None of the conditions in the package definition ("sass") match any '
        'of the currently active conditions ("browser", "default", "module", "style") '
        '(node_modules/tokens/package.json:1); Consider enabling the "sass" condition if this package expects it '
        "to be enabled (node_modules/tokens/package.json:1)"
    )
    assert d.hint.startswith('"tokens" is installed, but its package.json "exports" offers this path to no condition')


def test_tailwind_without_its_postcss_plugin_is_named(realworld, build):
    """@import "tailwindcss" resolves (the style condition) but Tailwind's directives would ship uncompiled."""
    root = realworld("tailwind4")
    (root / "postcss.config.mjs").unlink()
    with pytest.raises(DiagnosedError) as err:
        build(root)
    [d] = err.value.diagnostics
    assert (d.code, d.file) == ("NB1922", "src/app/styles.css")
    assert d.message == (
        "src/app/styles.css uses Tailwind, whose directives reach the stylesheet uncompiled: Tailwind's CSS is made "
        "by its PostCSS plugin, and the package has no PostCSS config"
    )
    assert d.hint == (
        "npm install --save-dev @tailwindcss/postcss postcss, and add postcss.config.mjs: "
        'export default { plugins: { "@tailwindcss/postcss": {} } }'
    )


VE_STYLES = 'import { style } from "@vanilla-extract/css";\n\nexport const box = style({ color: "rgb(1, 2, 3)" });\n'


def test_vanilla_extract_is_named_at_build_time(make_pkg, build, realworld_modules):
    """vanilla-extract builds silently with esbuild alone, and its style() throws when the module loads."""
    root = make_pkg(
        {
            "package.json": ui_manifest(),
            "src/app/box.css.ts": VE_STYLES,
            "src/app/host.tsx": 'import { box } from "./box.css";\nexport const b = box;\n' + INSTALL,
        }
    )
    os.symlink(realworld_modules, root / "node_modules")
    with pytest.raises(DiagnosedError) as err:
        build(root)
    [d] = err.value.diagnostics
    assert (d.code, d.file, d.line, d.column) == ("NB1922", "src/app/box.css.ts", 1, 23)
    assert d.message == (
        "src/app/box.css.ts uses vanilla-extract (@vanilla-extract/css), whose styles are made at build time by its "
        "bundler plugin, which turns each .css.ts file into a stylesheet; neuralis-build ui runs no bundler plugins, "
        "so its style() calls throw when the module loads"
    )
    assert not (root / "dist/app").exists()


def test_the_style_host_is_installed_from_its_pinned_lockfile():
    from neuralis_build.ui.stylehost import HOST, ensure_installed

    modules = ensure_installed()
    lock = json.loads((HOST / "package-lock.json").read_text())["packages"]
    for name in ("esbuild", "postcss-load-config", "lilconfig"):
        installed = json.loads((modules / name / "package.json").read_text())["version"]
        assert installed == lock[f"node_modules/{name}"]["version"]
    assert lock["node_modules/esbuild"]["version"] == "0.28.2"
    assert not (modules / "@esbuild").exists()  # the binary is the toolchain's verified one, not npm's copy
    assert shutil.which("node")


def test_sass_finds_a_packages_partials_in_node_modules(make_pkg, build, realworld_modules):
    """@use of a package path resolves from node_modules, and Sass's pkg: URL through its Node package importer."""
    root = styled(
        make_pkg,
        {
            "src/app/theme.scss": '@use "@acme/tokens/colors" as c;\n@use "pkg:@acme/tokens" as t;\n'
            ".a { color: c.$ink; border-width: t.$rule; }\n",
            "node_modules/@acme/tokens/package.json": json.dumps(
                {"name": "@acme/tokens", "version": "1.0.0", "sass": "index.scss"}
            ),
            "node_modules/@acme/tokens/_colors.scss": "$ink: rgb(7, 8, 9);\n",
            "node_modules/@acme/tokens/index.scss": "$rule: 3px;\n",
        },
        'import "./theme.scss";\n',
    )
    os.symlink(realworld_modules / "sass", root / "node_modules/sass")
    build(root)
    assert ".a {\n  color: rgb(7, 8, 9);\n  border-width: 3px;\n}" in (root / "dist/app/host.css").read_text()


def test_css_modules_in_less_and_through_postcss_are_scoped(realworld, build):
    """A .module.less (Less, then PostCSS) and a .module.css (PostCSS) in a package with a PostCSS config."""
    root = realworld("less")
    manifest = json.loads((root / "package.json").read_text())
    manifest.update(postcss={"plugins": {"autoprefixer": {}}}, browserslist=["safari 10"])
    (root / "package.json").write_text(json.dumps(manifest))
    less = "@c: rgb(1, 2, 3);\n.card { color: @c; .title { user-select: none; } }\n"
    (root / "src/app/Card.module.less").write_text(less)
    (root / "src/app/Tag.module.css").write_text(".tag { color: rgb(4, 5, 6); }\n")
    entry = root / "src/app/host.tsx"
    entry.write_text(
        'import card from "./Card.module.less";\nimport tag from "./Tag.module.css";\n'
        "export const classes = [card.card, card.title, tag.tag];\n" + entry.read_text()
    )
    build(root)
    css = (root / "dist/app/host.css").read_text()
    js = (root / "dist/app/host.js").read_text()
    names = sorted(set(re.findall(r"\.(acme-less_[A-Za-z0-9_-]+)", css)))
    # esbuild names a local after its file: "Tag" for Tag.module.css, "Card_module" for Card.module.less
    assert [n.split("_", 2)[2] for n in names] == ["Card_module_card", "Card_module_title", "Tag_tag"]
    assert all(f'"{n}"' in js for n in names)
    assert "-webkit-user-select: none" in css  # PostCSS ran on the compiled Less
