"""The judged package: the effective block keeps pointers back into package.json after drops."""

from __future__ import annotations

from neuralis_build.check import check_path
from neuralis_build.judged import effective_block
from tests.conftest import build_file_tree, manifest


def test_pointers_survive_drops_inside_arrays(tmp_path):
    """An inline tool a file overrides is dropped: the tools after it keep the pointer of their own line."""
    tools = [
        {"name": "a_x", "description": "A"},
        {"name": "b_x", "description": "B"},
        {"name": "c_x", "description": "C"},
    ]
    root = build_file_tree(
        tmp_path,
        {"package.json": manifest({"tools": tools}), "tools/a_x.json": {"name": "a_x", "description": "file"}},
    )
    judged = check_path(root, "first-party")
    assert judged.effective == {"tools": tools[1:]}
    assert judged.kept == {"/neuralis/tools": (1, 2)}
    assert judged.pointer("tools", 0, "name") == "/neuralis/tools/1/name"
    assert judged.entries("tools") == [("/neuralis/tools/1", tools[1]), ("/neuralis/tools/2", tools[2])]
    assert judged.dropped == frozenset({"/neuralis/tools/0"})


def test_a_dropped_field_is_gone_and_untouched_arrays_keep_their_indices():
    block = {"provides": ["runtime"], "events": [{"id": "a"}, {"id": "b"}], "app": {"surfaces": [{"id": "s"}]}}
    effective, kept = effective_block(block, {"/neuralis/provides", "/neuralis/events/0"})
    assert effective == {"events": [{"id": "b"}], "app": {"surfaces": [{"id": "s"}]}}
    assert kept == {"/neuralis/events": (1,)}
    effective["app"]["surfaces"].append("new")
    assert block["app"]["surfaces"] == [{"id": "s"}]  # a copy: the raw manifest never changes


def test_the_module_is_read_from_what_the_host_loads(tmp_path):
    module = {"entry": "dist/app/host.js"}
    root = build_file_tree(tmp_path, {"package.json": manifest({"app": {"module": module}})})
    assert check_path(root, "first-party").module == module
    trusted = check_path(root, "trusted")
    assert (trusted.module, trusted.was_dropped("/neuralis/app/module/entry")) == (None, True)
    assert trusted.package is not None and trusted.package.module == module  # as written
