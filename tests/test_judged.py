"""The judged package: the typed block the host loads keeps pointers (and lines) back into package.json after drops."""

from __future__ import annotations

from neuralis_build.check import check_path
from neuralis_build.model.block import read_block
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
    assert judged.block is not None and judged.package is not None
    assert judged.block.raw == {"tools": tools[1:]}
    assert [(t.at.pointer, t.name) for t in judged.block.tools] == [
        ("/neuralis/tools/1", "b_x"),
        ("/neuralis/tools/2", "c_x"),
    ]
    assert judged.block.tools[0].at.child("name").pointer == "/neuralis/tools/1/name"
    assert judged.dropped == frozenset({"/neuralis/tools/0"})
    # the line and column are package.json's, found from the pointer
    at = judged.block.tools[0].at
    assert (at.line, at.column) == judged.package.source.locate("/neuralis/tools/1")
    assert at.line is not None and at.line > judged.package.source.locate("/neuralis/tools/0")[0]


def test_a_dropped_field_is_gone_and_untouched_arrays_keep_their_indices():
    block = {"provides": ["runtime"], "events": [{"id": "a"}, {"id": "b"}], "app": {"surfaces": [{"id": "s"}]}}
    loaded = read_block(block, dropped={"/neuralis/provides", "/neuralis/events/0"})
    assert loaded is not None
    assert loaded.raw == {"events": [{"id": "b"}], "app": {"surfaces": [{"id": "s"}]}}
    assert [(e.at.pointer, e.id) for e in loaded.events] == [("/neuralis/events/1", "b")]
    assert loaded.provides == ()
    assert [s.at.pointer for s in loaded.surfaces] == ["/neuralis/app/surfaces/0"]
    loaded.raw["app"]["surfaces"].append("new")
    assert block["app"]["surfaces"] == [{"id": "s"}]  # a copy: the raw manifest never changes


def test_the_module_is_read_from_what_the_host_loads(tmp_path):
    module = {"entry": "dist/app/host.js"}
    root = build_file_tree(tmp_path, {"package.json": manifest({"app": {"module": module}})})
    first = check_path(root, "first-party").module
    assert first is not None and (first.raw, first.entry, first.css) == (module, "dist/app/host.js", None)
    trusted = check_path(root, "trusted")
    assert (trusted.module, trusted.was_dropped("/neuralis/app/module/entry")) == (None, True)
    declared = trusted.package.module if trusted.package is not None else None
    assert declared is not None and declared.raw == module  # as written


def test_a_value_of_the_wrong_type_reads_as_absent():
    """The reader takes what fits; the manifest rules report the rest (check has its errors at these pointers)."""
    loaded = read_block({"app": {"module": {"entry": 3, "provides": ["a/b", 4]}}, "events": ["x", {"subject": 5}]})
    assert loaded is not None and loaded.module is not None
    assert (loaded.module.entry, loaded.module.provides) == (None, ("a/b",))
    assert [(e.at.pointer, e.subject) for e in loaded.events] == [("/neuralis/events/1", None)]
    assert read_block("not an object") is None
