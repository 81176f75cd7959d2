"""`check` against build output (NB16): the declared module, its record, and compiled events."""

from __future__ import annotations

import pytest

from neuralis_build.check import check_path
from neuralis_build.hostprofile import HostProfile
from tests.ui.ui_helpers import build_file_tree, link_package

GOOD_JS = 'import "react";\nfunction i() {}\nexport { i as installAcmeHostComponents };\n'
RECORD = {"hostApiVersion": "1", "reactMajor": 19, "sharedImports": ["react"]}
EVENT_JS = 'var subject = "report";\nfunction visible() { return true; }\nexport {\n  subject,\n  visible\n};\n'
EVENTS = [{"id": "report.failed", "title": "Report failed", "subject": "report"}]


def pkg(tmp_path, block, files=(), name="pkg"):
    tree = {"package.json": {"name": "@acme/reports", "version": "1.0.0", "neuralis": block}}
    tree.update(dict(files))
    return build_file_tree(tmp_path / name, tree)


def nb16(root, trust="first-party", host=None):
    """The build-output findings only (other sections' rules are pinned in their own tests)."""
    result = check_path(root, trust, host)
    return [(d.severity, d.code, d.file, d.pointer) for d in result.diagnostics if d.code.startswith("NB16")]


BUILT = {"dist/app/host.js": GOOD_JS, "dist/app/shared-imports.json": RECORD}
MODULE = {"app": {"module": {"entry": "dist/app/host.js"}}}


def test_a_built_module_passes(tmp_path):
    assert nb16(pkg(tmp_path, MODULE, BUILT)) == []


def test_an_unbuilt_module_fails(tmp_path):
    assert nb16(pkg(tmp_path, MODULE)) == [("error", "NB1601", "package.json", "/neuralis/app/module/entry")]


def test_below_first_party_the_module_is_not_judged(tmp_path):
    root = pkg(tmp_path, MODULE)
    assert nb16(root, "trusted") == [] and nb16(root, "untrusted") == []


def test_record_must_match_the_host_profile(tmp_path):
    root = pkg(tmp_path, MODULE, BUILT)
    host = HostProfile(host_api_version="2", react_major=18, shared_modules=("react",))
    assert nb16(root, host=host) == [
        ("error", "NB1606", "dist/app/shared-imports.json", "/hostApiVersion"),
        ("error", "NB1607", "dist/app/shared-imports.json", "/reactMajor"),
    ]


def test_a_malformed_record_is_located(tmp_path):
    root = pkg(tmp_path, MODULE, {**BUILT, "dist/app/shared-imports.json": {**RECORD, "sharedImports": "react"}})
    assert nb16(root) == [("error", "NB1605", "dist/app/shared-imports.json", "/sharedImports")]


def test_an_id_nobody_installed_publishes_is_a_warning_and_installed_ones_count(tmp_path):
    record = {**RECORD, "sharedImports": ["@acme/charts/app/charts", "react"]}
    root = pkg(tmp_path, MODULE, {**BUILT, "dist/app/shared-imports.json": record})
    assert nb16(root) == [("warning", "NB1609", "dist/app/shared-imports.json", "/sharedImports/0")]
    charts = build_file_tree(
        tmp_path / "charts",
        {
            "package.json": {
                "name": "@acme/charts",
                "neuralis": {"app": {"module": {"entry": "dist/app/host.js", "provides": ["@acme/charts/app/charts"]}}},
            }
        },
    )
    link_package(root, charts, "@acme/charts")
    assert nb16(root) == []


def test_css_declared_and_built_or_built_and_undeclared(tmp_path):
    with_css = {"app": {"module": {"entry": "dist/app/host.js", "css": "dist/app/host.css"}}}
    assert nb16(pkg(tmp_path, with_css, BUILT, "a")) == [
        ("error", "NB1602", "package.json", "/neuralis/app/module/css")
    ]
    assert nb16(pkg(tmp_path, with_css, {**BUILT, "dist/app/host.css": "p{}"}, "b")) == []
    assert nb16(pkg(tmp_path, MODULE, {**BUILT, "dist/app/host.css": "p{}"}, "c")) == [
        ("error", "NB1603", "package.json", "/neuralis/app/module")
    ]


def test_no_install_export(tmp_path):
    root = pkg(tmp_path, MODULE, {**BUILT, "dist/app/host.js": "export const x = 1;\n"})
    assert nb16(root) == [("error", "NB1610", "dist/app/host.js", "")]


SOURCE = {"src/events/report.ts": 'export const subject = "report";\nexport const visible = () => true;\n'}


def test_compiled_events(tmp_path):
    block = {"events": EVENTS}
    assert nb16(pkg(tmp_path, block, {**SOURCE, "dist/src/events/report.js": EVENT_JS}, "a")) == []
    assert nb16(pkg(tmp_path, block, SOURCE, "b")) == [
        ("error", "NB1612", "package.json", "/neuralis/events/0/subject")
    ]
    no_visible = {**SOURCE, "dist/src/events/report.js": 'export const subject = "report";\n'}
    assert nb16(pkg(tmp_path, block, no_visible, "c")) == [("error", "NB1613", "dist/src/events/report.js", "")]
    assert nb16(pkg(tmp_path, block, SOURCE, "d"), "trusted") == []


def test_a_subject_without_source_is_left_to_the_events_rules(tmp_path):
    assert nb16(pkg(tmp_path, {"events": EVENTS})) == []


@pytest.mark.parametrize("subject", ["../x", "a/b", ".hidden", 7])
def test_subjects_that_are_not_file_names_are_left_to_the_events_rules(tmp_path, subject):
    assert nb16(pkg(tmp_path, {"events": [{"subject": subject}]})) == []


def test_a_subject_declared_twice_is_judged_once(tmp_path):
    events = [*EVENTS, {"id": "report.done", "title": "Done", "subject": "report"}]
    assert nb16(pkg(tmp_path, {"events": events}, SOURCE)) == [
        ("error", "NB1612", "package.json", "/neuralis/events/0/subject")
    ]
