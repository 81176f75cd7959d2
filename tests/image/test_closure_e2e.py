"""The dependency closure end to end: npm resolves against a local verdaccio, the image installs, node runs it.

The registry starts with real npm packages (debug, ms, react, @types/ms: pinned tarballs, published
unchanged); each test publishes its own packages beside them.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest

from neuralis_build.image.archive.integrity import integrity_of
from neuralis_build.image.layout.tiers import stored
from tests.conftest import manifest, requires_node, requires_sandbox
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
        publish(npm_registry, tmp_path, lib("acme-common", version), {"index.js": f"module.exports = '{version}';\n"})
    tool = (
        "const debug = require('debug');\nconst common = require('acme-common');\n"
        "exports.run = () => `${common} ${typeof debug} ${require('ms')('2h')}`;\n"
    )
    t = tmp_path / "tgz"
    one = manifest(name="@acme/one", dependencies={"acme-common": "^1.0.0", "debug": "4.4.3", "ms": "^2.1.0"})
    write_tgz(t, "one.tgz", package_tgz(one, {"tools/acme_one_when.js": tool}))
    two = lib("acme-two", "1.0.0", dependencies={"acme-common": "~1.1.0", "ms": "2.0.0"})
    write_tgz(t, "two.tgz", package_tgz(two, {"index.js": "module.exports = require('ms')(1000);\n"}))
    three = lib("acme-three", "1.0.0", dependencies={"acme-common": "^2.0.0"})
    write_tgz(t, "three.tgz", package_tgz(three, {"index.js": "module.exports = require('acme-common');\n"}))
    spec = spec_text(
        {"source": "tgz/one.tgz"},
        {"source": "tgz/two.tgz", "class": "installed", "trust": "trusted"},
        {"source": "tgz/three.tgz", "class": "project"},
    )
    run = run_image(spec)
    assert run.code == 0, run.err
    # npm hoists; the image keeps npm's versions and places, each hoisted package in the folder of the trust
    # tier whose listed packages need it (acme-common 1.1.0 twice: for first-party @acme/one, for trusted acme-two)
    assert closure_rows(run) == [
        (stored("first-party", "acme-common", "1.1.0"), "1.1.0", "@acme/one > acme-common", "first-party"),
        (stored("first-party", "debug", "4.4.3"), "4.4.3", "@acme/one > debug", "first-party"),
        (stored("first-party", "ms", "2.1.3"), "2.1.3", "@acme/one > ms", "first-party"),
        (stored("trusted", "acme-common", "1.1.0"), "1.1.0", "acme-two > acme-common", "trusted"),
        ("node_modules/@acme/one", "1.0.0", "@acme/one", "first-party"),
        ("node_modules/acme-three", "1.0.0", "acme-three", "untrusted"),
        ("node_modules/acme-three/node_modules/acme-common", "2.0.0", "acme-three > acme-common", "untrusted"),
        ("node_modules/acme-two", "1.0.0", "acme-two", "trusted"),
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
        ("versions", "acme-common", "warning"),
        ("versions", "ms", "warning"),
    ]
    assert run.report["conflicts"][0]["message"] == (
        "acme-common is installed at 2 versions (1.1.0 for @acme/one (^1.0.0), acme-two (~1.1.0); 2.0.0 for "
        "acme-three (^2.0.0)): no version satisfies every range, so npm nested each version under the package that "
        "needs it"
    )
    # node resolves every dependency from inside each installed package, to the folder the report names
    image = run.image
    found = resolve_from(
        image,
        [
            ("node_modules/@acme/one", "acme-common"),
            ("node_modules/@acme/one", "debug"),
            ("node_modules/@acme/one/node_modules/debug", "ms"),
            ("node_modules/acme-two", "acme-common"),
            ("node_modules/acme-two", "ms"),
            ("node_modules/acme-three", "acme-common"),
            (".", "acme-common"),
            ("node_modules/acme-two", "debug"),
            ("node_modules/acme-three", "debug"),
            (stored("trusted", "acme-common", "1.1.0"), "debug"),
        ],
    )
    common = stored("trusted", "acme-common", "1.1.0")
    assert found == {
        "node_modules/@acme/one acme-common": f"{stored('first-party', 'acme-common', '1.1.0')}/index.js",
        "node_modules/@acme/one debug": f"{stored('first-party', 'debug', '4.4.3')}/src/index.js",
        "node_modules/@acme/one/node_modules/debug ms": f"{stored('first-party', 'ms', '2.1.3')}/index.js",
        "node_modules/acme-two acme-common": f"{common}/index.js",
        "node_modules/acme-two ms": "node_modules/acme-two/node_modules/ms/index.js",
        "node_modules/acme-three acme-common": "node_modules/acme-three/node_modules/acme-common/index.js",
        ". acme-common": "MODULE_NOT_FOUND",  # the root holds the listed packages only
        # nothing crosses a trust boundary: debug is hoisted for first-party @acme/one, in its tier's folder
        "node_modules/acme-two debug": "MODULE_NOT_FOUND",
        "node_modules/acme-three debug": "MODULE_NOT_FOUND",
        f"{common} debug": "MODULE_NOT_FOUND",
    }
    assert os.readlink(image / "node_modules/@acme/one/node_modules/debug") == (
        "../../../.store/first-party/node_modules/debug"
    )
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
    publish(npm_registry, tmp_path, lib("acme-common", "1.1.0"), {"index.js": "module.exports = '1.1.0';\n"})
    data = package_tgz(manifest(name="@acme/app", dependencies={"acme-common": "^1.0.0", "debug": "^4.0.0"}))
    write_tgz(tmp_path / "tgz", "app.tgz", data)
    spec = spec_text({"source": "tgz/app.tgz", "integrity": integrity_of(data)})
    first = run_image(spec, out=tmp_path / "a")
    second = run_image(spec, out=tmp_path / "b")
    assert first.code == second.code == 0, first.err
    outputs = ["neuralis-image.json", "neuralis-image.lock", "sbom.cdx.json", "package-lock.json", "package.json"]
    for name in outputs:
        assert (first.image / name).read_bytes() == (second.image / name).read_bytes(), name
    assert tree_bytes(first.image / "node_modules") == tree_bytes(second.image / "node_modules")
    assert_valid_sbom(first.image / "sbom.cdx.json")
    # the registry moves on: a newer acme-common and a newer ms (what debug's ^ range now picks)
    publish(npm_registry, tmp_path, lib("acme-common", "1.2.0"), {"index.js": "module.exports = '1.2.0';\n"})
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
    assert versions["acme-common"] == "1.2.0"
    # --frozen refuses what the lock does not hold (npm's resolution, which it builds from)
    resolution = first.image / ".neuralis-resolution" / "package-lock.json"
    assert resolution.read_bytes() == (first.image / "package-lock.json").read_bytes()  # nothing was refused
    lock = json.loads(resolution.read_text())
    lock["packages"]["node_modules/acme-common"]["integrity"] = integrity_of(b"other")
    resolution.write_text(json.dumps(lock))
    broken = run_image(spec, "--frozen", out=first.image)
    assert broken.code == 2
    assert "acme-common" in broken.err and tree_bytes(first.image / "node_modules") == before
    # a lock edited to aim a package outside the image (a path, or a hoisted package's version, which names its
    # folder in the tier) is refused before anything is written
    lock = json.loads((first.image / "package-lock.json").read_text())  # npm's own, as before the edit above
    lock["packages"]["node_modules/acme-common"]["version"] = "../../../../../../escaped"  # only the place is wrong
    resolution.write_text(json.dumps(lock))
    aimed = run_image(spec, "--frozen", out=first.image)
    assert aimed.code == 2
    assert "has the version '../../../../../../escaped', which cannot name a folder" in aimed.err
    assert tree_bytes(first.image / "node_modules") == before
    assert not any(p.name == "escaped" for p in tmp_path.rglob("escaped"))


def tools(*names: str) -> dict[str, Any]:
    return {"tools": [{"name": n, "description": f"the {n} tool"} for n in names]}


CONFIG = {"configSettings": [{"key": "acmeHelperLimit", "label": "L", "type": "number", "default": 1, "category": "x"}]}


def test_neuralis_dependencies_are_discovered_and_never_gain_trust(
    tmp_path: Path, npm_registry: LocalRegistry, run_image: RunImage
) -> None:
    # a neuralis package reached through a host-dependency (first-party) and through an untrusted package
    helper = manifest({**tools("acme_helper_lookup"), **CONFIG}, name="@acme/helper", version="1.0.0")
    publish(npm_registry, tmp_path, helper)
    # one reached only through installed packages: its first-party-only fields are dropped, it never outranks
    sneaky = manifest({**tools("acme_lookup"), "configSettings": CONFIG["configSettings"]}, name="acme-sneaky")
    publish(npm_registry, tmp_path, sneaky)
    docs = manifest({"referenceOnly": True}, name="acme-docs")
    publish(npm_registry, tmp_path, docs)
    t = tmp_path / "tgz"
    reports = manifest(name="@acme/reports", dependencies={"@acme/helper": "^1.0.0", "acme-docs": "1.0.0"})
    write_tgz(t, "reports.tgz", package_tgz(reports))
    shady = manifest(name="shady-tools", dependencies={"@acme/helper": "^1.0.0", "acme-sneaky": "1.0.0"})
    write_tgz(t, "shady.tgz", package_tgz(shady))
    trusted = manifest(name="trusted-tools", dependencies={"acme-sneaky": "1.0.0"})
    write_tgz(t, "trusted.tgz", package_tgz(trusted))
    write_tgz(t, "zeta.tgz", package_tgz(manifest(tools("acme_lookup"), name="zeta-tools")))
    run = run_image(
        spec_text(
            {"source": "tgz/reports.tgz"},
            {"source": "tgz/shady.tgz", "class": "installed"},
            {"source": "tgz/trusted.tgz", "class": "installed", "trust": "trusted"},
            {"source": "tgz/zeta.tgz", "class": "shipped"},
        )
    )
    assert run.code == 0, run.err
    rows = [
        (p["name"], p["status"], p["class"], p["trust"], " > ".join(p["chain"]), p["path"])
        for p in run.report["packages"]
    ]
    assert rows == [
        ("@acme/reports", "loaded", "host-dependency", "first-party", "@acme/reports", "node_modules/@acme/reports"),
        ("shady-tools", "loaded", "installed", "untrusted", "shady-tools", "node_modules/shady-tools"),
        ("trusted-tools", "loaded", "installed", "trusted", "trusted-tools", "node_modules/trusted-tools"),
        ("zeta-tools", "loaded", "shipped", "first-party", "zeta-tools", "node_modules/zeta-tools"),
        (
            "@acme/helper",
            "loaded",
            "host-dependency",
            "first-party",
            "@acme/reports > @acme/helper",
            stored("first-party", "@acme/helper", "1.0.0"),
        ),
        (
            "acme-docs",
            "reference-only",
            "host-dependency",
            "first-party",
            "@acme/reports > acme-docs",
            stored("first-party", "acme-docs", "1.0.0"),
        ),
        (
            "acme-sneaky",
            "loaded",
            "installed",
            "trusted",
            "trusted-tools > acme-sneaky",
            stored("trusted", "acme-sneaky", "1.0.0"),
        ),
    ]
    # the first-party copy of @acme/helper claims its config key; the one under shady-tools is the same package
    assert run.package("@acme/helper")["diagnostics"] == []
    assert [(d["severity"], d["code"], d["pointer"]) for d in run.package("acme-sneaky")["diagnostics"]] == [
        ("warning", "NB1110", "/neuralis/configSettings"),
        ("warning", "NB1820", "/neuralis/tools/0/name"),
    ]
    # were acme-sneaky first-party, "acme-sneaky" < "zeta-tools" would take the name; at its parent's tier it cannot
    assert run.report["tools"] == [{"name": "acme_lookup", "owner": "zeta-tools", "shadowed": ["acme-sneaky"]}]
    helper_paths = [c["path"] for c in run.report["closure"] if c["name"] == "@acme/helper"]
    assert helper_paths == [
        stored("first-party", "@acme/helper", "1.0.0"),
        stored("untrusted", "@acme/helper", "1.0.0"),
    ]
    trusts = {c["path"]: c["trust"] for c in run.report["closure"]}
    assert trusts[stored("untrusted", "@acme/helper", "1.0.0")] == "untrusted"
    assert trusts[stored("untrusted", "acme-sneaky", "1.0.0")] == "untrusted"


def test_a_refused_dependency_takes_out_what_needs_it(
    tmp_path: Path, npm_registry: LocalRegistry, run_image: RunImage
) -> None:
    bad = manifest({"credentials": [{"id": "bad/id", "label": "x"}]}, name="acme-bad-dep")
    publish(npm_registry, tmp_path, bad)
    # a dependency that is itself a listed package at another version, under the listed one's id
    publish(npm_registry, tmp_path, manifest(name="acme-core", version="2.0.0"))
    publish(npm_registry, tmp_path, lib("acme-plain", "1.0.0"), {"index.js": "module.exports = 1;\n"})
    t = tmp_path / "tgz"
    write_tgz(t, "needs.tgz", package_tgz(manifest(name="acme-needs-bad", dependencies={"acme-bad-dep": "1.0.0"})))
    write_tgz(t, "uses.tgz", package_tgz(manifest(name="acme-uses-needs", dependencies={"acme-needs-bad": "*"})))
    write_tgz(t, "core.tgz", package_tgz(manifest(name="acme-core", version="1.0.0")))
    write_tgz(t, "newer.tgz", package_tgz(manifest(name="acme-wants-core2", dependencies={"acme-core": "^2.0.0"})))
    write_tgz(t, "fine.tgz", package_tgz(manifest(name="acme-fine", dependencies={"acme-plain": "1.0.0"})))
    run = run_image(
        spec_text(
            {"source": "tgz/needs.tgz"},
            {"source": "tgz/uses.tgz"},
            {"source": "tgz/core.tgz"},
            {"source": "tgz/newer.tgz"},
            {"source": "tgz/fine.tgz"},
        )
    )
    assert run.code == 1
    statuses = {
        p["path"] or p["name"]: (p["status"], [d["code"] for d in p["diagnostics"]]) for p in run.report["packages"]
    }
    assert statuses == {
        "node_modules/acme-needs-bad": ("refused", ["NB1812"]),
        "node_modules/acme-uses-needs": ("refused", ["NB1812"]),
        "node_modules/acme-core": ("loaded", []),
        "node_modules/acme-wants-core2": ("refused", ["NB1812"]),
        "node_modules/acme-fine": ("loaded", []),
        stored("first-party", "acme-bad-dep", "1.0.0"): ("refused", ["NB1002"]),
        "node_modules/acme-wants-core2/node_modules/acme-core": ("refused", ["NB1814"]),
    }
    assert run.package("acme-needs-bad")["diagnostics"][0]["message"] == (
        'it needs acme-bad-dep@1.0.0 (acme-needs-bad → acme-bad-dep), which is refused: "bad/id" breaks the '
        "credential-id charset: start with a letter or _, then letters, digits, _, . or - (no slashes, no leading dot)"
    )
    assert "it needs acme-needs-bad@1.0.0" in run.package("acme-uses-needs")["diagnostics"][0]["message"]
    core2 = next(
        p for p in run.report["packages"] if p["path"] == "node_modules/acme-wants-core2/node_modules/acme-core"
    )
    assert "has the id 'acme-core', which the listed acme-core@1.0.0 already has" in core2["diagnostics"][0]["message"]
    # nothing refused, and nothing that needs it, is in the image (nor in npm's files); npm's whole resolution is
    # kept for the next build
    assert sorted(p.name for p in (run.image / "node_modules").iterdir()) == [".store", "acme-core", "acme-fine"]
    assert [c["path"] for c in run.report["closure"]] == [
        stored("first-party", "acme-plain", "1.0.0"),
        "node_modules/acme-core",
        "node_modules/acme-fine",
    ]
    # the refused packages' hoisted dependencies left with them, and the folders that left empty
    tier = run.image / "node_modules/.store/first-party"
    assert sorted(p.name for p in tier.iterdir()) == ["acme-plain@1.0.0", "node_modules"]
    assert [p.name for p in (tier / "node_modules").iterdir()] == ["acme-plain"]
    lock = json.loads((run.image / "package-lock.json").read_text())
    assert "node_modules/acme-bad-dep" not in lock["packages"]
    resolution = json.loads((run.image / ".neuralis-resolution" / "package-lock.json").read_text())
    assert "node_modules/acme-bad-dep" in resolution["packages"]


@requires_sandbox
def test_install_scripts_never_run_and_are_reported(
    tmp_path: Path, npm_registry: LocalRegistry, run_image: RunImage
) -> None:
    marker = tmp_path / "script-ran"
    write = f"node -e \"require('fs').writeFileSync('{marker}', 'x')\""
    publish(npm_registry, tmp_path, lib("acme-post", "1.0.0", scripts={"postinstall": write}), {"index.js": ""})
    publish(npm_registry, tmp_path, lib("acme-gyp", "1.0.0"), {"index.js": "", "binding.gyp": "{}"})
    data = manifest(
        name="acme-app", dependencies={"acme-post": "1.0.0", "acme-gyp": "1.0.0"}, scripts={"preinstall": write}
    )
    write_tgz(tmp_path / "tgz", "app.tgz", package_tgz(data))
    run = run_image(spec_text({"source": "tgz/app.tgz"}))
    assert run.code == 0, run.err
    assert not marker.exists()
    works = {"status": "works", "detail": None}
    assert run.report["scripts"] == [
        {
            "path": stored("first-party", "acme-gyp", "1.0.0"),
            "name": "acme-gyp",
            "version": "1.0.0",
            "scripts": {"install": "node-gyp rebuild (implied by binding.gyp)"},
            "load": works,  # its binding.gyp names no addon target
        },
        {
            "path": stored("first-party", "acme-post", "1.0.0"),
            "name": "acme-post",
            "version": "1.0.0",
            "scripts": {"postinstall": write},
            "load": works,
        },
        {
            "path": "node_modules/acme-app",
            "name": "acme-app",
            "version": "1.0.0",
            "scripts": {"preinstall": write},
            "load": {"status": "no-entry", "detail": None},  # no main, no index.js: nothing to require
        },
    ]
    text = _text(run, spec_text({"source": "tgz/app.tgz"}), tmp_path)
    assert (
        f"install script not run: acme-post@1.0.0 ({stored('first-party', 'acme-post', '1.0.0')}) postinstall: " in text
    )
    assert f"postinstall: {write}: works without its script" in text
    assert not marker.exists()  # loading a package runs its code, never its install script


@requires_sandbox
def test_packages_load_with_no_network_and_no_writes_and_a_timer_does_not_hold_the_check(
    tmp_path: Path, npm_registry: LocalRegistry, run_image: RunImage
) -> None:
    post = {"postinstall": "node fetch-binary.js"}
    phone = "require('http').get('http://127.0.0.1:9/binary');\n"  # what a package that downloads on load does
    publish(npm_registry, tmp_path, lib("acme-phone", "1.0.0", scripts=post), {"index.js": phone})
    lookup = "require('dns').lookup('registry.npmjs.org', () => {});\n"
    publish(npm_registry, tmp_path, lib("acme-lookup", "1.0.0", scripts=post), {"index.js": lookup})
    timer = "setInterval(() => {}, 1000);\nmodule.exports = 1;\n"  # a package that keeps the event loop alive
    publish(npm_registry, tmp_path, lib("acme-timer", "1.0.0", scripts=post), {"index.js": timer})
    marker = tmp_path / "written-on-load"
    writes = f"require('fs').writeFileSync({json.dumps(str(marker))}, 'x');\n"  # outside the sandbox's view
    publish(npm_registry, tmp_path, lib("acme-writer", "1.0.0", scripts=post), {"index.js": writes})
    own = "require('fs').writeFileSync(__dirname + '/cache.bin', 'x');\n"  # into the tree, mounted read-only
    publish(npm_registry, tmp_path, lib("acme-cacher", "1.0.0", scripts=post), {"index.js": own})
    scratch = "const p = require('path').join(require('os').tmpdir(), 'x'); require('fs').writeFileSync(p, 'x');\n"
    publish(npm_registry, tmp_path, lib("acme-scratch", "1.0.0", scripts=post), {"index.js": scratch})
    names = ("acme-phone", "acme-lookup", "acme-timer", "acme-writer", "acme-cacher", "acme-scratch")
    deps = dict.fromkeys(names, "1.0.0")
    write_tgz(tmp_path / "tgz", "app.tgz", package_tgz(manifest(name="acme-app", dependencies=deps)))
    run = run_image(spec_text({"source": "tgz/app.tgz", "class": "host-dependency"}))
    # what the check forbids says nothing of the host: a warning (could not be checked), even for a host-dependency
    assert run.code == 0, run.err
    loads = {s["name"]: s["load"] for s in run.report["scripts"]}
    cacher = stored("first-party", "acme-cacher", "1.0.0")
    assert loads == {
        "acme-cacher": {
            "status": "denied",
            "detail": f"it wrote to {cacher}/cache.bin while loading, and the check's file system is read-only",
        },
        "acme-lookup": {
            "status": "denied",
            "detail": "it reached for the network while loading (a name lookup of registry.npmjs.org), and the check "
            "allows none",
        },
        "acme-phone": {
            "status": "denied",
            "detail": "it reached for the network while loading (127.0.0.1:9), and the check allows none",
        },
        "acme-scratch": {"status": "works", "detail": None},  # its temporary folder is its own
        "acme-timer": {"status": "works", "detail": None},
        "acme-writer": {
            "status": "denied",
            "detail": f"it reached for {marker} while loading, outside the image, and the check's sandbox has none",
        },
    }
    assert not marker.exists()
    assert not (run.image / cacher / "cache.bin").exists()
    warned = {c["name"]: c["severity"] for c in run.report["conflicts"] if c["kind"] == "load"}
    assert warned == dict.fromkeys(["acme-cacher", "acme-lookup", "acme-phone", "acme-writer"], "warning")
    assert "note: packages with install scripts were loaded in the sandbox (bubblewrap: no network, no secrets)" in (
        run.err
    )


@requires_sandbox
def test_a_package_that_needs_what_the_host_provides_is_not_said_to_fail(
    tmp_path: Path, npm_registry: LocalRegistry, run_image: RunImage
) -> None:
    # react is the host's: the image installs no copy, so loading here cannot tell; it is said, not failed
    post = {"postinstall": "node setup.js"}
    needs = lib("acme-hooks", "1.0.0", scripts=post, peerDependencies={"react": "^19.0.0"})
    publish(npm_registry, tmp_path, needs, {"index.js": "module.exports = require('react/jsx-runtime');\n"})
    esm = lib("acme-esm-hooks", "1.0.0", type="module", scripts=post, peerDependencies={"react": "^19.0.0"})
    esm["exports"] = {".": "./index.js", "./package.json": "./package.json"}
    publish(npm_registry, tmp_path, esm, {"index.js": "export * from 'react';\n"})
    deps = {"acme-hooks": "1.0.0", "acme-esm-hooks": "1.0.0"}
    write_tgz(tmp_path / "tgz", "app.tgz", package_tgz(manifest(name="acme-app", dependencies=deps)))
    run = run_image(spec_text({"source": "tgz/app.tgz", "class": "host-dependency"}))
    assert run.code == 0, run.err  # not an error, though a host-dependency brings them in
    assert {s["name"]: s["load"] for s in run.report["scripts"]} == {
        "acme-esm-hooks": {"status": "needs-host", "detail": "react"},
        "acme-hooks": {"status": "needs-host", "detail": "react/jsx-runtime"},
    }
    assert not [c for c in run.report["conflicts"] if c["kind"] == "load"]


def test_bundled_dependencies_come_inside_their_parent(
    tmp_path: Path, npm_registry: LocalRegistry, run_image: RunImage
) -> None:
    inner = json.dumps(lib("inner-lib", "3.0.0", dependencies={"ms": "2.1.3"}))
    publish(
        npm_registry,
        tmp_path,
        lib("acme-bundler", "1.0.0", dependencies={"inner-lib": "^3.0.0"}, bundleDependencies=["inner-lib"]),
        {
            "index.js": "module.exports = require('inner-lib');\n",
            "node_modules/inner-lib/package.json": inner,
            "node_modules/inner-lib/index.js": "module.exports = require('ms')('1s');\n",
        },
    )
    listed = manifest(
        name="acme-listed",
        dependencies={"own-lib": "1.0.0", "acme-bundler": "1.0.0", "ms": "2.1.3"},
        bundleDependencies=["own-lib"],
    )
    files = {
        "index.js": "module.exports = [require('own-lib'), require('acme-bundler')];\n",
        "node_modules/own-lib/package.json": json.dumps(lib("own-lib", "1.0.0")),
        "node_modules/own-lib/index.js": "module.exports = 'own';\n",
        "node_modules/stray/index.js": "not bundled, not shipped",
    }
    write_tgz(tmp_path / "tgz", "listed.tgz", package_tgz(listed, files))
    run = run_image(spec_text({"source": "tgz/listed.tgz"}))
    assert run.code == 0, run.err
    bundler = stored("first-party", "acme-bundler", "1.0.0")
    assert [(c["path"], c["flags"]) for c in run.report["closure"]] == [
        (bundler, []),
        (f"{bundler}/node_modules/inner-lib", ["bundled"]),
        (stored("first-party", "ms", "2.1.3"), []),
        ("node_modules/acme-listed", []),
        ("node_modules/acme-listed/node_modules/own-lib", ["bundled"]),
    ]
    assert not (run.image / "node_modules/acme-listed/node_modules/stray").exists()
    done = subprocess.run(
        ["node", "-p", "JSON.stringify(require('acme-listed'))"], cwd=run.image, capture_output=True, text=True
    )
    assert done.stdout.strip() == '["own",1000]', done.stderr


def test_peers_on_the_host_react_are_left_to_the_host_and_checked(
    tmp_path: Path, npm_registry: LocalRegistry, run_image: RunImage
) -> None:
    t = tmp_path / "tgz"
    write_tgz(t, "ui18.tgz", package_tgz(manifest(name="acme-ui18", peerDependencies={"react": "^18.0.0"})))
    write_tgz(t, "ui19.tgz", package_tgz(manifest(name="acme-ui19", peerDependencies={"react": "^18.0.0 || ^19.0.0"})))
    write_tgz(
        t, "ssr.tgz", package_tgz(lib("acme-ssr", "1.0.0", dependencies={"react": "18.3.1", "@types/ms": "2.1.0"}))
    )
    run = run_image(spec_text({"source": "tgz/ui18.tgz"}, {"source": "tgz/ui19.tgz"}, {"source": "tgz/ssr.tgz"}))
    assert run.code == 0, run.err
    # npm puts react at the root (the listed packages' peer) and dedupes acme-ssr's own react onto it; the
    # image root holds listed packages only, so react goes to the tier folder of the one package that installs it
    react = stored("first-party", "react", "18.3.1")
    assert [c["path"] for c in run.report["closure"]] == [
        stored("first-party", "@types/ms", "2.1.0"),
        stored("first-party", "js-tokens", "4.0.0"),
        stored("first-party", "loose-envify", "1.4.0"),
        react,
        "node_modules/acme-ssr",
        "node_modules/acme-ui18",
        "node_modules/acme-ui19",
    ]
    lock = json.loads((run.image / "package-lock.json").read_text())
    assert lock["packages"]["node_modules/react"]["version"] == "18.3.1"
    assert run.report["conflicts"] == [
        {
            "kind": "host-package",
            "name": "react",
            "severity": "warning",
            "message": f"react@18.3.1 is installed at {react} for acme-ssr → react, "
            "although the host provides react: that package depends on its own copy instead of declaring a peer",
        },
        {
            "kind": "peer",
            "name": "react",
            "severity": "warning",
            "message": "acme-ui18 declares the peer react@^18.0.0, which the host's React 19 does not meet; the image "
            "installs no react (the host provides it)",
        },
    ]
    # @types/ms names its tarball's folder "ms/", not "package/": installed all the same
    assert (run.image / stored("first-party", "@types/ms", "2.1.0") / "index.d.ts").is_file()
    # loose-envify's bin target is executable, as npm installs it
    assert (run.image / stored("first-party", "loose-envify", "1.4.0") / "cli.js").stat().st_mode & 0o111
    # without a package that depends on react itself, npm's lock holds the peers and the image no react at all
    alone = run_image(spec_text({"source": "tgz/ui18.tgz"}, {"source": "tgz/ui19.tgz"}), out=tmp_path / "alone")
    assert alone.code == 0, alone.err
    lock = json.loads((alone.image / "package-lock.json").read_text())
    assert lock["packages"]["node_modules/react"]["peer"] is True
    assert [c["path"] for c in alone.report["closure"]] == ["node_modules/acme-ui18", "node_modules/acme-ui19"]
    assert not (alone.image / "node_modules/react").exists()
    assert [c["kind"] for c in alone.report["conflicts"]] == ["peer"]


def test_npm_resolves_once_when_a_package_is_refused_while_it_runs(
    tmp_path: Path, npm_registry: LocalRegistry, run_image: RunImage, monkeypatch: pytest.MonkeyPatch
) -> None:
    """npm starts on every listed tarball as soon as it is read; a package the checks refuse meanwhile is one
    more listed package the walk does not start from, so npm is not run again, and --frozen builds from it."""
    from neuralis_build.image.resolution import npmcli

    calls: list[list[str]] = []
    real = npmcli.run

    def counting(command: list[str], **kwargs: object) -> object:
        calls.append([str(c) for c in command[1:3]])
        return real(command, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(npmcli, "run", counting)
    t = tmp_path / "tgz"
    bad = manifest({"credentials": [{"id": "bad/id", "label": "x"}]}, name="acme-bad", dependencies={"ms": "2.0.0"})
    bad_tgz, ok_tgz = package_tgz(bad), package_tgz(manifest(name="acme-ok", dependencies={"debug": "4.4.3"}))
    write_tgz(t, "bad.tgz", bad_tgz)
    write_tgz(t, "ok.tgz", ok_tgz)
    spec = spec_text(
        {"source": "tgz/bad.tgz", "integrity": integrity_of(bad_tgz)},
        {"source": "tgz/ok.tgz", "integrity": integrity_of(ok_tgz)},
    )
    run = run_image(spec, "--allow-refused")
    assert run.code == 0, run.err
    assert run.package("acme-bad")["status"] == "refused"
    assert calls.count(["install", "--package-lock-only"]) == 1
    debug = stored("first-party", "debug", "4.4.3")
    # the refused package's ms@2.0.0 took npm's root, so debug's ms@2.1.3 is nested under it, as npm placed it
    paths = [(c["path"], c["version"]) for c in run.report["closure"]]
    assert paths == [
        (debug, "4.4.3"),
        (f"{debug}/node_modules/ms", "2.1.3"),
        ("node_modules/acme-ok", "1.0.0"),
    ]
    # npm's whole resolution names the refused package (kept for the next build); the image's files do not
    resolution = json.loads((run.image / ".neuralis-resolution/package.json").read_text())
    assert sorted(resolution["dependencies"]) == ["acme-bad", "acme-ok"]
    assert sorted(json.loads((run.image / "package.json").read_text())["dependencies"]) == ["acme-ok"]
    assert (
        "node_modules/ms" in json.loads((run.image / ".neuralis-resolution/package-lock.json").read_text())["packages"]
    )
    before = tree_bytes(run.image / "node_modules")
    frozen = run_image(spec, "--allow-refused", "--frozen")
    assert frozen.code == 0, frozen.err
    assert calls.count(["install", "--package-lock-only"]) == 1
    assert tree_bytes(run.image / "node_modules") == before


def test_a_listed_name_always_resolves_to_its_own_tarball(
    tmp_path: Path, npm_registry: LocalRegistry, run_image: RunImage
) -> None:
    for version in ("1.0.0", "1.5.0"):
        publish(npm_registry, tmp_path, lib("acme-conf", version), {"index.js": "module.exports = 'registry';\n"})
    t = tmp_path / "tgz"
    write_tgz(t, "conf.tgz", package_tgz(lib("acme-conf", "1.0.0"), {"index.js": "module.exports = 'ours';\n"}))
    write_tgz(t, "user.tgz", package_tgz(lib("acme-user", "1.0.0", dependencies={"acme-conf": "^1.0.0"})))
    run = run_image(spec_text({"source": "tgz/user.tgz"}, {"source": "tgz/conf.tgz"}))
    assert run.code == 0, run.err
    assert [c["path"] for c in run.report["closure"]] == ["node_modules/acme-conf", "node_modules/acme-user"]
    lock = json.loads((run.image / "package-lock.json").read_text())
    assert lock["packages"]["node_modules/acme-conf"]["resolved"].startswith("file:.neuralis-tarballs/acme-conf-")
    found = resolve_from(run.image, [("node_modules/acme-user", "acme-conf")])
    assert found == {"node_modules/acme-user acme-conf": "node_modules/acme-conf/index.js"}


@pytest.mark.parametrize("workers", [False, True], ids=["in-process", "worker-processes"])
def test_credentials_from_npmrc_fetch_a_private_package(
    tmp_path: Path, npm_registry: LocalRegistry, run_image: RunImage, monkeypatch: pytest.MonkeyPatch, workers: bool
) -> None:
    """The anonymous download is refused, so npm fetches the tarball with the .npmrc's credentials; it is then
    read and extracted as every other, in this process or (for many tarballs) in the worker processes."""
    import urllib.error
    import urllib.request

    from neuralis_build.image.layout import unpack

    if workers:
        monkeypatch.setattr(unpack, "PROCESSES_FROM", 1)

    publish(npm_registry, tmp_path, lib("@private/secret", "1.0.0"), {"index.js": "module.exports = 'secret';\n"})
    with pytest.raises(urllib.error.HTTPError) as refused:  # anonymous reads are refused
        urllib.request.urlopen(f"{npm_registry.url}@private/secret/-/secret-1.0.0.tgz", timeout=30)
    assert refused.value.code in (401, 403)
    write_tgz(tmp_path / "tgz", "app.tgz", package_tgz(lib("acme-app", "1.0.0", dependencies={"@private/secret": "1"})))
    run = run_image(spec_text({"source": "tgz/app.tgz"}))
    assert run.code == 0, run.err
    installed = run.image / "node_modules/acme-app/node_modules/@private/secret/index.js"
    assert installed.read_text() == "module.exports = 'secret';\n"


def test_registry_errors_exit_2_in_one_line(
    tmp_path: Path, npm_registry: LocalRegistry, run_image: RunImage, monkeypatch: pytest.MonkeyPatch
) -> None:
    t = tmp_path / "tgz"
    write_tgz(t, "a.tgz", package_tgz(lib("acme-a", "1.0.0", dependencies={"acme-nowhere": "^1.0.0"})))
    write_tgz(t, "b.tgz", package_tgz(lib("acme-b", "1.0.0", dependencies={"ms": "^9.0.0"})))
    missing = run_image(spec_text({"source": "tgz/a.tgz"}))
    assert missing.code == 2
    assert _error(missing.err) == (
        f"error: npm install failed: E404 Not Found - GET {npm_registry.url}acme-nowhere - no such package "
        "available (acme-nowhere@^1.0.0) (needed by acme-a)"
    )
    version = run_image(spec_text({"source": "tgz/b.tgz"}), out=tmp_path / "o2")
    assert version.code == 2
    assert _error(version.err) == (
        "error: npm install failed: ETARGET No matching version found for ms@^9.0.0. (needed by acme-b)"
    )
    monkeypatch.setenv("npm_config_registry", "http://127.0.0.1:9/")
    monkeypatch.setenv("npm_config_fetch_retries", "0")
    down = run_image(spec_text({"source": "tgz/b.tgz"}), out=tmp_path / "o3")
    assert down.code == 2
    first = _error(down.err)
    assert first.startswith("error: npm install failed: ECONNREFUSED request to http://127.0.0.1:9/ms failed")
    assert "(needed by acme-b)" in first
    for err in (missing.err, version.err, down.err):
        assert " at " not in err and "Traceback" not in err
        assert not (tmp_path / "out/node_modules").exists()


def _error(err: str) -> str:
    """The one line that says what went wrong (the lines before it are the progress of the listed packages)."""
    lines = [line for line in err.splitlines() if line.startswith("error:")]
    assert len(lines) == 1, err
    return lines[0]


def debug_url(sbom: Path) -> str:
    """Where the image's lock says debug came from (the test registry's URL)."""
    lock = json.loads((sbom.parent / "package-lock.json").read_text())
    return str(lock["packages"]["node_modules/debug"]["resolved"])


def assert_valid_sbom(path: Path) -> None:
    """CycloneDX 1.6 by the library's strict JSON validator, with a component per installed folder and its graph."""
    from cyclonedx.schema import SchemaVersion
    from cyclonedx.validation.json import JsonStrictValidator

    text = path.read_text()
    assert JsonStrictValidator(SchemaVersion.V1_6).validate_str(text) is None
    bom = json.loads(text)
    assert "timestamp" not in bom["metadata"]
    assert bom["metadata"]["component"]["name"] == "neuralis-image"
    refs = {c["bom-ref"]: c for c in bom["components"]}
    debug = refs[stored("first-party", "debug", "4.4.3")]
    assert debug["purl"] == "pkg:npm/debug@4.4.3"
    assert debug["licenses"] == [{"license": {"id": "MIT"}}]
    assert debug["hashes"][0]["alg"] == "SHA-512"
    # a listed package from a tarball: its purl names that archive, so no one takes it for a public package
    app = refs["node_modules/@acme/app"]
    digest = next(h["content"] for h in app["hashes"] if h["alg"] == "SHA-512")
    tarball = next(iter((path.parent / ".neuralis-tarballs").iterdir())).name
    assert app["purl"] == f"pkg:npm/%40acme/app@1.0.0?checksum=sha512:{digest}&file_name={tarball}"
    assert app["externalReferences"] == [{"type": "distribution", "url": f".neuralis-tarballs/{tarball}"}]
    assert debug["externalReferences"] == [{"type": "distribution", "url": debug_url(path)}]
    graph = {d["ref"]: d.get("dependsOn", []) for d in bom["dependencies"]}
    assert graph["neuralis-image"] == ["node_modules/@acme/app"]
    common, debug, ms = (
        stored("first-party", n, v) for n, v in (("acme-common", "1.1.0"), ("debug", "4.4.3"), ("ms", "2.1.3"))
    )
    assert graph[debug] == [ms]
    assert graph["node_modules/@acme/app"] == [common, debug]
