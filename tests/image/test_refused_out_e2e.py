"""Whatever rule refuses a listed package, nothing of it is in the committed image: not its folder, not its tier links,
not its store entries.

A listed package whose ``files`` npm cannot read (a string, or an array holding a number) was refused once its
folder was already staged, and the folder stayed in ``DIR/node_modules`` beside the report that refuses it:
node could ``require`` a package the image says it does not hold.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from neuralis_build.image.archive.integrity import strongest
from neuralis_build.image.layout.tiers import stored
from tests.conftest import manifest, requires_node
from tests.image.conftest import LocalRegistry, file_info, package_tgz, raw_tgz, spec_text, write_tgz
from tests.image.test_closure_e2e import RunImage, lib, publish
from tests.image.test_hostile_manifest_e2e import deep_manifest

pytestmark = [pytest.mark.e2e, pytest.mark.registry, requires_node]


def _everything_under(root: Path) -> list[str]:
    """Every path under ``root`` (links not followed), relative to it."""
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*"))


def test_a_package_refused_for_its_files_field_leaves_no_folder_in_the_image(
    tmp_path: Path, local_registry: LocalRegistry, run_image: RunImage
) -> None:
    t = tmp_path / "tgz"
    files = {"dist/index.js": "module.exports = 1;\n", "a": "a\n"}
    write_tgz(t, "string.tgz", package_tgz(manifest(name="@acme/files-string", files="dist"), files))
    write_tgz(t, "mixed.tgz", package_tgz(manifest(name="acme-files-mixed", files=["a", 3]), files))
    write_tgz(t, "fine.tgz", package_tgz(manifest(name="acme-fine")))
    run = run_image(spec_text({"source": "tgz/string.tgz"}, {"source": "tgz/mixed.tgz"}, {"source": "tgz/fine.tgz"}))
    assert run.code == 1, run.err
    assert run.codes("@acme/files-string") == [("error", "NB1702", "/files")]
    assert run.codes("acme-files-mixed") == [("error", "NB1703", "/files/1")]
    assert run.package("@acme/files-string")["status"] == "refused"
    assert run.package("acme-files-mixed")["status"] == "refused"
    assert run.package("acme-fine")["status"] == "loaded"
    assert not (run.image / "node_modules/@acme/files-string").exists()
    assert not (run.image / "node_modules/@acme").exists()  # the scope's folder left with it
    assert not (run.image / "node_modules/acme-files-mixed").exists()
    assert sorted(p.name for p in (run.image / "node_modules").iterdir()) == ["acme-fine"]
    assert [c["path"] for c in run.report["closure"]] == ["node_modules/acme-fine"]


def test_a_package_refused_late_for_a_hostile_dependency_leaves_no_folder_link_or_store_entry(
    tmp_path: Path, npm_registry: LocalRegistry, run_image: RunImage
) -> None:
    members = [file_info("package/package.json", deep_manifest("acme-deep")), file_info("package/index.js", b"")]
    npm_registry.publish(write_tgz(tmp_path / "publish", "acme-deep-1.0.0.tgz", raw_tgz(members)))
    publish(npm_registry, tmp_path, lib("acme-only-mine", "1.0.0"), {"index.js": "module.exports = 1;\n"})
    publish(npm_registry, tmp_path, lib("acme-common", "1.0.0"), {"index.js": "module.exports = 2;\n"})
    t = tmp_path / "tgz"
    needs = {"acme-deep": "1.0.0", "acme-only-mine": "1.0.0", "acme-common": "1.0.0"}
    write_tgz(t, "app.tgz", package_tgz(manifest(name="@acme/app", dependencies=needs)))
    write_tgz(t, "fine.tgz", package_tgz(manifest(name="acme-fine", dependencies={"acme-common": "1.0.0"})))
    spec = spec_text({"source": "tgz/app.tgz"}, {"source": "tgz/fine.tgz"})
    run = run_image(spec)
    assert run.code == 1, run.err
    assert run.codes("@acme/app") == [("error", "NB1813", "/dependencies")]
    assert run.package("acme-fine")["status"] == "loaded"
    # the refused package, the folders its tier held for it alone and their links are gone
    assert sorted(_everything_under(run.image / "node_modules")) == sorted(
        [
            ".store",
            ".store/first-party",
            ".store/first-party/acme-common@1.0.0",
            ".store/first-party/acme-common@1.0.0/node_modules",
            ".store/first-party/acme-common@1.0.0/node_modules/acme-common",
            ".store/first-party/acme-common@1.0.0/node_modules/acme-common/index.js",
            ".store/first-party/acme-common@1.0.0/node_modules/acme-common/package.json",
            ".store/first-party/node_modules",
            ".store/first-party/node_modules/acme-common",
            "acme-fine",
            "acme-fine/node_modules",
            "acme-fine/node_modules/acme-common",
            "acme-fine/package.json",
        ]
    )
    assert [c["path"] for c in run.report["closure"]] == [
        stored("first-party", "acme-common", "1.0.0"),
        "node_modules/acme-fine",
    ]
    # the store keeps what the committed image links to, and nothing of what only the refused package needed
    best = strongest(run.report["closure"][0]["integrity"])
    assert best is not None
    entry = f"{best[0]}-{best[1].hex()}"
    assert sorted(p.name for p in (run.image / ".neuralis-cache/store").iterdir()) == [entry, f"{entry}.json"]


def test_a_package_needing_a_listed_package_refused_while_npm_resolved_is_refused_too(
    tmp_path: Path, local_registry: LocalRegistry, run_image: RunImage
) -> None:
    """npm starts as soon as every tarball is read, so a package refused meanwhile is in its lock, and the layout
    put it where its dependents look: the build tried to install the refused package's own tarball as their
    dependency and stopped (exit 2, npm pack failing on a path)."""
    t = tmp_path / "tgz"
    write_tgz(t, "b.tgz", package_tgz(manifest(name="acme-b", files="dist"), {"dist/index.js": ""}))
    write_tgz(t, "a.tgz", package_tgz(manifest(name="acme-a", dependencies={"acme-b": "1.0.0"})))
    write_tgz(t, "fine.tgz", package_tgz(manifest(name="acme-fine")))
    run = run_image(spec_text({"source": "tgz/b.tgz"}, {"source": "tgz/a.tgz"}, {"source": "tgz/fine.tgz"}))
    assert run.code == 1, run.err
    assert run.codes("acme-b") == [("error", "NB1702", "/files")]
    [d] = run.package("acme-a")["diagnostics"]
    assert (d["code"], d["message"]) == (
        "NB1812",
        "it needs acme-b@1.0.0 (acme-a → acme-b), which is refused: the SPEC lists it, and it is refused",
    )
    assert _everything_under(run.image / "node_modules") == ["acme-fine", "acme-fine/package.json"]
    assert [c["path"] for c in run.report["closure"]] == ["node_modules/acme-fine"]
