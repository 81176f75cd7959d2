"""NB0411: a package with a UI module that lists a package the host provides (react, react-dom, the client) in
dependencies is named at that line; devDependencies and peerDependencies are the places (issue 24)."""

from __future__ import annotations

from typing import Any

import pytest

from neuralis_build.hostprofile import parse_host_profile
from tests.conftest import build_file_tree, findings, manifest

MODULE = {"app": {"module": {"entry": "dist/app/host.js"}}}


def test_react_as_a_dev_and_peer_dependency_is_what_the_host_expects(check_block):
    assert check_block(MODULE, devDependencies={"react": "^19.0.0"}, peerDependencies={"react": "^19.0.0"}) == []


def test_react_and_react_dom_in_dependencies_are_named_at_their_lines(check_tree):
    deps = {"react": "^19.0.0", "react-dom": "^19.0.0", "zustand": "^5.0.0"}
    result = check_tree({"package.json": manifest(MODULE, dependencies=deps)})
    assert findings(result) == [
        ("warning", "NB0411", "/dependencies/react"),
        ("warning", "NB0411", "/dependencies/react-dom"),
    ]
    react = next(d for d in result.diagnostics if d.pointer == "/dependencies/react")
    assert (react.file, react.line, react.column) == ("package.json", 5, 5)
    assert react.message == (
        '"react" is in dependencies, so every install of this package brings its own copy beside the host\'s: the UI '
        "module never uses it (the host provides react to every module), and the image build reports it as a second "
        "copy"
    )
    assert react.hint == (
        'move it to devDependencies (to build and type-check against it) and peerDependencies ("react": '
        '"^19.0.0"): the host provides it'
    )
    assert all(d.severity != "error" for d in result.diagnostics if d.code == "NB0411")  # a warning: the package works


def test_optional_dependencies_and_the_client_library_count_too(check_block):
    found = check_block(MODULE, optionalDependencies={"react-dom": "19.1.0", "@neuralis/client": "1.0.0"})
    assert found == [
        ("warning", "NB0411", "/optionalDependencies/react-dom"),
        ("warning", "NB0411", "/optionalDependencies/@neuralis~1client"),
    ]


@pytest.mark.parametrize("trust", ["trusted", "untrusted"])
def test_without_a_ui_module_nothing_is_said(check_block, trust: Any):
    deps = {"react": "^19.0.0"}
    assert check_block({}, dependencies=deps) == []  # no app.module: the package may use React on its own
    # below first-party app.module is dropped (NB0401): the package has no UI module there
    assert check_block(MODULE, trust=trust, dependencies=deps) == [("warning", "NB0401", "/neuralis/app/module")]


def test_the_host_profile_says_which_packages_it_provides(tmp_path):
    from neuralis_build.check import check_path

    host = parse_host_profile({"hostApiVersion": "1", "reactMajor": 19, "sharedModules": ["preact/hooks"]}, "test")
    assert host.provided_packages == frozenset({"preact"})
    root = build_file_tree(tmp_path / "p", {"package.json": manifest(MODULE, dependencies={"react": "19.0.0"})})
    assert findings(check_path(root, "first-party", host)) == []
    build_file_tree(root, {"package.json": manifest(MODULE, dependencies={"preact": "10.0.0"})})
    assert findings(check_path(root, "first-party", host)) == [("warning", "NB0411", "/dependencies/preact")]
