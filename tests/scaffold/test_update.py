"""`neuralis update`: a scaffolded package meets a newer template; the author's edits and the template's both
survive, a conflicting edit is reported and never silently overwritten, and nothing is written on --dry-run."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from neuralis_build import __version__
from neuralis_build.scaffold.create import Request, create, plan, render_package
from neuralis_build.scaffold.history import known_versions, templates_at
from neuralis_build.scaffold.render import RECORD
from neuralis_build.scaffold.templates import get_template, list_templates, templates_root
from neuralis_build.scaffold.update import apply_update, plan_update
from neuralis_build.util.errors import UsageError

from .conftest import BIN, NewRunner, pack_step, read_tree

OLD = "0.0.9"


@pytest.fixture
def templates(tmp_path: Path) -> Path:
    """A templates folder whose _history/0.0.9 is today's templates; the test then changes the current ones."""
    root = tmp_path / "templates"
    shutil.copytree(templates_root(), root, ignore=shutil.ignore_patterns("_history"))
    old = root / "_history" / OLD
    shutil.copytree(templates_root(), old, ignore=shutil.ignore_patterns("_history"))
    (old / "history.toml").write_text("react_major = 19\n")
    return root


def scaffold(tmp_path: Path, template: str = "ui-module") -> Path:
    """A package made by toolchain 0.0.9 (today's templates, recorded as that version)."""
    pkg = tmp_path / "pkg"
    create(plan(Request(name="@acme/reports", template=template, directory=pkg)))
    record = json.loads((pkg / RECORD).read_text())
    record["toolchainVersion"] = OLD
    (pkg / RECORD).write_text(json.dumps(record, indent=2) + "\n")
    return pkg


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1))


def test_the_authors_edits_and_the_templates_changes_both_survive(templates: Path, tmp_path: Path) -> None:
    pkg = scaffold(tmp_path)
    # The author edits the component and adds a dependency and a script.
    edit(pkg / "src/app/host.tsx", "<h1>", '<h1 className="big">')
    manifest = json.loads((pkg / "package.json").read_text())
    manifest["dependencies"] = {"ms": "^2.1.3"}
    manifest["scripts"]["lint"] = "eslint ."
    (pkg / "package.json").write_text(json.dumps(manifest, indent=2) + "\n")
    # The new toolchain's template changes another part of the same file, package.json and the README.
    edit(templates / "ui-module/src/app/host.tsx.jinja", "Called by the host once", "Called by the host exactly once")
    edit(
        templates / "ui-module/package.json.jinja",
        '"check": "node scripts/neuralis-build.mjs check --trust first-party"',
        '"check": "node scripts/neuralis-build.mjs check --trust first-party",\n    "typecheck:watch": "tsc --watch"',
    )
    (templates / "ui-module/CHANGELOG.md").write_text("# Changelog\n")

    result = plan_update(pkg, templates_root=templates)
    assert [(c.path, c.kind) for c in result.changes] == [
        (RECORD, "update"),
        ("CHANGELOG.md", "add"),
        ("package.json", "merge"),
        ("src/app/host.tsx", "merge"),
    ]
    apply_update(result)

    host = (pkg / "src/app/host.tsx").read_text()
    assert '<h1 className="big">' in host and "Called by the host exactly once" in host
    merged = json.loads((pkg / "package.json").read_text())
    assert merged["dependencies"] == {"ms": "^2.1.3"}
    assert merged["scripts"]["lint"] == "eslint ."
    assert merged["scripts"]["typecheck:watch"] == "tsc --watch"
    assert list(merged["scripts"]).index("typecheck:watch") == list(merged["scripts"]).index("check") + 1
    assert (pkg / "CHANGELOG.md").read_text() == "# Changelog\n"
    assert json.loads((pkg / RECORD).read_text())["toolchainVersion"] == __version__


def test_a_conflicting_edit_is_marked_and_reported(templates: Path, tmp_path: Path) -> None:
    pkg = scaffold(tmp_path)
    edit(pkg / "src/app/host.tsx", "Called by the host once", "Called by our host once")
    edit(templates / "ui-module/src/app/host.tsx.jinja", "Called by the host once", "Called by the host exactly once")
    manifest = json.loads((pkg / "package.json").read_text())
    manifest["scripts"]["check"] = "node scripts/neuralis-build.mjs check --trust trusted"
    (pkg / "package.json").write_text(json.dumps(manifest, indent=2) + "\n")
    edit(
        templates / "ui-module/package.json.jinja",
        '"check": "node scripts/neuralis-build.mjs check --trust first-party"',
        '"check": "node scripts/neuralis-build.mjs check --trust first-party --format github"',
    )

    result = plan_update(pkg, templates_root=templates)
    conflicts = {c.path: c.conflicts for c in result.conflicts}
    assert conflicts == {"package.json": ("/scripts/check",), "src/app/host.tsx": ("conflict 1",)}
    apply_update(result)

    host = (pkg / "src/app/host.tsx").read_text()
    assert "<<<<<<< yours\n * Called by our host once" in host
    assert f">>>>>>> template {__version__}" in host and "Called by the host exactly once" in host
    assert f"||||||| template {OLD}" not in host  # plain merge markers, not diff3
    assert (
        json.loads((pkg / "package.json").read_text())["scripts"]["check"]
        == "node scripts/neuralis-build.mjs check --trust trusted"
    )
    assert json.loads((pkg / "package.json.rej").read_text()) == {
        "/scripts/check": {
            "yours": "node scripts/neuralis-build.mjs check --trust trusted",
            "base": "node scripts/neuralis-build.mjs check --trust first-party",
            "template": "node scripts/neuralis-build.mjs check --trust first-party --format github",
        }
    }


def test_files_the_template_drops_go_only_when_untouched(templates: Path, tmp_path: Path) -> None:
    pkg = scaffold(tmp_path, "full")
    edit(pkg / "README.md", "#", "# Edited:")
    for gone in ("README.md.jinja", "tsconfig.build.json"):
        (templates / "full" / gone).unlink()
    result = plan_update(pkg, templates_root=templates)
    assert [(c.path, c.kind) for c in result.changes if c.path != RECORD] == [
        ("README.md", "kept"),
        ("tsconfig.build.json", "remove"),
    ]
    apply_update(result)
    assert (pkg / "README.md").is_file() and not (pkg / "tsconfig.build.json").exists()


def test_an_unchanged_template_is_up_to_date(templates: Path, tmp_path: Path) -> None:
    pkg = scaffold(tmp_path)
    edit(pkg / "src/app/host.tsx", "<h1>", "<h2>")
    result = plan_update(pkg, templates_root=templates)
    assert result.up_to_date
    before = read_tree(pkg)
    apply_update(result)
    after = read_tree(pkg)
    assert {k for k in before if before[k] != after.get(k)} == {RECORD}


def test_every_kept_version_renders_every_template() -> None:
    answers = {"name": "@acme/reports", "id": "@acme/reports", "description": "Reports."}
    assert "0.1.0" in known_versions() and __version__ in known_versions()
    for version in known_versions():
        kept = templates_at(version)
        for template in list_templates(kept.root):
            files = render_package(
                get_template(template.name, kept.root), answers, toolchain_version=version, react_major=kept.react_major
            )
            assert any(f.path == "package.json" for f in files)


def test_a_kept_version_whose_folder_leads_out_of_the_history_is_refused(templates: Path, tmp_path: Path) -> None:
    """The history folder is checked once symlinks are resolved: a kept version that is a link elsewhere (another
    copy of templates, whoever made it) is not rendered."""
    elsewhere = tmp_path / "elsewhere"
    (templates / "_history" / OLD).rename(elsewhere)
    (templates / "_history" / OLD).symlink_to(elsewhere)
    assert OLD in known_versions(templates)
    with pytest.raises(UsageError) as refused:
        templates_at(OLD, templates)
    assert refused.value.message == (
        f"{templates / '_history' / OLD} leads out of the toolchain's templates history (to {elsewhere})"
    )


# The CLI, on a package the real 0.1.0 templates made.


def scaffold_as_0_1_0(tmp_path: Path, template: str) -> Path:
    pkg = tmp_path / "pkg"
    kept = templates_at("0.1.0")
    answers = {"name": "@acme/reports", "id": "@acme/reports", "description": "Reports."}
    for f in render_package(get_template(template, kept.root), answers, toolchain_version="0.1.0", react_major=19):
        (pkg / f.path).parent.mkdir(parents=True, exist_ok=True)
        (pkg / f.path).write_bytes(f.content)
    return pkg


def git(pkg: Path, *args: str) -> None:
    subprocess.run(
        ["git", *args],
        cwd=pkg,
        check=True,
        capture_output=True,
        env={
            "GIT_AUTHOR_NAME": "a",
            "GIT_AUTHOR_EMAIL": "a@b",
            "GIT_COMMITTER_NAME": "a",
            "GIT_COMMITTER_EMAIL": "a@b",
            "HOME": str(pkg),
            "PATH": "/usr/bin:/bin",
        },
    )


@pytest.mark.parametrize("template", ["minimal", "tools", "widget", "ui-module", "full"])
def test_the_cli_updates_a_package_made_by_0_1_0(template: str, tmp_path: Path, new: NewRunner) -> None:
    pkg = scaffold_as_0_1_0(tmp_path, template)
    git(pkg, "init", "-q")
    git(pkg, "add", "-A")
    git(pkg, "commit", "-qm", "scaffold")
    before = read_tree(pkg)

    dry = new("update", str(pkg), "--dry-run")
    assert dry.code == 0, dry.err
    assert dry.out.splitlines()[-1] in ("Nothing was written (--dry-run).",) or "up to date" in dry.out
    assert read_tree(pkg) == before

    run = new("update", str(pkg))
    assert run.code == 0, run.out + run.err
    fresh = {
        f.path: f.content
        for f in render_package(
            get_template(template), {"name": "@acme/reports", "id": "@acme/reports", "description": "Reports."}
        )
    }
    assert read_tree(pkg) == fresh  # nothing was edited, so the package is exactly today's scaffold


def test_uncommitted_changes_are_refused_without_force(tmp_path: Path, new: NewRunner) -> None:
    pkg = scaffold_as_0_1_0(tmp_path, "ui-module")
    git(pkg, "init", "-q")
    git(pkg, "add", "-A")
    git(pkg, "commit", "-qm", "scaffold")
    edit(pkg / "src/app/host.tsx", "<h1>", "<h2>")
    run = new("update", str(pkg))
    if json.loads((pkg / RECORD).read_text())["toolchainVersion"] == __version__:
        pytest.skip("templates unchanged since 0.1.0")
    before = read_tree(pkg)
    assert run.code == 1
    assert "uncommitted changes (src/app/host.tsx)" in run.err
    assert read_tree(pkg) == before
    forced = new("update", str(pkg), "--force")
    assert forced.code == 0, forced.err
    assert "<h2>" in (pkg / "src/app/host.tsx").read_text()


def test_a_package_without_a_record_is_pointed_at_init(tmp_path: Path, new: NewRunner) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg/package.json").write_text('{"name": "x", "version": "1.0.0"}\n')
    run = new("update", str(tmp_path / "pkg"))
    assert run.code == 2
    assert "has no .neuralis-scaffold.json: it was not made by neuralis new" in run.err
    assert "neuralis init" in run.err


def test_a_rename_and_a_version_bump_flow_into_what_the_template_made(tmp_path: Path, new: NewRunner) -> None:
    """After the author renames the package and bumps its version, update brings README and workflow to the
    new name (the id and the names derived from it stay); the workflow's pack step names the tarball as npm does
    from package.json at run time."""
    assert new("new", "@acme/board", "--template", "minimal", "--no-input").code == 0
    pkg = tmp_path / "board"
    git(pkg, "init", "-q")
    git(pkg, "add", "-A")
    git(pkg, "commit", "-qm", "scaffold")
    edit(pkg / "package.json", '"name": "@acme/board"', '"name": "@acme/chart"')
    edit(pkg / "package.json", '"version": "0.1.0"', '"version": "1.2.0"')
    git(pkg, "commit", "-qam", "rename and bump")

    dry = new("update", "--dry-run", str(pkg))
    assert dry.code == 0, dry.err
    assert 'the name "@acme/board" is now "@acme/chart"; the version 0.1.0 is now 1.2.0' in dry.out
    assert "up to date" not in dry.out
    run = new("update", str(pkg))
    assert run.code == 0, run.err
    readme = (pkg / "README.md").read_text()
    assert "acme-chart-1.2.0.tgz" in readme and "acme-board-0.1.0.tgz" not in readme
    assert "@acme/chart" in (pkg / ".github/workflows/package.yml").read_text()
    manifest = json.loads((pkg / "package.json").read_text())
    assert (manifest["name"], manifest["version"], manifest["neuralis"]["id"]) == (
        "@acme/chart",
        "1.2.0",
        "@acme/board",
    )
    answers = json.loads((pkg / RECORD).read_text())["answers"]
    assert (answers["name"], answers["version"], answers["id"]) == ("@acme/chart", "1.2.0", "@acme/board")
    git(pkg, "commit", "-qam", "update")
    assert "is up to date" in new("update", str(pkg)).out

    # the workflow's pack step, run as GitHub runs it: the name comes from package.json, whatever it is now
    steps = yaml.safe_load((pkg / ".github/workflows/package.yml").read_text())["jobs"]["package"]["steps"]
    (pack,) = [s for s in steps if s.get("id") == "pack"]
    assert pack["run"] == pack_step("untrusted") and pack["shell"] == "bash"
    upload = steps[-1]["with"]
    assert upload == {"name": "${{ steps.pack.outputs.tarball }}", "path": "packed/${{ steps.pack.outputs.tarball }}"}
    output = tmp_path / "github-output"
    output.touch()
    env = {**os.environ, "GITHUB_OUTPUT": str(output), "PATH": f"{BIN}:/usr/bin:/bin"}
    done = subprocess.run(["bash", "-eo", "pipefail", "-c", pack["run"]], cwd=pkg, env=env, capture_output=True)
    assert done.returncode == 0, done.stderr
    assert output.read_text() == "tarball=acme-chart-1.2.0.tgz\n"
    assert (pkg / "packed/acme-chart-1.2.0.tgz").is_file()


# A template tree a package could carry, whose README runs a shell command as whoever renders it with plain
# Jinja2 (the cycler global reaches the os module through its __init__'s globals).
_PAYLOAD = '{{{{ cycler.__init__.__globals__.os.system("echo ran > {marker}") }}}}\n'


def _plant_templates(folder: Path, marker: Path) -> None:
    """A templates-history folder (history.toml, a minimal template) inside the package, the README the payload."""
    (folder / "minimal").mkdir(parents=True)
    (folder / "history.toml").write_text("react_major = 19\n")
    shutil.copy(templates_root() / "minimal/template.toml", folder / "minimal/template.toml")
    (folder / "minimal/package.json.jinja").write_text('{"name": {{ name | json }}, "version": "0.1.0"}\n')
    (folder / "minimal/README.md.jinja").write_text(_PAYLOAD.format(marker=marker))


@pytest.mark.parametrize(
    "recorded",
    [
        # from the toolchain's templates/_history up to /, then into the package through the process's cwd
        "../" * 30 + "proc/self/cwd/.tpl",
        "{pkg}/.tpl",  # an absolute path replaces the history folder when joined to it
        "0.1.1",  # a version that could be real, but whose templates this toolchain does not ship
        "0.1.0\x1b]0;owned\x07",  # a known version with a terminal's escape behind it
    ],
    ids=["parent-segments", "absolute", "unknown", "control-characters"],
)
def test_a_recorded_toolchain_version_the_toolchain_does_not_ship_is_refused_before_anything_renders(
    recorded: str, tmp_path: Path
) -> None:
    """update renders the base only from the templates this toolchain ships: a .neuralis-scaffold.json whose
    toolchainVersion names a folder of the package (or any version it does not know) is a located usage error,
    and the package's own templates never render."""
    pkg = scaffold_as_0_1_0(tmp_path, "minimal")
    marker = tmp_path / "ran"
    _plant_templates(pkg / ".tpl", marker)
    value = recorded.format(pkg=pkg)
    record = json.loads((pkg / RECORD).read_text())
    record["toolchainVersion"] = value
    (pkg / RECORD).write_text(json.dumps(record, indent=2) + "\n")
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "400"}

    done = subprocess.run(
        [str(BIN / "neuralis"), "update", "--dry-run"], cwd=pkg, env=env, capture_output=True, text=True, timeout=120
    )
    assert (done.returncode, done.stdout) == (2, "")
    escaped = value.replace("\x1b", "\\x1b").replace("\x07", "\\x07")
    assert done.stderr == (
        f'error: {pkg / RECORD}:4:3 /toolchainVersion: "{escaped}" is not a version of neuralis-build whose templates '
        f"neuralis-build {__version__} ships (those are {', '.join(known_versions())})\n"
        "hint: it records the neuralis-build that scaffolded the package: restore .neuralis-scaffold.json from "
        "version control; a package made by a newer neuralis-build is updated by that version or a later one\n"
    )
    assert not marker.exists()
