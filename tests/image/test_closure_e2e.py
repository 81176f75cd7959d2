"""The dependency closure end to end: npm resolves against a local verdaccio, the image installs, node runs it.

The registry starts with real npm packages (debug, ms, react, @types/ms: pinned tarballs, published
unchanged); each test publishes its own packages beside them.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest

from neuralis_build.image.fetch import integrity_of
from tests.conftest import manifest, requires_node
from tests.image.conftest import LocalRegistry, Run, package_tgz, spec_text, tree_bytes, write_tgz

pytestmark = [pytest.mark.e2e, pytest.mark.registry, requires_node]

RunImage = Callable[..., Run]

RESOLVE = r"""
const path = require("path");
const out = {};
for (const [dir, name] of JSON.parse(require("fs").readFileSync(0, "utf8"))) {
  try {
    out[`${dir} ${name}`] = path.relative(process.cwd(), require.resolve(name, { paths: [path.resolve(dir)] }));
  } catch (e) {
    out[`${dir} ${name}`] = e.code;
  }
}
process.stdout.write(JSON.stringify(out));
"""


def publish(
    registry: LocalRegistry, tmp: Path, data: Mapping[str, Any], files: Mapping[str, str] | None = None
) -> None:
    """Publish a package made here (package.json ``data`` and ``files``) to the test's registry."""
    stem = f"{str(data['name']).removeprefix('@').replace('/', '-')}-{data['version']}.tgz"
    registry.publish(write_tgz(tmp / "publish", stem, package_tgz(data, files or {})))


def lib(name: str, version: str, **extra: Any) -> dict[str, Any]:
    return {"name": name, "version": version, "main": "index.js", "license": "MIT", **extra}


def resolve_from(image: Path, pairs: list[tuple[str, str]]) -> dict[str, str]:
    """``require.resolve(name, {paths: [dir]})`` with the real node for each (dir, name), relative to the image."""
    done = subprocess.run(
        ["node", "-e", RESOLVE], input=json.dumps(pairs), cwd=image, capture_output=True, text=True, check=True
    )
    result: dict[str, str] = json.loads(done.stdout)
    return result


def closure_rows(run: Run) -> list[tuple[str, str, str, str]]:
    return [(c["path"], c["version"], " > ".join(c["chain"]), c["trust"]) for c in run.report["closure"]]


def test_the_closure_is_installed_where_node_finds_it(
    tmp_path: Path, npm_registry: LocalRegistry, run_image: RunImage
) -> None:
    for version in ("1.0.0", "1.1.0", "2.0.0"):
        publish(npm_registry, tmp_path, lib("acme-shared", version), {"index.js": f"module.exports = '{version}';\n"})
    tool = (
        "const debug = require('debug');\nconst shared = require('acme-shared');\n"
        "exports.run = () => `${shared} ${typeof debug} ${require('ms')('2h')}`;\n"
    )
    t = tmp_path / "tgz"
    one = manifest(name="@acme/one", dependencies={"acme-shared": "^1.0.0", "debug": "4.4.3", "ms": "^2.1.0"})
    write_tgz(t, "one.tgz", package_tgz(one, {"tools/acme_one_when.js": tool}))
    two = lib("acme-two", "1.0.0", dependencies={"acme-shared": "~1.1.0", "ms": "2.0.0"})
    write_tgz(t, "two.tgz", package_tgz(two, {"index.js": "module.exports = require('ms')(1000);\n"}))
    three = lib("acme-three", "1.0.0", dependencies={"acme-shared": "^2.0.0"})
    write_tgz(t, "three.tgz", package_tgz(three, {"index.js": "module.exports = require('acme-shared');\n"}))
    spec = spec_text(
        {"source": "tgz/one.tgz"},
        {"source": "tgz/two.tgz", "class": "installed", "trust": "trusted"},
        {"source": "tgz/three.tgz", "class": "project"},
    )
    run = run_image(spec)
    assert run.code == 0, run.err
    assert closure_rows(run) == [
        ("node_modules/@acme/one", "1.0.0", "@acme/one", "first-party"),
        ("node_modules/@acme/one/node_modules/acme-shared", "1.1.0", "@acme/one > acme-shared", "first-party"),
        ("node_modules/@acme/one/node_modules/debug", "4.4.3", "@acme/one > debug", "first-party"),
        ("node_modules/@acme/one/node_modules/ms", "2.1.3", "@acme/one > ms", "first-party"),
        ("node_modules/acme-three", "1.0.0", "acme-three", "untrusted"),
        ("node_modules/acme-three/node_modules/acme-shared", "2.0.0", "acme-three > acme-shared", "untrusted"),
        ("node_modules/acme-two", "1.0.0", "acme-two", "trusted"),
        ("node_modules/acme-two/node_modules/acme-shared", "1.1.0", "acme-two > acme-shared", "trusted"),
        ("node_modules/acme-two/node_modules/ms", "2.0.0", "acme-two > ms", "trusted"),
    ]
    debug = next(c for c in run.report["closure"] if c["name"] == "debug")
    assert debug["license"] == "MIT"
    assert (
        debug["integrity"]
        == "sha512-RGwwWnwQvkVfavKVt22FGLw+xYSdzARwm0ru6DhTVA3umU5hZc28V3kO4stgYryrTlLpuvgI9GiijltAjNbcqA=="
    )
    assert debug["resolved"] == f"{npm_registry.url}debug/-/debug-4.4.3.tgz"
    assert [(c["kind"], c["name"], c["severity"]) for c in run.report["conflicts"]] == [
        ("versions", "acme-shared", "warning"),
        ("versions", "ms", "warning"),
    ]
    assert run.report["conflicts"][0]["message"] == (
        "acme-shared is installed at 2 versions (1.1.0 for @acme/one, acme-two; 2.0.0 for acme-three): the ranges "
        "do not meet, so npm nested each version under the package that needs it"
    )
    # node resolves every dependency from inside each installed package, to the folder the report names
    image = run.image
    found = resolve_from(
        image,
        [
            ("node_modules/@acme/one", "acme-shared"),
            ("node_modules/@acme/one", "debug"),
            ("node_modules/@acme/one/node_modules/debug", "ms"),
            ("node_modules/acme-two", "acme-shared"),
            ("node_modules/acme-two", "ms"),
            ("node_modules/acme-three", "acme-shared"),
            (".", "acme-shared"),
        ],
    )
    assert found == {
        "node_modules/@acme/one acme-shared": "node_modules/@acme/one/node_modules/acme-shared/index.js",
        "node_modules/@acme/one debug": "node_modules/@acme/one/node_modules/debug/src/index.js",
        "node_modules/@acme/one/node_modules/debug ms": "node_modules/@acme/one/node_modules/ms/index.js",
        "node_modules/acme-two acme-shared": "node_modules/acme-two/node_modules/acme-shared/index.js",
        "node_modules/acme-two ms": "node_modules/acme-two/node_modules/ms/index.js",
        "node_modules/acme-three acme-shared": "node_modules/acme-three/node_modules/acme-shared/index.js",
        ". acme-shared": "MODULE_NOT_FOUND",  # nothing is hoisted: each closure stays under its package
    }
    # the tool file that requires its dependencies runs under the real node
    done = subprocess.run(
        ["node", "-e", "process.stdout.write(require('./node_modules/@acme/one/tools/acme_one_when.js').run())"],
        cwd=image,
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout == "1.1.0 function 7200000"
    # the text report names the closure and its conflicts
    assert "closure: 9 package(s) installed (3 listed, 6 from the registry, 0 bundled)" in _text(run, spec, tmp_path)


def _text(run: Run, spec: str, tmp_path: Path) -> str:
    from neuralis_build.cli.build import main

    (tmp_path / "text.toml").write_text(spec)
    import contextlib
    import io

    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        main(["image", str(tmp_path / "text.toml"), "--out", str(run.image)])
    return buffer.getvalue()


def test_two_builds_give_the_same_bytes_and_frozen_survives_the_registry_moving_on(
    tmp_path: Path, npm_registry: LocalRegistry, run_image: RunImage
) -> None:
    publish(npm_registry, tmp_path, lib("acme-shared", "1.1.0"), {"index.js": "module.exports = '1.1.0';\n"})
    data = package_tgz(manifest(name="@acme/app", dependencies={"acme-shared": "^1.0.0", "debug": "^4.0.0"}))
    write_tgz(tmp_path / "tgz", "app.tgz", data)
    spec = spec_text({"source": "tgz/app.tgz", "integrity": integrity_of(data)})
    first = run_image(spec, out=tmp_path / "a")
    second = run_image(spec, out=tmp_path / "b")
    assert first.code == second.code == 0, first.err
    outputs = ["neuralis-image.json", "neuralis-image.lock", "sbom.cdx.json", "package-lock.json", "package.json"]
    for name in outputs:
        assert (first.image / name).read_bytes() == (second.image / name).read_bytes(), name
    assert tree_bytes(first.image / "node_modules") == tree_bytes(second.image / "node_modules")
    # the registry moves on: a newer acme-shared and a newer ms (what debug's ^ range now picks)
    publish(npm_registry, tmp_path, lib("acme-shared", "1.2.0"), {"index.js": "module.exports = '1.2.0';\n"})
    before = tree_bytes(first.image / "node_modules")
    frozen = run_image(spec, "--frozen", out=first.image)
    assert frozen.code == 0, frozen.err
    assert tree_bytes(first.image / "node_modules") == before
    assert (first.image / "neuralis-image.lock").read_bytes() == (second.image / "neuralis-image.lock").read_bytes()
    # a plain rebuild keeps npm's lock too (as npm install does); a fresh image resolves anew
    again = run_image(spec, out=second.image)
    assert tree_bytes(second.image / "node_modules") == before and again.code == 0
    fresh = run_image(spec, out=tmp_path / "c")
    versions = {c["name"]: c["version"] for c in fresh.report["closure"]}
    assert versions["acme-shared"] == "1.2.0"
    # --frozen refuses what the lock does not hold
    lock = json.loads((first.image / "package-lock.json").read_text())
    lock["packages"]["node_modules/@acme/app/node_modules/acme-shared"]["integrity"] = integrity_of(b"other")
    (first.image / "package-lock.json").write_text(json.dumps(lock))
    broken = run_image(spec, "--frozen", out=first.image)
    assert broken.code == 2
    assert "acme-shared" in broken.err and tree_bytes(first.image / "node_modules") == before
