"""The folders are the layers: no import runs up a layer, wherever it is written.

Every import of the library is read (at module level, inside a function, under ``TYPE_CHECKING``):
hiding an import in a function to dodge a cycle is the sign that something sits on the wrong floor,
so it counts like any other. The floor plan below is the one docs/architecture.md draws.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from tests.conftest import REPO

PACKAGE = REPO / "neuralis_build"

LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("utilities", ("util", "__init__")),
    (
        "the package model and the rules",
        ("model", "manifest", "npm", "package", "hostprofile", "contract", "workspaces"),
    ),
    ("the esbuild tool", ("esbuild",)),
    ("the build record and its verdict", ("record", "outputs", "judged")),
    ("the commands' work", ("check", "ui", "pack", "image", "dev", "hostpage", "scaffold", "explain", "doctor")),
    ("the library's face", ("api",)),
    ("the command line", ("cli", "__main__")),
)
"""From the ground up: a module may import its own layer and the layers below it, never one above."""

_FLOOR = {top: floor for floor, (_, tops) in enumerate(LAYERS) for top in tops}


def module_of(path: Path) -> str:
    return ".".join(path.relative_to(REPO).with_suffix("").parts).removesuffix(".__init__")


def floor_of(module: str) -> int | None:
    """The layer of a module of the library (``neuralis_build.ui.build`` → the commands' work)."""
    parts = module.split(".")
    return _FLOOR.get(parts[1] if len(parts) > 1 else "__init__")


def imports(path: Path, module: str | None = None) -> Iterator[tuple[int, str]]:
    """(line, module) of every import of the library that ``path`` (the module ``module``) makes, wherever
    it is written."""
    module = module or module_of(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("neuralis_build"):
                    yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, *([base] if base else [])])
            if not base.startswith("neuralis_build"):
                continue
            for alias in node.names:  # ``from neuralis_build import atomic`` imports the module atomic
                candidate = f"{base}.{alias.name}"
                exists = (REPO / Path(*candidate.split("."))).with_suffix(".py").is_file()
                yield node.lineno, candidate if exists else base


def test_every_module_of_the_library_stands_on_a_layer() -> None:
    unplaced = sorted(module_of(p) for p in PACKAGE.rglob("*.py") if floor_of(module_of(p)) is None)
    assert unplaced == [], "add its folder to LAYERS (and to the plan in docs/architecture.md)"


def test_no_import_runs_up_a_layer() -> None:
    upward = []
    for path in sorted(PACKAGE.rglob("*.py")):
        here = floor_of(module_of(path))
        for line, target in imports(path):
            there = floor_of(target)
            if here is not None and there is not None and there > here:
                rel = path.relative_to(REPO)
                upward.append(f"{rel}:{line} imports {target} ({LAYERS[here][0]} -> {LAYERS[there][0]})")
    assert upward == []


def test_the_reader_sees_imports_inside_functions_and_under_type_checking(tmp_path: Path) -> None:
    # the test reads what it must: an import hidden in a function is found like one at the top
    probe = tmp_path / "probe.py"
    probe.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from neuralis_build.cli import boundary\n"
        "def f():\n    from neuralis_build import api\n    import neuralis_build.ui.build\n"
        "    from ..record import verdict\n"
    )
    found = sorted(t for _, t in imports(probe, "neuralis_build.util.probe"))
    assert found == [
        "neuralis_build.api",
        "neuralis_build.cli.boundary",
        "neuralis_build.record.verdict",
        "neuralis_build.ui.build",
    ]
    assert [floor_of(t) for t in found] == [5, 6, 3, 4]  # each above the utilities: four upward imports


def test_the_command_line_reaches_the_library_through_its_face_only() -> None:
    # the CLI is flags, rendering and exit codes: what it calls and the values it shows come from api.py
    # (and the utilities, which every layer stands on); never from a module of the commands' work
    allowed = ("neuralis_build.api", "neuralis_build.cli", "neuralis_build.util", "neuralis_build")
    deep = []
    for path in sorted((PACKAGE / "cli").rglob("*.py")):
        for line, target in imports(path):
            if not (target in allowed or target.startswith(("neuralis_build.cli.", "neuralis_build.util."))):
                deep.append(f"{path.relative_to(REPO)}:{line} imports {target}")
    assert deep == []


IMAGE_FOLDERS = ("archive", "resolution", "layout", "judge", "packages", "tree", "output")
"""The image build's own floors, from the ground up; image/build.py, which runs the phases, stands on them all."""


def _image_floor(module: str) -> int | None:
    parts = module.split(".")
    if parts[:2] != ["neuralis_build", "image"] or len(parts) < 3:
        return None
    return IMAGE_FOLDERS.index(parts[2]) if parts[2] in IMAGE_FOLDERS else len(IMAGE_FOLDERS)


def test_the_image_build_s_folders_import_one_way() -> None:
    upward = []
    for path in sorted((PACKAGE / "image").rglob("*.py")):
        here = _image_floor(module_of(path))
        for line, target in imports(path):
            there = _image_floor(target)
            if here is not None and there is not None and there > here:
                upward.append(f"{path.relative_to(REPO)}:{line} imports {target}")
    assert upward == []
    loose = sorted(p.name for p in (PACKAGE / "image").glob("*.py") if p.name not in ("__init__.py", "build.py"))
    assert loose == [], "put it in the folder of its phase"
