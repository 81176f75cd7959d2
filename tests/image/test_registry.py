"""npm: sources fetched from a real registry: a verdaccio on loopback that the test publishes to."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import build_file_tree, manifest, requires_node
from tests.image.conftest import LocalRegistry, Run, spec_text

pytestmark = [pytest.mark.e2e, pytest.mark.registry, requires_node]


def test_npm_sources_come_from_the_registry_npm_is_configured_for(
    tmp_path: Path, local_registry: LocalRegistry, run_image: Callable[..., Run]
) -> None:
    remote = build_file_tree(
        tmp_path / "src/remote",
        {
            "package.json": manifest({"name": "Remote"}, name="@acme/remote", version="1.4.0", files=["lib"]),
            "lib/index.js": "module.exports = 'remote';\n",
            "notes.txt": "not published",
        },
    )
    plain = build_file_tree(tmp_path / "src/plain", {"package.json": {"name": "acme-plain", "version": "0.3.0"}})
    local_registry.publish(remote)
    local_registry.publish(plain)
    view = subprocess.run(
        ["npm", "view", "@acme/remote@1.4.0", "dist.integrity"],
        env=local_registry.env,
        capture_output=True,
        text=True,
        check=True,
    )
    integrity = view.stdout.strip()
    spec = spec_text(
        {"source": "npm:@acme/remote@1.4.0", "integrity": integrity},
        {"source": "npm:acme-plain@0.3.0"},
    )
    run = run_image(spec)
    assert run.code == 0, run.err
    assert [(p["name"], p["version"], p["status"]) for p in run.report["packages"]] == [
        ("@acme/remote", "1.4.0", "loaded"),
        ("acme-plain", "0.3.0", "not-neuralis"),
    ]
    installed = run.image / "node_modules/@acme/remote"
    assert sorted(p.relative_to(installed).as_posix() for p in installed.rglob("*") if p.is_file()) == [
        "lib/index.js",
        "package.json",
    ]
    lock = (run.image / "neuralis-image.lock").read_text()
    assert f'integrity = "{integrity}"' in lock
    # a listed registry package is the public package of its name: the SBOM gives it the plain purl
    sbom = json.loads((run.image / "sbom.cdx.json").read_text())
    purls = {c["bom-ref"]: c["purl"] for c in sbom["components"]}
    assert purls == {
        "node_modules/@acme/remote": "pkg:npm/%40acme/remote@1.4.0",
        "node_modules/acme-plain": "pkg:npm/acme-plain@0.3.0",
    }
    # the fetched tarballs are cached: an unchanged rerun neither fetches nor installs again
    assert sorted(p.name for p in (run.image / ".neuralis-cache/npm").iterdir()) == [
        "@acme+remote@1.4.0.tgz",
        "acme-plain@0.3.0.tgz",
    ]
    again = run_image(spec, "--frozen")
    assert again.code == 2  # acme-plain has no integrity: --frozen needs every tarball pinned
    rerun = run_image(spec)
    assert rerun.code == 0 and rerun.err.count("(cached)") == 2
    json.loads(rerun.out)


def test_a_version_the_registry_does_not_have_stops_the_build(
    tmp_path: Path, local_registry: LocalRegistry, run_image: Callable[..., Run]
) -> None:
    run = run_image(spec_text({"source": "npm:acme-missing@9.9.9"}))
    assert run.code == 2
    assert (
        "error: the SPEC cannot be built as written: npm:acme-missing@9.9.9: npm pack acme-missing@9.9.9 failed: E404"
        in (run.err)
    )
    assert not (run.image / "neuralis-image.json").exists()


def test_npm_sources_are_packed_several_to_a_call_and_a_missing_one_is_named_alone(
    tmp_path: Path, local_registry: LocalRegistry, run_image: Callable[..., Run]
) -> None:
    names = [f"acme-batch-{i}" for i in range(5)]
    for name in names:
        local_registry.publish(build_file_tree(tmp_path / name, {"package.json": {"name": name, "version": "1.0.0"}}))
    # --jobs 1 packs in two npm calls of three: the call holding the missing version fails whole, and its other
    # packages are packed one by one
    sources = [f"npm:{n}@1.0.0" for n in names] + ["npm:acme-missing@9.9.9"]
    run = run_image(spec_text(*({"source": s} for s in sources)), "--jobs", "1")
    # a version the registry does not have: the SPEC cannot be built as written (exit 2), and only that one is named
    assert run.code == 2
    said = "error: the SPEC cannot be built as written: npm:acme-missing@9.9.9: npm pack acme-missing@9.9.9 failed:"
    assert said in run.err
    packed = sorted(p.name for p in (run.image / ".neuralis-cache/npm").iterdir())
    assert packed == [f"{n}@1.0.0.tgz" for n in names]


def test_a_scoped_name_and_its_dashed_twin_are_cached_apart(
    tmp_path: Path, local_registry: LocalRegistry, run_image: Callable[..., Run]
) -> None:
    """npm pack names the tarballs of @acme/twin@1.0.0 and acme-twin@1.0.0 both acme-twin-1.0.0.tgz; the cache must
    not hand one for the other on a later build."""
    for name in ("@acme/twin", "acme-twin"):
        folder = build_file_tree(
            tmp_path / "src" / name.replace("/", "-"), {"package.json": {"name": name, "version": "1.0.0"}}
        )
        local_registry.publish(folder)
    out = tmp_path / "out"
    first = run_image(spec_text({"source": "npm:@acme/twin@1.0.0"}), out=out)
    assert first.code == 0, first.err
    both = run_image(spec_text({"source": "npm:@acme/twin@1.0.0"}, {"source": "npm:acme-twin@1.0.0"}), out=out)
    assert both.code == 0, both.err
    assert [(p["name"], p["status"]) for p in both.report["packages"]] == [
        ("@acme/twin", "not-neuralis"),
        ("acme-twin", "not-neuralis"),
    ]
    assert json.loads((out / "node_modules/acme-twin/package.json").read_text())["name"] == "acme-twin"
