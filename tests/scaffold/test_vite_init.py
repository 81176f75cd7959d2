"""`neuralis init` on a Vite app (`npm create vite -- --template react-ts`): the app's own scripts keep working
under new names, the toolchain takes dev/build/typecheck, a typecheck that checks, no `vite build` in a lifecycle
script, and a tarball with only what the host loads.

The fast tests read the files create-vite 9.3.0 writes (tests/scaffold/vite-react-ts/); the end-to-end test makes
the app with the real create-vite, then runs npm install, the build, tsc (with a type error planted), Vite's own
build and npm pack for real.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tarfile
from pathlib import Path

import pytest

from neuralis_build.scaffold.wiring import reaches_vite_build, runs_vite

from ..conftest import requires_node
from .conftest import BIN, NewRunner, read_tree

VITE_APP = Path(__file__).parent / "vite-react-ts"
CREATE_VITE = "vite@9.3.0"  # the create-vite the fixture's files come from


def vite_app(tmp_path: Path) -> Path:
    app = tmp_path / "app"
    shutil.copytree(VITE_APP, app)
    return app


def test_init_moves_vites_scripts_aside_and_wires_the_toolchain(tmp_path: Path, new: NewRunner) -> None:
    app = vite_app(tmp_path)
    run = new("init", str(app), "--template", "ui-module")
    assert run.code == 0, run.err
    manifest = json.loads((app / "package.json").read_text())
    assert manifest["scripts"] == {
        "vite:dev": "vite",  # Vite's own, under other names: npm run vite:dev still starts Vite
        "vite:build": "tsc -b && vite build",
        "lint": "oxlint",
        "preview": "vite preview",
        "build:ui": "node scripts/neuralis-build.mjs ui",
        "typecheck": "tsc -b",  # tsconfig.json is solution-style: a bare tsc checks nothing
        "build": "npm run typecheck && npm run build:ui",
        "check": "node scripts/neuralis-build.mjs check --trust first-party",
        "dev": "node scripts/neuralis-build.mjs dev --trust first-party",
        "prepack": "npm run build",
    }
    assert not reaches_vite_build(manifest["scripts"], "prepack")
    # not src/, public/, index.html or vite.config.ts; nor dist/, where vite build writes the app's own build
    assert manifest["files"] == ["dist/app"]
    assert "dependencies" not in manifest  # react and react-dom were all it had: the host supplies them
    assert {k: manifest["devDependencies"][k] for k in ("react", "react-dom")} == {
        "react": "^19.3.1",  # the author's ranges, kept
        "react-dom": "^19.3.1",
    }
    assert manifest["peerDependencies"] == {"react": "^19.0.0"}
    for text in ("dev → vite:dev, build → vite:build", "vite build writes dist/ and empties it", 'runs "tsc -b"'):
        assert text in run.err
    # Vite's files stay as they were
    for name in ("tsconfig.json", "tsconfig.app.json", "vite.config.ts", "index.html", "src/main.tsx"):
        assert (app / name).read_bytes() == (VITE_APP / name).read_bytes()


def test_init_dry_run_shows_the_package_json_diff_and_writes_nothing(tmp_path: Path, new: NewRunner) -> None:
    app = vite_app(tmp_path)
    before = read_tree(app)
    run = new("init", str(app), "--template", "ui-module", "--dry-run")
    assert run.code == 0, run.err
    # each diff line with the indentation after its +/- taken out
    lines = [line.strip()[:1] + line.strip()[1:].strip() for line in run.out.splitlines() if line.strip()]
    for line in (
        "--- a/package.json",
        "+++ b/package.json",
        '-"dev": "vite",',
        '+"vite:dev": "vite",',
        '-"build": "tsc -b && vite build",',
        '+"vite:build": "tsc -b && vite build",',
        '+"typecheck": "tsc -b",',
        '+"dist/app"',
    ):
        assert line in lines, run.out
    assert lines[-1] == "Nothing was written (--dry-run)."
    assert read_tree(app) == before


def test_a_lifecycle_script_that_would_run_vite_build_is_left_out(tmp_path: Path, new: NewRunner) -> None:
    """When Vite's build cannot move aside (vite:build is taken), the author's build stays, and the template's
    prepack, which would run it and so empty dist/ before npm packs, is left out."""
    app = vite_app(tmp_path)
    manifest = json.loads((app / "package.json").read_text())
    manifest["scripts"]["vite:build"] = "vite build --mode staging"
    (app / "package.json").write_text(json.dumps(manifest, indent=2) + "\n")
    run = new("init", str(app), "--template", "ui-module")
    assert run.code == 0, run.err
    scripts = json.loads((app / "package.json").read_text())["scripts"]
    assert scripts["build"] == "tsc -b && vite build" and "prepack" not in scripts
    assert 'left out the template\'s scripts["prepack"]: it would run vite build' in run.err
    assert scripts["dev"] == "node scripts/neuralis-build.mjs dev --trust first-party"  # dev still moved aside


def test_what_counts_as_running_vite() -> None:
    for command in ("vite", "vite build", "tsc -b && vite build", "npx vite preview --port 5000", "(vite)"):
        assert runs_vite(command), command
    for command in ("vitest", "vite-node x.ts", "node scripts/neuralis-build.mjs ui", "invite"):
        assert not runs_vite(command), command


def test_vite_build_is_found_through_npm_run_and_pre_scripts() -> None:
    scripts = {"prepack": "npm run build", "build": "npm run compile", "precompile": "vite build", "compile": "tsc"}
    assert reaches_vite_build(scripts, "prepack")
    assert not reaches_vite_build({**scripts, "precompile": "echo"}, "prepack")
    assert not reaches_vite_build({"prepack": "npm run prepack"}, "prepack")  # a loop ends


# ----------------------------------------------------------------------------------------------------- end to end


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    env.update(npm_config_audit="false", npm_config_fund="false", npm_config_update_notifier="false")
    return env


def _run(args: list[str], cwd: Path, *, ok: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(args, cwd=cwd, env=_env(), capture_output=True, text=True, timeout=900)
    if ok:
        assert done.returncode == 0, f"{args} failed:\n{done.stdout}\n{done.stderr}"
    return done


@pytest.mark.e2e
@requires_node
def test_a_real_vite_app_migrated_builds_type_checks_and_packs(tmp_path: Path) -> None:
    _run(["npm", "create", "--yes", CREATE_VITE, "app", "--", "--template", "react-ts", "--no-interactive"], tmp_path)
    app = tmp_path / "app"
    assert json.loads((app / "tsconfig.json").read_text())["files"] == []  # the layout this test is about
    _run([str(BIN / "neuralis"), "init", "--template", "ui-module"], app)
    _run(["npm", "install"], app)

    built = _run(["npm", "run", "build:ui"], app)
    assert "dist/app/host.js" in built.stdout
    _run(["npm", "run", "typecheck"], app)
    broken = app / "src/app/broken.ts"
    broken.write_text('export const count: number = "three";\n')
    failed = _run(["npm", "run", "typecheck"], app, ok=False)
    assert failed.returncode != 0
    assert "src/app/broken.ts" in failed.stdout and "TS2322" in failed.stdout, failed.stdout
    broken.unlink()

    checked = _run([str(BIN / "neuralis-build"), "check", "--trust", "first-party", "--format", "json"], app)
    assert json.loads(checked.stdout)[0]["diagnostics"] == []

    # Vite's own build still works under its new name; it empties dist/, the UI module with it ...
    _run(["npm", "run", "vite:build"], app)
    assert (app / "dist/index.html").is_file() and not (app / "dist/app").exists()
    # ... and npm pack's prepack builds the UI module again, never running vite build
    _run(["npm", "pack", "--pack-destination", str(tmp_path)], app)
    with tarfile.open(tmp_path / "app-0.0.0.tgz") as tgz:
        packed = sorted(tgz.getnames())
    assert [name for name in packed if not name.startswith("package/dist/app/")] == [
        "package/README.md",
        "package/package.json",
    ]
    assert {"package/dist/app/host.js", "package/dist/app/host.css", "package/dist/app/shared-imports.json"} <= set(
        packed
    )
    done = _run([str(BIN / "neuralis-build"), "pack", "--trust", "first-party", "--out", "packed"], app)
    assert done.stdout.splitlines()[-1] == "app-0.0.0.tgz"
