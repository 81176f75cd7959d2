"""What pack refuses, at which pointer, with which code: one test per refusal, good case beside the bad."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from packtools import Link

from neuralis_build.check import check_package
from neuralis_build.pack.coverage import output_diagnostics
from neuralis_build.pack.packlist import packlist
from neuralis_build.pack.refusals import Prepack, prepare_pack, tarball_diagnostics
from neuralis_build.pack.tarball import pack_package
from neuralis_build.package import load_package

Tree = Callable[..., Path]
HOST = "export function installXHostComponents() {}\n"


def manifest(neuralis: Any = None, **fields: Any) -> dict[str, Any]:
    return {"name": "@acme/x", "version": "1.0.0", **fields, "neuralis": {} if neuralis is None else neuralis}


def judge(root: Path, trust: str = "first-party") -> Prepack:
    """pack's verdict on the package at ``root``, judged at ``trust`` as `neuralis-build pack --trust` does."""
    return prepare_pack(check_package(load_package(root), trust))  # type: ignore[arg-type]


def ours(tree: Tree, files: dict[str, Any], trust: str = "first-party") -> list[tuple[str, str, str]]:
    """(severity, code, pointer) of the pack findings (NB17xx) for a package."""
    prep = judge(tree(files), trust)
    return [(d.severity, d.code, d.pointer) for d in prep.diagnostics if d.code.startswith("NB17")]


def outputs(root: Path) -> list[tuple[str, str, str]]:
    """The build-output findings alone (without check's, which may name a missing file first)."""
    judged = check_package(load_package(root), "first-party")
    files = packlist(root, load_package(root).manifest)
    return [(d.severity, d.code, d.pointer) for d in output_diagnostics(judged, files)]


def once_per_pointer(root: Path) -> bool:
    """pack reports each missing output once, whether check (NB16xx) or pack (NB1706) names it."""
    found = judge(root).diagnostics
    about_outputs = [d.pointer for d in found if d.severity == "error" and d.code[:4] in ("NB16", "NB17")]
    return all(about_outputs.count(pointer) == 1 for _, _, pointer in outputs(root))


def test_a_clean_package_packs(tree: Tree) -> None:
    prep = judge(tree({"package.json": manifest(files=["lib"]), "lib/a.js": ""}))
    assert (prep.ok, prep.diagnostics, prep.files) == (True, [], ["lib/a.js", "package.json"])


def test_check_errors_refuse(tree: Tree) -> None:
    bad = manifest({"credentials": [{"id": "a/b", "label": "L"}]})
    prep = judge(tree({"package.json": bad}))
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


def test_files_entries_that_pack_nothing_are_warnings(tree: Tree) -> None:
    """npm packs such a package without a word (npm-packlist lists a bin/ it lacks, semver@7.6.0 a lib/)."""
    files = {
        "package.json": manifest(files=["lib", "li*", "#x", "nope.js", "!lib/b.js", "README.md", "d*/"]),
        "lib/a.js": "",
        "lib/b.js": "",
        "README.md": "",
        "docs/x.md": "",
    }
    assert ours(tree, files) == [
        ("warning", "NB1704", "/files/1"),
        ("warning", "NB1704", "/files/2"),
        ("warning", "NB1704", "/files/3"),
        ("warning", "NB1704", "/files/6"),
    ]
    prep = judge(tree(files))
    assert prep.ok
    hints = {d.pointer: d.hint for d in prep.diagnostics}
    assert hints["/files/1"] == (
        'the entry matches the folder "lib" but npm packs a folder\'s files only when the entry names the folder '
        'exactly or ends in /**: write "li*/**"'
    )
    assert hints["/files/2"] is not None and "comment" in hints["/files/2"]


def test_semver_and_npm_packlist_shapes_pack(tree: Tree) -> None:
    """semver@7.6.0's files list a lib/ it does not have; npm-packlist's a bin/: both pack, with a warning."""
    semver = manifest(files=["bin/", "lib/", "classes/", "index.js"])
    prep = judge(tree({"package.json": semver, "bin/semver.js": "", "classes/a.js": "", "index.js": ""}))
    assert prep.ok
    assert [(d.severity, d.code, d.pointer) for d in prep.diagnostics] == [("warning", "NB1704", "/files/1")]


def test_a_glob_over_several_folders_is_named_whole_in_the_hint(tree: Tree) -> None:
    files = {
        "package.json": manifest(files=["template-*", "index.js"]),
        "index.js": "",
        "template-a/x.md": "",
        "template-b/y.md": "",
    }
    (finding,) = judge(tree(files)).diagnostics
    assert (finding.severity, finding.code, finding.pointer) == ("warning", "NB1704", "/files/0")
    assert finding.hint == (
        'the entry matches the folders "template-a" and "template-b" but npm packs a folder\'s files only when '
        'the entry names the folder exactly or ends in /**: write "template-*/**"'
    )


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
    # the files entry meant to carry the outputs is not reported on its own: the output rule names it
    found = judge(not_built).diagnostics
    assert [d.code for d in found if d.code == "NB1704"] == []
    (entry,) = [d for d in found if d.pointer == "/neuralis/app/module/entry"]
    assert (entry.code, entry.message) == (
        "NB1601",
        "dist/app/host.js has not been built",
    )
    (css,) = [d for d in found if d.pointer == "/neuralis/app/module/css"]
    assert css.message == (
        "the UI module stylesheet dist/app/host.css does not exist, so the tarball would ship without it (files[0] "
        '"dist" is meant to carry it)'
    )


def test_gitignored_dist_is_named_as_the_cause(tree: Tree) -> None:
    files = {
        "package.json": manifest(_module_block()),
        ".gitignore": "dist/\n",
        "dist/app/host.js": HOST,
        "dist/app/shared-imports.json": "{}",
    }
    prep = judge(tree(files))
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


@pytest.mark.parametrize(
    ("fields", "refused"),
    [
        ({"optionalDependencies": {"dep": "1"}}, True),
        ({"dependencies": {"dep": "1"}, "peerDependencies": {"dep": "1"}}, True),  # prod replaces peer
        ({"devDependencies": {"dep": "1"}}, False),
        ({"dependencies": {"dep": "1"}, "devDependencies": {"dep": "1"}}, False),  # dev replaces prod
        ({"peerDependencies": {"dep": "1"}}, False),
        ({}, False),  # listed in no dependency field
    ],
)
def test_only_what_npm_bundles_is_refused(tree: Tree, fields: dict[str, Any], refused: bool) -> None:
    """npm-packlist bundles an installed name only when arborist makes it a prod or optional dependency (a later
    dependency field replaces an earlier one: peer, prod, optional, dev); the rest it packs without a word."""
    files = {
        "package.json": manifest(bundleDependencies=["dep"], **fields),
        "node_modules/dep/package.json": {"name": "dep", "version": "1.0.0"},
    }
    assert ours(tree, files) == ([("error", "NB1709", "/bundleDependencies")] if refused else [])


def test_workspace_roots(tree: Tree) -> None:
    assert ours(tree, {"package.json": manifest(workspaces=["packages/*"])}) == [("error", "NB1710", "/workspaces")]
    assert ours(tree, {"package.json": manifest(workspaces=[])}) == []


def test_lifecycle_scripts_are_not_judged_here(tree: Tree) -> None:
    """pack runs them before it judges (test_pack_lifecycle.py): the judgement is of what they left."""
    scripts = {"prepack": "npm run build", "prepare": "husky", "postpack": "rm x", "build": "tsc"}
    prep = judge(tree({"package.json": manifest(scripts=scripts)}))
    assert prep.ok and prep.diagnostics == []


def test_unreadable_names_fail_like_npm(tree: Tree) -> None:
    root = tree({"package.json": manifest()})
    (root / b"bad\xff.js".decode("utf-8", "surrogateescape")).write_text("")
    prep = judge(root)
    assert [(d.code, d.file) for d in prep.diagnostics] == [("NB1716", "bad\ufffd.js")]


def test_symlinked_package_files_are_left_out_not_followed(tree: Tree) -> None:
    root = tree({"package.json": manifest(files=["lib"]), "lib/a.js": "", "lib/out": Link("/etc")})
    assert judge(root).files == ["lib/a.js", "package.json"]


def test_decompression_bombs_are_refused(tree: Tree) -> None:
    root = tree({"package.json": manifest(), "zeros.bin": bytes(20_000_000)})
    result = pack_package(load_package(root))
    assert [(d.severity, d.code) for d in tarball_diagnostics(result)] == [("error", "NB1712")]
    small = pack_package(load_package(tree({"package.json": manifest()})))
    assert tarball_diagnostics(small) == []


def test_a_module_dropped_at_the_tier_is_not_a_declared_output(tree: Tree) -> None:
    """Regression: `pack --trust trusted` refused what `check --trust trusted` passes (it read the raw block)."""
    files = {"package.json": manifest(_module_block(), files=["lib"]), "lib/a.js": ""}
    root = tree(files)
    assert check_package(load_package(root), "trusted").ok
    prep = judge(root, "trusted")
    assert prep.ok
    assert [(d.severity, d.code, d.pointer) for d in prep.diagnostics] == [
        ("warning", "NB0401", "/neuralis/app/module")
    ]
    assert not judge(root, "first-party").ok  # at first-party the module is declared and was never built


def test_a_stale_build_is_refused_at_the_module_pointer(tree: Tree) -> None:
    """check warns about a build older than its sources (NB1615); pack refuses it: it would ship the old bundle."""
    from neuralis_build.record.inputs import hash_inputs, render

    root = tree(
        {
            "package.json": manifest(_module_block(), files=["dist"]),
            "src/app/host.tsx": "export function installXHostComponents() {}\n",
            "dist/app/host.js": HOST,
            "dist/app/shared-imports.json": {"hostApiVersion": "1", "reactMajor": None, "sharedImports": []},
        }
    )
    (root / "dist/app/build-inputs.json").write_text(render({"host.js": hash_inputs(root, ["src/app/host.tsx"])}))
    assert judge(root).ok
    (root / "src/app/host.tsx").write_text("export function installXHostComponents() { return 1 }\n")
    checked = check_package(load_package(root), "first-party")
    (stale,) = [d for d in checked.diagnostics if d.code == "NB1615"]
    assert (stale.severity, stale.pointer) == ("warning", "/neuralis/app/module/entry")
    assert stale.message == (
        "dist/app/host.js was built from older sources: src/app/host.tsx changed since the last build"
    )
    prep = judge(root)
    assert not prep.ok
    assert [(d.severity, d.code, d.pointer) for d in prep.diagnostics if d.code == "NB1615"] == [
        ("error", "NB1615", "/neuralis/app/module/entry")
    ]
