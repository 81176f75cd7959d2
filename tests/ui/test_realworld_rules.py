"""The UI build's handling of what real packages bring: NODE_ENV, environment reads, tsconfig layouts,
unknown assets, leftovers of killed builds, full disks, and a refusal that must write nothing."""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from neuralis_build.hostprofile import default_host_profile
from neuralis_build.package import load_package
from neuralis_build.record.verdict import INSTALL_EXPORT, install_function
from neuralis_build.ui.run import BuildOptions, build_package
from neuralis_build.util.errors import DiagnosedError
from tests.ui.ui_helpers import HOST_TSX, codes, snapshot, ui_manifest

pytestmark = pytest.mark.e2e

CLI = str(Path(sys.executable).parent / "neuralis-build")
MODE_TSX = HOST_TSX + "export const mode = [process.env.NODE_ENV, import.meta.env.MODE, import.meta.env.DEV];\n"


def test_the_shipped_build_is_production_and_watch_builds_are_development(make_pkg, build):
    root = make_pkg({"package.json": ui_manifest(), "src/app/host.tsx": MODE_TSX})
    assert build(root).mode == "production"
    assert '["production", "production", false]' in (root / "dist/app/host.js").read_text()
    assert build(root, mode="development").mode == "development"
    assert '["development", "development", true]' in (root / "dist/app/host.js").read_text()


def test_an_environment_read_in_own_code_is_refused_at_its_line(make_pkg, build):
    root = make_pkg(
        {
            "package.json": ui_manifest(),
            "src/app/host.tsx": HOST_TSX,
            "src/app/config.ts": "// the API\nexport const api = process.env.API_URL;\n"
            "export const k = import.meta.env.VITE_KEY;\n",
        }
    )
    (root / "src/app/host.tsx").write_text('export { api, k } from "./config";\n' + HOST_TSX)
    with pytest.raises(DiagnosedError) as err:
        build(root)
    found = [(d.severity, d.code, d.file, d.line, d.column) for d in err.value.diagnostics]
    assert found == [("error", "NB1915", "src/app/config.ts", 2, 20), ("error", "NB1915", "src/app/config.ts", 3, 18)]
    assert err.value.diagnostics[0].message == (
        "reads process.env.API_URL, which a browser does not have: the module would throw when it loads"
    )
    # the host API v1 has no settings: the hint names only what an author can do
    assert err.value.diagnostics[0].hint == (
        "only process.env.NODE_ENV and import.meta.env.MODE/DEV/PROD are defined at build time; write other values "
        "as constants, or fetch them at run time from the package's own service (the host API v1 gives a module no "
        "environment and no settings)"
    )
    assert not (root / "dist/app").exists()


def test_guarded_reads_are_warnings_and_a_dependency_is_named_with_its_chain(make_pkg, build):
    lib = {"name": "envy", "version": "1.0.0", "main": "index.js"}
    root = make_pkg(
        {
            "package.json": ui_manifest(),
            "src/app/host.tsx": 'import { debug } from "envy";\nexport const d = [debug, import.meta.env?.X];\n'
            + HOST_TSX,
            "node_modules/envy/package.json": lib,
            "node_modules/envy/index.js": 'exports.debug = typeof process !== "undefined" && process.env.DEBUG;\n',
        }
    )
    result = build(root, minify=True)
    assert [(d.severity, d.code, d.file, d.line) for d in result.warnings] == [
        ("warning", "NB1915", "node_modules/envy/index.js", 1),
        ("warning", "NB1915", "src/app/host.tsx", 2),
    ]
    (root / "node_modules/envy/index.js").write_text("exports.debug = process.env.DEBUG;\n")
    with pytest.raises(DiagnosedError) as err:
        build(root)
    [d] = [d for d in err.value.diagnostics if d.severity == "error"]
    assert (d.code, d.file, d.line) == ("NB1915", "node_modules/envy/index.js", 1)
    assert d.message.endswith("it is bundled because of envy (src/app/host.tsx → envy)")


GUARDS = """\
export const mode = import.meta.env ? import.meta.env.MODE : undefined;
export const dev = import.meta.env && import.meta.env.VITE_FLAG;
export const node = typeof process !== "undefined" && process.env.HOME;
let home: string | undefined;
if (typeof process !== "undefined") {
  home = process.env.HOME;
}
export { home };
"""


@pytest.mark.parametrize("minify", [False, True], ids=["plain", "minified"])
def test_a_read_that_cannot_throw_builds_with_one_warning_per_file(make_pkg, build, minify):
    """A bare import.meta.env is undefined in a browser (zustand's guard); a read behind its own test (an
    expression, an if) cannot throw: the build ships, with one warning for the file."""
    root = make_pkg({"package.json": ui_manifest(), "src/app/host.tsx": GUARDS + HOST_TSX})
    result = build(root, minify=minify)
    [warning] = [d for d in result.warnings if d.code == "NB1915"]
    assert (warning.file, warning.line) == ("src/app/host.tsx", 1)
    assert warning.message.endswith("(and 4 more such read(s) in this file)")


def test_a_typeof_process_elsewhere_in_own_code_guards_nothing(make_pkg, build):
    """The package's own read needs its guard next to it: a typeof process on another line is no excuse."""
    source = 'export const isNode = typeof process !== "undefined";\nexport const api = process.env.API_URL;\n'
    root = make_pkg({"package.json": ui_manifest(), "src/app/host.tsx": source + HOST_TSX})
    with pytest.raises(DiagnosedError) as err:
        build(root)
    [d] = err.value.diagnostics
    assert (d.severity, d.code, d.file, d.line) == ("error", "NB1915", "src/app/host.tsx", 2)


def test_a_dependencys_guard_is_read_in_the_bundle_not_in_sources_it_did_not_ship(make_pkg, build):
    """A library whose source map names sources it does not ship (styled-components' src/) is judged by the
    code that runs; one whose file tests typeof process elsewhere (in a variable) gets the benefit of the doubt."""
    mapped = {"version": 3, "sources": ["../src/constants.ts"], "names": [], "mappings": "AAAA"}
    styled = (
        'export const attr = "undefined" != typeof process && void 0 !== process.env && '
        '(process.env.REACT_APP_SC_ATTR || process.env.SC_ATTR) || "data-styled";\n'
        "//# sourceMappingURL=index.js.map\n"
    )
    root = make_pkg(
        {
            "package.json": ui_manifest(),
            "src/app/host.tsx": 'import { attr } from "styled";\nimport { x } from "isomorphic";\n'
            "export const a = [attr, x];\n" + HOST_TSX,
            "node_modules/styled/package.json": {"name": "styled", "version": "1.0.0", "module": "dist/index.js"},
            "node_modules/styled/dist/index.js": styled,
            "node_modules/styled/dist/index.js.map": json.dumps(mapped),
            "node_modules/isomorphic/package.json": {"name": "isomorphic", "version": "1.0.0", "module": "i.js"},
            "node_modules/isomorphic/i.js": 'const isNode = typeof process !== "undefined";\n'
            "export const x = isNode ? process.env.X : null;\n",
        }
    )
    result = build(root, minify=True)
    assert sorted((d.file, d.severity) for d in result.warnings if d.code == "NB1915") == [
        ("node_modules/isomorphic/i.js", "warning"),
        ("node_modules/styled/src/constants.ts", "warning"),
    ]


def test_a_solution_style_tsconfig_keeps_the_aliases_or_says_what_to_change(make_pkg, build):
    tree = {
        "package.json": ui_manifest(),
        "tsconfig.json": '{\n  // as Vite writes it\n  "files": [],\n'
        '  "references": [{ "path": "./tsconfig.app.json" },],\n}\n',
        "tsconfig.app.json": {"compilerOptions": {"paths": {"@/*": ["./src/*"]}}, "include": ["src"]},
        "src/lib/greet.ts": 'export const greeting = "hi";\n',
        "src/app/host.tsx": 'import { greeting } from "@/lib/greet";\nexport const g = greeting;\n' + HOST_TSX,
    }
    root = make_pkg(tree)
    build(root)
    assert '"hi"' in (root / "dist/app/host.js").read_text()
    (root / "tsconfig.app.json").write_text(json.dumps({"include": ["lib"]}))
    with pytest.raises(DiagnosedError) as err:
        build(root)
    assert codes(err.value) == [("NB1916", "tsconfig.json", "/references", None)]
    assert err.value.diagnostics[0].hint.startswith('add "src" to "include" of tsconfig.app.json')


def test_an_asset_type_without_a_loader_gets_an_actionable_hint(make_pkg, build):
    root = make_pkg(
        {
            "package.json": ui_manifest(),
            "src/app/host.tsx": 'import data from "./table.xyz";\nexport const d = data;\n' + HOST_TSX,
            "src/app/table.xyz": "1,2\n",
        }
    )
    with pytest.raises(DiagnosedError) as err:
        build(root)
    [d] = err.value.diagnostics
    assert (d.code, d.file, d.line) == ("NB1900", "src/app/host.tsx", 1)
    assert "fix the source" not in d.hint and ".woff2" in d.hint and "convert it" in d.hint


def test_the_install_hint_uses_the_scaffolds_spelling():
    assert install_function("3d-charts") == "installPkg3dChartsHostComponents"
    assert INSTALL_EXPORT.match(install_function("3d-charts"))
    assert install_function("@acme/myReports") == "installAcmeMyreportsHostComponents"


def test_a_missing_event_source_writes_nothing(make_pkg, esbuild):
    manifest = ui_manifest()
    manifest["neuralis"]["events"] = [{"id": "report.failed", "title": "Failed", "subject": "report"}]
    root = make_pkg({"package.json": manifest, "src/app/host.tsx": HOST_TSX})
    options = BuildOptions(default_host_profile())
    with pytest.raises(DiagnosedError) as err:
        build_package(load_package(root), options, esbuild)
    assert codes(err.value) == [("NB0706", "package.json", "/neuralis/events/0/subject", 17)]
    assert not (root / "dist").exists() or snapshot(root / "dist") == {}


def test_leftovers_of_a_killed_build_are_swept(make_pkg, build):
    root = make_pkg({"package.json": ui_manifest(), "src/app/host.tsx": HOST_TSX})
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    pid = int(dead.stdout)
    for name in (f".app-{pid}-x1", f".app-old-{pid}-x2", f".server-{pid}-x3"):
        (root / "dist" / name).mkdir(parents=True)
    (root / "dist" / f".app-{os.getpid()}-mine").mkdir()  # a build of this very process is left alone
    build(root)
    assert sorted(p.name for p in (root / "dist").iterdir()) == [f".app-{os.getpid()}-mine", "app"]


def test_dist_as_a_file_is_an_environment_error(make_pkg):
    root = make_pkg({"package.json": ui_manifest(), "src/app/host.tsx": HOST_TSX, "dist": "not a folder\n"})
    done = subprocess.run([CLI, "ui", str(root)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 2
    assert done.stderr.splitlines()[0] == (
        f"error: cannot write the build output: {root / 'dist'} (or a folder above it) is a file"
    )
    assert "Traceback" not in done.stderr


def _small_files() -> None:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG instead
    resource.setrlimit(resource.RLIMIT_FSIZE, (2000, 2000))


def test_a_write_the_machine_refuses_is_an_environment_error(make_pkg):
    big = "export const blob = " + json.dumps("x" * 50_000) + ";\n"
    root = make_pkg({"package.json": ui_manifest(), "src/app/host.tsx": big + HOST_TSX})
    done = subprocess.run([CLI, "ui", str(root)], capture_output=True, text=True, timeout=300, preexec_fn=_small_files)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("error: esbuild could not write the output:") and "file too large" in done.stderr
    assert "NB1900" not in done.stderr


def test_a_webpack_tilde_import_in_css_says_to_drop_the_tilde(make_pkg, build):
    root = make_pkg(
        {
            "package.json": ui_manifest({"entry": "dist/app/host.js", "css": "dist/app/host.css"}),
            "src/app/host.tsx": 'import "./host.css";\n' + HOST_TSX,
            "src/app/host.css": '@import "~maps/dist/maps.css";\n.x { color: red; }\n',
            "node_modules/maps/package.json": {"name": "maps", "version": "1.0.0"},
            "node_modules/maps/dist/maps.css": ".map { color: blue; }\n",
        }
    )
    with pytest.raises(DiagnosedError) as err:
        build(root)
    [d] = err.value.diagnostics
    assert (d.code, d.file, d.line) == ("NB1900", "src/app/host.css", 1)
    assert d.hint == (
        'the "~" prefix is webpack\'s way to name a package; write "maps/dist/maps.css": '
        "the build resolves packages from node_modules without it"
    )
    (root / "src/app/host.css").write_text('@import "maps/dist/maps.css";\n.x { color: red; }\n')
    build(root)
    assert ".map {" in (root / "dist/app/host.css").read_text()


def test_a_vite_import_suffix_is_named_not_blamed_on_the_library(make_pkg, build):
    """pdf.js's docs (for Vite) write import url from "pdfjs-dist/build/pdf.worker.min.mjs?url": esbuild reads the
    file and finds no default export; the hint names the suffix, not a renamed API of the library."""
    root = make_pkg(
        {
            "package.json": ui_manifest(),
            "src/app/host.tsx": 'import url from "pdfjs-like/worker.mjs?url";\nexport const u = url;\n' + HOST_TSX,
            "node_modules/pdfjs-like/package.json": {"name": "pdfjs-like", "version": "5.0.0"},
            "node_modules/pdfjs-like/worker.mjs": "export const run = () => null;\n",
        }
    )
    with pytest.raises(DiagnosedError) as err:
        build(root)
    [d] = err.value.diagnostics
    assert (d.code, d.line) == ("NB1925", 1)
    assert (d.hint or "").startswith('"?url" is a Vite import suffix, which this build does not know: import the file')


def test_an_import_a_library_does_not_export_names_the_installed_version(make_pkg, build):
    # a library whose new major renamed its API (@tanstack/react-table 9 has no useReactTable)
    root = make_pkg(
        {
            "package.json": ui_manifest(),
            "src/app/host.tsx": 'import { useReactTable } from "tables";\nimport Grid from "tables";\n'
            'import { missing } from "./local";\nexport const t = [useReactTable, Grid, missing];\n' + HOST_TSX,
            "src/app/local.ts": "export const present = 1;\n",
            "node_modules/tables/package.json": {"name": "tables", "version": "9.0.1", "module": "index.mjs"},
            "node_modules/tables/index.mjs": "export const createTable = () => null;\n",
        }
    )
    with pytest.raises(DiagnosedError) as err:
        build(root)
    found = [(d.code, d.file, d.line, d.hint) for d in err.value.diagnostics]
    assert found == [
        (
            "NB1925",
            "src/app/host.tsx",
            1,
            'the installed tables@9.0.1 has no export named "useReactTable": check the import against that '
            "version's API (a new major version may rename or remove it), or install the version the code was "
            "written for (npm install tables@<version>)",
        ),
        (
            "NB1925",
            "src/app/host.tsx",
            2,
            "the installed tables@9.0.1 has no default export: check the import against that version's API (a new "
            "major version may rename or remove it), or install the version the code was written for "
            "(npm install tables@<version>)",
        ),
        (
            "NB1925",
            "src/app/host.tsx",
            3,
            'src/app/local.ts has no export named "missing": check the name (exports are case-sensitive), '
            "or export it from that file",
        ),
    ]
