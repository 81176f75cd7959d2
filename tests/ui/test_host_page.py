"""The host page draws what the host would and shows its "cannot be rendered" placeholder, with the
reason, for everything the host would refuse."""

from __future__ import annotations

import json
import re

import pytest

from neuralis_build.check import check_package
from neuralis_build.hostpage.model import judge_packages, served_file, served_files
from neuralis_build.hostprofile import default_host_profile
from neuralis_build.package import load_package
from tests.browserkit import dump, requires_chromium, surface_states, wait_for_host
from tests.ui.ui_helpers import ui_manifest

WIDGET = {"kind": "widget", "id": "w", "type": "hello", "title": "Hello", "component": {"renderer": "react"}}
CARD = {"kind": "card", "id": "c", "title": "Card", "render": {"renderer": "react"}}

GOOD = """\
import type { HostComponents, WidgetProps } from "@neuralis/client";
function Hello({ surface }: WidgetProps) { return <p className="hello">hello from {surface.type}</p>; }
export function install{name}HostComponents(host: HostComponents) { host.registerWidget("hello", Hello); }
"""
WRONG_CALL = """\
function Hello() { return <p>hello</p>; }
export function install{name}HostComponents(host: any) { host.register("hello", Hello); }
"""
NOTHING = "export function install{name}HostComponents(host: unknown) {}\n"
# A name the platform client library does not have (the stub implements exactly the declared API).
UNKNOWN_CLIENT = """\
// @ts-ignore: not in neuralis-client.d.ts
import { useNeuralisSession } from "@neuralis/client";
function Hello() { return <p>{String(useNeuralisSession())}</p>; }
export function install{name}HostComponents(host: any) { host.registerWidget("hello", Hello); }
"""


def ui_pkg(make_pkg, name: str, source: str, surfaces: list[dict]) -> object:
    manifest = ui_manifest(name=f"@acme/{name}")
    manifest["neuralis"]["app"]["surfaces"] = surfaces
    pascal = "Acme" + name.capitalize()
    return make_pkg({"package.json": manifest, "src/app/host.tsx": source.replace("{name}", pascal)}, name)


def test_surfaces_are_judged_and_served_only_from_their_trees(make_pkg, build):
    root = make_pkg(
        {
            "package.json": {
                "name": "frames",
                "version": "1.0.0",
                "neuralis": {
                    "app": {
                        "surfaces": [
                            {
                                "kind": "widget",
                                "id": "w",
                                "type": "solo",
                                "title": "Solo",
                                "component": {"renderer": "iframe", "url": "./app/surfaces/widget/solo/index.html"},
                            },
                            {
                                "kind": "card",
                                "id": "multi",
                                "render": {
                                    "renderer": "iframe",
                                    "url": "./app/surfaces/card/multi/index.html",
                                    "assetMode": "bundle",
                                },
                            },
                        ]
                    }
                },
            },
            "app/surfaces/widget/solo/index.html": "<p>solo</p>",
            "app/surfaces/widget/solo/data.json": "{}",
            "app/surfaces/card/multi/index.html": '<script src="./a.js"></script>',
            "app/surfaces/card/multi/a.js": "",
            "secret.txt": "no",
        }
    )
    (root / "app/surfaces/card/multi/link.txt").symlink_to(root / "secret.txt")
    host = default_host_profile()
    [pkg] = judge_packages([check_package(load_package(root), "trusted", host)], host)
    assert sorted(served_files(pkg)) == [
        "app/surfaces/card/multi/a.js",
        "app/surfaces/card/multi/index.html",
        "app/surfaces/widget/solo/index.html",
    ]
    for rel in (
        "app/surfaces/widget/solo/data.json",
        "secret.txt",
        "app/surfaces/card/multi/../../../../secret.txt",
        "app/surfaces/card/multi/link.txt",
        "package.json",
        "/etc/passwd",
    ):
        assert served_file(pkg, rel) is None, rel


@requires_chromium
@pytest.mark.e2e
@pytest.mark.browser
def test_every_refusal_shows_the_placeholder_with_its_reason(make_pkg, build, host_site, browser_page):
    good = ui_pkg(make_pkg, "good", GOOD, [WIDGET])
    wrong = ui_pkg(make_pkg, "wrong", WRONG_CALL, [WIDGET])
    empty = ui_pkg(make_pkg, "empty", NOTHING, [CARD])
    stale = ui_pkg(make_pkg, "stale", GOOD, [WIDGET])
    client = ui_pkg(make_pkg, "client", UNKNOWN_CLIENT, [WIDGET])
    for root in (good, wrong, empty, stale, client):
        build(root)
    record = json.loads((stale / "dist/app/shared-imports.json").read_text())
    (stale / "dist/app/shared-imports.json").write_text(json.dumps({**record, "reactMajor": 18}))
    bare = ui_pkg(make_pkg, "bare", GOOD, [WIDGET])
    (bare / "dist/app").mkdir(parents=True)
    (bare / "dist/app/host.js").write_text("export const nothing = 1;\n")
    (bare / "dist/app/shared-imports.json").write_text(
        json.dumps({"hostApiVersion": "1", "reactMajor": 19, "sharedImports": []})
    )

    served = host_site([good, wrong, empty, stale, bare, client])
    page = browser_page.page
    page.goto(served.url)
    status = wait_for_host(page)
    assert surface_states(status) == {
        "@acme/good#widget:w": ("rendered", None),
        "@acme/wrong#widget:w": (
            "placeholder",
            'no component was registered for the react widget "hello" (call host.registerWidget("hello", Component))',
        ),
        "@acme/empty#card:c": (
            "placeholder",
            'no component was registered for the react card "c" (call host.registerCard("c", Component))',
        ),
        "@acme/stale#widget:w": (
            "placeholder",
            "the UI module was refused: built against React 18, host provides React 19: "
            "move react to ^19.0.0 and rebuild with neuralis-build ui (npm run build:ui)",
        ),
        "@acme/bare#widget:w": (
            "placeholder",
            "the UI module was refused: dist/app/host.js exports nothing, but no install<Name>HostComponents "
            "function: add to the UI entry: export function installAcmeBareHostComponents(host) { ... }; then "
            "rebuild with neuralis-build ui (npm run build:ui)",
        ),
        "@acme/client#widget:w": (
            "placeholder",
            'dist/app/host.js imports "useNeuralisSession" from "@neuralis/client", which the host does not '
            "provide (it has useNeuralisTheme)",
        ),
    }, dump(status)
    assert page.locator('[data-package="@acme/good"] .hello').inner_text() == "hello from hello"
    placeholder = page.locator('[data-package="@acme/stale"] .nh-placeholder')
    assert placeholder.locator("strong").inner_text() == "This widget cannot be rendered"
    # A call outside the host API is a console error naming the call.
    assert browser_page.log.console_errors == [
        '[neuralis host] @acme/wrong: host.register("hello", Hello) is not part of the host API v1 '
        "(it has registerWidget, registerCard)",
        '[neuralis host] @acme/client: dist/app/host.js imports "useNeuralisSession" from "@neuralis/client", '
        "which the host does not provide (it has useNeuralisTheme) SyntaxError: The requested module "
        "'@neuralis/client' does not provide an export named 'useNeuralisSession'",
    ]
    assert browser_page.log.page_errors == browser_page.log.failed_requests == []


@requires_chromium
@pytest.mark.e2e
@pytest.mark.browser
def test_a_module_below_first_party_is_refused_at_its_trust(make_pkg, build, host_site, browser_page):
    good = ui_pkg(make_pkg, "good", GOOD, [WIDGET])
    build(good)
    served = host_site([good], trust="trusted")
    browser_page.page.goto(served.url)
    status = wait_for_host(browser_page.page)
    assert surface_states(status) == {
        "@acme/good#widget:w": (
            "placeholder",
            "the UI module was refused: app.module is honored for first-party packages only, "
            "and this package is trusted",
        )
    }
    [pkg] = status["packages"]
    assert pkg["refused"].startswith("the host refuses the package: NB0505 direct React surfaces are first-party only")
    assert browser_page.log.problems() == []


MEASURES = """\
import { useLayoutEffect, useRef, useState } from "react";
// A chart library measures its element when it mounts: it must be in the document by then.
function Hello() {
  const ref = useRef<HTMLDivElement>(null);
  const [seen, setSeen] = useState("");
  useLayoutEffect(() => {
    const node = ref.current!;
    setSeen(`${document.contains(node)} ${node.getBoundingClientRect().width > 0}`);
  }, []);
  return <div ref={ref} className="measured">{seen}</div>;
}
export function install{name}HostComponents(host: any) { host.registerWidget("hello", Hello); }
"""


@requires_chromium
@pytest.mark.e2e
@pytest.mark.browser
def test_a_surface_is_in_the_document_when_it_mounts(make_pkg, build, host_site, browser_page):
    """The host page renders a React surface into its place in the page, not into a detached node that is
    attached afterwards (apexcharts found no element there, and drew nothing)."""
    pkg = ui_pkg(make_pkg, "measures", MEASURES, [WIDGET])
    build(pkg)
    served = host_site([pkg])
    browser_page.page.goto(served.url)
    status = wait_for_host(browser_page.page)
    assert surface_states(status) == {"@acme/measures#widget:w": ("rendered", None)}, dump(status)
    assert browser_page.page.text_content(".measured") == "true true"
    assert browser_page.log.problems() == []


def test_one_definition_of_the_host_api():
    """The shipped declarations, the examples' copies and the dev stub's exports agree."""
    from neuralis_build.esbuild.analyze import read_modules
    from neuralis_build.hostpage.vendor import CLIENT_EXPORTS, DATA
    from tests.conftest import EXAMPLES, REPO

    shipped = (REPO / "neuralis_build/data/types/neuralis-client.d.ts").read_bytes()
    for example in ("acme-charts", "acme-reports"):
        assert (EXAMPLES / example / "src/types/neuralis-client.d.ts").read_bytes() == shipped, example
    declared = set(re.findall(r"^\s*export function (\w+)", shipped.decode(), re.MULTILINE))
    stub = set(read_modules(DATA, ["neuralis-client.js"])["neuralis-client.js"].exports)
    assert declared == stub == set(CLIENT_EXPORTS) == {"useNeuralisTheme"}
    methods = set(re.findall(r"^\s*(register\w+)[<(]", shipped.decode(), re.MULTILINE))
    assert methods == {"registerWidget", "registerCard"}
    page = (DATA / "host-page.js").read_text()
    assert 'const HOST_API = ["registerWidget", "registerCard"];' in page
