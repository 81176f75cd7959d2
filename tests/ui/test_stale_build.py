"""A build older than its sources: `ui` records what it read, `check` warns (NB1615), `pack` refuses.

Issue 14: `pack` of a package whose sources changed after the last `ui` shipped the old bundle
without a word. Real esbuild builds, real edits, the real commands.
"""

from __future__ import annotations

import json

from neuralis_build.check import check_path
from neuralis_build.cli.build import main
from neuralis_build.package import load_package
from neuralis_build.ui.events import compile_events
from tests.ui.ui_helpers import HOST_TSX, ui_manifest

SUBJECT = (
    'import { owners } from "../lib/owners";\n'
    'export const subject = "report";\n'
    "export function visible(e: { id: string }) { return e.id in owners; }\n"
)
EVENTS = [{"id": "report.failed", "title": "Report failed", "subject": "report"}]


def stale(root, trust="first-party"):
    return [(d.severity, d.pointer, d.message) for d in check_path(root, trust).diagnostics if d.code == "NB1615"]


def test_an_edited_source_makes_the_module_stale_until_the_next_build(make_pkg, build, capsys):
    root = make_pkg({"package.json": ui_manifest(files=["dist"]), "src/app/host.tsx": HOST_TSX})
    build(root)
    assert stale(root) == []
    (root / "src/app/host.tsx").write_text(HOST_TSX.replace("hello {n}", "hi {n}"))
    assert stale(root) == [
        (
            "warning",
            "/neuralis/app/module/entry",
            "dist/app/host.js was built from older sources: src/app/host.tsx changed since the last build",
        )
    ]
    assert check_path(root, "first-party").ok  # check warns: a checkout older than its dist/ is not a bad manifest
    assert main(["pack", str(root), "--trust", "first-party", "--dry-run", "--format", "json"]) == 1
    (element,) = json.loads(capsys.readouterr().out)
    (refusal,) = [d for d in element["error"]["diagnostics"] if d["code"] == "NB1615"]
    assert (refusal["severity"], refusal["pointer"]) == ("error", "/neuralis/app/module/entry")
    assert refusal["hint"] == (
        "build it: neuralis-build ui (npm run build:ui), then pack again (a prepack script that builds does it: pack "
        "runs it first)"
    )
    build(root)
    assert stale(root) == []
    assert main(["pack", str(root), "--trust", "first-party", "--dry-run"]) == 0
    # below first-party the module is dropped: nothing of it is judged, stale or not
    (root / "src/app/host.tsx").write_text(HOST_TSX)
    assert stale(root, "trusted") == []


def test_a_deleted_input_and_an_imported_file_count(make_pkg, build):
    host = 'import { label } from "./label";\n' + HOST_TSX.replace("hello {n}", "{label} {n}")
    root = make_pkg(
        {"package.json": ui_manifest(), "src/app/host.tsx": host, "src/app/label.ts": 'export const label = "a";\n'}
    )
    build(root)
    (root / "src/app/label.ts").unlink()
    [(_, _, message)] = stale(root)
    assert message == "dist/app/host.js was built from older sources: src/app/label.ts is gone since the last build"


def test_an_installed_copy_without_sources_is_not_judged(make_pkg, build):
    root = make_pkg({"package.json": ui_manifest(), "src/app/host.tsx": HOST_TSX})
    build(root)
    (root / "src/app/host.tsx").unlink()
    (root / "src/app").rmdir()
    assert stale(root) == []


def test_a_stale_event_subject_is_reported_at_its_declaration(make_pkg, esbuild):
    root = make_pkg(
        {
            "package.json": {"name": "@acme/ev", "version": "1.0.0", "neuralis": {"events": EVENTS}},
            "src/events/report.ts": SUBJECT,
            "src/lib/owners.ts": 'export const owners = { r1: "u1" };\n',
        }
    )
    compile_events(load_package(root), esbuild=esbuild)
    assert stale(root) == []
    (root / "src/lib/owners.ts").write_text('export const owners = { r2: "u2" };\n')
    assert stale(root) == [
        (
            "warning",
            "/neuralis/events/0/subject",
            "dist/src/events/report.js was built from older sources: src/lib/owners.ts changed since the last build",
        )
    ]


def test_an_unreadable_record_is_named(make_pkg, build):
    root = make_pkg({"package.json": ui_manifest(), "src/app/host.tsx": HOST_TSX})
    build(root)
    for broken in ("{not json", '{"x": ' + "[" * 3000 + "]" * 3000 + "}"):  # deep: past Python's json recursion
        (root / "dist/app/build-inputs.json").write_text(broken)
        found = [
            (d.severity, d.code, d.file) for d in check_path(root, "first-party").diagnostics if d.code[:4] == "NB16"
        ]
        assert found == [("warning", "NB1616", "dist/app/build-inputs.json")]
