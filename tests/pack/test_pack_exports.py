"""``require.resolve('<name>/package.json')`` under ``exports``: our static answer against real node."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from packtools import needs_npm, write_tree

from neuralis_build.npm.exports import exports_diagnostics, resolve_subpath

M = "./lib/index.js"
PJ = "./package.json"
ABSENT = object()

# (exports, outcome, file it maps to)
SHAPES: list[tuple[Any, str, str | None]] = [
    (ABSENT, "ok", "package.json"),
    (None, "ok", "package.json"),
    (M, "not-exported", None),
    ({".": M}, "not-exported", None),
    ({"import": M, "require": M}, "not-exported", None),
    ({}, "not-exported", None),
    (False, "not-exported", None),
    ([M], "not-exported", None),
    ({"": M}, "not-exported", None),
    ({".": M, PJ: PJ}, "ok", "package.json"),
    ({".": M, PJ: {"default": PJ}}, "ok", "package.json"),
    ({".": M, PJ: {"node": PJ}}, "ok", "package.json"),
    ({".": M, PJ: {"module-sync": PJ}}, "ok", "package.json"),
    ({".": M, PJ: {"types": "./x.d.ts", "default": PJ}}, "ok", "package.json"),
    ({".": M, PJ: {"require": PJ}}, "ok", "package.json"),
    ({".": M, PJ: {"import": PJ}}, "not-exported", None),
    ({".": M, PJ: {"browser": PJ}}, "not-exported", None),
    ({".": M, PJ: {"node": None, "default": PJ}}, "not-exported", None),
    ({".": M, PJ: {"node": {"require": PJ}, "default": None}}, "ok", "package.json"),
    ({".": M, PJ: {"default": {"require": PJ}}}, "ok", "package.json"),
    ({".": M, PJ: [PJ]}, "ok", "package.json"),
    ({".": M, PJ: ["bad", PJ]}, "ok", "package.json"),
    ({".": M, PJ: [None, PJ]}, "ok", "package.json"),
    ({".": M, PJ: []}, "not-exported", None),
    ({".": M, "./*": "./*"}, "ok", "package.json"),
    ({".": M, "./*.json": "./*.json"}, "ok", "package.json"),
    ({".": M, "./package*": "./package*"}, "ok", "package.json"),
    ({".": M, "./*": {"require": "./*", "import": "./*"}}, "ok", "package.json"),
    ({".": M, "./*": "./*", "./internal/*": None}, "ok", "package.json"),
    ({".": M, "./*": "./*", PJ: None}, "not-exported", None),
    ({".": M, "./*": "./*", "./*.json": None}, "not-exported", None),
    ({".": M, "./*": None, "./package.*": "./package.*"}, "ok", "package.json"),
    ({".": M, "./pack*.json": "./pack*.json", "./p*": None}, "ok", "package.json"),
    ({".": M, "./*": "./lib/*"}, "ok", "lib/package.json"),
    ({".": M, "./*": "./*.js"}, "ok", "package.json.js"),
    ({".": M, "./": "./"}, "not-exported", None),
    ({".": M, PJ: "./nope.json"}, "ok", "nope.json"),
    ({".": M, PJ: "./lib/index.js"}, "ok", "lib/index.js"),
    ({".": M, PJ: ".//package.json"}, "ok", "package.json"),
    ({".": M, PJ: "./pack%61ge.json"}, "ok", "package.json"),
    ({".": M, PJ: "package.json"}, "invalid-target", None),
    ({".": M, PJ: "./lib/../package.json"}, "invalid-target", None),
    ({".": M, PJ: "./node_modules/x"}, "invalid-target", None),
    ({".": M, PJ: 5}, "invalid-target", None),
    ({".": M, "package.json": PJ}, "invalid-config", None),
    ({".": M, "import": M}, "invalid-config", None),
    ({".": M, PJ: {"0": PJ}}, "invalid-config", None),
]
NODE_CODE = {
    "not-exported": "ERR_PACKAGE_PATH_NOT_EXPORTED",
    "invalid-target": "ERR_INVALID_PACKAGE_TARGET",
    "invalid-config": "ERR_INVALID_PACKAGE_CONFIG",
}


@pytest.mark.parametrize(("exports", "outcome", "target"), SHAPES)
def test_resolution(exports: Any, outcome: str, target: str | None) -> None:
    res = resolve_subpath(None if exports is ABSENT else exports)
    assert (res.outcome, res.target) == (outcome, target)


@pytest.mark.e2e
@needs_npm
def test_node_agrees(tmp_path: Path) -> None:
    """Install each shape as node_modules/p<i> and ask real node; MODULE_NOT_FOUND means the target is missing."""
    for i, (exports, _, _) in enumerate(SHAPES):
        manifest: dict[str, Any] = {"name": f"p{i}", "version": "1.0.0", "main": "lib/index.js"}
        if exports is not ABSENT:
            manifest["exports"] = exports
        write_tree(tmp_path / "node_modules" / f"p{i}", {"package.json": manifest, "lib/index.js": ""})
    script = """
    const out = [];
    for (let i = 0; i < Number(process.argv[1]); i++) {
      try { out.push('ok ' + require('path').relative(process.cwd() + '/node_modules/p' + i,
                                                         require.resolve('p' + i + '/package.json'))); }
      catch (e) { out.push(e.code); }
    }
    process.stdout.write(JSON.stringify(out));
    """
    done = subprocess.run(
        ["node", "-e", script, str(len(SHAPES))], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    expected = json.loads(done.stdout)
    ours = []
    for i, (exports, _, _) in enumerate(SHAPES):
        res = resolve_subpath(None if exports is ABSENT else exports)
        if res.outcome != "ok":
            ours.append(NODE_CODE[res.outcome])
        elif (tmp_path / "node_modules" / f"p{i}" / str(res.target)).is_file():
            ours.append(f"ok {res.target}")
        else:
            ours.append("MODULE_NOT_FOUND")
    assert ours == expected


def findings(exports: Any, packed: tuple[str, ...] = ("package.json", "lib/index.js")) -> list[tuple[str, str, str]]:
    manifest = {"name": "@acme/x", "version": "1.0.0", "exports": exports}
    return [(d.severity, d.code, d.pointer) for d in exports_diagnostics(manifest, packed)]


def test_refusals_name_the_deciding_pointer() -> None:
    assert findings({".": M, PJ: PJ}) == []
    assert findings(M) == [("error", "NB1707", "/exports")]
    assert findings({".": M}) == [("error", "NB1707", "/exports")]
    assert findings({".": M, PJ: {"import": PJ}}) == [("error", "NB1707", "/exports/.~1package.json")]
    assert findings({".": M, "./*": "./*", "./*.json": None}) == [("error", "NB1707", "/exports/.~1*.json")]
    assert findings({".": M, PJ: "./lib/index.js"}) == [("error", "NB1707", "/exports/.~1package.json")]
    assert findings({".": M, "./*": "./lib/*"}) == [("error", "NB1707", "/exports/.~1*")]
    assert findings({".": M, PJ: "package.json"}) == [("error", "NB1708", "/exports/.~1package.json")]
    assert findings({".": M, "import": M}) == [("error", "NB1708", "/exports")]
    assert findings(None) == []


def test_the_hint_is_the_one_line_fix() -> None:
    manifest = {"name": "x", "version": "1", "exports": "./lib/index.js"}
    (d,) = exports_diagnostics(manifest, ["package.json"])
    assert d.hint == 'write "exports": {".": "./lib/index.js", "./package.json": "./package.json"}'
    manifest["exports"] = {".": M}
    (d,) = exports_diagnostics(manifest, ["package.json"])
    assert d.hint is not None and d.hint.startswith('add "./package.json": "./package.json" to "exports"')
    assert "require.resolve('x/package.json')" in d.message
