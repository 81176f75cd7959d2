"""JudgedStr: a string shape whose judge names the precise problem; its schema keeps a pattern for editors."""

from __future__ import annotations

from neuralis_build.manifest.checker import Checker
from neuralis_build.manifest.shape import JudgedStr
from neuralis_build.util.diagnostics import Code, Diagnostics

NB9999 = Code("NB9999", "test-judged", "a test-only code, left out of the registry")


def no_x(value: str) -> str | None:
    return "has an x" if "x" in value else None


def run(shape: JudgedStr, value: object) -> list[tuple[str, str, str, str]]:
    c = Checker(diags=Diagnostics(), trust="first-party")
    shape.check(value, "/v", c)
    return [(d.severity, d.code, d.pointer, d.message) for d in c.diags.items]


def test_judge_reports_its_problem_with_its_code():
    shape = JudgedStr(judge=no_x, judge_code=NB9999, judge_hint="drop the x")
    assert run(shape, "abc") == []
    assert run(shape, "axe") == [("error", "NB9999", "/v", '"axe" has an x')]


def test_plain_string_checks_run_first():
    shape = JudgedStr(pattern=r"^a", judge=no_x, judge_code=NB9999)
    assert run(shape, 3) == [("error", "NB0100", "/v", "expected a string, found a number")]
    assert [d[1] for d in run(shape, "bx")] == ["NB0104"]


def test_schema_pattern_is_for_the_schema_only():
    shape = JudgedStr(judge=no_x, schema_pattern=r"^[^x]*$", description="no x")
    assert shape.schema() == {"description": "no x", "type": "string", "pattern": r"^[^x]*$"}
    assert JudgedStr(pattern="^a", schema_pattern="^b").schema()["pattern"] == "^a"
