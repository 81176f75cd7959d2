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
