"""`neuralis new` as an author meets it: dry runs, non-empty folders, --force, prompts and their absence,
and a failed run that leaves nothing behind."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import NewRunner, listing, read_tree


def test_creates_the_package_and_prints_the_next_steps(new: NewRunner, tmp_path: Path) -> None:
    run = new("new", "@acme/reports", "--template", "ui-module", "--no-input")
    assert run.code == 0, run.err
    assert run.err == ""
    assert run.out.splitlines() == [
        "Created @acme/reports from the ui-module template in reports (11 files).",
        "",
        "Next steps:",
        "  cd reports",
        "  npm install",
        "  npm run build",
        "  npm run dev",
        "  neuralis-build check --trust first-party",
        "  neuralis-build pack --trust first-party",
    ]
    assert (tmp_path / "reports/src/app/host.tsx").is_file()


def test_dry_run_prints_the_tree_and_writes_nothing(new: NewRunner, tmp_path: Path) -> None:
    run = new("new", "@acme/reports", "--template", "full", "--dir", "pkgs/reports", "--dry-run", "--no-input")
    assert run.code == 0, run.err
    assert run.out.splitlines() == [
        "Would create @acme/reports from the full template in pkgs/reports:",
        "reports/",
        "├── .github/",
        "│   └── workflows/",
        "│       └── package.yml",
        "├── app/",
        "│   └── surfaces/",
        "│       └── card/",
        "│           └── acme.reports.summary/",
        "│               └── index.html",
        "├── scripts/",
        "│   └── neuralis-build.mjs",
        "├── src/",
        "│   ├── app/",
        "│   │   ├── env.d.ts",
        "│   │   ├── host.css",
        "│   │   └── host.tsx",
        "│   ├── connectors/",
        "│   │   └── acme-reports.ts",
        "│   ├── events/",
        "│   │   └── report.ts",
        "│   └── types/",
        "│       └── neuralis-client.d.ts",
        "├── tools/",
        "│   └── acme_reports_report_link.ts",
        "├── .gitignore",
        "├── .neuralis-scaffold.json",
        "├── README.md",
        "├── package.json",
        "├── tsconfig.build.json",
        "└── tsconfig.json",
        "Nothing was written (--dry-run).",
    ]
    assert listing(tmp_path) == []


def test_a_non_empty_folder_is_refused(new: NewRunner, tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg/notes.txt").write_text("mine\n")
    run = new("new", "my-package", "--dir", "pkg", "--no-input")
    assert run.code == 1
    assert run.err.splitlines() == [
        f"error: {tmp_path / 'pkg'} is not empty (it holds notes.txt)",
        "hint: choose another folder with --dir, or pass --force to overwrite the files the template writes "
        "(nothing else is touched or deleted)",
    ]
    assert listing(tmp_path) == ["pkg/", "pkg/notes.txt"]


def test_dry_run_previews_a_non_empty_folder_and_exits_as_the_real_run_would(new: NewRunner, tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg/notes.txt").write_text("mine\n")
    (tmp_path / "pkg/README.md").write_text("mine\n")
    run = new("new", "my-package", "--dir", "pkg", "--dry-run", "--no-input")
    assert run.code == 1
    assert run.out.splitlines() == [
        "Would create my-package from the minimal template in pkg:",
        "pkg/",
        "├── .github/",
        "│   └── workflows/",
        "│       └── package.yml",
        "├── .gitignore",
        "├── .neuralis-scaffold.json",
        "├── README.md  (overwrite)",
        "└── package.json",
        "Nothing was written (--dry-run).",
    ]
    assert (
        run.err.splitlines()[0]
        == "error: pkg is not empty: writing needs --force, which overwrites the files marked (overwrite)"
    )
    assert listing(tmp_path) == ["pkg/", "pkg/README.md", "pkg/notes.txt"]


def test_a_folder_holding_only_git_counts_as_empty(new: NewRunner, tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path / "pkg")], check=True)
    head = (tmp_path / "pkg/.git/HEAD").read_bytes()
    run = new("new", "my-package", "--dir", "pkg", "--no-input")
    assert run.code == 0, run.err
    assert sorted(read_tree(tmp_path / "pkg")) == [
        ".github/workflows/package.yml",
        ".gitignore",
        ".neuralis-scaffold.json",
        "README.md",
        "package.json",
    ]
    assert (tmp_path / "pkg/.git/HEAD").read_bytes() == head


def test_force_overwrites_colliding_files_and_deletes_nothing(new: NewRunner, tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    (pkg / "src/app").mkdir(parents=True)
    (pkg / "package.json").write_text("{}\n")
    (pkg / "src/app/host.tsx").write_text("old\n")
    (pkg / "src/app/extra.ts").write_text("kept\n")
    (pkg / "notes.txt").write_text("kept\n")

    dry = new("new", "my-package", "-t", "ui-module", "--dir", "pkg", "--force", "--dry-run", "--no-input")
    assert dry.code == 0, dry.err
    assert "├── package.json  (overwrite)" in dry.out.splitlines()
    assert "│   │   └── host.tsx  (overwrite)" in dry.out.splitlines()

    run = new("new", "my-package", "-t", "ui-module", "--dir", "pkg", "--force", "--no-input")
    assert run.code == 0, run.err
    assert "(11 files, overwriting 2)" in run.out
    assert (pkg / "src/app/extra.ts").read_text() == "kept\n"
    assert (pkg / "notes.txt").read_text() == "kept\n"
    assert (pkg / "package.json").read_text().startswith('{\n  "name": "my-package",')
    assert (pkg / "src/app/host.tsx").read_text().startswith("/**")
    assert not [p for p in listing(pkg) if "neuralis-new" in p]


def test_force_never_replaces_a_folder_with_a_file(new: NewRunner, tmp_path: Path) -> None:
    (tmp_path / "pkg/README.md").mkdir(parents=True)
    run = new("new", "my-package", "--dir", "pkg", "--force", "--no-input")
    assert run.code == 1
    assert (
        run.err.splitlines()[0]
        == f"error: {tmp_path / 'pkg/README.md'} is a folder, but the template writes a file there"
    )
    assert listing(tmp_path) == ["pkg/", "pkg/README.md/"]


def test_force_never_writes_through_a_symlink_out_of_the_folder(new: NewRunner, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg/src").symlink_to(outside)
    run = new("new", "my-package", "-t", "ui-module", "--dir", "pkg", "--force", "--no-input")
    assert run.code == 1
    assert "is a symlink that leads out of" in run.err
    assert list(outside.iterdir()) == []


def test_a_file_in_place_of_the_target_folder_is_refused(new: NewRunner, tmp_path: Path) -> None:
    (tmp_path / "pkg").write_text("")
    run = new("new", "my-package", "--dir", "pkg", "--no-input")
    assert run.code == 1
    assert run.err.startswith(f"error: {tmp_path / 'pkg'} is a file, not a folder")


def test_missing_parent_folders_are_created(new: NewRunner, tmp_path: Path) -> None:
    assert new("new", "my-package", "--dir", "a/b/c", "--no-input").code == 0
    assert (tmp_path / "a/b/c/package.json").is_file()


# -- a failed run leaves nothing half-written ---------------------------------------------------------


def _fail_on_nth_replace(monkeypatch: pytest.MonkeyPatch, n: int) -> None:
    real = os.replace
    calls = iter(range(1, 1000))

    def replace(src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> None:
        if next(calls) == n:
            raise OSError(28, "No space left on device")
        real(src, dst)

    monkeypatch.setattr(os, "replace", replace)


def test_a_failed_new_folder_leaves_nothing(new: NewRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def rename(src: object, dst: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "rename", rename)
    run = new("new", "my-package", "-t", "full", "--dir", "deep/pkg", "--no-input")
    assert run.code == 2
    assert run.err.splitlines() == [
        f"error: could not write the package into {tmp_path / 'deep/pkg'}: No space left on device"
    ]
    assert listing(tmp_path) == []


@pytest.mark.parametrize("fail_at", [1, 2, 5, 9])
def test_a_failed_write_into_an_existing_folder_restores_it(
    new: NewRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fail_at: int
) -> None:
    pkg = tmp_path / "pkg"
    (pkg / "src/app").mkdir(parents=True)
    (pkg / "package.json").write_text("{}\n")
    (pkg / "src/app/host.tsx").write_text("old\n")
    (pkg / "notes.txt").write_text("kept\n")
    before = read_tree(pkg), listing(pkg)

    _fail_on_nth_replace(monkeypatch, fail_at)
    run = new("new", "my-package", "-t", "ui-module", "--dir", "pkg", "--force", "--no-input")
    assert run.code == 2
    assert "No space left on device" in run.err
    assert (read_tree(pkg), listing(pkg)) == before


# -- prompts: only for a person at a terminal ---------------------------------------------------------


def _neuralis(*args: str, cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """The console script as a child process whose stdin is not a terminal."""
    return subprocess.run(
        [sys.executable, "-m", "neuralis_build.cli.new", *args],
        cwd=cwd,
        input=stdin,
        stdin=None if stdin is not None else subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_without_a_terminal_a_missing_name_is_an_error_naming_it(tmp_path: Path) -> None:
    done = _neuralis("new", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.splitlines() == [
        "error: missing the package name (NAME)",
        "hint: pass it as the first argument: neuralis new my-package --no-input",
    ]
    assert list(tmp_path.iterdir()) == []


def test_without_a_terminal_it_never_prompts_and_uses_the_defaults(tmp_path: Path) -> None:
    # Input is waiting on the pipe: a prompt would consume it and pick "full".
    done = _neuralis("new", "my-package", cwd=tmp_path, stdin="full\nA description\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Created my-package from the minimal template in my-package (5 files).")
    assert (
        '"description": "My Package: a declarative Neuralis package."'
        in (tmp_path / "my-package/package.json").read_text()
    )


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_at_a_terminal_it_asks_for_what_was_not_given(
    new: NewRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A bad name is explained and asked again, offering the suggestion as the default (taken with Enter).
    monkeypatch.setattr(sys, "stdin", _Terminal("My Package\n\nnope\nwidget\n  Tracks   things.\n"))
    run = new("new")
    assert run.code == 0, run.err
    assert run.out.splitlines()[:3] == [
        "Package name (npm): 'My Package' is not a valid npm name: the name has uppercase letters; "
        '"My Package" has characters that are not URL-safe',
        "Package name (npm) (my-package): minimal    The spec's minimal manifest: a declarative-only package, "
        "nothing to build. (check --trust untrusted)",
        "tools      A tool, a skill, a command and a team member, laid out by the directory contract. "
        "(check --trust untrusted)",
    ]
    assert "Template (minimal): Please select one of the available options" in run.out
    assert (
        "Description (My Package: a checklist widget with a summary card and a dock entry.): Created my-package "
        "from the widget template in my-package (8 files)." in run.out
    )
    assert '"description": "Tracks things."' in (tmp_path / "my-package/package.json").read_text()


def test_no_input_at_a_terminal_never_prompts(new: NewRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", _Terminal("full\n"))
    run = new("new", "my-package", "--no-input")
    assert run.code == 0
    assert run.out.startswith("Created my-package from the minimal template")


def test_next_steps_cd_into_the_folder_however_it_is_spelled(
    new: NewRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "work").mkdir()
    monkeypatch.chdir(tmp_path / "work")
    assert "  cd 'my pkg'" in new("new", "my-package", "--dir", "my pkg", "--no-input").out.splitlines()
    beside = new("new", "my-package", "--dir", "../beside", "--no-input")
    assert f"  cd {tmp_path / 'beside'}" in beside.out.splitlines()
    monkeypatch.chdir(tmp_path / "work/my pkg")
    assert new("new", "other", "--dir", "sub", "--no-input").out.splitlines()[3] == "  cd sub"


def test_a_rollback_that_cannot_put_a_file_back_says_where_it_waits(
    new: NewRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Regression: a failed rollback was swallowed, and the author's file was lost without a word."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "package.json").write_text('{"name": "mine"}\n')
    real = os.replace

    def replace(src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> None:
        if Path(dst) == pkg / "package.json":  # the new package.json cannot be placed, nor the old one put back
            raise OSError(28, "No space left on device")
        real(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    run = new("new", "my-package", "-t", "minimal", "--dir", "pkg", "--force", "--no-input")
    assert run.code == 2
    (staging,) = [p for p in pkg.iterdir() if p.name.startswith(".new.neuralis-new-")]
    assert run.err.splitlines() == [
        f"error: could not write the package into {pkg} (No space left on device), and could not put back "
        f"{pkg / 'package.json'} (No space left on device)",
        f"hint: the previous content of each is in {staging / 'backup'}: move it back by hand",
    ]
    assert (staging / "backup/package.json").read_text() == '{"name": "mine"}\n'
