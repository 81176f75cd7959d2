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
from neuralis_build.cli.entry import main
code = main(["ui", sys.argv[1]])
watched = {watched}
print(code, sorted(m for m in set(sys.modules) - before if m.split(".")[0] in watched or m in watched))
"""

# What a plain successful `ui` build must not load: the CLI libraries (typer's start-up), dataclasses and
# what it imports (inspect, ast, dis, tokenize), typing, and the modules only an error, an asset, an
# env read or another command needs. Each of these once cost start-up on every build (README, "Performance").
UI_UNWANTED = (
    "rich",
    "typer",
    "click",
    "jinja2",
    "typing",
    "dataclasses",
    "inspect",
    "ast",
    "dis",
    "tokenize",
    "base64",
    "copy",
    "shutil",
    "hashlib",
    "platform",
    "neuralis_build.explain",
    "neuralis_build.manifest",
    "neuralis_build.cli.render",
    "neuralis_build.cli.common",
    "neuralis_build.ui.graph",
    "neuralis_build.ui.sourcemap",
)


def test_a_plain_ui_build_loads_only_what_it_needs(tmp_path):
    """The fast path of `neuralis-build ui` builds a real package without loading any of UI_UNWANTED."""
    from neuralis_build.ui.esbuild import find_esbuild
    from tests.conftest import copy_example

    find_esbuild()  # the pinned binary is cached before the probe runs (scripts/setup fetched it)
    root = copy_example("acme-charts", tmp_path)
    probe = UI_PROBE.format(watched=repr(set(UI_UNWANTED)))
    out = subprocess.run([sys.executable, "-c", probe, str(root)], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "0 []"
    assert (root / "dist" / "app" / "host.js").is_file()


END_PROBE = """
import atexit, sys, threading
from neuralis_build.cli.entry import main
for args in ({runs!r}):
    main(args)
print(threading.active_count(), atexit._ncallbacks())
"""


def test_a_ui_build_leaves_nothing_for_the_interpreter_to_tear_down(tmp_path):
    """The console script ends a `ui` with os._exit (cli/entry.py ``console``): that is safe only while a build,
    good or refused, leaves no other thread and no atexit hook behind."""
    from tests.conftest import copy_example

    good = copy_example("acme-charts", tmp_path)
    refused = tmp_path / "refused"
    (refused / "src" / "app").mkdir(parents=True)
    (refused / "package.json").write_text((good / "package.json").read_text())
    (refused / "src" / "app" / "host.tsx").write_text("export const x = 1;\n")
    runs = [["ui", str(good)], ["ui", str(refused)], ["ui", str(good), "--format", "json"]]
    out = subprocess.run([sys.executable, "-c", END_PROBE.format(runs=runs)], capture_output=True, text=True)
    assert out.stdout.strip().splitlines()[-1] == "1 0", out.stderr


def test_the_console_script_ends_a_ui_build_with_its_exit_code(tmp_path):
    """``console`` flushes what was printed before it ends the process, and keeps the exit code."""
    from tests.conftest import copy_example

    root = copy_example("acme-charts", tmp_path)
    script = [sys.executable, "-c", "from neuralis_build.cli.entry import console; console()"]
    done = subprocess.run([*script, "ui", str(root), "--format", "json"], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.rstrip().endswith("]")
    missing = subprocess.run([*script, "ui", str(tmp_path / "nope")], capture_output=True, text=True)
    assert missing.returncode == 2 and missing.stderr.startswith("error:")
