"""events[]: first-party only, at most 64, ids, subjects and their sources, dataSchema, notify, dock."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import findings, manifest

E = "/neuralis/events"
SOURCE = {"src/events/report.ts": "export const subject = 'report'\nexport function visible() { return true }\n"}
DOCK = {"kind": "dock", "id": "acme-reports", "label": "Reports", "action": {"type": "open-widget", "widget": "r"}}
WIDGET = {
    "kind": "widget",
    "id": "acme.reports",
    "type": "r",
    "title": "Reports",
    "component": {"renderer": "react"},
}
APP = {"app": {"surfaces": [WIDGET, DOCK], "module": {"entry": "dist/app/host.js"}}}


def event(**over: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "id": "report.failed",
        "title": "Report failed",
        "subject": "report",
        "dataSchema": {
            "type": "object",
            "additionalProperties": False,
            "properties": {"reportId": {"type": "string", "maxLength": 128}},
        },
        "requires": {"features": ["acme.reports.read"]},
        "notify": {"default": "on", "tone": "error"},
        "dock": "acme-reports",
    }
    base.update(over)
    return base


def events(*items: dict[str, Any], **block: Any) -> dict[str, Any]:
    return {**APP, "events": list(items), **block}


def test_spec_example_passes_first_party(check_block):
    assert check_block(events(event()), files=SOURCE) == []


def test_minimal_event(check_block):
    minimal = {"id": "sync.stopped", "title": "Sync stopped", "subject": "report", "dataSchema": {"type": "object"}}
    assert check_block({"events": [minimal]}, files=SOURCE) == []


@pytest.mark.parametrize("trust", ["trusted", "untrusted"])
def test_dropped_below_first_party(check_tree, trust):
    block = {"events": [{"id": "BAD ID", "dataSchema": 3}]}
    result = check_tree({"package.json": manifest(block)}, trust)
    assert findings(result) == [("warning", "NB0701", E)]
    assert result.block.raw == {}


def test_at_most_64(check_block):
    many = [event(id=f"report.e{i}") for i in range(64)]
    assert check_block(events(*many), files=SOURCE) == []
    assert check_block(events(*many, event(id="report.e64")), files=SOURCE) == [("error", "NB0702", E)]


def test_ids(check_block):
    assert check_block(events(event(id="Report.Failed")), files=SOURCE) == [("error", "NB0703", f"{E}/0/id")]
    assert check_block(events(event(), event(title="again")), files=SOURCE) == [("error", "NB0704", f"{E}/1/id")]


def test_required_keys_and_unknown_keys(check_block):
    no_schema = event()
    del no_schema["dataSchema"]
    assert check_block(events(no_schema), files=SOURCE) == [("error", "NB0102", f"{E}/0")]
    assert check_block(events(event(priority=1)), files=SOURCE) == [("warning", "NB0108", f"{E}/0/priority")]


@pytest.mark.parametrize("bad", ["Report", "report.run", "report/run", "1report", "", "r" * 65])
def test_subject_charset(check_block, bad):
    assert check_block(events(event(subject=bad)), files=SOURCE) == [("error", "NB0705", f"{E}/0/subject")]


def test_subject_needs_its_source_file(check_tree):
    block = events(event(), event(id="report.done"), event(id="sync.failed", subject="sync"))
    result = check_tree({"package.json": manifest(block)})
    # one finding per subject, at the first event that names it
    assert findings(result) == [("error", "NB0706", f"{E}/0/subject"), ("error", "NB0706", f"{E}/2/subject")]
    hint = next(d.hint for d in result.diagnostics if d.code == "NB0706")
    assert hint is not None
    assert hint.startswith("create src/events/report.ts")


def test_source_file_must_be_typescript_in_src_events(check_block):
    for files in ({"src/events/report.js": ""}, {"events/report.ts": ""}, {"src/events/report.d.ts": ""}):
        assert check_block(events(event()), files=files) == [("error", "NB0706", f"{E}/0/subject")]


@pytest.mark.parametrize(
    ("schema", "pointer"),
    [
        ({"type": "objekt"}, "/dataSchema/type"),
        ({"type": "object", "properties": {"a": {"maxLength": -1}}}, "/dataSchema/properties/a/maxLength"),
        ({"type": "object", "required": "a"}, "/dataSchema/required"),
    ],
)
def test_data_schema_must_be_a_json_schema(check_block, schema, pointer):
    assert check_block(events(event(dataSchema=schema)), files=SOURCE) == [("error", "NB0707", f"{E}/0{pointer}")]


def test_data_schema_is_an_object_schema(check_block):
    assert check_block(events(event(dataSchema=True)), files=SOURCE) == [("error", "NB0100", f"{E}/0/dataSchema")]
    assert check_block(events(event(dataSchema={"type": "string"})), files=SOURCE) == [
        ("error", "NB0708", f"{E}/0/dataSchema/type")
    ]
    assert check_block(events(event(dataSchema={"properties": {}})), files=SOURCE) == [
        ("error", "NB0708", f"{E}/0/dataSchema")
    ]


NAV = {
    "type": "object",
    "properties": {"widgetType": {"type": "string"}, "initialState": {"type": "object"}},
    "required": ["widgetType"],
}


def test_title_and_nav_data_keys(check_block):
    props = {"title": {"type": "string", "maxLength": 80}, "nav": NAV}
    assert check_block(events(event(dataSchema={"type": "object", "properties": props})), files=SOURCE) == []


def test_string_const_and_enum_count_as_strings(check_block):
    nav = {**NAV, "properties": {"widgetType": {"const": "acme_board"}}}
    props = {"title": {"enum": ["Nightly", "Weekly"]}, "nav": nav}
    assert check_block(events(event(dataSchema={"type": "object", "properties": props})), files=SOURCE) == []


@pytest.mark.parametrize(
    ("props", "pointer"),
    [
        ({"title": {"type": "integer"}}, "/title"),
        ({"title": {"const": 3}}, "/title"),
        ({"title": {"enum": ["a", 1]}}, "/title"),
        ({"title": {}}, "/title"),
        ({"nav": {"type": "string"}}, "/nav"),
        ({"nav": {**NAV, "required": []}}, "/nav"),
        ({"nav": {**NAV, "properties": {"initialState": {"type": "object"}}}}, "/nav/properties"),
        ({"nav": {**NAV, "properties": {"widgetType": {"type": "number"}}}}, "/nav/properties"),
        (
            {"nav": {**NAV, "properties": {"widgetType": {"type": "string"}, "url": {"type": "string"}}}},
            "/nav/properties/url",
        ),
        (
            {"nav": {**NAV, "properties": {"widgetType": {"type": "string"}, "initialState": {"type": "string"}}}},
            "/nav/properties/initialState",
        ),
    ],
)
def test_title_and_nav_shapes(check_block, props, pointer):
    schema = {"type": "object", "properties": props}
    assert check_block(events(event(dataSchema=schema)), files=SOURCE) == [
        ("error", "NB0709", f"{E}/0/dataSchema/properties{pointer}")
    ]


def test_requires_gate(check_block):
    assert check_block(events(event(requires={"features": ["Bad"]})), files=SOURCE) == [
        ("error", "NB0605", f"{E}/0/requires/features/0")
    ]
    assert check_block(events(event(requires={"roles": []})), files=SOURCE) == [
        ("error", "NB0601", f"{E}/0/requires/roles")
    ]


@pytest.mark.parametrize(("key", "value"), [("default", "yes"), ("tone", "danger"), ("default", True)])
def test_notify_vocabularies(check_block, key, value):
    code = "NB0100" if value is True else "NB0710"
    notify = {"default": "off", "tone": "info", key: value}
    assert check_block(events(event(notify=notify)), files=SOURCE) == [("error", code, f"{E}/0/notify/{key}")]


def test_every_tone(check_block):
    for tone in ("info", "success", "warning", "error"):
        assert check_block(events(event(notify={"tone": tone})), files=SOURCE) == []


def test_dock_names_a_declared_dock_surface(check_block):
    assert check_block(events(event(dock="acme.reports")), files=SOURCE) == [("error", "NB0711", f"{E}/0/dock")]
    assert check_block({"events": [event()]}, files=SOURCE) == [("error", "NB0711", f"{E}/0/dock")]


def test_dock_is_not_judged_when_the_surfaces_are_broken(check_block):
    broken = {**APP, "app": {"surfaces": [{**DOCK, "label": ""}]}}
    assert check_block({**broken, "events": [event()]}, files=SOURCE) == [
        ("error", "NB0105", "/neuralis/app/surfaces/0/label")
    ]


def test_dock_is_not_judged_when_app_is_not_an_object(check_block):
    assert check_block({"app": [], "events": [event()]}, files=SOURCE) == [("error", "NB0100", "/neuralis/app")]


def test_subject_and_dock_are_judged_beside_other_errors(check_block):
    broken = event(title="", subject="sync", dock="nowhere")
    assert check_block(events(broken), files=SOURCE) == [
        ("error", "NB0105", f"{E}/0/title"),
        ("error", "NB0706", f"{E}/0/subject"),
        ("error", "NB0711", f"{E}/0/dock"),
    ]
