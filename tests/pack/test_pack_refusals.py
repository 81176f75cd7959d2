"""What pack refuses, at which pointer, with which code: one test per refusal, good case beside the bad."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from packtools import Link

from neuralis_build.pack.coverage import output_diagnostics
from neuralis_build.pack.packlist import packlist
from neuralis_build.pack.refusals import prepare_pack, tarball_diagnostics
from neuralis_build.pack.tarball import pack_package
from neuralis_build.package import load_package

Tree = Callable[..., Path]
HOST = "export function installXHostComponents() {}\n"


def manifest(neuralis: Any = None, **fields: Any) -> dict[str, Any]:
    return {"name": "@acme/x", "version": "1.0.0", **fields, "neuralis": {} if neuralis is None else neuralis}


def ours(tree: Tree, files: dict[str, Any], trust: str = "first-party") -> list[tuple[str, str, str]]:
    """(severity, code, pointer) of the pack findings (NB17xx) for a package."""
    prep = prepare_pack(load_package(tree(files)), trust)  # type: ignore[arg-type]
    return [(d.severity, d.code, d.pointer) for d in prep.diagnostics if d.code.startswith("NB17")]


def outputs(root: Path) -> list[tuple[str, str, str]]:
    """The build-output findings alone (without check's, which may name a missing file first)."""
    package = load_package(root)
    return [(d.severity, d.code, d.pointer) for d in output_diagnostics(package, packlist(root, package.manifest))]


def once_per_pointer(root: Path) -> bool:
    """pack reports each missing output once, whether check (NB16xx) or pack (NB1706) names it."""
    found = prepare_pack(load_package(root), "first-party").diagnostics
    about_outputs = [d.pointer for d in found if d.severity == "error" and d.code[:4] in ("NB16", "NB17")]
    return all(about_outputs.count(pointer) == 1 for _, _, pointer in outputs(root))


def test_a_clean_package_packs(tree: Tree) -> None:
    prep = prepare_pack(load_package(tree({"package.json": manifest(files=["lib"]), "lib/a.js": ""})), "first-party")
    assert (prep.ok, prep.diagnostics, prep.files) == (True, [], ["lib/a.js", "package.json"])


def test_check_errors_refuse(tree: Tree) -> None:
    bad = manifest({"credentials": [{"id": "a/b", "label": "L"}]})
    prep = prepare_pack(load_package(tree({"package.json": bad})), "first-party")
    assert not prep.ok
    assert [(d.severity, d.code, d.pointer) for d in prep.diagnostics] == [
        ("error", "NB1002", "/neuralis/credentials/0/id")
    ]


def test_name_and_version_are_required(tree: Tree) -> None:
    assert ours(tree, {"package.json": {"name": "x", "neuralis": {}}}) == [("error", "NB1701", "")]
    assert ours(tree, {"package.json": {"name": 3, "version": "1.0.0", "neuralis": {}}}) == [
        ("error", "NB1701", "/name")
    ]


def test_files_must_be_an_array_of_strings(tree: Tree) -> None:
    assert ours(tree, {"package.json": manifest(files="lib"), "lib/a.js": ""}) == [("error", "NB1702", "/files")]
    assert ours(tree, {"package.json": manifest(files={"a": 1})}) == [("error", "NB1702", "/files")]
    assert ours(tree, {"package.json": manifest(files=[1, "lib"]), "lib/a.js": ""}) == [("error", "NB1703", "/files/0")]
    assert ours(tree, {"package.json": manifest(files="")}) == []  # falsy: npm ignores it


def test_files_entries_that_pack_nothing(tree: Tree) -> None:
    files = {
        "package.json": manifest(files=["lib", "li*", "#x", "nope.js", "!lib/b.js", "README.md", "d*/"]),
        "lib/a.js": "",
        "lib/b.js": "",
        "README.md": "",
        "docs/x.md": "",
    }
    assert ours(tree, files) == [
        ("error", "NB1704", "/files/1"),
        ("error", "NB1704", "/files/2"),
        ("error", "NB1704", "/files/3"),
        ("error", "NB1704", "/files/6"),
    ]
    prep = prepare_pack(load_package(tree(files)), "first-party")
    hints = {d.pointer: d.hint for d in prep.diagnostics}
    assert hints["/files/1"] is not None and 'write "lib" or "lib/**"' in hints["/files/1"]
    assert hints["/files/2"] is not None and "comment" in hints["/files/2"]


def _module_block(**module: Any) -> dict[str, Any]:
    return {"app": {"module": {"entry": "dist/app/host.js", **module}}}


def test_ui_module_outputs_must_be_packed(tree: Tree) -> None:
    built = {"dist/app/host.js": HOST, "dist/app/shared-imports.json": "{}", "dist/app/host.css": ""}
    good = {"package.json": manifest(_module_block(css="dist/app/host.css"), files=["dist"]), **built}
    assert ours(tree, good) == []
    left_out = {"package.json": manifest(_module_block(css="dist/app/host.css"), files=["dist/app/host.js"]), **built}
    assert ours(tree, left_out) == [
        ("error", "NB1705", "/neuralis/app/module"),
        ("error", "NB1705", "/neuralis/app/module/css"),
    ]
    not_built = tree({"package.json": manifest(_module_block(css="dist/app/host.css"), files=["dist"])})
    assert outputs(not_built) == [
        ("error", "NB1706", "/neuralis/app/module/entry"),
        ("error", "NB1706", "/neuralis/app/module/css"),
        ("error", "NB1706", "/neuralis/app/module"),
    ]
    assert once_per_pointer(not_built)
    (files_finding,) = [
        d for d in prepare_pack(load_package(not_built), "first-party").diagnostics if d.code == "NB1704"
    ]
    assert files_finding.hint is not None and "dist/ holds the declared build outputs" in files_finding.hint


def test_gitignored_dist_is_named_as_the_cause(tree: Tree) -> None:
    files = {
        "package.json": manifest(_module_block()),
        ".gitignore": "dist/\n",
        "dist/app/host.js": HOST,
        "dist/app/shared-imports.json": "{}",
    }
    prep = prepare_pack(load_package(tree(files)), "first-party")
    found = [d for d in prep.diagnostics if d.code == "NB1705"]
    assert [d.pointer for d in found] == ["/neuralis/app/module", "/neuralis/app/module/entry"]
    assert found[0].hint is not None and ".gitignore" in found[0].hint


def test_compiled_events_must_be_packed(tree: Tree) -> None:
    def event(id_: str, subject: str) -> dict[str, Any]:
        return {"id": id_, "title": id_, "subject": subject, "dataSchema": {"type": "object"}}

    events = {"events": [event("r.failed", "report"), event("r.done", "report"), event("s.x", "sync")]}
    compiled = "export const subject = 'report';\nexport function visible() { return true; }\n"
    root = tree(
        {
            "package.json": manifest(events, files=["dist"]),
            "src/events/report.ts": "",
            "src/events/sync.ts": "",
            "dist/src/events/report.js": compiled,
        }
    )
    assert outputs(root) == [("error", "NB1706", "/neuralis/events/2/subject")]
    assert once_per_pointer(root)


def test_iframe_surface_roots_must_be_packed(tree: Tree) -> None:
    url = "./app/surfaces/widget/board/index.html"
    surface = {
        "kind": "widget",
        "id": "x.board",
        "type": "board",
        "component": {"renderer": "iframe", "url": url, "assetMode": "bundle"},
    }
    block = {"app": {"surfaces": [surface]}}
    root_files = {
        "app/surfaces/widget/board/index.html": "<p>",
        "app/surfaces/widget/board/app.js": "",
        "app/surfaces/widget/board/.DS_Store": "",
    }
    assert ours(tree, {"package.json": manifest(block, files=["app"]), **root_files}) == []
    only_entry = {"package.json": manifest(block, files=["app/surfaces/widget/board/index.html"]), **root_files}
    assert ours(tree, only_entry) == [("error", "NB1705", "/neuralis/app/surfaces/0/component/assetMode")]
    missing = {"package.json": manifest(block, files=["app"]), "app/other.txt": ""}
    assert ours(tree, missing) == [("error", "NB1706", "/neuralis/app/surfaces/0/component/url")]


def test_exports_must_keep_package_json_resolvable(tree: Tree) -> None:
    files = {"package.json": manifest(exports={".": "./index.js"}), "index.js": ""}
    assert ours(tree, files) == [("error", "NB1707", "/exports")]
    files = {"package.json": manifest(exports={".": "./index.js", "./package.json": "./package.json"}), "index.js": ""}
    assert ours(tree, files) == []


def test_bundled_dependencies_that_would_be_packed(tree: Tree) -> None:
    bundled = manifest(dependencies={"dep": "1.0.0"}, bundleDependencies=["dep"])
    assert ours(tree, {"package.json": bundled}) == []  # nothing installed, nothing bundled: npm's list is ours
    files = {"package.json": bundled, "node_modules/dep/package.json": {"name": "dep", "version": "1.0.0"}}
    assert ours(tree, files) == [("error", "NB1709", "/bundleDependencies")]
    files["package.json"] = manifest(dependencies={"dep": "1.0.0"}, bundledDependencies=True)
    assert ours(tree, files) == [("error", "NB1709", "/bundledDependencies")]


def test_workspace_roots(tree: Tree) -> None:
    assert ours(tree, {"package.json": manifest(workspaces=["packages/*"])}) == [("error", "NB1710", "/workspaces")]
    assert ours(tree, {"package.json": manifest(workspaces=[])}) == []


def test_skipped_lifecycle_scripts_are_warnings(tree: Tree) -> None:
    scripts = {"prepack": "npm run build", "prepare": "husky", "postpack": "rm x", "build": "tsc"}
    prep = prepare_pack(load_package(tree({"package.json": manifest(scripts=scripts)})), "first-party")
    assert prep.ok
    assert [(d.severity, d.code, d.pointer) for d in prep.diagnostics] == [
        ("warning", "NB1711", "/scripts/prepack"),
        ("warning", "NB1711", "/scripts/prepare"),
        ("warning", "NB1711", "/scripts/postpack"),
    ]


def test_unreadable_names_fail_like_npm(tree: Tree) -> None:
    root = tree({"package.json": manifest()})
    (root / b"bad\xff.js".decode("utf-8", "surrogateescape")).write_text("")
    prep = prepare_pack(load_package(root), "first-party")
    assert [(d.code, d.file) for d in prep.diagnostics] == [("NB1716", "bad\ufffd.js")]


def test_symlinked_package_files_are_left_out_not_followed(tree: Tree) -> None:
    root = tree({"package.json": manifest(files=["lib"]), "lib/a.js": "", "lib/out": Link("/etc")})
    assert prepare_pack(load_package(root), "first-party").files == ["lib/a.js", "package.json"]


def test_decompression_bombs_are_refused(tree: Tree) -> None:
    root = tree({"package.json": manifest(), "zeros.bin": bytes(20_000_000)})
    result = pack_package(load_package(root))
    assert [(d.severity, d.code) for d in tarball_diagnostics(result)] == [("error", "NB1712")]
    small = pack_package(load_package(tree({"package.json": manifest()})))
    assert tarball_diagnostics(small) == []
