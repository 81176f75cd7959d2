"""Paths the host serves by URL are judged as a browser resolves them (issue 11 defect 6, issue 12 group 4)."""

from __future__ import annotations

from pathlib import Path

import pytest

from neuralis_build.check import check_path
from neuralis_build.manifest.urlpath import ServedPath, served_path
from tests.conftest import findings
from tests.hostile.conftest import package_json, write_package

URL = "/neuralis/app/surfaces/0/component/url"
ENTRY = "/neuralis/app/module/entry"
PAGES = {
    "app/surfaces/widget/my_workspace/index.html": "<p>mine</p>",
    "app/surfaces/widget/my_workspace/my page.html": "<p>spaced</p>",
    "app/surfaces/widget/other/index.html": "<p>another widget's</p>",
}


def widget(url: str, **component: str) -> dict:
    surface = {"kind": "widget", "id": "w", "type": "my_workspace", "title": "W"}
    surface["component"] = {"renderer": "iframe", "url": url, **component}
    return {"app": {"surfaces": [surface]}}


@pytest.mark.parametrize(
    "url",
    [
        "./app/surfaces/widget/my_workspace/%2e%2e/other/index.html",
        "./app/surfaces/widget/my_workspace/%2E%2E/other/index.html",
        "./app/surfaces/widget/my_workspace/.%2E/other/index.html",
        "./app/surfaces/widget/my_workspace/%2e./other/index.html",
        "./app/surfaces/widget/my_workspace/.\t./other/index.html",
        "./app/surfaces/widget/my_workspace/.\n./other/index.html",
    ],
)
def test_a_hidden_dotdot_in_an_iframe_url_leaves_the_root_as_a_browser_resolves_it(pkg: Path, url: str):
    write_package(pkg, package_json(widget(url)), PAGES)
    (d,) = check_path(pkg, "untrusted").diagnostics
    assert (d.code, d.pointer) == ("NB0508", URL)
    assert d.message.endswith(
        "is outside this widget's root app/surfaces/widget/my_workspace/ "
        "(a browser resolves it to app/surfaces/widget/other/index.html)"
    )


def test_a_hidden_dotdot_that_stays_in_the_root_is_still_refused_as_misleading(pkg: Path):
    write_package(pkg, package_json(widget("./app/surfaces/widget/my_workspace/x/%2e%2e/index.html")), PAGES)
    (d,) = check_path(pkg, "untrusted").diagnostics
    assert (d.code, d.pointer, d.hint) == (
        "NB0507",
        URL,
        "write the path as the browser reads it: ./app/surfaces/widget/my_workspace/index.html",
    )


def test_a_percent_encoded_name_is_the_file_a_server_decodes_it_to(pkg: Path):
    write_package(pkg, package_json(widget("./app/surfaces/widget/my_workspace/my%20page.html")), PAGES)
    assert check_path(pkg, "untrusted").diagnostics == []
    write_package(pkg, package_json(widget("./app/surfaces/widget/my_workspace/no%20such.html")), PAGES)
    assert findings(check_path(pkg, "untrusted")) == [("error", "NB0509", URL)]


def test_an_encoded_separator_names_no_file(pkg: Path):
    write_package(pkg, package_json(widget("./app/surfaces/widget/my_workspace/a%2Fb.html")), PAGES)
    (d,) = check_path(pkg, "untrusted").diagnostics
    assert (d.code, d.message) == (
        "NB0507",
        '"./app/surfaces/widget/my_workspace/a%2Fb.html" names no file a browser can load from the package',
    )


def test_a_bundle_reference_is_resolved_as_a_browser_resolves_it(pkg: Path):
    page = '<link rel="stylesheet" href="%2e%2e/other/index.html"><img src="./img/%2e%2e/logo.png">'
    files = {**PAGES, "app/surfaces/widget/my_workspace/index.html": page}
    files["app/surfaces/widget/my_workspace/logo.png"] = "png"
    write_package(pkg, package_json(widget("./app/surfaces/widget/my_workspace/index.html", assetMode="bundle")), files)
    assert [(d.severity, d.code, d.message) for d in check_path(pkg, "untrusted").diagnostics] == [
        (
            "warning",
            "NB0514",
            'app/surfaces/widget/my_workspace/index.html line 1 references "%2e%2e/other/index.html", which is not '
            "a file under app/surfaces/widget/my_workspace/",
        )
    ]


@pytest.mark.parametrize(
    ("entry", "serves"),
    [
        ("dist/app/%2e%2e/%2e%2e/x.js", "x.js"),
        ("dist/app/.%2e/.%2E/x.js", "x.js"),
        ("dist/app/.\t./x.js", "dist/x.js"),
        ("dist/app/%2e%2e/app/host.js", "dist/app/host.js"),
        ("dist/app/host.js?v=2", "dist/app/host.js"),
    ],
)
def test_an_app_module_entry_is_judged_as_the_url_the_host_serves(pkg: Path, entry: str, serves: str):
    write_package(pkg, package_json({"app": {"module": {"entry": entry}}}))
    (d,) = [d for d in check_path(pkg, "first-party").diagnostics if not d.code.startswith("NB16")]
    assert (d.code, d.pointer, d.message) == (
        "NB0402",
        ENTRY,
        f'"{entry}" is read differently as a URL: the host would serve "{serves}"',
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("dist/app/host.js", ServedPath("dist/app/host.js", True)),
        ("dist/app/%C3%A9.js", ServedPath("dist/app/é.js", True)),
        ("dist/app/é.js", ServedPath("dist/app/é.js", True)),
        (" dist/app/host.js", ServedPath("dist/app/host.js", False)),
        ("a/%2e%2e/%2e%2e/%2e%2e/b", ServedPath("b", False)),
        ("//evil.example/x.js", None),
        ("javascript:alert(1)", None),
        ("dist/app/%FF.js", None),
        ("dist/app/%5c..%5cx.js", None),
    ],
)
def test_served_path(text: str, expected: ServedPath | None):
    assert served_path(text) == expected
