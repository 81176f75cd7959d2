"""`neuralis-build image`'s output for CI: plain table lines without a (wide enough) terminal, GitHub annotations."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from tests.conftest import manifest, requires_node, requires_sandbox
from tests.image.conftest import package_tgz, write_tgz
from tests.termkit import on_terminal

pytestmark = [pytest.mark.e2e, requires_node]

CLI = str(Path(sys.executable).parent / "neuralis-build")
LONG = "acme-a-package-whose-name-is-long-enough-to-overflow-a-narrow-terminal"


def tgz(path: Path, package_json: dict) -> None:
    data = json.dumps(package_json).encode()
    with tarfile.open(path, "w:gz") as tar:
        info = tarfile.TarInfo("package/package.json")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))


@pytest.fixture
def spec(tmp_path: Path) -> Path:
    tgz(tmp_path / "long.tgz", manifest(name=LONG))
    tgz(tmp_path / "bad.tgz", manifest({"credentials": [{"id": "git.github.pat", "label": "PAT"}]}, name="acme-bad"))
    text = "".join(f'[[packages]]\nsource = "{n}.tgz"\nclass = "installed"\n\n' for n in ("long", "bad"))
    (tmp_path / "image.toml").write_text(text)
    return tmp_path


def test_in_a_pipe_the_table_is_plain_lines_with_every_name_whole(spec):
    done = subprocess.run(
        [CLI, "image", "image.toml", "--out", "out", "--allow-refused"],
        cwd=spec,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[:4] == [
        "image out",
        f"{'package':<{len(LONG)}}  version  class      trust      status   UI module  brought in by",
        f"{LONG}  1.0.0    installed  untrusted  loaded",
        f"{'acme-bad':<{len(LONG)}}  1.0.0    installed  untrusted  refused",
    ]
    assert not any(ch in done.stdout for ch in "┃│━…")
    assert done.stderr.splitlines()[0] == "building 2 package(s) into out…"


def test_on_a_narrow_terminal_plain_lines_on_a_wide_one_the_table(spec):
    args = [CLI, "image", "image.toml", "--out", "out", "--allow-refused"]
    narrow = on_terminal(args, cwd=spec, columns=60, env={"NO_COLOR": "1"})
    assert f"{LONG}  1.0.0    installed  untrusted  loaded" in narrow.splitlines()
    wide = on_terminal(args, cwd=spec, columns=250, env={"NO_COLOR": "1"})
    assert f"│ {LONG} │ 1.0.0   │ installed │ untrusted │ loaded  │           │               │" in wide.splitlines()
    assert "\x1b" not in narrow.replace("\x1b[?25l", "").replace("\x1b[?25h", "") and "⠋" not in narrow


def image_github(cwd: Path) -> subprocess.CompletedProcess[str]:
    """``neuralis-build image image.toml --out out --format github`` in ``cwd``."""
    return subprocess.run(
        [CLI, "image", "image.toml", "--out", "out", "--format", "github"],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_format_github_annotates_each_refusal(spec):
    done = image_github(spec)
    assert done.returncode == 1
    (line,) = done.stdout.splitlines()
    assert line.startswith("::error title=NB1004::acme-bad@1.0.0 (bad.tgz) package.json /neuralis/credentials/0/id: ")


def test_jobs_must_be_at_least_one(spec):
    done = subprocess.run(
        [CLI, "image", "image.toml", "-j", "0"], cwd=spec, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 2 and "Invalid value for --jobs: at least 1" in done.stderr


@requires_sandbox
def test_format_github_annotates_what_the_text_form_flags(tmp_path):
    """An install script not run is a warning in the text form; with --format github it is an annotation too
    (as each conflict in the closure and each contested tool name is), not silence."""
    tgz(tmp_path / "post.tgz", manifest(name="acme-post", scripts={"postinstall": "node setup.js"}))
    loads = manifest(name="acme-loads", main="index.js", scripts={"install": "node setup.js"})
    write_tgz(tmp_path, "loads.tgz", package_tgz(loads, {"index.js": "module.exports = 1;\n"}))
    (tmp_path / "image.toml").write_text('[[packages]]\nsource = "post.tgz"\n\n[[packages]]\nsource = "loads.tgz"\n')
    done = image_github(tmp_path)
    assert done.returncode == 0, done.stderr
    # one with nothing to load stays a warning; one that loads is a notice that says so
    assert done.stdout.splitlines() == [
        "::notice title=neuralis-build image%3A scripts::install script not run: acme-loads@1.0.0 "
        "(node_modules/acme-loads) install: node setup.js: works without its script",
        "::warning title=neuralis-build image%3A scripts::install script not run: acme-post@1.0.0 "
        "(node_modules/acme-post) postinstall: node setup.js: has no entry point to load (nothing to check)",
    ]
