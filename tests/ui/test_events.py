"""Event subjects and routes compiled to dist/ with the real esbuild."""

from __future__ import annotations

import json

import pytest

from neuralis_build.package import load_package
from neuralis_build.ui.events import compile_events
from neuralis_build.util.errors import DiagnosedError
from tests.ui.ui_helpers import build_file_tree, codes, snapshot

pytestmark = pytest.mark.e2e

SUBJECT = """\
import { owners } from "../lib/owners";
export const subject = "report";
export function visible(event: { subjectId: string }, session: { userId: string }): boolean {
  return owners[event.subjectId] === session.userId;
}
"""
ROUTE = 'import { z } from "zod";\nexport const schema = z.string();\nexport default function get() { return 1; }\n'
EVENTS = [{"id": "report.failed", "title": "Report failed", "subject": "report"}]


def make(tmp_path, files, events=EVENTS):
    tree = {"package.json": {"name": "@acme/reports", "version": "1.0.0", "neuralis": {"events": events}}}
    tree.update(files)
    return build_file_tree(tmp_path / "pkg", tree)


def compile_(root, esbuild):
    return compile_events(load_package(root), esbuild=esbuild)


def test_subjects_and_routes_compile_to_dist(tmp_path, esbuild):
    root = make(
        tmp_path,
        {
            "src/events/report.ts": SUBJECT,
            "src/lib/owners.ts": 'export const owners: Record<string, string> = { r1: "u1" };\n',
            "routes/reports.ts": ROUTE,
        },
    )
    result = compile_(root, esbuild)
    assert dict(result.exports) == {
        "dist/routes/reports.js": ("default", "schema"),
        "dist/src/events/report.js": ("subject", "visible"),
    }
    assert sorted(snapshot(root / "dist")) == [
        "routes/reports.js",
        "src/events/build-inputs.json",
        "src/events/report.js",
    ]
    read = json.loads((root / "dist/src/events/build-inputs.json").read_text())
    assert sorted(read["outputs"]) == ["report.js"]  # routes are not declared outputs: not recorded
    assert sorted(read["outputs"]["report.js"]) == ["src/events/report.ts", "src/lib/owners.ts"]
    js = (root / "dist/src/events/report.js").read_text()
    assert "owners" in js and "import" not in js  # local helpers are bundled in
    assert 'from "zod"' in (root / "dist/routes/reports.js").read_text()  # npm imports are left to Node


def test_a_subject_without_visible_is_refused_and_the_old_output_kept(tmp_path, esbuild):
    root = make(
        tmp_path, {"src/events/report.ts": 'export const subject = "report";\nexport const visible = () => true;\n'}
    )
    compile_(root, esbuild)
    before = snapshot(root / "dist")
    (root / "src/events/report.ts").write_text('export const subject = "report";\n')
    with pytest.raises(DiagnosedError) as err:
        compile_(root, esbuild)
    assert codes(err.value) == [("NB1613", "src/events/report.ts", "", None)]
    assert snapshot(root / "dist") == before


def test_a_declared_subject_needs_its_source(tmp_path, esbuild):
    root = make(tmp_path, {})
    with pytest.raises(DiagnosedError) as err:
        compile_(root, esbuild)
    assert codes(err.value) == [("NB0706", "package.json", "/neuralis/events/0/subject", 9)]


def test_nothing_to_compile(tmp_path, esbuild):
    root = make(tmp_path, {}, events=[])
    assert compile_(root, esbuild).empty


def test_removed_routes_leave_no_stale_output(tmp_path, esbuild):
    root = make(
        tmp_path,
        {"src/events/report.ts": SUBJECT, "src/lib/owners.ts": "export const owners = {};\n", "routes/a.ts": ROUTE},
    )
    compile_(root, esbuild)
    (root / "routes/a.ts").unlink()
    compile_(root, esbuild)
    assert sorted(snapshot(root / "dist")) == ["src/events/build-inputs.json", "src/events/report.js"]
