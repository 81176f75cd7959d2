"""Where the image puts what npm resolved, and how the copies are stored: real @nestjs/core from a local registry.

@nestjs/core@11.2.10 and its closure (rxjs, reflect-metadata, @nestjs/common, file-type, …) are pinned
real tarballs (tests/tools/registry-fixtures.txt), published unchanged to verdaccio on loopback. npm
puts the peers of a listed package at its root, where every other listed package would resolve them;
the image puts them, as every package npm hoists, in the folder of the trust tier that needs them. Each
distinct tarball is extracted once into the image's store; every installed copy is hard links to it.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import stat
import subprocess
import tarfile
from collections.abc import Callable
from pathlib import Path

import pytest

from neuralis_build.image.archive.integrity import integrity_of
from neuralis_build.image.layout.tiers import stored
from tests.conftest import manifest, requires_node
from tests.image.conftest import LocalRegistry, Run, fixture_tarball, package_tgz, spec_text, tree_bytes, write_tgz
from tests.image.test_closure_e2e import closure_rows, resolve_from

pytestmark = [pytest.mark.e2e, pytest.mark.registry, requires_node]

RunImage = Callable[..., Run]
NEST = "sha512-3tzOVDoo701CNCb+J6JYJvXjZJLpdQnhMjjKg8bM5ePqqteYdyyvCXJzGcRpnTvjTlfDing+H7X9jp57TfWhRQ=="
CORE = "node_modules/@nestjs/core"
APP = "node_modules/acme-app"
VERSIONS = {"rxjs": "7.8.2", "reflect-metadata": "0.2.2", "@nestjs/common": "11.2.10", "file-type": "21.3.4"}


def untrusted(name: str) -> str:
    return stored("untrusted", name, VERSIONS[name])


def first(name: str) -> str:
    return stored("first-party", name, VERSIONS[name])


LOAD = r"""
const path = require("path");
const from = require("module").createRequire(path.resolve(process.argv[1], "package.json"));
from("reflect-metadata");
const core = from("@nestjs/core");
const { Injectable } = from("@nestjs/common");
const { Observable } = from("rxjs");
process.stdout.write(JSON.stringify([typeof core.NestFactory.create, typeof Injectable, typeof Observable]));
"""


def _build(tmp_path: Path, run_image: RunImage, out: str, *args: str) -> Run:
    app = manifest(name="acme-app", main="index.js", dependencies={"rxjs": "7.8.2", "debug": "4.4.3"})
    data = package_tgz(app, {"index.js": "module.exports = require('rxjs').Observable;\n"})
    write_tgz(tmp_path / "tgz", "app.tgz", data)
    spec = spec_text(
        {"source": "npm:@nestjs/core@11.2.10", "class": "installed", "integrity": NEST},
        {"source": "tgz/app.tgz", "integrity": integrity_of(data)},
    )
    return run_image(spec, *args, out=tmp_path / out)


def _members(tarball: Path) -> dict[str, bytes]:
    """A real npm tarball's files, package-relative (its first folder stripped, as npm does)."""
    with tarfile.open(fileobj=io.BytesIO(tarball.read_bytes())) as archive:
        return {
            m.name.split("/", 1)[1]: archive.extractfile(m).read()  # type: ignore[union-attr]
            for m in archive.getmembers()
            if m.isfile()
        }


def test_the_peers_of_an_untrusted_package_stay_in_its_tier(
    tmp_path: Path, realworld_registry: LocalRegistry, run_image: RunImage
) -> None:
    run = _build(tmp_path, run_image, "out")
    assert run.code == 0, run.err
    rows = {path: (version, chain, trust) for path, version, chain, trust in closure_rows(run)}
    # npm's lock has the peers at the root, acme-app's rxjs deduped onto @nestjs/core's: the image has only
    # listed packages there, and the rest in the folder of each trust tier that needs it
    npm_lock = json.loads((run.image / "package-lock.json").read_text())["packages"]
    assert "node_modules/rxjs" in npm_lock and "node_modules/acme-app/node_modules/rxjs" not in npm_lock
    assert npm_lock["node_modules/reflect-metadata"]["peer"] and npm_lock["node_modules/@nestjs/common"]["peer"]
    assert sorted(p for p in rows if p.count("node_modules/") == 1) == [CORE, APP]
    root = sorted(e.name for e in (run.image / "node_modules").iterdir() if not e.name.startswith("."))
    assert root == ["@nestjs", "acme-app"] and os.listdir(run.image / "node_modules/@nestjs") == ["core"]
    assert sorted(os.listdir(run.image / "node_modules/.store")) == ["first-party", "untrusted"]
    assert rows[untrusted("rxjs")] == ("7.8.2", "@nestjs/core > rxjs", "untrusted")
    assert rows[untrusted("reflect-metadata")] == ("0.2.2", "@nestjs/core > reflect-metadata", "untrusted")
    assert rows[untrusted("@nestjs/common")] == ("11.2.10", "@nestjs/core > @nestjs/common", "untrusted")
    chain = "@nestjs/core > @nestjs/common > file-type"
    assert rows[untrusted("file-type")] == ("21.3.4", chain, "untrusted")
    # the first-party package gets its own copy of rxjs, at its own tier; the untrusted closure is out of its reach
    assert rows[first("rxjs")] == ("7.8.2", "acme-app > rxjs", "first-party")
    tier = "node_modules/.store/first-party/"
    assert sorted(p.removeprefix(tier) for p in rows if p.startswith(tier)) == [
        "debug@4.4.3/node_modules/debug",
        "ms@2.1.3/node_modules/ms",
        "rxjs@7.8.2/node_modules/rxjs",
        "tslib@2.8.1/node_modules/tslib",
    ]
    # each listed package links the hoisted packages it depends on, and nothing else
    assert sorted(os.listdir(run.image / APP / "node_modules")) == ["debug", "rxjs"]
    assert os.readlink(run.image / CORE / "node_modules/rxjs") == "../../../.store/untrusted/node_modules/rxjs"
    found = resolve_from(
        run.image,
        [
            (APP, "rxjs"),
            (APP, "reflect-metadata"),
            (APP, "@nestjs/common"),
            (APP, "file-type"),
            (CORE, "rxjs"),
            (untrusted("@nestjs/common"), "rxjs"),
            (untrusted("@nestjs/common"), "reflect-metadata"),
            (first("rxjs"), "reflect-metadata"),
            (".", "rxjs"),
        ],
    )
    assert found == {
        f"{APP} rxjs": f"{first('rxjs')}/dist/cjs/index.js",
        f"{APP} reflect-metadata": "MODULE_NOT_FOUND",
        f"{APP} @nestjs/common": "MODULE_NOT_FOUND",
        f"{APP} file-type": "MODULE_NOT_FOUND",
        f"{CORE} rxjs": f"{untrusted('rxjs')}/dist/cjs/index.js",
        f"{untrusted('@nestjs/common')} rxjs": f"{untrusted('rxjs')}/dist/cjs/index.js",
        f"{untrusted('@nestjs/common')} reflect-metadata": f"{untrusted('reflect-metadata')}/Reflect.js",
        f"{first('rxjs')} reflect-metadata": "MODULE_NOT_FOUND",
        ". rxjs": "MODULE_NOT_FOUND",
    }
    # npm reads the layout as installed: npm ls passes in the image folder
    listed = subprocess.run(
        ["npm", "ls", "--all"], cwd=run.image, env=realworld_registry.env, capture_output=True, text=True, timeout=300
    )
    assert listed.returncode == 0, listed.stdout + listed.stderr
    assert "@nestjs/common@11.2.10 -> ./node_modules/.store/untrusted/@nestjs+common@11.2.10/" in listed.stdout
    # and the real thing loads from where it is installed, its peers with it
    loaded = subprocess.run(["node", "-e", LOAD, CORE], cwd=run.image, capture_output=True, text=True, check=True)
    assert json.loads(loaded.stdout) == ["function", "function", "function"]


def test_copies_of_one_tarball_are_read_only_hard_links_to_its_verified_content(
    tmp_path: Path, realworld_registry: LocalRegistry, run_image: RunImage
) -> None:
    run = _build(tmp_path, run_image, "a")
    assert run.code == 0, run.err
    real = fixture_tarball("rxjs@7.8.2")
    expected = _members(real)
    copies = [run.image / untrusted("rxjs"), run.image / first("rxjs")]
    for copy in copies:
        # the very files of the real tarball, byte for byte, nothing more (beside the folders nested in it)
        files = {rel: data for rel, data in tree_bytes(copy).items() if not rel.startswith("node_modules/")}
        assert files == expected
    for rel in ("package.json", "dist/cjs/index.js", "src/index.ts"):
        one, two = ((c / rel).stat() for c in copies)
        assert (one.st_dev, one.st_ino) == (two.st_dev, two.st_ino), rel  # one file on disk, two names
        assert one.st_nlink == 3  # the two copies and the store's entry
        assert stat.S_IMODE(one.st_mode) == 0o444  # read-only: nothing in the image writes through the link
    # one entry per distinct tarball, however many copies: 24 folders (20 in the untrusted tier for @nestjs/core,
    # 4 in the first-party tier for acme-app: debug, ms, rxjs, tslib, which @nestjs/core needs too) from 20 tarballs
    store = run.image / ".neuralis-cache/store"
    entries = sorted(p.name for p in store.iterdir() if p.is_dir())
    registry_rows = [c for c in run.report["closure"] if c["path"] not in (CORE, APP)]
    assert len(registry_rows) == 24 and len(entries) == len({c["integrity"] for c in registry_rows}) == 20
    # a second build gives the same bytes and the same report; --frozen from the first's locks reproduces it
    second = _build(tmp_path, run_image, "b")
    assert second.code == 0, second.err
    for name in ("neuralis-image.json", "neuralis-image.lock", "sbom.cdx.json", "package-lock.json"):
        assert (run.image / name).read_bytes() == (second.image / name).read_bytes(), name
    assert tree_bytes(run.image / "node_modules") == tree_bytes(second.image / "node_modules")
    before = tree_bytes(run.image / "node_modules")
    # the pinned @nestjs/core is read from the image's own tarballs (as npm ci reads its lock's), not packed again
    shutil.rmtree(run.image / ".neuralis-cache/npm")
    frozen = _build(tmp_path, run_image, "a", "--frozen")
    assert frozen.code == 0, frozen.err
    assert not (run.image / ".neuralis-cache/npm").exists()
    assert tree_bytes(run.image / "node_modules") == before
    assert frozen.report == run.report


def test_a_store_entry_changed_on_disk_is_extracted_afresh(
    tmp_path: Path, realworld_registry: LocalRegistry, run_image: RunImage
) -> None:
    run = _build(tmp_path, run_image, "out")
    assert run.code == 0, run.err
    copy = run.image / first("rxjs") / "package.json"
    good = copy.read_bytes()
    # someone writes through a link (only possible after making it writable): the store entry no longer matches
    # its listing, so the next build writes a fresh entry and links the image to that, not to the changed file
    copy.chmod(0o644)
    copy.write_bytes(b'{"name": "rxjs", "version": "6.6.6"}\n')
    stale = copy.stat().st_ino
    again = _build(tmp_path, run_image, "out")  # the same SPEC: the touched tree is not kept, nor the entry
    assert again.code == 0, again.err
    assert copy.read_bytes() == good and copy.stat().st_ino != stale
    assert stat.S_IMODE(copy.stat().st_mode) == 0o444
