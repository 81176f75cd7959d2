"""The deliberately broken packages under example-packages/broken/: their exact diagnostics are pinned.

Each case folder holds the package and `expected.json` = {"trust": ..., "result": <check --format json>}.
After a deliberate change of a message, regenerate with NEURALIS_UPDATE_EXPECTED=1 and review the diff.
"""

from __future__ import annotations

import json
import os

import pytest

from neuralis_build.check import check_path
from tests.conftest import EXAMPLES

BROKEN = EXAMPLES / "broken"
CASES = sorted(p.name for p in BROKEN.iterdir() if (p / "expected.json").is_file())


def test_every_case_has_expectations():
    folders = sorted(p.name for p in BROKEN.iterdir() if p.is_dir())
    assert folders == CASES
    assert len(CASES) >= 10


@pytest.mark.parametrize("case", CASES)
def test_broken_example(case: str) -> None:
    root = BROKEN / case
    expected_file = root / "expected.json"
    expected = json.loads(expected_file.read_text("utf-8"))
    result = check_path(root, expected["trust"]).to_json()
    if os.environ.get("NEURALIS_UPDATE_EXPECTED"):
        expected["result"] = result
        expected_file.write_text(json.dumps(expected, indent=2, ensure_ascii=False) + "\n", "utf-8")
    assert result == expected["result"]
    assert result["ok"] is False or any(d["severity"] != "note" for d in result["diagnostics"])


def test_broken_examples_fail_the_cli(capsys: pytest.CaptureFixture[str]) -> None:
    from neuralis_build.cli.build import main

    paths = [str(BROKEN / case) for case in CASES if case != "typos"]
    assert main(["check", *paths, "--trust", "first-party", "--format", "json"]) == 1
    results = json.loads(capsys.readouterr().out)
    assert [r["ok"] for r in results] == [False] * len(paths)
