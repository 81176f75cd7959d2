"""Node.js built-ins in a UI build: a dependency's are one NB1919 per dependency the author imported, at the
author's import with the chain; the package's own stay esbuild's NB1900 at their line; other errors still show.

The trees reproduce jsonwebtoken's shape (jsonwebtoken → jws → jwa, each requiring crypto, stream, util or
buffer), which esbuild reports as many NB1900s inside node_modules.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from neuralis_build.util.errors import DiagnosedError
from tests.ui.ui_helpers import HOST_TSX, ui_manifest

pytestmark = pytest.mark.e2e

CLI = str(Path(sys.executable).parent / "neuralis-build")


def lib(name: str, main: str = "index.js") -> dict[str, object]:
    return {"name": name, "version": "1.0.0", "main": main}


FAKE_JWT = {
    "node_modules/fake-jwt/package.json": lib("fake-jwt"),
    "node_modules/fake-jwt/index.js": 'module.exports = { sign: require("./sign.js"), decode: require("fake-jws") };\n',
    "node_modules/fake-jwt/sign.js": '// signs\nconst { createSign } = require("crypto");\n'
    "module.exports = createSign;\n",
    "node_modules/fake-jws/package.json": lib("fake-jws"),
    "node_modules/fake-jws/index.js": 'const { Readable } = require("stream");\nconst util = require("util");\n'
    'const jwa = require("fake-jwa");\nmodule.exports = (t) => [Readable, util, jwa(t)];\n',
    "node_modules/fake-jwa/package.json": lib("fake-jwa"),
    "node_modules/fake-jwa/index.js": 'const c = require("node:crypto");\nconst { Buffer } = require("buffer");\n'
    "module.exports = (t) => c.createHmac(Buffer.from(t));\n",
}
USES_JWT = '// the token\nimport jwt from "fake-jwt";\nexport const decode = jwt.decode;\n' + HOST_TSX
JWT_MESSAGE = (
    "fake-jwt imports Node.js built-ins that a browser lacks (buffer, crypto, node:crypto, stream, util): "
    "src/app/host.tsx → fake-jwt → fake-jws → fake-jwa; "
    "imported by fake-jwt (crypto), fake-jws (stream, util), fake-jwa (buffer, node:crypto)"
)
JWT_HINT = (
    "use a build of fake-jwt made for the browser, or a browser library that does the same; or do this work on "
    "the server side, in a tool or a route of the package, which runs in Node where fake-jwt works"
)


def found(exc: DiagnosedError) -> list[tuple[str, str, str, int | None, int | None, str]]:
    return [(d.severity, d.code, d.file, d.line, d.column, d.message) for d in exc.diagnostics]


def test_a_dependencys_built_ins_are_one_error_at_the_authors_import_with_the_chain(make_pkg, build):
    root = make_pkg({"package.json": ui_manifest(), "src/app/host.tsx": USES_JWT, **FAKE_JWT})
    with pytest.raises(DiagnosedError) as err:
        build(root)
    assert err.value.message == "the UI module was not written (1 problem)"
    assert found(err.value) == [("error", "NB1919", "src/app/host.tsx", 2, 17, JWT_MESSAGE)]
    assert err.value.diagnostics[0].hint == JWT_HINT
    assert not (root / "dist").exists() or not any((root / "dist").iterdir())  # nothing written, no leftovers


def test_one_error_per_top_dependency_however_many_files_import_it(make_pkg, build):
    root = make_pkg(
        {
            "package.json": ui_manifest(),
            "src/app/host.tsx": 'import { cfg } from "./config";\nexport const c = cfg;\n' + USES_JWT,
            "src/app/config.ts": 'import jwt from "fake-jwt";\nimport "fake-env/config";\nexport const cfg = jwt;\n',
            "node_modules/fake-env/package.json": lib("fake-env"),
            "node_modules/fake-env/config.js": 'require("./main.js");\n',
            "node_modules/fake-env/main.js": 'const fs = require("fs");\nconst os = require("os");\n'
            'const path = require("path");\nmodule.exports = [fs, os, path];\n',
            **FAKE_JWT,
        }
    )
    with pytest.raises(DiagnosedError) as err:
        build(root)
    env = (
        "fake-env imports Node.js built-ins that a browser lacks (fs, os, path): "
        "src/app/host.tsx → src/app/config.ts → fake-env"
    )
    assert found(err.value) == [  # host.tsx and config.ts both import fake-jwt: named once, at the nearest
        ("error", "NB1919", "src/app/config.ts", 2, 8, env),
        ("error", "NB1919", "src/app/host.tsx", 4, 17, JWT_MESSAGE),
    ]


def test_a_built_in_in_the_packages_own_source_stays_located_nb1900(make_pkg, build):
    root = make_pkg(
        {
            "package.json": ui_manifest(),
            "src/app/host.tsx": USES_JWT,
            "src/app/hash.ts": 'import { createHash } from "crypto";\nexport const h = createHash;\n',
            **FAKE_JWT,
        }
    )
    with pytest.raises(DiagnosedError) as err:
        build(root)
    assert [d.code for d in err.value.diagnostics] == ["NB1919"]  # hash.ts is not imported: not bundled
    (root / "src/app/host.tsx").write_text('import { h } from "./hash";\nexport const hh = h;\n' + USES_JWT)
    with pytest.raises(DiagnosedError) as err:
        build(root)
    own = ("error", "NB1900", "src/app/hash.ts", 1, 28, 'Could not resolve "crypto"')
    assert found(err.value) == [own, ("error", "NB1919", "src/app/host.tsx", 4, 17, JWT_MESSAGE)]
    assert err.value.diagnostics[0].hint == (
        '"crypto" is a Node.js built-in module, which a browser does not have: use a browser API or library '
        "instead, or do this work on the server side, in a tool or a route of the package"
    )


def test_another_error_still_shows_first_and_the_built_ins_are_named_by_package(make_pkg, build):
    root = make_pkg(
        {
            "package.json": ui_manifest(),
            "src/app/host.tsx": 'import { n } from "./broken";\nexport const b = n;\n' + USES_JWT,
            "src/app/broken.ts": "export const n: number = ;\n",
            **FAKE_JWT,
        }
    )
    with pytest.raises(DiagnosedError) as err:
        build(root)
    assert err.value.message == "the UI module was not written (2 problems)"
    assert found(err.value) == [
        ("error", "NB1900", "src/app/broken.ts", 1, 26, 'Unexpected ";"'),
        (
            "error",
            "NB1919",
            "node_modules/fake-jwa/index.js",
            1,
            19,
            "dependencies import Node.js built-ins that a browser lacks: "
            "fake-jwa (buffer, node:crypto), fake-jws (stream, util), fake-jwt (crypto)",
        ),
    ]
    assert err.value.diagnostics[1].hint == (
        "fix the other errors first: the build then names which of your imports brings each built-in in "
        "(and what to use instead)"
    )


def test_the_cli_prints_it_and_format_json_carries_it(make_pkg):
    root = make_pkg({"package.json": ui_manifest(), "src/app/host.tsx": USES_JWT, **FAKE_JWT})
    done = subprocess.run([CLI, "ui", str(root)], capture_output=True, text=True, timeout=300)
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr.splitlines() == [
        "error: the UI module was not written (1 problem)",
        "  src/app/host.tsx:2:17",
        f"    error NB1919 {JWT_MESSAGE}",
        f"    hint: {JWT_HINT}",
        "explain a code: neuralis-build explain NB1919",
    ]
    done = subprocess.run([CLI, "ui", str(root), "--format", "json"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 1
    (element,) = json.loads(done.stdout)
    assert element["error"]["message"] == "the UI module was not written (1 problem)"
    assert element["error"]["diagnostics"] == [
        {
            "severity": "error",
            "code": "NB1919",
            "file": "src/app/host.tsx",
            "pointer": "",
            "message": JWT_MESSAGE,
            "hint": JWT_HINT,
            "line": 2,
            "column": 17,
        }
    ]


def test_a_dependency_hoisted_above_the_package_is_named_the_same(make_pkg, build):
    """npm workspaces hoist dependencies to the root's node_modules, outside the package folder."""
    repo = make_pkg(
        {
            "package.json": {"name": "monorepo", "private": True, "workspaces": ["packages/*"]},
            "packages/widgets/package.json": ui_manifest(),
            "packages/widgets/src/app/host.tsx": USES_JWT,
            **FAKE_JWT,
        }
    )
    with pytest.raises(DiagnosedError) as err:
        build(repo / "packages/widgets")
    assert found(err.value) == [("error", "NB1919", "src/app/host.tsx", 2, 17, JWT_MESSAGE)]
