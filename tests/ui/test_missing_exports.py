"""Named imports and re-exports of a name the target does not export (NB1925), with the real esbuild.

esbuild cannot tell a type from a value in a TypeScript file, so it takes a re-export it cannot find for
a type and drops it: the module then throws "X is not defined" where it uses the name. The build refuses
each one used as a value at the line that names it; a type, re-exported with or without ``type``, is never
refused. The real-world test uses recharts from tests/ui/realworld.
"""

from __future__ import annotations

import os

import pytest

from neuralis_build.util.errors import DiagnosedError
from tests.ui.ui_helpers import HOST_TSX, snapshot, ui_manifest

pytestmark = pytest.mark.e2e

LOGO = '<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"></svg>\n'
SVG_HINT = (
    'this build gives an SVG one export, the default: its URL (import logo from "./logo.svg", then '
    "<img src={logo} />); it does not run SVGR, so there is no ReactComponent: write the SVG as a React "
    "component in a .tsx file to render it inline"
)


def refused(build, root) -> list[tuple[str, str, int | None, int | None, str, str | None]]:
    """The errors of a refused build (recharts brings its known duplicate warnings along)."""
    with pytest.raises(DiagnosedError) as err:
        build(root)
    return [
        (d.code, d.file, d.line, d.column, d.message, d.hint) for d in err.value.diagnostics if d.severity == "error"
    ]


def test_a_typescript_re_export_of_a_missing_name_is_refused_where_it_is_written(make_pkg, build):
    # esbuild 0.28.2 alone builds this without a word, and the module throws "missing is not defined"
    root = make_pkg(
        {
            "package.json": ui_manifest(),
            "src/app/a.ts": "export const real = 1;\n",
            "src/app/logo.svg": LOGO,
            "src/app/icons.ts": 'export { ReactComponent as Logo } from "./logo.svg";\n'
            'export { real, missing } from "./a";\n',
            "src/app/host.tsx": 'import { Logo, real, missing } from "./icons";\n'
            "export const used = () => [Logo, real, missing];\n" + HOST_TSX,
        }
    )
    assert refused(build, root) == [
        (
            "NB1925",
            "src/app/icons.ts",
            1,
            10,
            'src/app/logo.svg does not export "ReactComponent": esbuild takes a name a TypeScript file '
            "re-exports and cannot find for a type, and drops it, so the module would throw a ReferenceError "
            "where it uses it",
            SVG_HINT,
        ),
        (
            "NB1925",
            "src/app/icons.ts",
            2,
            16,
            'src/app/a.ts does not export "missing": esbuild takes a name a TypeScript file re-exports and '
            "cannot find for a type, and drops it, so the module would throw a ReferenceError where it uses it",
            'src/app/a.ts has no export named "missing": check the name (exports are case-sensitive), or '
            "export it from that file",
        ),
    ]
    assert not (root / "dist").exists() or snapshot(root / "dist") == {}


def test_an_imported_name_exported_again_is_judged_like_a_re_export(make_pkg, build):
    root = make_pkg(
        {
            "package.json": ui_manifest(),
            "src/app/a.ts": "export const real = 1;\n",
            "src/app/b.ts": 'import { real, missing as gone } from "./a";\nexport { real, gone };\n',
            "src/app/host.tsx": 'import { gone } from "./b";\nexport const g = () => gone;\n' + HOST_TSX,
        }
    )
    [(code, file, line, column, _, _)] = refused(build, root)
    assert (code, file, line, column) == ("NB1925", "src/app/b.ts", 1, 16)


def test_a_type_re_exported_without_the_type_keyword_is_never_refused(make_pkg, build):
    # without isolatedModules TypeScript accepts these; esbuild cannot tell them from a missing value
    root = make_pkg(
        {
            "package.json": ui_manifest(),
            "src/app/types.ts": "export interface Props { size: number }\nexport type Size = 1 | 2;\n"
            "export const DEFAULT = 1;\nexport namespace Shapes { export type Round = { r: number } }\n",
            "src/app/barrel.ts": 'export { Props, Size, DEFAULT, Shapes } from "./types";\n'
            'export { type Props as P2 } from "./types";\nexport type { Size as S2 } from "./types";\n'
            'import { Props as Local } from "./types";\nexport { Local };\n'
            'export { Button, ButtonProps } from "widgets";\n',
            "node_modules/widgets/package.json": {
                "name": "widgets",
                "version": "2.0.0",
                "module": "index.js",
                "types": "index.d.ts",
            },
            "node_modules/widgets/index.js": "export const Button = () => null;\n",
            "node_modules/widgets/index.d.ts": "export declare const Button: () => null;\n"
            "export interface ButtonProps { label: string }\n",
            "src/app/host.tsx": "import { DEFAULT, Button, type Props, Size, P2, S2, Local, ButtonProps, Shapes } "
            'from "./barrel";\n'
            "const p: Props & P2 & Local = { size: DEFAULT };\nconst s: Size | S2 = 1;\n"
            'const b: ButtonProps = { label: "x" };\nconst r: Shapes.Round = { r: 1 };\n'
            "export const use = () => [p, s, b, r, Button];\n" + HOST_TSX,
        }
    )
    result = build(root)
    assert result.warnings == []
    assert result.exports == ("Hello", "installAcmeWidgetsHostComponents", "use")


def test_a_re_export_nobody_uses_as_a_value_is_left_alone(make_pkg, build):
    # it may be a type that every importer uses in type positions only (TypeScript erased those imports)
    root = make_pkg(
        {
            "package.json": ui_manifest(),
            "src/app/a.ts": "export const real = 1;\n",
            "src/app/barrel.ts": 'export { real, maybeAType } from "./a";\n',
            "src/app/host.tsx": 'import { real, type maybeAType } from "./barrel";\n'
            "const t: maybeAType | null = null;\nexport const use = () => [real, t];\n" + HOST_TSX,
        }
    )
    assert build(root).warnings == []


def test_the_entry_re_exporting_a_name_an_asset_lacks_is_refused(make_pkg, build):
    # an SVG cannot export a type, and the module would silently lack the export
    root = make_pkg(
        {
            "package.json": ui_manifest(),
            "src/app/logo.svg": LOGO,
            "src/app/host.tsx": 'export { ReactComponent as Logo } from "./logo.svg";\n' + HOST_TSX,
        }
    )
    [(code, file, line, column, message, hint)] = refused(build, root)
    assert (code, file, line, column, hint) == ("NB1925", "src/app/host.tsx", 1, 10, SVG_HINT)
    assert message == (
        'src/app/logo.svg does not export "ReactComponent": esbuild takes a name a TypeScript file re-exports '
        "and cannot find for a type, and drops it, so the module would not export it"
    )


def test_a_type_in_a_namespace_the_module_reads_whole_is_not_a_value_use(make_pkg, build):
    # the built namespace object simply lacks a name esbuild dropped: Object.keys(icons) never throws
    root = make_pkg(
        {
            "package.json": ui_manifest(),
            "src/app/icon.ts": "export interface IconProps { size: number }\nexport const star = 1;\n",
            "src/app/icons.ts": 'export { star, IconProps } from "./icon";\n',
            "src/app/barrels.ts": 'export { star as first, IconProps as Props } from "./icons";\n',
            "src/app/host.tsx": 'import * as icons from "./icons";\nimport * as barrels from "./barrels";\n'
            "const p: icons.IconProps = { size: 1 };\n"
            "export const names = () => [Object.keys(icons), Object.keys(barrels), p];\n" + HOST_TSX,
        }
    )
    assert build(root).warnings == []


def test_a_name_dropped_through_two_barrels_is_refused_where_it_goes_missing(make_pkg, build):
    root = make_pkg(
        {
            "package.json": ui_manifest(),
            "src/app/icon.ts": "export const star = 1;\n",
            "src/app/icons.ts": 'export { star, moon } from "./icon";\n',
            "src/app/barrels.ts": 'export { star as first, moon as second } from "./icons";\n',
            "src/app/host.tsx": 'import * as barrels from "./barrels";\n'
            "export const names = () => [barrels.first, barrels.second];\n" + HOST_TSX,
        }
    )
    [(code, file, line, column, message, _)] = refused(build, root)
    assert (code, file, line, column) == ("NB1925", "src/app/icons.ts", 1, 16)
    assert message.startswith('src/app/icon.ts does not export "moon"')


def test_the_entry_may_re_export_a_type_without_the_type_keyword(make_pkg, build):
    root = make_pkg(
        {
            "package.json": ui_manifest(),
            "src/app/types.ts": "export interface Props { size: number }\nexport type Size = 1 | 2;\n",
            "src/app/host.tsx": 'export { Props } from "./types";\nimport { Size } from "./types";\n'
            "export { Size as Sizes };\n" + HOST_TSX,
        }
    )
    assert build(root).exports == ("Hello", "Props", "Sizes", "installAcmeWidgetsHostComponents")


def test_the_entry_re_exporting_an_install_function_its_file_lacks_is_refused(make_pkg, build):
    # the host calls it: a value whatever TypeScript thinks of it (the metafile still lists the export)
    root = make_pkg(
        {
            "package.json": ui_manifest(),
            "src/app/install.ts": "export function installAcmeWidgetHostComponents() {}\n",
            "src/app/host.tsx": 'export { installAcmeWidgetsHostComponents } from "./install";\n',
        }
    )
    [(code, file, line, column, message, _)] = refused(build, root)
    assert (code, file, line, column) == ("NB1925", "src/app/host.tsx", 1, 10)
    assert message.endswith("so the module would not export it")


def test_an_svg_imported_as_a_react_component_is_refused_with_what_the_build_supports(make_pkg, build):
    # esbuild itself refuses this one (a plain import, not a re-export); it gets the same code and hint
    root = make_pkg(
        {
            "package.json": ui_manifest(),
            "src/app/logo.svg": LOGO,
            "src/app/host.tsx": 'import { ReactComponent as Logo } from "./logo.svg";\nexport const L = Logo;\n'
            + HOST_TSX,
        }
    )
    assert refused(build, root) == [
        (
            "NB1925",
            "src/app/host.tsx",
            1,
            10,
            'No matching export in "src/app/logo.svg" for import "ReactComponent"',
            SVG_HINT,
        )
    ]


def test_names_are_resolved_through_chains_commonjs_json_css_modules_and_externals(make_pkg, build):
    root = make_pkg(
        {
            "package.json": ui_manifest({"entry": "dist/app/host.js", "css": "dist/app/host.css"}),
            "src/app/data.json": {"version": "1"},
            "src/app/card.module.css": ".card { color: red }\n",
            "src/app/legacy.cjs": "exports.anything = 1;\n",
            "src/app/deep.ts": "export const deep = 1;\n",
            "src/app/star.ts": 'export * from "./deep";\n',
            "src/app/barrel.ts": 'export { version, nokey } from "./data.json";\n'
            'export { card, nocard } from "./card.module.css";\n'
            'export { anything, whatever } from "./legacy.cjs";\n'
            'export { deep, shallow } from "./star";\n'
            'export { useState, notInReact } from "react";\n'
            'export { default as Nothing } from "./deep";\n'
            'import Nil from "./deep";\nexport { Nil };\n',
            "src/app/host.tsx": 'import * as all from "./barrel";\n'
            "export const use = () => [all.version, all.nokey, all.card, all.nocard, all.anything, all.whatever,"
            " all.deep, all.shallow, all.useState, all.notInReact, all.Nothing, all.Nil];\n" + HOST_TSX,
        }
    )
    found = [(file, line, column, message.split(":")[0]) for _, file, line, column, message, _ in refused(build, root)]
    # CommonJS exports are read at run time (a property, never unbound), and react is the host's: neither judged
    assert found == [
        ("src/app/barrel.ts", 1, 19, 'src/app/data.json does not export "nokey"'),
        ("src/app/barrel.ts", 2, 16, 'src/app/card.module.css does not export "nocard"'),
        ("src/app/barrel.ts", 4, 16, 'src/app/star.ts does not export "shallow"'),
        ("src/app/barrel.ts", 6, 10, 'src/app/deep.ts does not export "default"'),
        ("src/app/barrel.ts", 7, 8, 'src/app/deep.ts does not export "default"'),
    ]


def test_re_exports_of_a_real_library_are_judged_by_its_installed_exports(make_pkg, build, realworld_modules):
    root = make_pkg(
        {
            "package.json": ui_manifest(),
            "src/app/charts.ts": 'export { LineChart, LineChartz, TooltipProps } from "recharts";\n',
            "src/app/host.tsx": 'import { LineChart, LineChartz, TooltipProps } from "./charts";\n'
            "const t: TooltipProps<number, string> | null = null;\n"
            "export const charts = () => [LineChart, LineChartz, t];\n" + HOST_TSX,
        }
    )
    os.symlink(realworld_modules, root / "node_modules")
    assert refused(build, root) == [
        (
            "NB1925",
            "src/app/charts.ts",
            1,
            21,
            'node_modules/recharts/es6/index.js does not export "LineChartz": esbuild takes a name a TypeScript '
            "file re-exports and cannot find for a type, and drops it, so the module would throw a ReferenceError "
            "where it uses it",
            'the installed recharts@3.11.1 has no export named "LineChartz": check the import against that '
            "version's API (a new major version may rename or remove it), or install the version the code was "
            "written for (npm install recharts@<version>)",
        )
    ]
