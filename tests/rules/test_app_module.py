"""app.module: first-party only, exact keys, paths under dist/app/, published ids of the own name."""

from __future__ import annotations

from typing import Any

import pytest

from neuralis_build.check import check_path
from neuralis_build.hostprofile import parse_host_profile
from tests.conftest import build_file_tree, findings, manifest

M = "/neuralis/app/module"
NAME = "@acme/reports"


def module(**fields: Any) -> dict[str, Any]:
    return {"app": {"module": {"entry": "dist/app/host.js", **fields}}}


def test_spec_example_passes_first_party(check_block):
    assert check_block(module(provides=["@acme/reports/app/charts"]), name=NAME) == []
    assert check_block(module(css="dist/app/host.css", provides=[]), name=NAME) == []
    assert check_block({"app": {"module": {"entry": "./dist/app/host.mjs"}}}) == []


@pytest.mark.parametrize("trust", ["trusted", "untrusted"])
def test_dropped_below_first_party(check_tree, trust):
    # the field is dropped unvalidated: a bad path under a lower tier is only the drop warning
    block = {"app": {"module": {"entry": "/abs/host.js", "extra": 1}, "surfaces": []}}
    result = check_tree({"package.json": manifest(block)}, trust)
    assert findings(result) == [("warning", "NB0401", M)]
    assert result.block.raw == {"app": {"surfaces": []}}


def test_exact_keys(check_block):
    assert check_block({"app": {"module": {"entry": "dist/app/host.js", "url": "/m.js"}}}) == [
        ("error", "NB0406", f"{M}/url")
    ]
    assert check_block({"app": {"module": {"css": "dist/app/host.css"}}}) == [("error", "NB0102", M)]


@pytest.mark.parametrize(
    "path",
    [
        "/dist/app/host.js",
        "C:/dist/app/host.js",
        "~/dist/app/host.js",
        "dist/../dist/app/host.js",
        "dist/app/../../host.js",
        "dist\\app\\host.js",
        "dist//app/host.js",
        "dist/./app/host.js",
    ],
)
def test_absolute_and_dotdot_paths(check_block, path):
    assert check_block({"app": {"module": {"entry": path}}}) == [("error", "NB0402", f"{M}/entry")]
    css = path.replace(".js", ".css")
    assert check_block(module(css=css)) == [("error", "NB0402", f"{M}/css")]


@pytest.mark.parametrize("path", ["host.js", "src/app/host.js", "build/app/host.js", "app/host.js"])
def test_outside_dist(check_block, path):
    assert check_block({"app": {"module": {"entry": path}}}) == [("error", "NB0403", f"{M}/entry")]


@pytest.mark.parametrize("path", ["dist/host.js", "dist/src/app/host.js", "dist/application/host.js"])
def test_under_dist_but_not_served(check_block, path):
    assert check_block({"app": {"module": {"entry": path}}}) == [("error", "NB0404", f"{M}/entry")]


def test_extensions(check_block):
    assert check_block({"app": {"module": {"entry": "dist/app/host.ts"}}}) == [("error", "NB0405", f"{M}/entry")]
    assert check_block({"app": {"module": {"entry": "dist/app/host.jsx"}}}) == [("error", "NB0405", f"{M}/entry")]
    assert check_block(module(css="dist/app/host.scss")) == [("error", "NB0405", f"{M}/css")]
    # a wrong extension and a wrong place are two problems, both named
    assert check_block({"app": {"module": {"entry": "src/app/host.tsx"}}}) == [
        ("error", "NB0405", f"{M}/entry"),
        ("error", "NB0403", f"{M}/entry"),
    ]


@pytest.mark.parametrize(
    "bad",
    ["@acme/reports", "@acme/reports-extra/x", "@acme/other/app", "charts", "@acme/reports/", "@acme/reports/a/../b"],
)
def test_provides_subpaths_of_the_own_name(check_block, bad):
    assert check_block(module(provides=[bad]), name=NAME) == [("error", "NB0407", f"{M}/provides/0")]


@pytest.mark.parametrize("host_module", ["react", "react/jsx-runtime", "react-dom/client", "@neuralis/client"])
def test_provides_never_a_host_module(check_block, host_module):
    # even a package named like the host module cannot publish it
    assert check_block(module(provides=[host_module + "/x"]), name=host_module) == [
        ("error", "NB0408", f"{M}/provides/0")
    ]
    assert check_block(module(provides=[host_module]), name=NAME) == [("error", "NB0408", f"{M}/provides/0")]


def test_host_modules_come_from_the_host_profile(tmp_path):
    host = parse_host_profile({"hostApiVersion": "1", "reactMajor": 19, "sharedModules": ["@acme/reports/ui"]}, "t")
    root = build_file_tree(tmp_path / "p", {"package.json": manifest(module(provides=["@acme/reports/ui"]), name=NAME)})
    assert findings(check_path(root, "first-party", host)) == [("error", "NB0408", f"{M}/provides/0")]
    assert findings(check_path(root, "first-party")) == []


def test_provides_count_and_duplicates(check_block):
    ids = [f"{NAME}/m{i}" for i in range(16)]
    assert check_block(module(provides=ids), name=NAME) == []
    assert check_block(module(provides=[*ids, f"{NAME}/m16"]), name=NAME) == [("error", "NB0410", f"{M}/provides")]
    assert check_block(module(provides=[f"{NAME}/a", f"{NAME}/a"]), name=NAME) == [
        ("error", "NB0409", f"{M}/provides/1")
    ]
