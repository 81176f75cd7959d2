"""End to end, per template: `neuralis new` → build → `neuralis-build check` at the template's trust →
`neuralis-build pack` → `npm install` of the tarball in a fresh project → node resolves `<name>/package.json`.

Everything runs for real: the installed console scripts, npm, node, and `neuralis-build ui` (with its
esbuild) through the package's own `npm run build`.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
from pathlib import Path

import pytest

from neuralis_build import __version__
from neuralis_build.scaffold.templates import get_template

from ..conftest import requires_node
from .conftest import BIN, pack_step, workflow_steps

pytestmark = [pytest.mark.e2e, requires_node]

TEMPLATES = ["minimal", "tools", "widget", "ui-module", "full"]


def _env() -> dict[str, str]:
    """The environment of an author who installed neuralis-build: its scripts first on PATH."""
    env = dict(os.environ)
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    env["npm_config_audit"] = "false"
    env["npm_config_fund"] = "false"
    env["npm_config_update_notifier"] = "false"
    return env


def _run(args: list[str], cwd: Path, timeout: int = 600, **env: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(args, cwd=cwd, env={**_env(), **env}, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{shlex.join(args)} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}"
    return done


@pytest.mark.parametrize("template", TEMPLATES)
def test_a_new_package_passes_its_own_ci_workflow_and_installs(template: str, tmp_path: Path) -> None:
    spec = get_template(template)
    name = f"@e2e/{template}"
    pkg = tmp_path / "pkg"
    _run([str(BIN / "neuralis"), "new", name, "--template", template, "--dir", str(pkg), "--no-input"], tmp_path)

    # The generated CI workflow, run step by step as GitHub Actions would. Its first step installs what
    # package.json pins (tests/scaffold/test_wheel.py runs it with the real pipx); here this toolchain stands in
    # for it. Then the template's build steps, check at its trust, then pack.
    steps = workflow_steps(pkg)
    assert steps[0][0] == "Install neuralis-build"
    assert _install_spec(steps[0][1], pkg, tmp_path) == f"neuralis-build=={__version__}"
    assert _install_spec(steps[0][1], pkg, tmp_path, NEURALIS_BUILD_INSTALL="./wheel.whl") == "./wheel.whl"
    assert [command for _, command in steps[1:]] == [
        *spec.build,
        f"neuralis-build check --trust {spec.trust} --format github",
        pack_step(spec.trust, built=bool(spec.build)),
    ]
    github_output = tmp_path / "github-output"
    github_output.touch()
    for _, command in steps[1:]:
        done = _run(["bash", "-eo", "pipefail", "-c", command], pkg, GITHUB_OUTPUT=str(github_output))
        if command.startswith('tarball="$(neuralis-build pack'):
            assert not re.search(r"^> \S+ prepack$", done.stderr, re.M), done.stderr  # built once, above
        if "--format github" in command:
            assert "::error" not in done.stdout and "::warning" not in done.stdout, done.stdout
        if command == "npm run build" and (pkg / "src/types/neuralis-client.d.ts").is_file():
            _a_wrong_host_call_is_a_type_error(pkg)
        if command == "npm run build" and (pkg / "src/app/env.d.ts").is_file():
            _asset_imports_type_check(pkg)

    checked = subprocess.run(
        [str(BIN / "neuralis-build"), "check", str(pkg), "--trust", spec.trust, "--format", "json"],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=120,
    )
    (report,) = json.loads(checked.stdout)  # one element per PATH
    assert report["diagnostics"] == []
    assert (checked.returncode, report["ok"], report["id"]) == (0, True, name)

    tarball = pkg / "packed" / f"e2e-{template}-0.1.0.tgz"
    assert sorted(p.name for p in tarball.parent.iterdir()) == [tarball.name]
    # the step hands the artifact upload the name pack wrote, as npm names it
    assert github_output.read_text() == f"tarball={tarball.name}\n"

    consumer = tmp_path / "consumer"
    consumer.mkdir()
    _run(["npm", "init", "-y"], consumer)
    _run(["npm", "install", str(tarball)], consumer)
    resolved = _run(["node", "-p", f"require.resolve('{name}/package.json')"], consumer).stdout.strip()
    installed = consumer / "node_modules" / name
    assert Path(resolved) == installed / "package.json"
    if spec.build:
        assert (installed / "dist/app/host.js").is_file()
        assert (installed / "dist/app/shared-imports.json").is_file()
    # The npm-script wrapper is the author's, not the package's: it never ships.
    assert not (installed / "scripts").exists()


def _install_spec(command: str, pkg: Path, tmp_path: Path, **env: str) -> str:
    """What the workflow's install step hands pipx, with ``env`` as the step's environment.

    ``pipx`` here is a script that prints its arguments: the spec is worked out by the step's own shell
    and node, as on GitHub; test_wheel.py runs the same step with the real pipx.
    """
    shim = tmp_path / "shim"
    shim.mkdir(exist_ok=True)
    (shim / "pipx").write_text('#!/bin/sh\nprintf "%s\\n" "$@"\n')
    (shim / "pipx").chmod(0o755)
    environ = {**_env(), "NEURALIS_BUILD_INSTALL": "", **env}  # the step's env: an unset variable is empty
    environ["PATH"] = f"{shim}{os.pathsep}{environ['PATH']}"
    done = subprocess.run(
        ["bash", "-eo", "pipefail", "-c", command], cwd=pkg, env=environ, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    install, spec = done.stdout.splitlines()
    assert install == "install"
    return spec


def _asset_imports_type_check(pkg: Path) -> None:
    """What the build bundles besides code, an author imports without a type error: an SVG, a PNG, a font and a
    CSS module (the template declared only *.css, and tsc refused import logo from "./logo.svg")."""
    host = pkg / "src/app/host.tsx"
    good = host.read_text()
    extra = {"logo.svg": "<svg xmlns='http://www.w3.org/2000/svg'/>", "Card.module.css": ".title { color: red; }"}
    for name, text in extra.items():
        (pkg / "src/app" / name).write_text(text)
    imports = (
        'import logo from "./logo.svg";\nimport styles from "./Card.module.css";\n'
        "export const used: string[] = [logo, styles.title];\n"
    )
    host.write_text(imports + good)
    try:
        done = subprocess.run(["npx", "tsc"], cwd=pkg, env=_env(), capture_output=True, text=True, timeout=600)
    finally:
        host.write_text(good)
        for name in extra:
            (pkg / "src/app" / name).unlink()
    assert done.returncode == 0, done.stdout


def _a_wrong_host_call_is_a_type_error(pkg: Path) -> None:
    """The shipped declarations make a call outside the host API v1 a TypeScript error (real tsc)."""
    host = pkg / "src/app/host.tsx"
    good = host.read_text()
    host.write_text(good.replace("host.registerWidget(", "host.register("))
    try:
        done = subprocess.run(["npx", "tsc"], cwd=pkg, env=_env(), capture_output=True, text=True, timeout=600)
    finally:
        host.write_text(good)
    assert done.returncode != 0
    assert "Property 'register' does not exist on type 'HostComponents'" in done.stdout, done.stdout
