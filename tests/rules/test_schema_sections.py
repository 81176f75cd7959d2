"""The generated JSON Schema accepts good provides/runtime/access/requires/app/events and refuses broken shapes."""

from __future__ import annotations

from typing import Any

import pytest
from jsonschema import Draft202012Validator

from neuralis_build.manifest.schema import manifest_schema
from tests.conftest import manifest

GOOD: dict[str, Any] = {
    "provides": ["runtime", "session-ticket-verifier", "mcp-server", "oauth-callback:acme_"],
    "runtime": {
        "type": "wasm",
        "binding": "none",
        "permissions": {"fs": "data-only", "net": "none", "exec": False},
        "hosted": {"tools": ["acme_status"]},
        "skillScripts": "none",
    },
    "access": {},
    "requires": {
        "packages": ["@neuralis/brain-core"],
        "providesFeatures": ["my-pkg.read", {"id": "my-pkg.write", "title": "Write", "description": "Edit"}],
        "defaultRoleGrants": {"owner": ["my-pkg.read", "my-pkg.write"], "member": ["my-pkg.read"]},
        "accessFeature": "my-pkg.access",
    },
    "app": {
        "surfaces": [
            {
                "kind": "widget",
                "id": "my-pkg.widget",
                "type": "my_workspace",
                "title": "My Package",
                "component": {"renderer": "iframe", "url": "./app/surfaces/widget/my_workspace/index.html"},
                "requires": {"features": ["my-pkg.read"]},
            },
            {
                "kind": "widget",
                "id": "my-pkg.board",
                "type": "board",
                "title": "Board",
                "component": {"renderer": "react"},
            },
            {
                "kind": "card",
                "id": "my-pkg.card",
                "render": {"renderer": "iframe", "url": "app/surfaces/card/my-pkg.card/a.html", "assetMode": "bundle"},
            },
            {
                "kind": "dock",
                "id": "my-pkg.open",
                "label": "My Package",
                "action": {"type": "open-widget", "widget": "my_workspace"},
            },
        ],
        "module": {"entry": "dist/app/host.js", "css": "dist/app/host.css", "provides": ["acme-pkg/app/charts"]},
    },
    "events": [
        {
            "id": "report.failed",
            "title": "Report failed",
            "subject": "report",
            "dataSchema": {"type": "object", "properties": {"reportId": {"type": "string", "maxLength": 128}}},
            "requires": {"features": ["acme.reports.read"]},
            "notify": {"default": "on", "tone": "error"},
            "dock": "my-pkg.open",
        }
    ],
}

_WIDGET = GOOD["app"]["surfaces"][0]

BROKEN: dict[str, dict[str, Any]] = {
    "unknown service": {"provides": ["runtimes"]},
    "uppercase oauth prefix": {"provides": ["oauth-callback:Acme_"]},
    "short oauth prefix": {"provides": ["oauth-callback:a_"]},
    "provides not a list": {"provides": "runtime"},
    "runtime without type": {"runtime": {"binding": "none"}},
    "runtime unknown key": {"runtime": {"type": "wasm", "sandbox": True}},
    "fs permission": {"runtime": {"type": "wasm", "permissions": {"fs": "everything"}}},
    "exec not boolean": {"runtime": {"type": "wasm", "permissions": {"exec": "no"}}},
    "hosted tools": {"runtime": {"type": "wasm", "hosted": {"tools": "some"}}},
    "access not object": {"access": "first-party"},
    "requires unknown key": {"requires": {"features": []}},
    "feature charset": {"requires": {"providesFeatures": ["My.Feature"]}},
    "feature object key": {"requires": {"providesFeatures": [{"id": "a.b", "name": "x"}]}},
    "role name": {"requires": {"defaultRoleGrants": {"Owner": []}}},
    "package id type": {"requires": {"packages": [3]}},
    "surface kind": {"app": {"surfaces": [{**_WIDGET, "kind": "panel"}]}},
    "surface without kind": {"app": {"surfaces": [{"id": "x"}]}},
    "widget without type": {"app": {"surfaces": [{k: v for k, v in _WIDGET.items() if k != "type"}]}},
    "renderer": {"app": {"surfaces": [{**_WIDGET, "component": {"renderer": "vue"}}]}},
    "iframe without url": {"app": {"surfaces": [{**_WIDGET, "component": {"renderer": "iframe"}}]}},
    "asset mode": {"app": {"surfaces": [{**_WIDGET, "component": {**_WIDGET["component"], "assetMode": "inline"}}]}},
    "surface id charset": {"app": {"surfaces": [{**_WIDGET, "type": "a/b"}]}},
    "dock action": {
        "app": {"surfaces": [{"kind": "dock", "id": "d", "label": "D", "action": {"type": "open", "widget": "w"}}]}
    },
    "module key": {"app": {"module": {"entry": "dist/app/host.js", "url": "x"}}},
    "module without entry": {"app": {"module": {"css": "dist/app/host.css"}}},
    "module provides count": {
        "app": {"module": {"entry": "dist/app/host.js", "provides": [f"acme-pkg/{i}" for i in range(17)]}}
    },
    "events count": {"events": [GOOD["events"][0]] * 65},
    "event without schema": {"events": [{k: v for k, v in GOOD["events"][0].items() if k != "dataSchema"}]},
    "event id charset": {"events": [{**GOOD["events"][0], "id": "Report Failed"}]},
    "notify tone": {"events": [{**GOOD["events"][0], "notify": {"tone": "loud"}}]},
    "event requires": {"events": [{**GOOD["events"][0], "requires": {"roles": []}}]},
}


@pytest.fixture(scope="module")
def validator() -> Draft202012Validator:
    schema = manifest_schema()
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def test_good_manifest_validates(validator):
    assert list(validator.iter_errors(manifest(GOOD))) == []


@pytest.mark.parametrize("key", list(GOOD))
def test_each_good_section_validates_alone(validator, key):
    assert list(validator.iter_errors(manifest({key: GOOD[key]}))) == []


@pytest.mark.parametrize("block", BROKEN.values(), ids=BROKEN.keys())
def test_broken_shapes_fail_the_schema_and_the_checker(validator, check_block, block):
    assert not validator.is_valid(manifest(block))
    assert any(severity == "error" for severity, _, _ in check_block(block))


def test_descriptions_reach_the_schema():
    neuralis = manifest_schema()["properties"]["neuralis"]["properties"]
    for key in ("provides", "runtime", "access", "requires", "app", "events"):
        assert neuralis[key].get("description"), key
    assert "first-party" in neuralis["provides"]["description"]
    assert "first-party" in neuralis["events"]["description"]
    assert "first-party" in neuralis["app"]["properties"]["module"]["description"]


_PAGE = {"app/surfaces/widget/w/index.html": "<p>w</p>", "src/events/s.ts": "export const subject = 's';"}
_IFRAME = {"renderer": "iframe", "url": "./app/surfaces/widget/w/index.html"}
_W = {"kind": "widget", "id": "w", "type": "w", "title": "W", "component": _IFRAME}
_EVENT = {"id": "a.b", "title": "T", "subject": "s", "dataSchema": {"type": "object"}}
WARNED_ONLY = {
    "neuralis block": {"descripton": "typo", "futureKey": {"x": 1}},
    "widget": {"app": {"surfaces": [{**_W, "icon": "chart"}]}},
    "iframe block": {"app": {"surfaces": [{**_W, "component": {**_IFRAME, "sandbox": "allow-forms"}}]}},
    "event": {"events": [{**_EVENT, "severity": "high"}]},
    "notify": {"events": [{**_EVENT, "notify": {"default": "on", "sound": "chime"}}]},
}


@pytest.mark.parametrize("block", WARNED_ONLY.values(), ids=WARNED_ONLY.keys())
def test_a_key_check_only_warns_about_is_no_error_for_an_editor(validator, check_block, block):
    # issue 11, defect 7: the schema closed the top level while check only warned on unknown keys
    found = check_block(block, files=_PAGE)
    assert found and {severity for severity, _, _ in found} == {"warning"}
    assert list(validator.iter_errors(manifest(block))) == []


def test_the_schema_closes_exactly_the_objects_check_closes():
    top = manifest_schema()["properties"]["neuralis"]
    assert "additionalProperties" not in top  # unknown block keys are NB0109 warnings
    assert top["properties"]["app"]["properties"]["module"]["additionalProperties"] is False  # NB0406 errors
    assert top["properties"]["credentials"]["items"]["additionalProperties"] is False
