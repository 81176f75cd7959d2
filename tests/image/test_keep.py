"""When an unchanged rerun may keep the installed tree, the SBOM and node's verdicts, and when it must not."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import pytest

from neuralis_build.hostprofile import default_host_profile
from neuralis_build.image.archive.extract import Limits
from neuralis_build.image.packages import keep
from neuralis_build.image.packages.cache import LastBuild, NodeRecord, listing_digest
from neuralis_build.image.packages.listed import Listed
from neuralis_build.image.packages.spec import PackageSpec
from neuralis_build.image.packages.work import Work
from neuralis_build.image.resolution.npmlock import LockNode, NpmLock
from neuralis_build.image.resolution.registries import Registries
from neuralis_build.image.tree.staged import KeptTreeChanged, Resolution, StagedTree


def _work(name: str, integrity: str, *, cached: bool = True) -> Listed:
    spec = PackageSpec(0, f"{name}.tgz", "tarball", "host-dependency", "first-party", None, None)
    return Listed(spec, name=name, integrity=integrity, cached=cached)


PLAN = [("node_modules/acme-a", "sha512-a")]
REGISTRIES = {"default": "https://registry.example/", "scoped": {}, "replaceHost": "npmjs"}


def _image(tmp_path: Path) -> tuple[Path, LastBuild, list[Listed], str]:
    out = tmp_path / "out"
    (out / "node_modules" / "acme-a").mkdir(parents=True)
    (out / "node_modules" / "acme-a" / "package.json").write_text('{"name": "acme-a", "version": "1.0.0"}')
    works = [_work("acme-a", "sha512-a")]
    fingerprint = keep.fingerprint(default_host_profile(), Limits())
    last = LastBuild(
        fingerprint=fingerprint,
        listed=tuple((a, b) for a, b in keep.listed(works)),
        plan=tuple(PLAN),
        pruned=False,
        listing=listing_digest(out / "node_modules"),
        registries=REGISTRIES,
    )
    return out, last, works, fingerprint


def test_an_untouched_tree_of_the_same_packages_is_kept(tmp_path: Path) -> None:
    out, last, works, fingerprint = _image(tmp_path)
    assert keep.keeps_tree(last, out, works, fingerprint, PLAN, REGISTRIES) == listing_digest(out / "node_modules")


def test_the_last_build_s_record_is_read_back_as_it_was_written(tmp_path: Path) -> None:
    _, last, _, _ = _image(tmp_path)
    node = NodeRecord("k", (None, "node finds nothing"), (True,))
    again = LastBuild.parse(
        {**last.to_json(), "node": {"key": "k", "edges": [None, "node finds nothing"], "peers": [True]}}
    )
    assert again == LastBuild(**{**last.__dict__, "node": node})
    assert LastBuild.parse({**last.to_json(), "pruned": "no"}) is None  # of another shape: nothing is kept
    assert LastBuild.parse(None) is None


@pytest.mark.parametrize(
    "change",
    [
        "another host or toolchain",
        "the last build refused something",
        "other bytes",
        "a verdict not cached",
        "npm places other packages",
        "other registries",
        "a file touched",
        "a file added",
        "no tree",
    ],
)
def test_anything_changed_stages_the_tree_afresh(tmp_path: Path, change: str) -> None:
    out, last, works, fingerprint = _image(tmp_path)
    installed = out / "node_modules" / "acme-a" / "package.json"
    plan, registries = list(PLAN), dict(REGISTRIES)
    if change == "another host or toolchain":
        fingerprint = "0" * 64
    elif change == "the last build refused something":
        last = LastBuild(**{**last.__dict__, "pruned": True})
    elif change == "npm places other packages":
        plan.append(("node_modules/.store/first-party/ms@2.1.3/node_modules/ms", "sha512-ms"))
    elif change == "other registries":
        registries["default"] = "https://mirror.example/"
    elif change == "other bytes":
        works = [_work("acme-a", "sha512-b")]
    elif change == "a verdict not cached":
        works = [_work("acme-a", "sha512-a", cached=False)]
    elif change == "a file touched":
        st = installed.stat()
        os.utime(installed, ns=(st.st_atime_ns, st.st_mtime_ns + 1))
    elif change == "a file added":
        (installed.parent / "extra.js").write_text("")
    else:
        installed.unlink()
        installed.parent.rmdir()
        (out / "node_modules").rmdir()
    assert keep.keeps_tree(last, out, works, fingerprint, plan, registries) is None


def test_the_sbom_is_reused_only_when_its_inputs_and_its_file_are_the_ones_recorded(tmp_path: Path) -> None:
    _, last, _, _ = _image(tmp_path)
    key = keep.sbom_key([["node_modules/acme-a"]])
    (tmp_path / "sbom.cdx.json").write_text("{}\n")
    last = LastBuild(**{**last.__dict__, "sbom": keep.sbom_record(key, "{}\n")})
    assert keep.kept_sbom(last, tmp_path, key, "sbom.cdx.json") == "{}\n"
    assert keep.kept_sbom(last, tmp_path, keep.sbom_key([]), "sbom.cdx.json") is None
    (tmp_path / "sbom.cdx.json").write_text('{"edited": true}\n')
    assert keep.kept_sbom(last, tmp_path, key, "sbom.cdx.json") is None


def test_node_s_verdicts_are_reused_only_for_the_same_edges(tmp_path: Path) -> None:
    _, last, _, _ = _image(tmp_path)
    edges = [("node_modules/a", "b", "node_modules/a/node_modules/b")]
    key = keep.node_key(edges, [])
    last = LastBuild(**{**last.__dict__, "node": NodeRecord(key, (None,), ())})
    assert keep.kept_node_verdicts(last, key, 1) == ([None], [])
    assert keep.kept_node_verdicts(last, keep.node_key([], []), 0) is None
    assert keep.kept_node_verdicts(last, key, 2) is None


def test_a_kept_tree_is_never_changed_by_a_refusal(tmp_path: Path) -> None:
    out, _, works, _ = _image(tmp_path)
    node = LockNode("node_modules/acme-a", "acme-a", "acme-a", "1.0.0", "file:a.tgz", "sha512-a")
    lock = NpmLock({"acme-a": "file:a.tgz"}, {"node_modules/acme-a": node}, "{}")
    registries = Registries("https://registry.example/")
    works_ = [Work.of(replace(w, staged=out / "node_modules/acme-a")) for w in works]
    tree = StagedTree(works_, out, Resolution(lock, registries), default_host_profile(), kept=True)
    with pytest.raises(KeptTreeChanged):
        tree.refuse({"node_modules/acme-a": ("acme-a@1.0.0", "it lost a contest")}, "NB1812")
    assert (out / "node_modules" / "acme-a" / "package.json").is_file()
