"""Start-up stays light: `--version` loads neither rich nor jinja2, nor explain's data (sys.modules, not a timer)."""

from __future__ import annotations

import subprocess
import sys

PROBE = """
import sys
from neuralis_build.cli.{module} import main
code = main(["--version"])
heavy = sorted(
    m
    for m in ("rich", "jinja2", "jsonschema", "semantic_version", "watchfiles", "tomllib", "neuralis_build.explain")
    if m in sys.modules
)
print(code, heavy)
"""


def run_probe(module: str) -> str:
    out = subprocess.run(
        [sys.executable, "-c", PROBE.format(module=module)], capture_output=True, text=True, check=True
    )
    return out.stdout.strip().splitlines()[-1]


def test_neuralis_build_version_is_light():
    assert run_probe("build") == "0 []"


def test_neuralis_version_is_light():
    assert run_probe("new") == "0 []"


UI_PROBE = """
import sys
before = set(sys.modules)
from neuralis_build.cli.build import main
code = main(["ui", sys.argv[1]])
watched = {watched}
print(code, sorted(m for m in set(sys.modules) - before if m.split(".")[0] in watched or m in watched))
"""

# What a plain successful `ui` build must not load: the libraries only other commands use (templates, JSON
# Schema, the SBOM, the file watcher, semver ranges), rich (an error's or a spinner's), and the modules only an
# error, a source map, another command, the manifest rules or stylesheet tools (the style host) need. typer,
# typing and dataclasses are loaded, as in every command: what a plain build pays over esbuild is in
# docs/reference/ui-build.md, "Speed".
UI_UNWANTED = (
    "rich",
    "jinja2",
    "jsonschema",
    "cyclonedx",
    "semantic_version",
    "watchfiles",
    "tomllib",
    "neuralis_build.explain",
    "neuralis_build.manifest",
    "neuralis_build.image",
    "neuralis_build.pack",
    "neuralis_build.scaffold",
    "neuralis_build.dev",
    "neuralis_build.hostpage",
    "neuralis_build.cli.render",
    "neuralis_build.ui.graph",
    "neuralis_build.ui.sourcemap",
    "neuralis_build.ui.stylehost",
)


def test_a_plain_ui_build_loads_only_what_it_needs(tmp_path):
    """`neuralis-build ui` builds a real package without loading any of UI_UNWANTED."""
    from neuralis_build.esbuild.runner import find_esbuild
    from tests.conftest import copy_example

    find_esbuild()  # the pinned binary is cached before the probe runs (scripts/setup fetched it)
    root = copy_example("acme-charts", tmp_path)
    probe = UI_PROBE.format(watched=repr(set(UI_UNWANTED)))
    out = subprocess.run([sys.executable, "-c", probe, str(root)], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "0 []"
    assert (root / "dist" / "app" / "host.js").is_file()
