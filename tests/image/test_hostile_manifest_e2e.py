"""A dependency's package.json that npm installs but Node cannot read the same (here: nested past what Python's
json can hold) refuses that dependency and what needs it (NB1813, NB1808's rule), never crashes the image build."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import manifest, requires_node
from tests.image.conftest import LocalRegistry, file_info, package_tgz, raw_tgz, spec_text, write_tgz
from tests.image.test_closure_e2e import RunImage, lib

pytestmark = [pytest.mark.e2e, pytest.mark.registry, requires_node]

DEEP = 1500  # npm publishes and resolves it (deeper, npm's own stack gives out); CPython's json recursion does not


def deep_manifest(name: str) -> bytes:
    return (json.dumps(lib(name, "1.0.0"))[:-1] + ', "x": ' + "[" * DEEP + "]" * DEEP + "}").encode()


def test_a_registry_dependency_nested_past_pythons_json_is_refused_by_name(
    tmp_path: Path, npm_registry: LocalRegistry, run_image: RunImage
) -> None:
    members = [file_info("package/package.json", deep_manifest("acme-deep")), file_info("package/index.js", b"")]
    npm_registry.publish(write_tgz(tmp_path / "publish", "acme-deep-1.0.0.tgz", raw_tgz(members)))
    t = tmp_path / "tgz"
    write_tgz(t, "app.tgz", package_tgz(manifest(name="acme-app", dependencies={"acme-deep": "1.0.0"})))
    write_tgz(t, "other.tgz", package_tgz(manifest(name="acme-other")))
    run = run_image(spec_text({"source": "tgz/app.tgz"}, {"source": "tgz/other.tgz"}))
    assert run.code == 1, run.err
    assert "Traceback" not in run.err and "internal error" not in run.err
    (diag,) = run.package("acme-app")["diagnostics"]
    assert diag["code"] == "NB1813"
    assert diag["message"].startswith(
        "it needs acme-deep@1.0.0 (acme-app → acme-deep), which is refused: its registry tarball is refused: "
        "its package.json cannot be read as Node reads it: arrays and objects nest more than 64 levels deep here"
    )
    assert run.package("acme-other")["status"] == "loaded"
    assert sorted(p.name for p in (run.image / "node_modules").iterdir()) == ["acme-other"]


def test_a_bundled_dependency_nested_past_pythons_json_refuses_its_parent(tmp_path: Path, run_image: RunImage) -> None:
    listed = manifest(name="acme-bundles", dependencies={"inner": "1.0.0"}, bundleDependencies=["inner"])
    members = [
        file_info("package/package.json", json.dumps(listed).encode()),
        file_info("package/node_modules/inner/package.json", deep_manifest("inner")),
        file_info("package/node_modules/inner/index.js", b""),
    ]
    write_tgz(tmp_path / "tgz", "bundles.tgz", raw_tgz(members))
    run = run_image(spec_text({"source": "tgz/bundles.tgz"}))
    assert run.code == 1, run.err
    assert "Traceback" not in run.err and "internal error" not in run.err
    (diag,) = run.package("acme-bundles")["diagnostics"]
    assert diag["code"] == "NB1813" and "inner@1.0.0" in diag["message"], diag
    assert "nest more than 64 levels deep" in diag["message"]
