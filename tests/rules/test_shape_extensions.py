"""Shape capabilities beyond the foundation: Str.checks, Tagged unions, and package-path syntax."""

from __future__ import annotations

from typing import Any

import pytest
from jsonschema import Draft202012Validator

from neuralis_build.manifest.checker import Checker
from neuralis_build.manifest.compound import Field, Obj, Tagged
from neuralis_build.manifest.paths import has_scheme, normalize, path_problem, resolve_inside
from neuralis_build.manifest.shape import Num, Str
from neuralis_build.util.diagnostics import Code, Diagnostics

NBTEST = Code("NB9901", "test-check", "a check used by the shape tests (never registered)")


def run(shape: Any, value: Any) -> tuple[bool, list[tuple[str, str, str]]]:
    c = Checker(diags=Diagnostics(), trust="first-party")
    ok = shape.check(value, "/v", c)
    return ok, [(d.severity, d.code, d.pointer) for d in c.diags.items]


def no_x(value: str, pointer: str, c: Checker) -> None:
    if "x" in value:
        c.error(NBTEST, pointer, "no x")


def warn_y(value: str, pointer: str, c: Checker) -> None:
    if "y" in value:
        c.warning(NBTEST, pointer, "y is odd")


def test_str_checks_run_after_the_shape_and_decide_validity():
    shape = Str(min_length=1, checks=(no_x, warn_y))
    assert run(shape, "abc") == (True, [])
    assert run(shape, "y") == (True, [("warning", "NB9901", "/v")])
    assert run(shape, "xy") == (False, [("error", "NB9901", "/v"), ("warning", "NB9901", "/v")])
    # a value that breaks the shape never reaches the checks
    assert run(shape, "") == (False, [("error", "NB0105", "/v")])
    assert run(shape, 3) == (False, [("error", "NB0100", "/v")])


CIRCLE = Obj({"shape": Field(Str(enum=("circle",)), required=True), "r": Field(Num(minimum=0), required=True)})
SQUARE = Obj({"shape": Field(Str(enum=("square",)), required=True), "side": Field(Num(), required=True)})
FIGURE = Tagged(key="shape", variants={"circle": CIRCLE, "square": SQUARE}, tag_code=NBTEST, what="a figure")


def test_tagged_dispatches_on_the_tag():
    assert run(FIGURE, {"shape": "circle", "r": 1}) == (True, [])
    assert run(FIGURE, {"shape": "square", "side": 2}) == (True, [])
    assert run(FIGURE, {"shape": "circle", "side": 2}) == (
        False,
        [("error", "NB0102", "/v"), ("error", "NB0101", "/v/side")],
    )
    assert run(FIGURE, {"shape": "circle", "r": -1}) == (False, [("error", "NB0107", "/v/r")])


def test_tagged_tag_errors():
    assert run(FIGURE, {"r": 1}) == (False, [("error", "NB0102", "/v")])
    assert run(FIGURE, {"shape": "circel"}) == (False, [("error", "NB9901", "/v/shape")])
    assert run(FIGURE, {"shape": 1}) == (False, [("error", "NB0100", "/v/shape")])
    assert run(FIGURE, []) == (False, [("error", "NB0100", "/v")])


def test_tagged_suggests_the_near_tag():
    c = Checker(diags=Diagnostics(), trust="first-party")
    FIGURE.check({"shape": "circel"}, "/v", c)
    assert c.diags.items[0].hint == 'did you mean "circle"?'


def test_tagged_variants_must_declare_the_tag():
    with pytest.raises(ValueError, match="does not declare the tag key"):
        Tagged(key="kind", variants={"circle": CIRCLE})


def test_tagged_schema_matches_the_checker():
    validator = Draft202012Validator(FIGURE.schema())
    assert validator.is_valid({"shape": "circle", "r": 1})
    assert validator.is_valid({"shape": "square", "side": 1})
    assert not validator.is_valid({"shape": "circle", "side": 1})
    assert not validator.is_valid({"shape": "triangle"})
    assert not validator.is_valid({"r": 1})


@pytest.mark.parametrize("path", ["a", "dist/app/host.js", "./dist/app/host.js", "././a/b.c", "a/.b", "a/b..c"])
def test_good_package_paths(path):
    assert path_problem(path) is None


@pytest.mark.parametrize(
    ("path", "problem"),
    [
        ("", "empty"),
        ("/a", "absolute"),
        ("C:/a", "absolute"),
        ("c:a", "absolute"),
        ("~/a", "absolute"),
        ("a\\b", "backslash"),
        ("..", ".."),
        ("a/../b", ".."),
        ("./../a", ".."),
        ("a//b", "empty"),
        ("a/./b", "empty"),
        ("a/", "empty"),
    ],
)
def test_bad_package_paths(path, problem):
    found = path_problem(path)
    assert found is not None
    assert problem in found


def test_normalize_and_scheme():
    assert normalize("././a/b") == "a/b"
    assert normalize("a/./b") == "a/./b"
    assert has_scheme("https://x") and has_scheme("data:text/plain,") and has_scheme("blob:x")
    assert not has_scheme("C:/x") and not has_scheme("a/b:c") and not has_scheme("./a:b")


def test_resolve_inside(tmp_path):
    (tmp_path / "pkg/a").mkdir(parents=True)
    (tmp_path / "outside").write_text("")
    (tmp_path / "pkg/link").symlink_to(tmp_path / "outside")
    root = tmp_path / "pkg"
    assert resolve_inside(root, "a") == (root / "a").resolve()
    assert resolve_inside(root, "link") is None
    assert resolve_inside(root, "../outside") is None
