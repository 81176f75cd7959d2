"""npm's files in the image folder describe the image that was built: npm ci of them installs exactly the image's
packages (in npm's hoisted layout), whatever was refused after npm resolved it, and npm ls passes in both."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import manifest, requires_node
from tests.image.conftest import LocalRegistry, Run, package_tgz, spec_text, tree_bytes, write_tgz
from tests.image.test_closure_e2e import lib, publish

pytestmark = [pytest.mark.e2e, pytest.mark.registry, requires_node]

RunImage = Callable[..., Run]


def npm(args: list[str], cwd: Path, registry: LocalRegistry) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["npm", *args], cwd=cwd, env=registry.env, capture_output=True, text=True, timeout=300)


def as_npm_lays_it_out(modules: Path) -> dict[str, bytes]:
    """The image's files at the places npm ci gives them: a tier's hoisted packages at the root, no links."""
    out: dict[str, bytes] = {}
    for path, data in tree_bytes(modules).items():
        if data.startswith(b"-> "):
            continue
        parts = path.split("/")
        if parts[0] == ".store":  # .store/<tier>/<name>@<version>/node_modules/<name>/…
            assert parts[3] == "node_modules", path
            parts = parts[4:]
        if parts:
            out.setdefault("/".join(parts), data)
            assert out["/".join(parts)] == data, path  # each tier's copy is the same package
    return dict(sorted(out.items()))


def test_npm_s_files_leave_out_what_a_refusal_took_out(
    tmp_path: Path, npm_registry: LocalRegistry, run_image: RunImage
) -> None:
    # acme-app is admitted by its own checks, resolved by npm with its closure (debug, ms, the bad dependency),
    # then refused because the neuralis dependency it needs is refused
    publish(npm_registry, tmp_path, manifest({"credentials": [{"id": "bad/id", "label": "x"}]}, name="acme-bad"))
    publish(npm_registry, tmp_path, lib("acme-plain", "1.0.0"), {"index.js": "module.exports = 1;\n"})
    t = tmp_path / "tgz"
    write_tgz(t, "app.tgz", package_tgz(manifest(name="acme-app", dependencies={"acme-bad": "1.0.0", "debug": "^4"})))
    write_tgz(t, "fine.tgz", package_tgz(manifest(name="acme-fine", dependencies={"acme-plain": "1.0.0"})))
    run = run_image(spec_text({"source": "tgz/app.tgz"}, {"source": "tgz/fine.tgz"}))
    assert run.code == 1
    assert run.package("acme-app")["status"] == "refused"
    image = run.image
    manifest_out = json.loads((image / "package.json").read_text())
    assert list(manifest_out["dependencies"]) == ["acme-fine"]
    lock = json.loads((image / "package-lock.json").read_text())
    assert sorted(lock["packages"]) == ["", "node_modules/acme-fine", "node_modules/acme-plain"]
    assert lock["packages"][""]["dependencies"] == manifest_out["dependencies"]
    assert [p.name for p in (image / ".neuralis-tarballs").iterdir()] == [
        manifest_out["dependencies"]["acme-fine"].removeprefix("file:.neuralis-tarballs/")
    ]
    # npm's whole resolution (acme-app and its closure included) is kept for the next build and --frozen
    resolution = json.loads((image / ".neuralis-resolution" / "package-lock.json").read_text())
    assert "node_modules/debug" in resolution["packages"]

    copy = tmp_path / "ci"
    copy.mkdir()
    for name in ("package.json", "package-lock.json", ".neuralis-tarballs"):
        (shutil.copytree if name.startswith(".") else shutil.copyfile)(image / name, copy / name)
    done = npm(["ci", "--ignore-scripts", "--no-audit", "--no-fund"], copy, npm_registry)
    assert done.returncode == 0, done.stderr
    theirs = {k: v for k, v in tree_bytes(copy / "node_modules").items() if not k.endswith(".package-lock.json")}
    assert as_npm_lays_it_out(image / "node_modules") == theirs
    for folder in (image, copy):  # npm reads the image as installed, and the install of its files
        listed = npm(["ls", "--all"], folder, npm_registry)
        assert listed.returncode == 0, listed.stdout + listed.stderr

    # a rebuild starts from the kept resolution (npm finds nothing to do) and writes the same files
    again = run_image(spec_text({"source": "tgz/app.tgz"}, {"source": "tgz/fine.tgz"}), "--allow-refused")
    assert again.code == 0
    assert (image / "package-lock.json").read_text() == json.dumps(lock, indent=2) + "\n"
