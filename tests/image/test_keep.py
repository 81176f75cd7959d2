"""When an unchanged rerun may keep the installed tree, the SBOM and node's verdicts, and when it must not."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from neuralis_build.hostprofile import default_host_profile
from neuralis_build.image.archive.extract import Limits
from neuralis_build.image.packages import keep
from neuralis_build.image.packages.cache import Cache, listing_digest
from neuralis_build.image.packages.listed import Listed
from neuralis_build.image.packages.spec import PackageSpec
from neuralis_build.image.packages.work import Work
from neuralis_build.image.tree.staged import Diverged, Tree


def _work(name: str, integrity: str, *, cached: bool = True) -> Listed:
    spec = PackageSpec(0, f"{name}.tgz", "tarball", "host-dependency", "first-party", None, None)
    return Listed(spec, name=name, integrity=integrity, cached=cached)


def _image(tmp_path: Path) -> tuple[Path, Cache, list[Listed], str]:
    out = tmp_path / "out"
    (out / "node_modules" / "acme-a").mkdir(parents=True)
    (out / "node_modules" / "acme-a" / "package.json").write_text('{"name": "acme-a", "version": "1.0.0"}')
    works = [_work("acme-a", "sha512-a")]
    fingerprint = keep.fingerprint(default_host_profile(), Limits())
    cache = Cache(out)
    cache.image = {
        "fingerprint": fingerprint,
        "listed": keep.listed(works),
        "plan": [["node_modules/acme-a", "sha512-a"]],
        "pruned": False,
        "listing": listing_digest(out / "node_modules"),
    }
    return out, cache, works, fingerprint


def test_an_untouched_tree_of_the_same_packages_is_kept(tmp_path: Path) -> None:
    out, cache, works, fingerprint = _image(tmp_path)
    kept = keep.kept_tree(cache, out, works, fingerprint)
    assert kept is not None and kept.plan == [["node_modules/acme-a", "sha512-a"]]


@pytest.mark.parametrize(
    "change",
    [
        "another host or toolchain",
        "the last build refused something",
        "other bytes",
        "a verdict not cached",
        "a file touched",
        "a file added",
        "no tree",
    ],
)
def test_anything_changed_stages_the_tree_afresh(tmp_path: Path, change: str) -> None:
    out, cache, works, fingerprint = _image(tmp_path)
    assert cache.image is not None
    installed = out / "node_modules" / "acme-a" / "package.json"
    if change == "another host or toolchain":
        fingerprint = "0" * 64
    elif change == "the last build refused something":
        cache.image["pruned"] = True
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
    assert keep.kept_tree(cache, out, works, fingerprint) is None


def test_the_sbom_is_reused_only_when_its_inputs_and_its_file_are_the_ones_recorded(tmp_path: Path) -> None:
    cache = Cache(tmp_path)
    key = keep.sbom_key([["node_modules/acme-a"]])
    (tmp_path / "sbom.cdx.json").write_text("{}\n")
    cache.image = {"sbom": keep.sbom_record(key, "{}\n")}
    assert keep.kept_sbom(cache, tmp_path, key, "sbom.cdx.json") == "{}\n"
    assert keep.kept_sbom(cache, tmp_path, keep.sbom_key([]), "sbom.cdx.json") is None
    (tmp_path / "sbom.cdx.json").write_text('{"edited": true}\n')
    assert keep.kept_sbom(cache, tmp_path, key, "sbom.cdx.json") is None


def test_node_s_verdicts_are_reused_only_for_the_same_edges(tmp_path: Path) -> None:
    cache = Cache(tmp_path)
    edges = [("node_modules/a", "b", "node_modules/a/node_modules/b")]
    key = keep.node_key(edges, [])
    cache.image = {"node": {"key": key, "edges": [None], "peers": []}}
    assert keep.kept_node_verdicts(cache, key, 1) == ([None], [])
    assert keep.kept_node_verdicts(cache, keep.node_key([], []), 0) is None
    assert keep.kept_node_verdicts(cache, key, 2) is None


def test_a_kept_tree_is_never_changed_by_a_refusal(tmp_path: Path) -> None:
    out, _, works, _ = _image(tmp_path)
    args: Any = ([Work.of(w) for w in works], out, tmp_path / "resolve", out, default_host_profile(), 1, Limits(), None)
    tree = Tree(*args, [["node_modules/acme-a", "sha512-a"]])
    tree.lock = tree.layout = object()  # type: ignore[assignment]
    with pytest.raises(Diverged):
        tree.refuse({"node_modules/acme-a": ("acme-a@1.0.0", "it lost a contest")}, "NB1812")
    assert (out / "node_modules" / "acme-a" / "package.json").is_file()
