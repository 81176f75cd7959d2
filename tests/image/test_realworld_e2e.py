"""Real published packages through the whole image build, on a local verdaccio that holds them unchanged.

Each case is one an operator met on the public registry: a healthy tarball npm installs and the image
refused, two ranges that meet reported as if they did not, native modules that work or fail without
their install scripts, a dependency that is not on a registry.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from neuralis_build.image.layout.tiers import stored
from tests.conftest import manifest, requires_node, requires_sandbox
from tests.image.conftest import LocalRegistry, Run, package_tgz, spec_text, tree_bytes, write_tgz

pytestmark = [pytest.mark.e2e, pytest.mark.registry, pytest.mark.slow, requires_node]

RunImage = Callable[..., Run]


def node_in(folder: Path, code: str) -> str:
    """Run ``code`` with the real node in ``folder``; its stdout."""
    done = subprocess.run(["node", "-e", code], cwd=folder, capture_output=True, text=True, check=True, timeout=60)
    return done.stdout


def test_proxy_agent_installs_as_npm_installs_it(
    tmp_path: Path, realworld_registry: LocalRegistry, run_image: RunImage
) -> None:
    """proxy-agent@6.5.0's tarball holds dist/index.js twice (once as package/./dist/index.js): npm installs
    it, and so does the image, with its real closure (pac-proxy-agent, socks-proxy-agent, quickjs, …)."""
    data = manifest(name="acme-fetcher", dependencies={"proxy-agent": "6.5.0"}, main="index.js")
    write_tgz(
        tmp_path / "tgz", "fetcher.tgz", package_tgz(data, {"index.js": "module.exports = require('proxy-agent');\n"})
    )
    run = run_image(spec_text({"source": "tgz/fetcher.tgz"}))
    assert run.code == 0, run.err + run.out
    assert run.package("acme-fetcher")["status"] == "loaded"
    proxy = next(c for c in run.report["closure"] if c["name"] == "proxy-agent")
    path = stored("first-party", "proxy-agent", "6.5.0")
    assert (proxy["path"], proxy["version"]) == (path, "6.5.0")
    assert len(run.report["closure"]) == 28  # the listed package and proxy-agent's 27 packages
    loaded = node_in(run.image, "console.log(typeof require('./node_modules/acme-fetcher').ProxyAgent)")
    assert loaded == "function\n"


def test_two_ranges_that_meet_are_not_reported_as_a_conflict_of_ranges(
    tmp_path: Path, realworld_registry: LocalRegistry, run_image: RunImage
) -> None:
    """ "1.6.0" and "^1.6.0" meet at 1.6.0, and npm installs 1.6.0 once for both (the registry's latest is
    1.6.1). The report names no conflict, where it used to say the ranges do not meet."""
    for name, wanted in (("acme-a", "1.6.0"), ("acme-b", "^1.6.0")):
        data = manifest(name=name, dependencies={"@colors/colors": wanted})
        write_tgz(tmp_path / "tgz", f"{name}.tgz", package_tgz(data))
    run = run_image(spec_text({"source": "tgz/acme-a.tgz"}, {"source": "tgz/acme-b.tgz"}))
    assert run.code == 0, run.err
    assert [c for c in run.report["conflicts"] if c["kind"] == "versions"] == []
    colors = [(c["path"], c["version"]) for c in run.report["closure"] if c["name"] == "@colors/colors"]
    assert colors == [(stored("first-party", "@colors/colors", "1.6.0"), "1.6.0")]
    for name in ("acme-a", "acme-b"):
        link = run.image / "node_modules" / name / "node_modules/@colors/colors"
        assert os.readlink(link) == "../../../.store/first-party/node_modules/@colors/colors"


@requires_sandbox
def test_native_modules_are_loaded_once_and_told_apart(
    tmp_path: Path, realworld_registry: LocalRegistry, run_image: RunImage
) -> None:
    """bcrypt@6 ships prebuilt addons (node-gyp-build finds them): it works without its install script.
    bcrypt@5.1.1 needs node-pre-gyp's download or build, and better-sqlite3@12 its prebuild-install or
    node-gyp: without them, one fails on require and the other when it opens its addon (bindings)."""
    t = tmp_path / "tgz"
    write_tgz(t, "crypto.tgz", package_tgz(manifest(name="acme-crypto", dependencies={"bcrypt": "6.0.0"})))
    write_tgz(t, "legacy.tgz", package_tgz(manifest(name="acme-legacy", dependencies={"bcrypt": "5.1.1"})))
    write_tgz(t, "db.tgz", package_tgz(manifest(name="acme-db", dependencies={"better-sqlite3": "12.11.1"})))
    profile = tmp_path / "host.json"
    host = json.loads((Path(__file__).parents[2] / "neuralis_build/data/host-profile.json").read_text())
    profile.write_text(json.dumps({**host, "nodeVersion": "18.20.8"}))
    spec = spec_text(
        {"source": "tgz/crypto.tgz"},
        {"source": "tgz/legacy.tgz", "class": "installed", "trust": "trusted"},
        {"source": "tgz/db.tgz"},
        extra=f'\n[host]\nprofile = "{profile}"\n',
    )
    run = run_image(spec)
    assert run.code == 1, run.err  # a host-dependency's native module that cannot load is an error
    loads = {s["path"]: s["load"] for s in run.report["scripts"]}
    # npm hoists bcrypt 6 and better-sqlite3 (into the first-party tier's folder) and nests bcrypt 5.1.1
    bcrypt, sqlite = stored("first-party", "bcrypt", "6.0.0"), stored("first-party", "better-sqlite3", "12.11.1")
    assert loads[bcrypt] == {"status": "works", "detail": None}
    assert loads["node_modules/acme-legacy/node_modules/bcrypt"] == {
        "status": "fails",
        "detail": "MODULE_NOT_FOUND: Cannot find module "
        "'node_modules/acme-legacy/node_modules/bcrypt/lib/binding/napi-v3/bcrypt_lib.node'",
    }
    assert loads[sqlite]["status"] == "fails"
    assert loads[sqlite]["detail"].startswith(f"Could not locate the bindings file. Tried: → {sqlite}/build/")
    failing = {(c["name"], c["severity"]) for c in run.report["conflicts"] if c["kind"] == "load"}
    assert failing == {("bcrypt", "warning"), ("better-sqlite3", "error")}
    db = next(c["message"] for c in run.report["conflicts"] if c["kind"] == "load" and c["name"] == "better-sqlite3")
    assert db.startswith(
        f"better-sqlite3@12.11.1 ({sqlite}, via acme-db → better-sqlite3) will "
        "fail at run time: Could not locate the bindings file."
    )
    assert db.endswith(
        "its install script never ran (install: prebuild-install || node-gyp rebuild --release), and the host loads "
        "what a host-dependency package brings in: depend on a version that ships its compiled addon for this "
        "platform (a prebuilt binary), or on a pure-JavaScript alternative"
    )
    # npm's engine check, against the host profile's Node: better-sqlite3 wants 20.x or later
    engines = [c["message"] for c in run.report["conflicts"] if c["kind"] == "engines"]
    assert engines == [
        f"better-sqlite3@12.11.1 ({sqlite}, via acme-db → better-sqlite3) "
        "declares engines.node '20.x || 22.x || 23.x || 24.x || 25.x || 26.x', which Node 18.20.8 (the host "
        "profile's nodeVersion) does not satisfy: npm warns EBADENGINE and installs it, and it may fail at run time"
    ]
    assert run.report["node"] == "18.20.8"
    # the working one really works from where the image put it
    hashed = node_in(
        run.image,
        "const b = require(require.resolve('bcrypt', {paths: ['./node_modules/acme-crypto']}));"
        "console.log(b.compareSync('pw', b.hashSync('pw', 4)))",
    )
    assert hashed == "true\n"


def test_a_refused_package_s_real_closure_is_out_of_npm_s_files(
    tmp_path: Path, realworld_registry: LocalRegistry, run_image: RunImage
) -> None:
    """acme-fetcher brings proxy-agent@6.5.0 and its 27 packages, and a neuralis dependency that is refused:
    acme-fetcher leaves the image, and its closure leaves OUT's package.json and lock, so `npm ci` of OUT's files
    installs the image's packages (in npm's hoisted layout) and nothing of what was refused, and `npm ls` passes
    in both."""
    from tests.image.test_closure_e2e import publish
    from tests.image.test_outfiles_e2e import as_npm_lays_it_out, npm

    publish(realworld_registry, tmp_path, manifest({"credentials": [{"id": "bad/id", "label": "x"}]}, name="acme-bad"))
    t = tmp_path / "tgz"
    fetcher = manifest(name="acme-fetcher", dependencies={"proxy-agent": "6.5.0", "acme-bad": "1.0.0"})
    write_tgz(t, "fetcher.tgz", package_tgz(fetcher))
    write_tgz(t, "crypto.tgz", package_tgz(manifest(name="acme-crypto", dependencies={"bcrypt": "6.0.0"})))
    run = run_image(spec_text({"source": "tgz/fetcher.tgz"}, {"source": "tgz/crypto.tgz"}))
    assert run.code == 1
    assert run.package("acme-fetcher")["status"] == "refused"
    lock = json.loads((run.image / "package-lock.json").read_text())
    assert sorted(lock["packages"]) == [
        "",
        "node_modules/acme-crypto",
        "node_modules/bcrypt",
        "node_modules/node-addon-api",
        "node_modules/node-gyp-build",
    ]
    resolution = json.loads((run.image / ".neuralis-resolution/package-lock.json").read_text())
    assert "node_modules/proxy-agent" in resolution["packages"] and len(resolution["packages"]) == 34
    copy = tmp_path / "ci"
    copy.mkdir()
    for name in ("package.json", "package-lock.json"):
        (copy / name).write_bytes((run.image / name).read_bytes())
    shutil.copytree(run.image / ".neuralis-tarballs", copy / ".neuralis-tarballs")
    done = npm(["ci", "--ignore-scripts", "--no-audit", "--no-fund"], copy, realworld_registry)
    assert done.returncode == 0, done.stderr
    ours = as_npm_lays_it_out(run.image / "node_modules")
    # npm's own bookkeeping and its .bin links aside (the image links no bins: the host runs none)
    theirs = tree_bytes(copy / "node_modules")
    assert ours == {k: v for k, v in theirs.items() if not k.endswith(".package-lock.json") and ".bin/" not in k}
    assert not any(k.startswith(("acme-fetcher", "proxy-agent")) for k in theirs)
    for folder in (run.image, copy):
        listed = npm(["ls", "--all"], folder, realworld_registry)
        assert listed.returncode == 0, listed.stdout + listed.stderr
