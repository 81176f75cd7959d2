"""`neuralis init`: a template added to an existing npm package without touching what the package has, and
`neuralis new --dry-run` previewing a non-empty folder."""

from __future__ import annotations

import json
from pathlib import Path

from neuralis_build import __version__
from neuralis_build.scaffold.render import RECORD

from .conftest import NewRunner, read_tree

LEGACY = """{
    "name": "legacy-lib",
    "version": "3.1.0",
    "description": "An old library",
    "main": "index.js",
    "scripts": {"test": "node test.js", "build": "tsc"},
    "dependencies": {"ms": "^2.1.3"},
    "files": ["lib"]
}
"""


def legacy(tmp_path: Path) -> Path:
    pkg = tmp_path / "legacy"
    pkg.mkdir()
    (pkg / "package.json").write_text(LEGACY)
    (pkg / "README.md").write_text("# legacy-lib\n")
    return pkg


def test_init_adds_the_block_and_keeps_every_field(tmp_path: Path, new: NewRunner) -> None:
    pkg = legacy(tmp_path)
    run = new("init", str(pkg), "--template", "ui-module")
    assert run.code == 0, run.err
    # the next step as it runs: check needs the template's trust
    assert "then neuralis-build check --trust first-party;" in run.out
    manifest = json.loads((pkg / "package.json").read_text())
    assert list(manifest) == [
        "name",
        "version",
        "description",
        "main",
        "scripts",
        "dependencies",
        "files",
        "neuralis",
        "devDependencies",
        "peerDependencies",
        "config",
    ]
    # the toolchain pin the npm-script wrapper and the workflow install from
    assert manifest["config"] == {"neuralisBuildInstall": f"neuralis-build=={__version__}"}
    assert {k: manifest[k] for k in ("name", "version", "description", "main", "dependencies")} == {
        "name": "legacy-lib",
        "version": "3.1.0",
        "description": "An old library",
        "main": "index.js",
        "dependencies": {"ms": "^2.1.3"},
    }
    assert manifest["scripts"]["test"] == "node test.js"
    assert manifest["scripts"]["build"] == "tsc"  # the author's, kept; the template's build is noted
    assert manifest["scripts"]["build:ui"] == "node scripts/neuralis-build.mjs ui"
    assert manifest["files"] == ["lib", "dist"]
    assert manifest["neuralis"]["description"] == "An old library"
    assert "private" not in manifest and "type" not in manifest and "exports" not in manifest
    assert (pkg / "package.json").read_text().startswith('{\n    "name"')  # the author's indentation
    assert (pkg / "README.md").read_text() == "# legacy-lib\n"
    assert (pkg / "src/app/host.tsx").is_file()
    assert json.loads((pkg / RECORD).read_text())["template"] == "ui-module"
    assert 'kept your scripts["build"] ("tsc")' in run.err


def test_init_dry_run_writes_nothing(tmp_path: Path, new: NewRunner) -> None:
    pkg = legacy(tmp_path)
    before = read_tree(pkg)
    run = new("init", str(pkg), "--template", "widget", "--dry-run")
    assert run.code == 0, run.err
    assert "├── README.md  (kept yours)" in run.out and "└── package.json  (merge)" in run.out
    assert run.out.splitlines()[-1] == "Nothing was written (--dry-run)."
    assert read_tree(pkg) == before


def test_init_refuses_a_package_that_already_has_a_block(tmp_path: Path, new: NewRunner) -> None:
    pkg = legacy(tmp_path)
    (pkg / "package.json").write_text(LEGACY.replace('"files"', '"neuralis": {},\n    "files"'))
    run = new("init", str(pkg))
    assert run.code == 1
    assert "package.json already has a neuralis block" in run.err
    forced = new("init", str(pkg), "--force")
    assert forced.code == 0, forced.err
    assert json.loads((pkg / "package.json").read_text())["neuralis"]["id"] == "legacy-lib"


def test_init_needs_a_package_json(tmp_path: Path, new: NewRunner) -> None:
    run = new("init", str(tmp_path))
    assert run.code == 2
    assert "has no package.json: neuralis init adds a template to an existing npm package" in run.err


def test_then_update_works_on_the_adopted_package(tmp_path: Path, new: NewRunner) -> None:
    pkg = legacy(tmp_path)
    assert new("init", str(pkg), "-t", "tools").code == 0
    run = new("update", str(pkg))
    assert run.code == 0, run.err
    assert "is up to date" in run.out


def test_new_dry_run_previews_a_non_empty_folder(tmp_path: Path, new: NewRunner) -> None:
    pkg = legacy(tmp_path)
    before = read_tree(pkg)
    run = new("new", "legacy-lib", "--dir", str(pkg), "--dry-run", "--no-input")
    assert run.code == 1
    assert "├── README.md  (overwrite)" in run.out
    assert "is not empty: writing needs --force" in run.err
    assert read_tree(pkg) == before
    assert new("new", "legacy-lib", "--dir", str(pkg), "--no-input").code == 1


def test_init_refuses_a_package_json_nested_past_what_it_reads(tmp_path: Path, new: NewRunner) -> None:
    """Deep JSON is a located refusal, not an internal error (Python's json recursed past its limit)."""
    pkg = tmp_path / "deep"
    pkg.mkdir()
    (pkg / "package.json").write_text('{"name": "deep", "version": "1.0.0", "x": ' + "[" * 3000 + "]" * 3000 + "}")
    run = new("init", str(pkg), "--template", "ui-module")
    assert run.code == 1
    assert "package.json: not readable as JSON (arrays and objects nest more than 64 levels deep here)" in run.err
    assert "internal error" not in run.err and sorted(p.name for p in pkg.iterdir()) == ["package.json"]


def test_init_gives_a_package_without_files_one_that_ships_the_build(tmp_path: Path, new: NewRunner) -> None:
    """npm init writes no "files", so npm reads .gitignore, and the template's leaves dist/ out: the package could
    not be packed. init lists the template's outputs and what npm packed before; a CommonJS package is told that
    compiled events need "type": "module"."""
    pkg = tmp_path / "plain"
    pkg.mkdir()
    plain = {"name": "plain", "version": "1.0.0", "main": "index.js", "type": "commonjs", "license": "ISC"}
    (pkg / "package.json").write_text(json.dumps(plain, indent=2) + "\n")
    (pkg / "index.js").write_text("module.exports = 1;\n")
    (pkg / "notes.md").write_text("# notes\n")
    run = new("init", str(pkg), "--template", "full")
    assert run.code == 0, run.err
    manifest = json.loads((pkg / "package.json").read_text())
    assert manifest["files"] == ["app", "dist", "tools", "index.js", "notes.md"]
    assert manifest["type"] == "commonjs"  # the author's to change
    assert 'note: added "files": the template\'s outputs (app, dist, tools) and what npm packed before' in run.err
    assert 'kept your "type": "commonjs"; the template compiles events and routes to ES modules' in run.err
