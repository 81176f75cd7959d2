"""A development build is named (NB1617: check warns, pack refuses) and a production build is minified.

Issue 24: after `ui --watch`, `check` found nothing and `pack` shipped a host.js built for
"development"; and the shipped build was not minified unless asked. Real esbuild builds throughout.
"""

from __future__ import annotations

import json

import pytest

from neuralis_build.cli.build import main
from neuralis_build.hostprofile import default_host_profile
from neuralis_build.package import load_package
from neuralis_build.record.stale import built_mode
from neuralis_build.ui.build import build_ui
from tests.conftest import judged
from tests.ui.ui_helpers import HOST_TSX, ui_manifest

ENTRY = "/neuralis/app/module/entry"
DEVELOPMENT = (
    "dist/app/host.js was built for development (neuralis-build ui --watch): its libraries' development-only code is "
    'in it and process.env.NODE_ENV is "development"'
)


def development(root, trust="first-party"):
    found = judged(root, trust).diagnostics
    return [(d.severity, d.pointer, d.line, d.message, d.hint) for d in found if d.code == "NB1617"]


def test_the_record_names_the_mode(make_pkg, build):
    root = make_pkg({"package.json": ui_manifest(), "src/app/host.tsx": HOST_TSX})
    build(root)
    assert json.loads((root / "dist/app/build-inputs.json").read_text())["mode"] == "production"
    build(root, mode="development")
    record = json.loads((root / "dist/app/build-inputs.json").read_text())
    assert list(record) == ["digest", "mode", "outputs"] and record["mode"] == "development"
    assert built_mode(root, "dist/app/host.js") == "development"


def test_check_warns_about_a_development_build_at_the_entry_and_pack_refuses_it(make_pkg, build, capsys):
    root = make_pkg({"package.json": ui_manifest(files=["dist"]), "src/app/host.tsx": HOST_TSX})
    build(root)
    assert development(root) == []  # good: a production build
    assert main(["pack", str(root), "--trust", "first-party", "--dry-run"]) == 0
    capsys.readouterr()

    build(root, mode="development")  # bad: what ui --watch leaves in dist/app/
    hint = "run the production build: npm run build:ui (neuralis-build ui)"
    assert development(root) == [("warning", ENTRY, 10, DEVELOPMENT, hint)]
    assert judged(root, "first-party").ok  # a warning: the checkout is not a bad manifest
    assert main(["pack", str(root), "--trust", "first-party", "--dry-run", "--format", "json"]) == 1
    (element,) = json.loads(capsys.readouterr().out)
    (refusal,) = [d for d in element["error"]["diagnostics"] if d["code"] == "NB1617"]
    assert (refusal["severity"], refusal["pointer"], refusal["line"]) == ("error", ENTRY, 10)
    assert refusal["hint"] == hint + ", then pack again (a prepack script that builds does it: pack runs it first)"

    build(root)  # the production build again
    assert development(root) == []
    assert main(["pack", str(root), "--trust", "first-party", "--dry-run"]) == 0


def test_no_mode_to_judge_below_first_party_or_without_one_recorded(make_pkg, build):
    root = make_pkg({"package.json": ui_manifest(), "src/app/host.tsx": HOST_TSX})
    build(root, mode="development")
    assert development(root, "trusted") == []  # app.module is dropped below first-party: nothing of it is judged
    record = root / "dist/app/build-inputs.json"
    data = json.loads(record.read_text())
    del data["mode"]  # a record written before records named the mode
    record.write_text(json.dumps(data))
    assert built_mode(root, "dist/app/host.js") is None
    assert development(root) == []
    record.unlink()  # built by another tool: no record at all
    assert development(root) == []


def test_the_library_build_is_minified_unless_told_otherwise(make_pkg, esbuild):
    root = make_pkg({"package.json": ui_manifest(), "src/app/host.tsx": HOST_TSX})
    result = build_ui(load_package(root), host=default_host_profile(), esbuild=esbuild)
    minified = (root / "dist/app/host.js").read_text()
    assert result.minified and "\n  " not in minified and "function Hello()" not in minified
    result = build_ui(load_package(root), host=default_host_profile(), esbuild=esbuild, minify=False)
    readable = (root / "dist/app/host.js").read_text()
    assert not result.minified and "function Hello()" in readable
    assert len(minified) < len(readable)


@pytest.mark.e2e
def test_ui_minifies_by_default_and_no_minify_keeps_it_readable(make_pkg, capsys):
    root = make_pkg({"package.json": ui_manifest(), "src/app/host.tsx": HOST_TSX})
    assert main(["ui", str(root), "--format", "json"]) == 0
    (element,) = json.loads(capsys.readouterr().out)
    assert (element["mode"], element["minified"]) == ("production", True)
    assert "function Hello()" not in (root / "dist/app/host.js").read_text()
    assert main(["ui", str(root), "--no-minify", "--format", "json"]) == 0
    (element,) = json.loads(capsys.readouterr().out)
    assert (element["mode"], element["minified"]) == ("production", False)
    assert "function Hello()" in (root / "dist/app/host.js").read_text()
