"""The UI module build with the real esbuild: outputs, record, every refusal, atomicity, reproducibility."""

from __future__ import annotations

import hashlib
import json
import shutil

import pytest

from neuralis_build.esbuild.analyze import read_modules
from neuralis_build.hostprofile import default_host_profile
from neuralis_build.util.errors import DiagnosedError
from tests.ui.ui_helpers import HOST_TSX, codes, link_package, snapshot, ui_manifest

pytestmark = pytest.mark.e2e

RECORD_REACT = {"hostApiVersion": "1", "reactMajor": 19, "sharedImports": ["react", "react/jsx-runtime"]}


def read_json(path):
    return json.loads(path.read_text())


def test_builds_host_js_and_record(make_pkg, build):
    root = make_pkg({"package.json": ui_manifest(), "src/app/host.tsx": HOST_TSX})
    result = build(root)
    assert result.outputs == ("dist/app/host.js", "dist/app/shared-imports.json")
    assert sorted(snapshot(root / "dist")) == ["app/build-inputs.json", "app/host.js", "app/shared-imports.json"]
    assert read_json(root / "dist/app/shared-imports.json") == RECORD_REACT
    # what the build read, with a digest of each input, for check and pack to tell a stale build
    digest = hashlib.blake2b(HOST_TSX.encode(), digest_size=32).hexdigest()
    assert read_json(root / "dist/app/build-inputs.json") == {
        "digest": "blake2b-256",
        "mode": "production",
        "outputs": {"host.js": {"src/app/host.tsx": digest}},
    }
    assert result.exports == ("Hello", "installAcmeWidgetsHostComponents")
    js = (root / "dist/app/host.js").read_text()
    assert 'from "react/jsx-runtime"' in js and 'from "react"' in js
    assert (root / "dist/app/shared-imports.json").read_text() == json.dumps(RECORD_REACT, indent=2) + "\n"


def test_css_is_emitted_exactly_when_the_entry_imports_it(make_pkg, build):
    root = make_pkg(
        {
            "package.json": ui_manifest({"entry": "dist/app/host.js", "css": "dist/app/host.css"}),
            "src/app/host.tsx": 'import "./style.css";\n' + HOST_TSX,
            "src/app/style.css": ".hello { color: red; }\n",
        }
    )
    assert build(root).outputs == ("dist/app/host.css", "dist/app/host.js", "dist/app/shared-imports.json")
    assert ".hello" in (root / "dist/app/host.css").read_text()
    # Drop the stylesheet: the old host.css must not survive the next build.
    (root / "src/app/host.tsx").write_text(HOST_TSX)
    (root / "package.json").write_text(json.dumps(ui_manifest()))
    assert build(root).outputs == ("dist/app/host.js", "dist/app/shared-imports.json")
    assert not (root / "dist/app/host.css").exists()


def test_entry_may_be_ts_jsx_or_js_and_overridden(make_pkg, build):
    js = HOST_TSX.replace(": { registerWidget(t: string, c: unknown): void }", "")
    root = make_pkg({"package.json": ui_manifest(), "src/app/host.jsx": js})
    assert build(root).entry == "src/app/host.jsx"
    other = make_pkg({"package.json": ui_manifest(), "web/main.tsx": HOST_TSX})
    assert build(other, entry="web/main.tsx").entry == "web/main.tsx"


def test_missing_entry_is_refused(make_pkg, build):
    root = make_pkg({"package.json": ui_manifest()})
    with pytest.raises(DiagnosedError) as err:
        build(root)
    assert codes(err.value) == [("NB1902", "src/app/host.tsx", "", None)]


def test_entry_outside_the_package_is_refused(make_pkg, build):
    root = make_pkg({"package.json": ui_manifest(), "src/app/host.tsx": HOST_TSX})
    with pytest.raises(DiagnosedError) as err:
        build(root, entry="../elsewhere.tsx")
    assert codes(err.value) == [("NB1912", "../elsewhere.tsx", "", None)]


def test_esbuild_errors_are_located(make_pkg, build):
    root = make_pkg(
        {
            "package.json": ui_manifest(),
            "src/app/host.tsx": HOST_TSX + "const broken: number = ;\n",
            "src/app/more.ts": "",
        }
    )
    with pytest.raises(DiagnosedError) as err:
        build(root)
    [d] = err.value.diagnostics
    assert (d.severity, d.code, d.file, d.line, d.column, d.message) == (
        "error",
        "NB1900",
        "src/app/host.tsx",
        9,
        24,
        'Unexpected ";"',
    )
    assert not (root / "dist/app").exists()


def test_unresolved_import_gets_an_install_hint(make_pkg, build):
    root = make_pkg({"package.json": ui_manifest(), "src/app/host.tsx": 'import "left-pad";\n' + HOST_TSX})
    with pytest.raises(DiagnosedError) as err:
        build(root)
    [d] = err.value.diagnostics
    assert (d.code, d.file, d.line, d.column) == ("NB1900", "src/app/host.tsx", 1, 8)
    assert d.message == 'Could not resolve "left-pad"' and "npm install" in (d.hint or "")


def test_require_of_a_shared_module_becomes_an_import(make_pkg, build, esbuild):
    root = make_pkg(
        {
            "package.json": ui_manifest(),
            "src/app/host.tsx": 'import { legacy } from "./legacy.cjs";\nexport const l = legacy;\n' + HOST_TSX,
            "src/app/legacy.cjs": 'const React = require("react");\nexports.legacy = React.version;\n',
        }
    )
    result = build(root)
    assert result.record.shared_imports == ("react", "react/jsx-runtime")
    [parsed] = read_modules(root, ["dist/app/host.js"], esbuild).values()
    assert parsed.ids == result.record.shared_imports  # the record is what the bundle really imports
    assert ("react", "require-call") not in parsed.imports


def test_require_of_an_unshared_subpath_in_a_dependency_names_who_brought_it(make_pkg, build):
    root = make_pkg(
        {
            "package.json": ui_manifest(),
            "src/app/host.tsx": 'import { render } from "fancy-ssr";\nexport const r = render;\n' + HOST_TSX,
            "node_modules/fancy-ssr/package.json": {"name": "fancy-ssr", "version": "1.0.0", "main": "index.js"},
            "node_modules/fancy-ssr/index.js": 'exports.render = require("./inner.js").render;\n',
            "node_modules/fancy-ssr/inner.js": 'const s = require("react-dom/server");\nexports.render = s;\n'
            'exports.again = require("react-dom/server");\n',
        }
    )
    with pytest.raises(DiagnosedError) as err:
        build(root)
    assert codes(err.value) == [("NB1905", "node_modules/fancy-ssr/inner.js", "", 1)]  # one site, once
    message = err.value.diagnostics[0].message
    assert message.startswith('fancy-ssr imports "react-dom/server", which the host does not provide')
    assert message.endswith("it is bundled because of fancy-ssr (src/app/host.tsx → fancy-ssr)")


def charts_provider(make_pkg, provides=("@acme/charts/app/charts",)):
    return make_pkg(
        {
            "package.json": {
                "name": "@acme/charts",
                "version": "1.0.0",
                "neuralis": {"app": {"module": {"entry": "dist/app/host.js", "provides": list(provides)}}},
            },
            "src/internal.ts": "export const secret = 1;\n",
        },
        name="charts",
    )


def test_published_ids_of_installed_packages_stay_external(make_pkg, build):
    charts = charts_provider(make_pkg)
    root = make_pkg(
        {
            "package.json": ui_manifest(),
            "src/app/host.tsx": 'import { BarChart } from "@acme/charts/app/charts";\nexport { BarChart };\n'
            + HOST_TSX,
        }
    )
    link_package(root, charts, "@acme/charts")
    result = build(root)
    assert result.record.shared_imports == ("@acme/charts/app/charts", "react", "react/jsx-runtime")
    assert 'from "@acme/charts/app/charts"' in (root / "dist/app/host.js").read_text()


def test_published_mapping_replaces_discovery(make_pkg, build):
    root = make_pkg(
        {
            "package.json": ui_manifest(),
            "src/app/host.tsx": 'import { BarChart } from "@acme/charts/app/charts";\nexport { BarChart };\n'
            + HOST_TSX,
        }
    )
    result = build(root, published={"@acme/charts/app/charts": "@acme/charts"})
    assert result.record.shared_imports == ("@acme/charts/app/charts", "react", "react/jsx-runtime")


def test_importing_an_unpublished_module_of_a_ui_package_is_refused(make_pkg, build):
    charts = charts_provider(make_pkg)
    root = make_pkg(
        {
            "package.json": ui_manifest(),
            "src/app/host.tsx": HOST_TSX,
            "src/app/deep.ts": 'export { secret } from "@acme/charts/src/internal";\n',
        }
    )
    (root / "src/app/host.tsx").write_text('export * from "./deep";\n' + HOST_TSX)
    link_package(root, charts, "@acme/charts")
    with pytest.raises(DiagnosedError) as err:
        build(root)
    assert codes(err.value) == [("NB1904", "src/app/deep.ts", "", 1)]
    message = err.value.diagnostics[0].message
    assert "@acme/charts/src/internal" in message and '"@acme/charts/app/charts"' in message


def test_a_relative_path_into_a_ui_package_is_refused(make_pkg, build):
    charts = charts_provider(make_pkg)
    root = make_pkg(
        {
            "package.json": ui_manifest(),
            "src/app/host.tsx": 'export { secret } from "../../../charts/src/internal";\n' + HOST_TSX,
        }
    )
    link_package(root, charts, "@acme/charts")
    with pytest.raises(DiagnosedError) as err:
        build(root)
    assert codes(err.value) == [("NB1904", "../charts/src/internal.ts", "", None)]


def test_a_ui_package_that_publishes_nothing_is_refused_whole(make_pkg, build):
    charts = charts_provider(make_pkg, provides=())
    root = make_pkg(
        {"package.json": ui_manifest(), "src/app/host.tsx": 'import "@acme/charts/app/charts";\n' + HOST_TSX}
    )
    link_package(root, charts, "@acme/charts")
    with pytest.raises(DiagnosedError) as err:
        build(root)
    assert codes(err.value) == [("NB1904", "src/app/host.tsx", "", 1)]
    assert "publishes nothing" in err.value.diagnostics[0].message


def test_a_subpath_the_host_does_not_share_is_refused(make_pkg, build):
    root = make_pkg(
        {
            "package.json": ui_manifest(),
            "src/app/host.tsx": 'import { renderToString } from "react-dom/server";\nexport const r = renderToString;\n'
            + HOST_TSX,
        }
    )
    with pytest.raises(DiagnosedError) as err:
        build(root)
    assert codes(err.value) == [("NB1905", "src/app/host.tsx", "", 1)]


def test_an_entry_without_the_install_function_is_refused(make_pkg, build):
    root = make_pkg({"package.json": ui_manifest(), "src/app/host.tsx": "export const x = 1;\n"})
    with pytest.raises(DiagnosedError) as err:
        build(root)
    assert codes(err.value) == [("NB1610", "src/app/host.tsx", "", None)]
    assert "installAcmeWidgetsHostComponents" in (err.value.diagnostics[0].hint or "")


def test_reading_react_with_no_major_is_refused(make_pkg, build):
    manifest = ui_manifest()
    del manifest["devDependencies"]
    root = make_pkg({"package.json": manifest, "src/app/host.tsx": HOST_TSX})
    with pytest.raises(DiagnosedError) as err:
        build(root)
    assert codes(err.value) == [("NB1608", "package.json", "/devDependencies", 1)]


def test_no_react_needed_when_the_bundle_reads_none(make_pkg, build):
    manifest = ui_manifest()
    del manifest["devDependencies"]
    root = make_pkg({"package.json": manifest, "src/app/host.ts": "export function installXHostComponents() {}\n"})
    assert build(root).record.to_json() == {"hostApiVersion": "1", "reactMajor": None, "sharedImports": []}


def test_react_major_comes_from_the_installed_react_first(make_pkg, build):
    root = make_pkg(
        {
            "package.json": ui_manifest(devDependencies={"react": "^18.2.0"}),
            "src/app/host.tsx": HOST_TSX,
            "node_modules/react/package.json": {"name": "react", "version": "19.1.0"},
        }
    )
    assert build(root).record.react_major == 19


def test_a_react_major_the_host_lacks_is_refused(make_pkg, build):
    root = make_pkg({"package.json": ui_manifest(devDependencies={"react": "^18.2.0"}), "src/app/host.tsx": HOST_TSX})
    with pytest.raises(DiagnosedError) as err:
        build(root)
    assert codes(err.value) == [("NB1607", "package.json", "/devDependencies/react", 5)]


def test_undeclared_module_is_refused_with_the_lines_to_add(make_pkg, build):
    root = make_pkg(
        {
            "package.json": {
                "name": "@acme/widgets",
                "version": "1.0.0",
                "devDependencies": {"react": "19.0.0"},
                "neuralis": {},
            },
            "src/app/host.tsx": HOST_TSX,
        }
    )
    with pytest.raises(DiagnosedError) as err:
        build(root)
    [d] = err.value.diagnostics
    assert (d.code, d.file, d.pointer) == ("NB1908", "package.json", "/neuralis/app/module")
    assert (
        d.hint == 'add "app": {"module": {"entry": "dist/app/host.js"}} to the neuralis block (line 7 of package.json)'
    )


def test_entry_mismatch_names_the_line(make_pkg, build):
    root = make_pkg({"package.json": ui_manifest({"entry": "dist/app/main.js"}), "src/app/host.tsx": HOST_TSX})
    with pytest.raises(DiagnosedError) as err:
        build(root)
    assert codes(err.value) == [("NB1909", "package.json", "/neuralis/app/module/entry", 10)]
    assert err.value.diagnostics[0].hint == 'set "entry": "dist/app/host.js" on line 10 of package.json'


def test_css_declared_but_not_emitted(make_pkg, build):
    root = make_pkg(
        {
            "package.json": ui_manifest({"entry": "dist/app/host.js", "css": "dist/app/host.css"}),
            "src/app/host.tsx": HOST_TSX,
        }
    )
    with pytest.raises(DiagnosedError) as err:
        build(root)
    assert codes(err.value) == [("NB1910", "package.json", "/neuralis/app/module/css", 11)]
    assert err.value.diagnostics[0].hint.startswith('remove the "css" line (line 11 of package.json)')


def test_css_emitted_but_not_declared(make_pkg, build):
    root = make_pkg(
        {
            "package.json": ui_manifest(),
            "src/app/host.tsx": 'import "./s.css";\n' + HOST_TSX,
            "src/app/s.css": "p { margin: 0 }\n",
        }
    )
    with pytest.raises(DiagnosedError) as err:
        build(root)
    assert codes(err.value) == [("NB1910", "package.json", "/neuralis/app/module", 9)]
    assert err.value.diagnostics[0].hint == 'add "css": "dist/app/host.css" in app.module (line 9 of package.json)'


def test_package_tsconfig_jsx_setting_cannot_switch_off_the_automatic_runtime(make_pkg, build):
    root = make_pkg(
        {
            "package.json": ui_manifest(),
            "tsconfig.json": {"compilerOptions": {"jsx": "react", "baseUrl": ".", "paths": {"~/*": ["src/lib/*"]}}},
            "src/lib/greet.ts": 'export const greeting = "hi";\n',
            "src/app/host.tsx": 'import { greeting } from "~/greet";\nexport const g = greeting;\n' + HOST_TSX,
        }
    )
    build(root)
    js = (root / "dist/app/host.js").read_text()
    assert "React.createElement" not in js and 'from "react/jsx-runtime"' in js and '"hi"' in js


def test_a_failed_build_leaves_the_previous_output_byte_identical(make_pkg, build):
    root = make_pkg(
        {
            "package.json": ui_manifest({"entry": "dist/app/host.js", "css": "dist/app/host.css"}),
            "src/app/host.tsx": 'import "./s.css";\n' + HOST_TSX,
            "src/app/s.css": "p { margin: 0 }\n",
        }
    )
    build(root, sourcemap=True)
    before = snapshot(root / "dist")
    for broken in ("export const x = ;\n", "export const onlyThis = 1;\n", 'import "react-dom/server";\n' + HOST_TSX):
        (root / "src/app/host.tsx").write_text('import "./s.css";\n' + broken)
        with pytest.raises(DiagnosedError):
            build(root)
        assert snapshot(root / "dist") == before
        assert sorted(p.name for p in (root / "dist").iterdir()) == ["app"]


def test_same_inputs_give_the_same_bytes_wherever_the_package_sits(make_pkg, build, tmp_path):
    tree = {
        "package.json": ui_manifest({"entry": "dist/app/host.js", "css": "dist/app/host.css"}),
        "src/app/host.tsx": 'import "./s.css";\n' + HOST_TSX,
        "src/app/s.css": "p { margin: 0 }\n",
    }
    for options in ({}, {"minify": True, "sourcemap": True}):
        first = make_pkg(tree)
        build(first, **options)
        once = snapshot(first / "dist")
        build(first, **options)
        assert snapshot(first / "dist") == once
        second = make_pkg(tree, name=f"elsewhere/deeper/{len(options)}")
        build(second, **options)
        assert snapshot(second / "dist") == once
        shutil.rmtree(first)


def test_minify_and_sourcemap(make_pkg, build):
    root = make_pkg(
        {
            "package.json": ui_manifest({"entry": "dist/app/host.js", "css": "dist/app/host.css"}),
            "src/app/host.tsx": 'import "./s.css";\n' + HOST_TSX,
            "src/app/s.css": "p { margin: 0 }\n",
        }
    )
    result = build(root, minify=True, sourcemap=True)
    assert result.outputs == (
        "dist/app/host.css",
        "dist/app/host.css.map",
        "dist/app/host.js",
        "dist/app/host.js.map",
        "dist/app/shared-imports.json",
    )
    js = (root / "dist/app/host.js").read_text()
    assert js.rstrip().endswith("//# sourceMappingURL=host.js.map") and "\n  " not in js
    assert read_json(root / "dist/app/host.js.map")["sources"] == ["../../src/app/host.tsx"]


def test_the_host_profile_decides_the_record(make_pkg, build):
    host = default_host_profile()
    other = type(host)(host_api_version="2", react_major=19, shared_modules=("react", "react/jsx-runtime"))
    root = make_pkg({"package.json": ui_manifest(), "src/app/host.tsx": HOST_TSX})
    assert build(root, host=other).record.host_api_version == "2"
    root2 = make_pkg({"package.json": ui_manifest(), "src/app/host.tsx": 'import "@neuralis/client";\n' + HOST_TSX})
    with pytest.raises(DiagnosedError) as err:
        build(root2, host=other)
    assert codes(err.value) == [("NB1900", "src/app/host.tsx", "", 1)]  # not shared by that host: not external


def test_the_examples_build_end_to_end(examples, build):
    charts, reports = examples()
    assert build(charts).outputs == ("dist/app/host.js", "dist/app/shared-imports.json")
    assert read_json(charts / "dist/app/shared-imports.json") == RECORD_REACT
    result = build(reports)
    assert result.outputs == ("dist/app/host.css", "dist/app/host.js", "dist/app/shared-imports.json")
    assert read_json(reports / "dist/app/shared-imports.json") == {
        "hostApiVersion": "1",
        "reactMajor": 19,
        "sharedImports": ["@acme/charts/app/charts", "@neuralis/client", "react", "react/jsx-runtime"],
    }
    assert result.exports == ("ReportCard", "installAcmeReportsHostComponents")
