"""A dependency on a tarball URL is not a registry package: the image neither installs it nor names it as one.

An ``http://…/lodash-4.17.21.tgz`` dependency of an untrusted listed package used to be installed, counted
"from the registry" and named ``pkg:npm/lodash@4.17.21`` in the SBOM: code no registry's integrity covers,
passed off as the public package. Now a listed package's URL dependency is refused before npm runs
(NB1815, as a file, folder or git one), and npm's lock is held to the registries npm is configured for,
so a URL reached through a registry package is refused by name, never fetched into the image. The
tarballs are served by a Python HTTP server on loopback that each test starts.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from neuralis_build.image.archive.integrity import integrity_of
from neuralis_build.image.layout.tiers import stored
from tests.conftest import manifest, requires_node
from tests.image.conftest import LocalRegistry, package_tgz, spec_text, tree_bytes, write_tgz
from tests.image.httpkit import files
from tests.image.test_closure_e2e import RunImage, _text, lib, publish

pytestmark = [pytest.mark.e2e, pytest.mark.registry, requires_node]

LODASH = package_tgz(lib("lodash", "4.17.21"), {"index.js": "module.exports = 'not the real lodash';\n"})
UNTRUSTED = {"class": "installed", "trust": "untrusted"}
FIX = (
    "publish lodash to your registry and depend on a version of it, or list it in the image SPEC as a package of "
    'its own (source = its .tgz or folder) and depend on its version ("lodash": "<version>")'
)


def _everything(image: Path) -> list[str]:
    return sorted(tree_bytes(image / "node_modules"))


def test_a_listed_package_depending_on_a_url_is_refused_before_npm_runs(
    tmp_path: Path, local_registry: LocalRegistry, run_image: RunImage
) -> None:
    with files({"/lodash-4.17.21.tgz": LODASH}) as server:
        url = f"{server.url}lodash-4.17.21.tgz"
        t = tmp_path / "tgz"
        write_tgz(t, "app.tgz", package_tgz(manifest(name="acme-app", dependencies={"lodash": url})))
        write_tgz(t, "fine.tgz", package_tgz(manifest(name="acme-fine")))
        run = run_image(spec_text({"source": "tgz/app.tgz", **UNTRUSTED}, {"source": "tgz/fine.tgz"}))
    assert run.code == 1, run.err  # a refusal (0 with --allow-refused)
    app = run.package("acme-app")
    assert app["status"] == "refused"
    [d] = app["diagnostics"]
    assert (d["severity"], d["code"], d["pointer"]) == ("error", "NB1815", "/dependencies/lodash")
    assert d["message"] == (
        f'lodash comes from a URL ("{url}"): the image installs registry packages only (each checked against the '
        "registry's integrity), so npm's resolution of the closure cannot take it"
    )
    assert d["hint"] == FIX
    assert run.package("acme-fine")["status"] == "loaded"
    assert [c["name"] for c in run.report["closure"]] == ["acme-fine"]
    assert _everything(run.image) == ["acme-fine/package.json"]
    assert server.requests == []  # refused before npm ran: nothing of it was even fetched


def test_an_optional_url_dependency_is_left_out_with_a_warning(
    tmp_path: Path, local_registry: LocalRegistry, run_image: RunImage
) -> None:
    with files({"/lodash-4.17.21.tgz": LODASH}) as server:
        url = f"{server.url}lodash-4.17.21.tgz"
        data = manifest(name="acme-app", optionalDependencies={"lodash": url})
        write_tgz(tmp_path / "tgz", "app.tgz", package_tgz(data))
        run = run_image(spec_text({"source": "tgz/app.tgz", **UNTRUSTED}))
    assert run.code == 0, run.err
    app = run.package("acme-app")
    assert app["status"] == "loaded"
    [d] = app["diagnostics"]
    assert (d["severity"], d["code"], d["pointer"]) == ("warning", "NB1815", "/optionalDependencies/lodash")
    assert d["message"] == (
        f'lodash comes from a URL ("{url}"): the image installs registry packages only, so this optional '
        "dependency is left out (npm goes on without an optional dependency it cannot install)"
    )
    assert [c["name"] for c in run.report["closure"]] == ["acme-app"]
    assert _everything(run.image) == ["acme-app/package.json"]
    # npm's files describe the image built: npm ci of them would not fetch it either
    assert "node_modules/lodash" not in json.loads((run.image / "package-lock.json").read_text())["packages"]


def test_a_url_reached_through_a_registry_package_is_refused_by_the_lock_check(
    tmp_path: Path, npm_registry: LocalRegistry, run_image: RunImage
) -> None:
    with files({"/lodash-4.17.21.tgz": LODASH}) as server:
        url = f"{server.url}lodash-4.17.21.tgz"
        publish(npm_registry, tmp_path, lib("acme-mid", "1.0.0", dependencies={"lodash": url}))
        t = tmp_path / "tgz"
        write_tgz(t, "app.tgz", package_tgz(manifest(name="acme-app", dependencies={"acme-mid": "1.0.0"})))
        write_tgz(t, "fine.tgz", package_tgz(manifest(name="acme-fine", dependencies={"ms": "2.1.3"})))
        spec = spec_text({"source": "tgz/app.tgz", **UNTRUSTED}, {"source": "tgz/fine.tgz"})
        run = run_image(spec)
        text = _text(run, spec, tmp_path)  # the same build again, in the text form
    assert run.code == 1, run.err
    app = run.package("acme-app")
    assert app["status"] == "refused"
    [d] = app["diagnostics"]
    assert (d["severity"], d["code"], d["pointer"]) == ("error", "NB1812", "/dependencies")
    assert d["message"] == (
        "it needs lodash@4.17.21 (acme-app → acme-mid → lodash), which is refused: npm's lock resolves it to "
        f"{url}, which is not a tarball of the registry npm fetches lodash from ({npm_registry.url}); the image "
        "installs registry packages only"
    )
    assert d["hint"] == (
        "depend on a version of it published to your registry (publish it there if need be), or replace the "
        "package that asks for it: the image installs nothing that requires a package from outside a registry"
    )
    assert run.package("acme-fine")["status"] == "loaded"
    # neither the URL's package nor the registry package that wants it is in the image, the store or npm's files
    assert [c["path"] for c in run.report["closure"]] == [
        stored("first-party", "ms", "2.1.3"),
        "node_modules/acme-fine",
    ]
    assert not [p for p in _everything(run.image) if "lodash" in p or "acme-mid" in p or "acme-app" in p]
    store = run.image / ".neuralis-cache/store"
    assert len([p for p in store.iterdir() if p.suffix == ".json"]) == 1  # ms's entry only
    lock = json.loads((run.image / "package-lock.json").read_text())
    assert not [p for p in lock["packages"] if "lodash" in p]
    assert "closure: 2 package(s) installed (1 listed, 1 from the registry, 0 bundled)" in text
    # every component the SBOM names with a plain npm purl came from the registry
    bom = json.loads((run.image / "sbom.cdx.json").read_text())
    plain = {c["purl"]: c["externalReferences"][0]["url"] for c in bom["components"] if "?" not in c["purl"]}
    assert plain == {"pkg:npm/ms@2.1.3": f"{npm_registry.url}ms/-/ms-2.1.3.tgz"}


def test_an_optional_url_reached_through_a_registry_package_is_left_out(
    tmp_path: Path, npm_registry: LocalRegistry, run_image: RunImage
) -> None:
    with files({"/lodash-4.17.21.tgz": LODASH}) as server:
        url = f"{server.url}lodash-4.17.21.tgz"
        publish(npm_registry, tmp_path, lib("acme-mid", "1.0.0", optionalDependencies={"lodash": url}))
        data = manifest(name="acme-app", dependencies={"acme-mid": "1.0.0"})
        write_tgz(tmp_path / "tgz", "app.tgz", package_tgz(data))
        run = run_image(spec_text({"source": "tgz/app.tgz", **UNTRUSTED}))
    assert run.code == 0, run.err
    assert run.package("acme-app")["status"] == "loaded"
    assert [c["path"] for c in run.report["closure"]] == [
        stored("untrusted", "acme-mid", "1.0.0"),
        "node_modules/acme-app",
    ]
    assert not [p for p in _everything(run.image) if "lodash" in p]
    lock = json.loads((run.image / "package-lock.json").read_text())
    assert not [p for p in lock["packages"] if "lodash" in p]


def test_a_frozen_lock_edited_to_fetch_a_registry_package_from_elsewhere_is_refused_unfetched(
    tmp_path: Path, npm_registry: LocalRegistry, run_image: RunImage
) -> None:
    """--frozen builds from the image folder's locks: one edited to take acme-mid's very bytes from another URL
    (its integrity still matches) must not be fetched, let alone installed."""
    publish(npm_registry, tmp_path, lib("acme-mid", "1.0.0"), {"index.js": "module.exports = 1;\n"})
    mid = (tmp_path / "publish" / "acme-mid-1.0.0.tgz").read_bytes()
    data = package_tgz(manifest(name="acme-app", dependencies={"acme-mid": "1.0.0"}))
    write_tgz(tmp_path / "tgz", "app.tgz", data)
    spec = spec_text({"source": "tgz/app.tgz", "integrity": integrity_of(data), **UNTRUSTED})
    first = run_image(spec)
    assert first.code == 0, first.err
    before = tree_bytes(first.image / "node_modules")
    registry_url = f"{npm_registry.url}acme-mid/-/acme-mid-1.0.0.tgz"
    with files({"/acme-mid-1.0.0.tgz": mid}) as server:
        elsewhere = f"{server.url}acme-mid-1.0.0.tgz"
        for name in (".neuralis-resolution/package-lock.json", "neuralis-image.lock"):
            path = first.image / name
            assert registry_url in path.read_text()
            path.write_text(path.read_text().replace(registry_url, elsewhere))
        frozen = run_image(spec, "--frozen", out=first.image)
    assert frozen.code == 2, frozen.err
    # acme-app is refused (it needs a package from elsewhere), so the image would not be the one the lock holds
    assert frozen.err.splitlines()[-4:] == [
        "error: --frozen: the image would differ from neuralis-image.lock:",
        f"  {stored('untrusted', 'acme-mid', '1.0.0')}: in the lock but would not be installed",
        "  node_modules/acme-app: in the lock but would not be installed",
        "hint: rebuild without --frozen to update the lock, or restore the SPEC and sources it records",
    ]
    assert server.requests == []  # never fetched
    assert tree_bytes(first.image / "node_modules") == before  # the previous image stands
