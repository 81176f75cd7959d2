"""A CommonJS library's default import in a "type": "module" package: its exports.default, as webpack gives it.

esbuild reads such a package's files as Node does (default = module.exports); every template writes
"type": "module". Real libraries: css-to-react-native (tests/ui/realworld, a dependency of
styled-components) run in Node, and react-slick (tests/ui/realworld/slider, its own node_modules)
rendered on the host page in Chromium.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

from tests.browserkit import dump, requires_chromium, surface_states, wait_for_host
from tests.ui.ui_helpers import ui_manifest

pytestmark = pytest.mark.e2e

# no React: the module runs in Node as it is, its one import bundled
HOST_TS = """\
import transform from "css-to-react-native";
import * as whole from "css-to-react-native";
export const styles = transform([["color", "red"], ["margin", "2px 4px"]]);
export const sameDefault = whole.default === transform;
export function installAcmeWidgetsHostComponents(host: { registerWidget(t: string, c: unknown): void }) {
  host.registerWidget("acme.none", () => null);
}
"""


def run_module(built, tmp_path) -> dict:
    """What the built module exports, imported by Node (as a .mjs: the package may say "type": "commonjs")."""
    path = tmp_path / "host.mjs"
    shutil.copyfile(built, path)
    script = f"import({json.dumps(str(path))}).then((m) => console.log(JSON.stringify("
    script += "{styles: m.styles, same: m.sameDefault})))"
    done = subprocess.run(["node", "--input-type=module", "-e", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize("package_type", ["module", "commonjs"])
@pytest.mark.parametrize("minify", [False, True], ids=["plain", "minified"])
def test_a_commonjs_default_export_is_the_default_import_whatever_the_package_type(
    make_pkg, build, realworld_modules, tmp_path, package_type, minify
):
    root = make_pkg({"package.json": ui_manifest(type=package_type), "src/app/host.ts": HOST_TS})
    os.symlink(realworld_modules, root / "node_modules")
    build(root, minify=minify)
    assert run_module(root / "dist/app/host.js", tmp_path) == {
        "styles": {"color": "red", "marginTop": 2, "marginRight": 4, "marginBottom": 2, "marginLeft": 4},
        "same": True,
    }


def test_a_library_s_own_copy_of_the_helper_is_left_as_it_is(esbuild, tmp_path):
    """Without an ES import of a CommonJS input, esbuild writes no helper of its own: a copy in a library's
    code (one esbuild wrote when the library was built) is the library's, and keeps Node's reading."""
    from neuralis_build.ui.interop import default_as_exports_default

    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "package.json").write_text('{"type": "module"}')
    (lib / "dep.cjs").write_text("exports.__esModule = true; exports.default = 1;\n")
    (lib / "index.js").write_text('import dep from "./dep.cjs";\nexport const value = dep;\n')
    done = esbuild.run(["index.js", "--bundle", "--format=esm", "--outfile=out.js"], lib)
    assert done.returncode == 0, done.stderr
    js = (lib / "out.js").read_text()
    assert "isNodeMode || !mod" in js
    commonjs_input = {
        "inputs": {
            "dep.cjs": {"format": "cjs"},
            "index.js": {"imports": [{"path": "dep.cjs", "kind": "import-statement"}]},
        }
    }
    fixed = default_as_exports_default(js, commonjs_input)
    assert len(fixed) == len(js)
    assert fixed.replace("0          || !mod", "isNodeMode || !mod") == js
    assert default_as_exports_default(js, {"inputs": {"index.js": {"imports": []}}}) is js


@requires_chromium
@pytest.mark.browser
@pytest.mark.parametrize("minify", [False, True], ids=["plain", "minified"])
def test_react_slick_renders_from_its_default_import(realworld, build, host_site, browser_page, minify):
    root = realworld("slider")
    build(root, minify=minify)
    served = host_site([root])
    page = browser_page.page
    page.goto(served.url)
    status = wait_for_host(page)
    assert surface_states(status) == {"@acme/slider#widget:slides": ("rendered", None)}, dump(status)
    page.wait_for_function("document.querySelectorAll('.slick-slider [data-testid=slide]').length === 2")
    assert browser_page.log.problems() == []
