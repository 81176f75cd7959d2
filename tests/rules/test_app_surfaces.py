"""app.surfaces: kinds, renderers by trust, iframe roots, entries on disk, dock actions, unique ids."""

from __future__ import annotations

import os
from typing import Any

import pytest

from neuralis_build.check import check_path
from neuralis_build.manifest import htmlrefs
from tests.conftest import build_file_tree, findings, manifest

ENTRY = "app/surfaces/widget/my_workspace/index.html"
CARD_ENTRY = "app/surfaces/card/acme.summary/index.html"
PAGE = "<!doctype html><html><head><style>body { margin: 0 }</style></head><body><script>1</script></body></html>\n"
TIERS = ["first-party", "trusted", "untrusted"]


def widget(**over: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "kind": "widget",
        "id": "my-pkg.widget",
        "type": "my_workspace",
        "title": "My Package",
        "component": {"renderer": "iframe", "url": f"./{ENTRY}"},
        "requires": {"features": ["my-pkg.read"]},
    }
    base.update(over)
    return base


def card(**over: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"kind": "card", "id": "acme.summary", "render": {"renderer": "iframe", "url": CARD_ENTRY}}
    base.update(over)
    return base


def dock(**over: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "kind": "dock",
        "id": "my-pkg.open",
        "label": "My Package",
        "action": {"type": "open-widget", "widget": "my_workspace"},
    }
    base.update(over)
    return base


def app(*surfaces: dict[str, Any], **more: Any) -> dict[str, Any]:
    return {"app": {"surfaces": list(surfaces), **more}}


FILES = {ENTRY: PAGE, CARD_ENTRY: PAGE}
MODULE = {"entry": "dist/app/host.js"}
S = "/neuralis/app/surfaces"


@pytest.mark.parametrize("trust", TIERS)
def test_spec_example_with_a_card_passes_at_every_tier(check_block, trust):
    assert check_block(app(widget(), card(), dock()), trust, files=FILES) == []


def test_optional_fields(check_block):
    surfaces = [
        widget(component={"renderer": "iframe", "url": ENTRY, "assetMode": "self-contained"}),
        card(title="Summary", requires={"features": []}),
    ]
    assert check_block(app(*surfaces), files=FILES) == []


# --- kinds and shapes


def test_kind(check_block):
    assert check_block(app({"id": "x"})) == [("error", "NB0102", f"{S}/0")]
    assert check_block(app(widget(kind="panel"))) == [("error", "NB0501", f"{S}/0/kind")]
    assert check_block(app(widget(kind=1))) == [("error", "NB0100", f"{S}/0/kind")]
    assert check_block({"app": {"surfaces": {}}}) == [("error", "NB0100", S)]


def test_required_keys(check_block):
    no_type = widget()
    del no_type["type"]
    assert check_block(app(no_type)) == [("error", "NB0102", f"{S}/0")]
    assert check_block(app(card(render={"renderer": "iframe"})), files=FILES) == [("error", "NB0102", f"{S}/0/render")]
    assert check_block(app(dock(action={"type": "open-widget"}), widget()), files=FILES) == [
        ("error", "NB0102", f"{S}/0/action")
    ]


def test_unknown_keys_warn(check_block):
    found = check_block(
        app(widget(icon="star", component={"renderer": "iframe", "url": ENTRY, "height": 3}), extra=1), files=FILES
    )
    assert found == [
        ("warning", "NB0108", f"{S}/0/component/height"),
        ("warning", "NB0108", f"{S}/0/icon"),
        ("warning", "NB0108", "/neuralis/app/extra"),
    ]


def test_requires_gate_is_closed(check_block):
    found = check_block(app(widget(requires={"feature": ["my-pkg.read"]})), files=FILES)
    assert found == [("error", "NB0601", f"{S}/0/requires/feature")]
    found = check_block(app(widget(requires={"features": ["My.Read", "a.b", "a.b"]})), files=FILES)
    assert found == [
        ("error", "NB0605", f"{S}/0/requires/features/0"),
        ("error", "NB0610", f"{S}/0/requires/features/2"),
    ]


@pytest.mark.parametrize("bad", ["a/b", "..", "", ".hidden", "with space"])
def test_surface_ids_are_path_segments(check_block, bad):
    assert check_block(app(card(id=bad))) == [("error", "NB0502", f"{S}/0/id")]
    assert check_block(app(widget(type=bad))) == [("error", "NB0502", f"{S}/0/type")]


def test_surface_ids_are_unique_across_kinds(check_block):
    assert check_block(app(widget(), dock(id="my-pkg.widget")), files=FILES) == [("error", "NB0503", f"{S}/1/id")]


def test_widget_types_are_unique(check_block):
    assert check_block(app(widget(), widget(id="other")), files=FILES) == [("error", "NB0504", f"{S}/1/type")]


# --- renderers and trust


@pytest.mark.parametrize("kind", ["widget", "card"])
def test_react_is_first_party_with_a_module(check_block, kind):
    surface = widget(component={"renderer": "react"}) if kind == "widget" else card(render={"renderer": "react"})
    key = "component" if kind == "widget" else "render"
    assert check_block(app(surface, module=MODULE)) == []
    assert check_block(app(surface)) == [("error", "NB0513", f"{S}/0/{key}/renderer")]
    for trust in ("trusted", "untrusted"):
        assert check_block(app(surface, module=MODULE), trust) == [
            ("error", "NB0505", f"{S}/0/{key}/renderer"),
            ("warning", "NB0401", "/neuralis/app/module"),
        ]
        assert check_block(app(surface), trust) == [("error", "NB0505", f"{S}/0/{key}/renderer")]


def test_renderer_vocabulary(check_block):
    assert check_block(app(widget(component={"renderer": "vue"}))) == [("error", "NB0506", f"{S}/0/component/renderer")]
    assert check_block(app(widget(component={"url": ENTRY}))) == [("error", "NB0102", f"{S}/0/component")]


def test_asset_mode_vocabulary(check_block):
    component = {"renderer": "iframe", "url": ENTRY, "assetMode": "inline"}
    assert check_block(app(widget(component=component)), files=FILES) == [
        ("error", "NB0103", f"{S}/0/component/assetMode")
    ]


# --- iframe urls


@pytest.mark.parametrize(
    "url",
    [
        "https://example.com/index.html",
        "//cdn.example.com/index.html",
        "data:text/html,<p>",
        f"/{ENTRY}",
        "C:/app/index.html",
        "app\\surfaces\\widget\\my_workspace\\index.html",
        "app/surfaces/widget/my_workspace/../my_workspace/index.html",
        "app/surfaces/widget/my_workspace//index.html",
        f"{ENTRY}?v=1",
        f"{ENTRY}#top",
        "app/surfaces/widget/my_workspace/main.js",
    ],
)
def test_url_must_be_a_relative_html_path(check_block, url):
    assert check_block(app(widget(component={"renderer": "iframe", "url": url}))) == [
        ("error", "NB0507", f"{S}/0/component/url")
    ]


@pytest.mark.parametrize(
    "url",
    [
        "./index.html",
        "app/surfaces/widget/other/index.html",
        "app/surfaces/card/my_workspace/index.html",
        "app/surfaces/widget/my-pkg.widget/index.html",  # the widget's id, not its type
        "app/surfaces/widget/my_workspace.html",
        "app/surfaces/widget/my_workspace_v2/index.html",
        "dist/app/surfaces/widget/my_workspace/index.html",
    ],
)
@pytest.mark.parametrize("trust", TIERS)
def test_url_must_stay_in_the_surface_root(check_block, url, trust):
    assert check_block(app(widget(component={"renderer": "iframe", "url": url})), trust) == [
        ("error", "NB0508", f"{S}/0/component/url")
    ]


def test_card_root_uses_the_card_id(check_block):
    assert check_block(app(card()), files=FILES) == []
    found = check_block(app(card(render={"renderer": "iframe", "url": ENTRY})), files=FILES)
    assert found == [("error", "NB0508", f"{S}/0/render/url")]


def test_nested_entry_inside_the_root(check_block):
    nested = "app/surfaces/widget/my_workspace/dist/index.html"
    assert check_block(app(widget(component={"renderer": "iframe", "url": nested})), files={nested: PAGE}) == []


# --- the entry on disk


def test_entry_must_exist(check_block):
    assert check_block(app(widget())) == [("error", "NB0509", f"{S}/0/component/url")]
    assert check_block(app(widget()), files={f"{ENTRY}/x": "a folder, not a file"}) == [
        ("error", "NB0509", f"{S}/0/component/url")
    ]


def test_entry_symlink_out_of_the_package(tmp_path):
    outside = tmp_path / "outside.html"
    outside.write_text(PAGE)
    root = build_file_tree(tmp_path / "pkg", {"package.json": manifest(app(widget()))})
    (root / ENTRY).parent.mkdir(parents=True)
    os.symlink(outside, root / ENTRY)
    assert findings(check_path(root, "first-party")) == [("error", "NB0509", f"{S}/0/component/url")]


SIBLING_PAGES = {
    "script": '<script src="app.js"></script>',
    "stylesheet": '<link rel="stylesheet" href="./style.css">',
    "image": '<img src="img/logo.png">',
    "srcset": '<img srcset="data:image/png;base64,AA 1x, logo@2x.png 2x">',
    "css url": "<style>body { background: url('bg.png') }</style>",
    "css import": '<style>@import "theme.css";</style>',
    "style attribute": '<div style="background-image: url(bg.png)"></div>',
    "module import": '<script type="module">import { x } from "./chunk.js"</script>',
    "root-relative": '<script src="/static/app.js"></script>',
    "parent": '<script src="../common/app.js"></script>',
    "anchor": '<a href="help.html">help</a>',
}


@pytest.mark.parametrize("page", SIBLING_PAGES.values(), ids=SIBLING_PAGES.keys())
@pytest.mark.parametrize("mode", [None, "self-contained"])
def test_self_contained_entry_references_no_file(check_block, page, mode):
    component: dict[str, Any] = {"renderer": "iframe", "url": ENTRY}
    if mode:
        component["assetMode"] = mode
    assert check_block(app(widget(component=component)), files={ENTRY: page}) == [
        ("error", "NB0510", f"{S}/0/component/url")
    ]


def test_self_contained_message_names_the_file(check_tree):
    page = '<html>\n<body>\n<script src="app.js"></script>\n</body></html>'
    result = check_tree({"package.json": manifest(app(widget())), ENTRY: page})
    (d,) = result.diagnostics
    assert d.message == (
        'app/surfaces/widget/my_workspace/index.html line 3 references the file "app.js", '
        "but a self-contained entry is served alone"
    )
    assert d.hint is not None
    assert '"assetMode": "bundle"' in d.hint
    assert "inline" in d.hint


def test_self_contained_entry_may_reference_what_is_not_a_file(check_block):
    page = (
        '<img src="data:image/png;base64,AAAA"><img src="blob:https://x/1">'
        '<script src="https://cdn.example.com/x.js"></script><link href="//fonts.example.com/f.css">'
        '<a href="#top">top</a><a href="mailto:a@b.c">mail</a><a href="">self</a>'
        "<style>div { background: url(data:image/svg+xml;utf8,<svg/>) }</style>"
        '<script>const s = "./not-an-import.js"</script>'
    )
    assert check_block(app(widget()), files={ENTRY: page}) == []


def test_bundle_entry_may_load_its_siblings(check_block):
    root = "app/surfaces/widget/my_workspace"
    page = '<script type="module" src="./assets/app.js"></script><link rel="stylesheet" href="style.css">'
    files = {ENTRY: page, f"{root}/assets/app.js": "", f"{root}/style.css": ""}
    component = {"renderer": "iframe", "url": ENTRY, "assetMode": "bundle"}
    assert check_block(app(widget(component=component)), files=files) == []


@pytest.mark.parametrize("reference", ["missing.js", "../other/app.js", "/static/app.js", "../../../../package.json"])
def test_bundle_entry_references_outside_its_root_warn(check_block, reference):
    files = {ENTRY: f'<script src="{reference}"></script>', "app/surfaces/widget/other/app.js": ""}
    component = {"renderer": "iframe", "url": ENTRY, "assetMode": "bundle"}
    assert check_block(app(widget(component=component)), files=files) == [("warning", "NB0514", f"{S}/0/component/url")]


# --- dock entries


def test_dock_action(check_block):
    assert check_block(app(widget(), dock(action={"type": "open-card", "widget": "my_workspace"})), files=FILES) == [
        ("error", "NB0511", f"{S}/1/action/type")
    ]
    assert check_block(app(widget(), dock(action={"type": "open-widget", "widget": "nope"})), files=FILES) == [
        ("error", "NB0512", f"{S}/1/action/widget")
    ]
    # the card id is not a widget type
    assert check_block(app(card(), dock(action={"type": "open-widget", "widget": "acme.summary"})), files=FILES) == [
        ("error", "NB0512", f"{S}/1/action/widget")
    ]


def test_dock_target_is_not_judged_when_a_widget_is_broken(check_block):
    assert check_block(app(widget(title=""), dock()), files=FILES) == [("error", "NB0105", f"{S}/0/title")]


def test_html_references_report_lines():
    page = '<html>\n<head>\n<style>\na { b: url("x.png") }\n</style>\n</head>\n<img src=y.png></html>'
    assert htmlrefs.file_references(page).references == [
        htmlrefs.Reference("x.png", 4),
        htmlrefs.Reference("y.png", 7),
    ]
