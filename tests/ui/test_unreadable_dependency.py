"""A dependency's package.json that cannot be read is named (NB1917), never skipped without a word."""

from __future__ import annotations

import os

import pytest

from neuralis_build.check import check_path
from tests.ui.test_outputs_rules import BUILT, MODULE, pkg
from tests.ui.ui_helpers import HOST_TSX, ui_manifest

BROKEN = '{"name": "@acme/broken", "version": "1.0.0", "neuralis": {"app": '


def test_check_names_the_unreadable_package_json(tmp_path):
    root = pkg(tmp_path, MODULE, {**BUILT, "node_modules/@acme/broken/package.json": BROKEN})
    found = [(d.severity, d.code, d.file, d.message) for d in check_path(root, "first-party").diagnostics]
    assert found == [
        (
            "warning",
            "NB1917",
            "node_modules/@acme/broken/package.json",
            "node_modules/@acme/broken/package.json cannot be read (not valid JSON: Expecting value), "
            "so the ids it may publish in app.module.provides are not known",
        )
    ]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
def test_the_build_names_a_fifo_and_still_builds(make_pkg, build):
    root = make_pkg({"package.json": ui_manifest(), "src/app/host.tsx": HOST_TSX, "node_modules/@acme/x/a": ""})
    os.mkfifo(root / "node_modules/@acme/x/package.json")
    result = build(root)
    assert [(d.severity, d.code, d.file) for d in result.warnings] == [
        ("warning", "NB1917", "node_modules/@acme/x/package.json")
    ]
    assert "a FIFO" in result.warnings[0].message
