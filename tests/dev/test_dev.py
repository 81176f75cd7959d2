"""`neuralis-build dev` end to end: the real command as a subprocess, the real esbuild and node, and
Debian's headless chromium through Playwright. Every wait is on a condition, never on time."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.browserkit import dump, requires_chromium, surface_states, wait_for_host
from tests.conftest import EXAMPLES, requires_node
from tests.dev.conftest import group_alive
from tests.ui.ui_helpers import build_file_tree, copy_example, link_package

pytestmark = [pytest.mark.e2e, pytest.mark.browser, requires_chromium, requires_node]

BIN = Path(sys.executable).parent
OWNERS = '{"owners": {"r-1": "dev-user"}}'


def reports_with_charts(tmp_path: Path) -> Path:
    """acme-reports beside a built acme-charts, linked into its node_modules as npm does for file:."""
    charts = copy_example("acme-charts", tmp_path)
    reports = copy_example("acme-reports", tmp_path)
    link_package(reports, charts, "@acme/charts")
    done = subprocess.run([str(BIN / "neuralis-build"), "ui", str(charts)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return reports


def open_dev_page(browser_page, url: str) -> dict:
    page = browser_page.page
    page.goto(url)
    status = wait_for_host(page)
    page.wait_for_function("() => window.__neuralisDev && window.__neuralisDev.state !== null")
    return status


def stop_cleanly(dev) -> None:
    pgid = dev.proc.pid
    assert dev.stop() == 0, "\n".join(dev.lines)
    assert dev.lines[-1] == "neuralis-build dev: stopped"
    assert not group_alive(pgid), "a process of the dev session was left behind"


def publish(page, data: dict, state: str) -> dict:
    page.fill("#nh-data", json.dumps(data))
    page.fill("#nh-state", state)
    page.evaluate("() => { window.__neuralisDev.lastPublish = null; }")
    page.click("#nh-publish")
    page.wait_for_function("() => window.__neuralisDev.lastPublish !== null")
    result: dict = page.evaluate("() => window.__neuralisDev.lastPublish")
    return result


def test_the_ui_example_renders_every_surface_and_publishes_test_events(tmp_path, dev_server, browser_page):
    reports = reports_with_charts(tmp_path)
    dev = dev_server(reports)
    # the build's line comes before the URL; on a fresh machine a once-per-machine step (the host page's tools
    # installed into the toolchain's cache) may say so first
    assert any(re.fullmatch(r".* built in \d+(\.\d+)? m?s", line) for line in dev.lines), dev.lines
    page = browser_page.page
    status = open_dev_page(browser_page, dev.url)
    assert surface_states(status) == {
        "@acme/reports#widget:acme-reports.widget": ("rendered", None),
        "@acme/reports#card:acme-reports.summary": ("rendered", None),
        "@acme/reports#dock:acme-reports.open": ("rendered", None),
    }, dump(status)
    assert page.locator('[data-surface-id="acme-reports.summary"] .acme-report__total').inner_text() == "1,234 results"
    assert page.locator("#neuralis-diagnostics .nh-diags--ok").inner_text() == "no findings"
    # the modules come from the package origin, never from the page's own
    config = page.evaluate("() => JSON.parse(document.getElementById('neuralis-host-config').textContent)")
    urls = [p["module"]["url"] for p in config["packages"]]
    assert urls and all(u.startswith(config["dev"]["files"] + "pkg/") for u in urls), urls
    assert not config["dev"]["files"].startswith(dev.origin + "/")

    # The dock entry opens its widget.
    page.get_by_role("button", name="Reports", exact=True).click()
    page.wait_for_function("() => window.__neuralisHost.opened !== null")
    assert page.locator('[data-surface-id="acme-reports.widget"]').get_attribute("data-open") == "true"

    # A test event through src/events/report.ts: visible() admits the owner, denies anyone else.
    admitted = publish(page, {"reportId": "r-1"}, OWNERS)
    assert admitted == {
        "ok": True,
        "admitted": True,
        "reason": "visible(event, session, state) returned true",
        "error": None,
        "notification": {"title": "Report failed", "tone": "error", "nav": None, "dock": "acme-reports.open"},
    }
    denied = publish(page, {"reportId": "r-1"}, '{"owners": {"r-1": "someone-else"}}')
    assert (denied["ok"], denied["admitted"], denied["reason"]) == (
        True,
        False,
        "visible(event, session, state) returned false",
    )
    assert page.locator("#nh-verdict [data-verdict]").get_attribute("data-verdict") == "denied"
    broken = publish(page, {"reportId": 5}, OWNERS)
    assert broken["error"] == "publish throws: data/reportId: 5 is not of type 'string' (dataSchema of report.failed)"

    assert browser_page.log.problems() == []
    stop_cleanly(dev)


@pytest.mark.parametrize(("example", "trust"), [("weather-widget", "trusted"), ("acme-ops", "first-party")])
def test_the_iframe_examples_render_every_surface(example, trust, tmp_path, dev_server, browser_page):
    root = copy_example(example, tmp_path)
    dev = dev_server(root, "--trust", trust)
    status = open_dev_page(browser_page, dev.url)
    manifest = json.loads((EXAMPLES / example / "package.json").read_text())
    declared = {f"{manifest['name']}#{s['kind']}:{s['id']}" for s in manifest["neuralis"]["app"]["surfaces"]}
    assert surface_states(status) == dict.fromkeys(declared, ("rendered", None)), dump(status)
    assert browser_page.log.problems() == []
    stop_cleanly(dev)


def test_a_broken_rebuild_keeps_the_last_page_and_a_fixed_one_reloads(tmp_path, dev_server, browser_page):
    reports = reports_with_charts(tmp_path)
    dev = dev_server(reports)
    page = browser_page.page
    open_dev_page(browser_page, dev.url)
    first = page.evaluate("() => window.__neuralisDev.generation")
    page.evaluate("() => { window.__sameDocument = true; }")

    host = reports / "src/app/host.tsx"
    good = host.read_text()
    host.write_text(good + "\nexport const broken = ;\n")
    dev.wait_line(r"failed \(src/app/host\.tsx\): src/app/host\.tsx:\d+:\d+: NB1900")
    page.wait_for_selector("#neuralis-overlay")
    overlay = page.locator("#neuralis-overlay .nh-overlay__error").inner_text()
    assert overlay.startswith("esbuild could not build src/app/host.tsx (1 error)\nsrc/app/host.tsx:")
    assert 'NB1900 Unexpected ";"' in overlay
    frame = page.locator("#neuralis-overlay .nh-overlay__frame").inner_text().splitlines()
    at = next(i for i, line in enumerate(frame) if line.startswith(">"))
    assert frame[at].endswith("| export const broken = ;")
    assert frame[at + 1] == "       | " + " " * frame[at].split("| ", 1)[1].index(";") + "^"
    # The last good page stays: same document, same generation, every surface still drawn.
    assert page.evaluate("() => [window.__sameDocument, window.__neuralisDev.generation]") == [True, first]
    assert page.locator('[data-surface-id="acme-reports.summary"] .acme-report__total').inner_text() == "1,234 results"
    assert page.locator("#neuralis-build [data-ok]").get_attribute("data-ok") == "false"

    host.write_text(good.replace("title={`Report ${reportId}`}", "title={`Run ${reportId}`}"))
    dev.wait_line(r"ok in \d+ ms \(src/app/host\.tsx\): the page reloads")
    page.wait_for_function(f"() => window.__neuralisDev && window.__neuralisDev.generation > {first}")
    wait_for_host(page)
    assert page.evaluate("() => window.__sameDocument") is None  # a new document: the page reloaded
    assert page.locator("#neuralis-overlay").count() == 0
    assert page.locator('[data-surface-id="acme-reports.widget"] .acme-report__title').inner_text() == "Run nightly"

    # The check diagnostics follow every change.
    manifest = json.loads((reports / "package.json").read_text())
    manifest["neuralis"]["colour"] = "blue"
    (reports / "package.json").write_text(json.dumps(manifest, indent=2))
    page.wait_for_selector('#neuralis-diagnostics [data-code="NB0109"]')
    assert 'unknown key "colour"' in page.locator('#neuralis-diagnostics [data-code="NB0109"]').inner_text()

    assert browser_page.log.problems() == []
    stop_cleanly(dev)


FETCHER = """\
<!doctype html>
<html><body><p id="out">pending</p>
<script type="module">
  const r = await fetch("./data.json");
  document.getElementById("out").textContent = String(r.status);
</script>
</body></html>
"""


def test_a_self_contained_entry_cannot_fetch_a_sibling_and_nothing_outside_is_served(
    tmp_path, dev_server, browser_page
):
    root = build_file_tree(
        tmp_path / "frames",
        {
            "package.json": {
                "name": "frames",
                "version": "1.0.0",
                "neuralis": {
                    "app": {
                        "surfaces": [
                            {
                                "kind": "widget",
                                "id": "solo",
                                "type": "solo",
                                "title": "Solo",
                                "component": {"renderer": "iframe", "url": "./app/surfaces/widget/solo/index.html"},
                            },
                            {
                                "kind": "card",
                                "id": "pair",
                                "title": "Pair",
                                "render": {
                                    "renderer": "iframe",
                                    "url": "./app/surfaces/card/pair/index.html",
                                    "assetMode": "bundle",
                                },
                            },
                        ]
                    }
                },
            },
            "app/surfaces/widget/solo/index.html": FETCHER,
            "app/surfaces/widget/solo/data.json": "{}",
            "app/surfaces/card/pair/index.html": FETCHER,
            "app/surfaces/card/pair/data.json": "{}",
            "secret.txt": "not served",
        },
    )
    os.symlink(root / "secret.txt", root / "app/surfaces/card/pair/leak.json")
    dev = dev_server(root, "--trust", "untrusted")
    page = browser_page.page
    status = open_dev_page(browser_page, dev.url)
    assert surface_states(status) == {
        "frames#widget:solo": ("rendered", None),
        "frames#card:pair": ("rendered", None),
    }
    solo = page.frame_locator('[data-surface-id="solo"] iframe').locator("#out")
    pair = page.frame_locator('[data-surface-id="pair"] iframe').locator("#out")
    solo.filter(has_not_text="pending").wait_for()
    pair.filter(has_not_text="pending").wait_for()
    assert (solo.inner_text(), pair.inner_text()) == ("404", "200")
    files = page.evaluate("() => JSON.parse(document.getElementById('neuralis-host-config').textContent).dev.files")
    assert files.startswith("http://127.0.0.1:") and not files.startswith(dev.origin + "/")
    base = files + "pkg/frames/"
    assert browser_page.log.failed_requests == [f"GET {base}app/surfaces/widget/solo/data.json: HTTP 404"]

    def status_of(path: str) -> int:
        return page.request.get(files + path).status

    assert status_of("pkg/frames/app/surfaces/card/pair/data.json") == 200
    for path in (
        "pkg/frames/app/surfaces/widget/solo/data.json",
        "pkg/frames/package.json",
        "pkg/frames/secret.txt",
        "pkg/frames/app/surfaces/card/pair/leak.json",
        "pkg/frames/app/surfaces/card/pair/%2e%2e/%2e%2e/%2e%2e/%2e%2e/secret.txt",
        "pkg/frames/app/surfaces/card/pair/..%2f..%2f..%2f..%2fsecret.txt",
        "pkg/other/package.json",
        "__neuralis/vendor/../../secret.txt",
    ):
        assert status_of(path) == 404, path
    assert page.request.get(dev.origin + "/pkg/frames/app/surfaces/card/pair/data.json").status == 404
    stop_cleanly(dev)


def test_a_module_refused_at_its_trust_shows_the_placeholder_with_its_reason(tmp_path, dev_server, browser_page):
    reports = reports_with_charts(tmp_path)
    dev = dev_server(reports, "--trust", "trusted")
    page = browser_page.page
    status = open_dev_page(browser_page, dev.url)
    reason = (
        "the UI module was refused: app.module is honored for first-party packages only, and this package is trusted"
    )
    assert surface_states(status)["@acme/reports#widget:acme-reports.widget"] == ("placeholder", reason)
    assert surface_states(status)["@acme/reports#card:acme-reports.summary"] == ("placeholder", reason)
    card = page.locator('[data-surface-id="acme-reports.summary"] .nh-placeholder')
    assert card.locator("strong").inner_text() == "This card cannot be rendered"
    assert card.locator(".nh-placeholder__reason").inner_text() == reason
    assert (
        page.locator('[data-package="@acme/reports"] .nh-refused')
        .inner_text()
        .startswith(
            "the host refuses the package: NB0505 direct React surfaces are first-party only; this package is trusted"
        )
    )
    assert page.locator('#neuralis-diagnostics [data-code="NB0505"]').count() == 2
    # the UI package in its node_modules came with the package under review: judged at its tier too
    charts = next(p for p in status["packages"] if p["name"] == "@acme/charts")
    assert charts["module"]["status"] == "refused", charts
    stop_cleanly(dev)


@pytest.mark.parametrize("template", ["widget", "ui-module", "full"])
def test_a_scaffolded_package_renders_every_surface(template, tmp_path, dev_server, browser_page):
    pkg = tmp_path / "pkg"
    done = subprocess.run(
        [str(BIN / "neuralis"), "new", f"@e2e/{template}", "--template", template, "--dir", str(pkg), "--no-input"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert "  npm run dev" in done.stdout.splitlines()
    manifest = json.loads((pkg / "package.json").read_text())
    script = manifest["scripts"]["dev"]
    assert script.startswith("node scripts/neuralis-build.mjs dev --trust ")
    dev = dev_server(pkg, *script.split()[3:])
    status = open_dev_page(browser_page, dev.url)
    declared = {f"@e2e/{template}#{s['kind']}:{s['id']}" for s in manifest["neuralis"]["app"]["surfaces"]}
    assert surface_states(status) == dict.fromkeys(declared, ("rendered", None)), dump(status)
    assert browser_page.log.problems() == []
    stop_cleanly(dev)


def test_dev_refuses_a_port_in_use_and_a_missing_folder(tmp_path):
    missing = subprocess.run(
        [str(BIN / "neuralis-build"), "dev", str(tmp_path / "nope")], capture_output=True, text=True, timeout=120
    )
    assert missing.returncode == 2
    assert f"error: {tmp_path / 'nope'}: not a folder" in missing.stderr
    (tmp_path / "empty").mkdir()
    empty = subprocess.run(
        [str(BIN / "neuralis-build"), "dev", str(tmp_path / "empty")], capture_output=True, text=True, timeout=120
    )
    assert empty.returncode == 2
    assert f"error: {tmp_path / 'empty'}: no package.json here, so there is no package to serve" in empty.stderr

    root = copy_example("hello-declarative", tmp_path)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        busy = subprocess.run(
            [str(BIN / "neuralis-build"), "dev", str(root), "--port", str(port)],
            capture_output=True,
            text=True,
            timeout=300,
        )
    assert busy.returncode == 2, busy.stderr
    assert f"error: cannot listen on 127.0.0.1:{port}: Address already in use" in busy.stderr
