"""The documentation: the generated pages are current, the site builds with --strict, the README's quick start
runs as written, its contributor commands exist, and nothing in the repository cites a file outside it."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from docsgen.pages import DOCS, GENERATED_FOLDERS, generated, stale
from tests.conftest import REPO, requires_node

README = REPO / "README.md"
BIN = Path(sys.executable).parent


def test_the_generated_pages_are_current():
    assert stale() == [], "the generated docs are stale: run ./scripts/docs-gen and commit what it writes"


def test_a_stale_missing_or_orphan_page_is_found(tmp_path: Path):
    docs = tmp_path / "docs"
    shutil.copytree(DOCS, docs)
    (docs / "reference/commands/neuralis-build-check.md").write_text("# an old page\n")
    (docs / "reference/manifest.md").unlink()
    (docs / "reference/codes/99-gone.md").write_text("# a family that no longer exists\n")
    assert stale(docs) == [
        "reference/codes/99-gone.md",
        "reference/commands/neuralis-build-check.md",
        "reference/manifest.md",
    ]


def test_the_generated_pages_cover_every_command_and_code():
    from neuralis_build.util.codes import every_code

    pages = generated()
    assert set(GENERATED_FOLDERS) == {"reference/commands", "reference/codes"}
    # every command of both programs has its page; the warm build server is left out on purpose
    names = {p.removeprefix("reference/commands/").removesuffix(".md") for p in pages if "commands/" in p}
    assert names == {
        "index",
        *(f"neuralis-{c}" for c in ("new", "update", "init")),
        *(f"neuralis-build-{c}" for c in ("check", "schema", "ui", "dev", "pack", "image", "doctor", "explain")),
        "neuralis-build-image-diff",  # `image diff`, a command of its own behind `image`
        "neuralis-build-image-what-if",  # `image what-if`, another
    }
    catalogue = "".join(text for path, text in pages.items() if path.startswith("reference/codes/"))
    assert sorted(set(re.findall(r"\{#(nb\d{4})\}", catalogue))) == sorted(c.lower() for c in every_code())
    # the manifest reference walks the validator's shapes: a deep key, its trust gate and its code
    manifest = pages["reference/manifest.md"]
    row = next(line for line in manifest.splitlines() if line.startswith("| <code>app.module.provides</code>"))
    assert "at most 16 items" in row and "[NB0410](codes/04-module.md#nb0410)" in row
    assert "| <code>app.module</code> | object; *first-party only*; no other keys |" in manifest
    assert "| <code>app.module.entry</code> | string; **required**;" in manifest


def test_the_site_builds_with_strict(tmp_path: Path):
    """Any warning fails: a broken link or anchor, a page missing from the nav, a nav entry with no page."""
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=REPO,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "WARNING" not in done.stderr, done.stderr
    assert (tmp_path / "site/reference/codes/05-surfaces/index.html").is_file()


def _section(markdown: str, heading: str) -> str:
    """The text under ``## heading`` up to the next heading of that level."""
    match = re.search(rf"(?ms)^## {re.escape(heading)}\n(.*?)(?=^## |\Z)", markdown)
    assert match, f"README.md has no section {heading!r}"
    return match.group(1)


def _shell_blocks(text: str) -> list[str]:
    return re.findall(r"(?ms)^```sh\n(.*?)^```", text)


def _commands(block: str) -> list[str]:
    """The command lines of a shell block, without their trailing comments."""
    found = []
    for line in block.splitlines():
        command = re.sub(r"\s+#.*$", "", line).strip()
        if command and not command.startswith("#"):
            found.append(command)
    return found


def _env() -> dict[str, str]:
    """An author's environment: the installed toolchain's scripts first on PATH, npm quiet."""
    env = {k: v for k, v in os.environ.items() if k not in ("NEURALIS_TRUST", "NEURALIS_BUILD_INSTALL")}
    env["PATH"] = f"{BIN}{os.pathsep}{env['PATH']}"
    env.update(npm_config_audit="false", npm_config_fund="false", npm_config_update_notifier="false")
    return env


def _serve_then_stop(command: str, cwd: Path) -> None:
    """A long-running command (npm run dev): wait for its URL, fetch the page, then stop it as Ctrl-C would."""
    proc = subprocess.Popen(
        ["bash", "-c", command],
        cwd=cwd,
        env=_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        assert proc.stdout is not None
        seen = []
        for line in proc.stdout:
            seen.append(line)
            url = re.search(r"serving .* at (http://127\.0\.0\.1:\d+/\S*)", line)  # with the session's key
            if url:
                with urllib.request.urlopen(url.group(1), timeout=30) as page:
                    assert page.status == 200
                    assert "neuralis host page" in page.read().decode()
                break
        else:
            pytest.fail("the dev server never said where it serves:\n" + "".join(seen))
        os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C in the terminal sends to the whole group
        assert proc.wait(timeout=60) is not None
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()


@pytest.mark.e2e
@requires_node
def test_the_readme_quick_start_runs_as_written(tmp_path: Path):
    """Each line of the README's quick start, in order, in a fresh folder, against the installed toolchain."""
    (block,) = _shell_blocks(_section(README.read_text(encoding="utf-8"), "Quick start"))[:1]
    commands = _commands(block)
    assert commands[0].split()[:3] == ["neuralis", "new", "@acme/board"]
    cwd = tmp_path
    for command in commands:
        if command.startswith("cd "):
            cwd = cwd / command.removeprefix("cd ")
            assert cwd.is_dir(), command
        elif command == "npm run dev":
            _serve_then_stop(command, cwd)
        else:
            done = subprocess.run(
                ["bash", "-eo", "pipefail", "-c", command],
                cwd=cwd,
                env=_env(),
                capture_output=True,
                text=True,
                timeout=600,
            )
            assert done.returncode == 0, f"{command} failed:\n{done.stdout}\n{done.stderr}"
            if command == "npm run check":
                assert "✓ @acme/board (., first-party): no findings" in done.stdout
    assert (cwd / "acme-board-0.1.0.tgz").is_file()
    assert (cwd / "dist/app/host.js").is_file()


def test_the_readme_keeps_the_contributor_commands_and_its_links():
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 170, "README.md is the front page: move detail into docs/"
    setup = _section(text, "Working on neuralis-build")
    assert [_commands(b) for b in _shell_blocks(setup)] == [["./scripts/demo"], ["./scripts/test"]]
    for script in ("scripts/demo", "scripts/test", "scripts/docs-gen", ".ci/run"):
        assert os.access(REPO / script, os.X_OK), script
    assert "./scripts/test" in (REPO / ".ci/run").read_text()  # CI runs what the README says runs the tests
    for target in re.findall(r"\]\(((?!https?:)[^)#]+)(?:#[^)]*)?\)", text):
        assert (REPO / target).exists(), f"README.md links to {target}, which does not exist"
    assert "## Security" in text and "(docs/security.md)" in text


# What would cite a file outside the repository: the design notes, the style guide, the shared reference folder.
OUTSIDE = re.compile(r"DESIGN\.md|STYLE\.md|shared/|research/|/work/shared")
NOT_SOURCES = {".git", ".venv", "node_modules", "site", "build", "dist", "registry-tarballs", "__pycache__"}


def test_nothing_in_the_repository_cites_a_file_outside_it():
    found = []
    for path in REPO.rglob("*"):
        rel = path.relative_to(REPO)
        if NOT_SOURCES & set(rel.parts) or any(p.endswith("_cache") for p in rel.parts) or not path.is_file():
            continue
        if path == Path(__file__) or path.suffix in (".png", ".tgz", ".whl", ".gz"):
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        found += [f"{rel}:{text.count(chr(10), 0, m.start()) + 1}: {m.group()}" for m in OUTSIDE.finditer(text)]
    assert found == []
