"""A surface whose component throws, while mounting or at any time after, is marked failed with the error: in the
page (the panel says so) and in window.__neuralisHost. The same host page script runs on the dev page and on the
static host page: both are driven here, in Chromium, with packages built by the real command."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.browserkit import dump, host_status, requires_chromium, surface_states, wait_for_host
from tests.conftest import requires_node
from tests.dev.test_dev import open_dev_page, stop_cleanly
from tests.ui.ui_helpers import build_file_tree, ui_manifest

pytestmark = [pytest.mark.e2e, pytest.mark.browser, requires_chromium, requires_node]

BIN = Path(sys.executable).parent

THROWS = """\
import { useEffect, useState } from "react";

function Mount(): never {
  throw new Error("mount failed");
}
function Effect() {
  useEffect(() => {
    throw new Error("effect failed");
  }, []);
  return <p>effect</p>;
}
function Click() {
  const [clicked, setClicked] = useState(false);
  if (clicked) throw new Error("render after click failed");
  return <button onClick={() => setClicked(true)}>render</button>;
}
function Handler() {
  const fail = () => {
    throw new Error("handler failed");
  };
  return <button onClick={fail}>handle</button>;
}
function Later() {
  const [late, setLate] = useState(false);
  useEffect(() => {
    const t = setTimeout(() => setLate(true), 50);
    return () => clearTimeout(t);
  }, []);
  if (late) throw new Error("later render failed");
  return <p>soon</p>;
}
function Timer() {
  useEffect(() => {
    setTimeout(() => {
      throw new Error("timer failed");
    }, 50);
  }, []);
  return <p>timer</p>;
}
function Fine() {
  return <p className="mode">{process.env.NODE_ENV}</p>;
}

const cards = { mount: Mount, effect: Effect, click: Click, handler: Handler, later: Later, timer: Timer, fine: Fine };
export function installAcmeThrowsHostComponents(host: { registerCard(id: string, c: unknown): void }) {
  for (const [id, component] of Object.entries(cards)) host.registerCard(id, component);
}
"""
CARDS = ("mount", "effect", "click", "handler", "later", "timer", "fine")

SINGLE = """\
import { useEffect } from "react";
function Ticker() {
  useEffect(() => {
    setTimeout(() => {
      throw new TypeError("single timer failed");
    }, 50);
  }, []);
  return <p className="ticker">tick</p>;
}
export function installAcmeSingleHostComponents(host: { registerWidget(type: string, c: unknown): void }) {
  host.registerWidget("ticker", Ticker);
}
"""


def package(tmp_path: Path, name: str, source: str, surfaces: list[dict]) -> Path:
    manifest = ui_manifest(name=f"@acme/{name}")
    manifest["neuralis"]["app"]["surfaces"] = surfaces
    return build_file_tree(tmp_path / name, {"package.json": manifest, "src/app/host.tsx": source})


def throwing_packages(tmp_path: Path) -> tuple[Path, Path]:
    cards = [{"kind": "card", "id": c, "title": c, "render": {"renderer": "react"}} for c in CARDS]
    widget = {"kind": "widget", "id": "ticker", "type": "ticker", "title": "Ticker", "component": {"renderer": "react"}}
    return package(tmp_path, "throws", THROWS, cards), package(tmp_path, "single", SINGLE, [widget])


def failed(reason: str) -> tuple[str, str]:
    return ("failed", f"the component threw: {reason}")


def panel(page, surface: str):
    return page.locator(f'[data-surface-id="{surface}"]')


def wait_for_status(page, key: str, value: str) -> None:
    page.wait_for_function(
        "([key, value]) => window.__neuralisHost.surfaces.some((s) => `${s.package}#${s.kind}:${s.id}` === key"
        " && s.status === value)",
        arg=[key, value],
    )


def check_the_throwing_cards(page, mode: str) -> dict:
    """Drive @acme/throws: wait for what fails by itself, click what fails when clicked, read the page."""
    wait_for_status(page, "@acme/throws#card:later", "failed")
    page.wait_for_function(
        "() => window.__neuralisHost.packages.some((p) => p.name === '@acme/throws' && p.errors.length)"
    )
    before = surface_states(host_status(page))
    assert before["@acme/throws#card:click"] == ("rendered", None)
    assert before["@acme/throws#card:handler"] == ("rendered", None)
    panel(page, "click").get_by_role("button", name="render").click()
    panel(page, "handler").get_by_role("button", name="handle").click()
    wait_for_status(page, "@acme/throws#card:handler", "failed")
    wait_for_status(page, "@acme/throws#card:click", "failed")
    status = host_status(page)
    states = {k: v for k, v in surface_states(status).items() if k.startswith("@acme/throws#")}
    assert states == {
        "@acme/throws#card:mount": failed("mount failed"),
        "@acme/throws#card:effect": failed("effect failed"),
        "@acme/throws#card:click": failed("render after click failed"),
        "@acme/throws#card:handler": failed("handler failed"),
        "@acme/throws#card:later": failed("later render failed"),
        # a timer's throw names the package's module, which draws several surfaces: the package's error
        "@acme/throws#card:timer": ("rendered", None),
        "@acme/throws#card:fine": ("rendered", None),
    }, dump(status)
    [throws] = [p for p in status["packages"] if p["name"] == "@acme/throws"]
    assert throws["errors"] == ["timer failed"]
    errors = {s["id"]: s["error"] for s in status["surfaces"] if s["package"] == "@acme/throws"}
    assert errors["mount"]["message"] == "mount failed"
    assert "Error: mount failed\n" in errors["mount"]["stack"]
    assert errors["fine"] is None

    # the page says it: each failed panel, its reason, its stack; the package's banner; the others as they were
    for card in ("mount", "effect", "click", "handler", "later"):
        assert panel(page, card).get_attribute("data-status") == "failed"
        box = panel(page, card).locator(".nh-failed")
        assert box.get_attribute("role") == "alert"
        assert box.locator("strong").inner_text() == "This card failed"
        assert box.locator(".nh-failed__reason").inner_text() == states[f"@acme/throws#card:{card}"][1]
    assert panel(page, "mount").locator(".nh-failed pre").text_content().startswith("Error: mount failed\n")
    assert panel(page, "fine").get_attribute("data-status") == "rendered"
    assert panel(page, "fine").locator(".nh-failed").count() == 0
    assert panel(page, "fine").locator(".mode").inner_text() == mode
    assert panel(page, "timer").locator(".nh-failed").count() == 0
    banner = page.locator('section[data-package="@acme/throws"] .nh-package__error')
    assert banner.inner_text() == "code of this package threw, outside any one surface: timer failed"
    return status


def test_the_static_host_page_marks_every_throw_failed(tmp_path, host_site, browser_page):
    throws, single = throwing_packages(tmp_path)
    for root in (throws, single):
        done = subprocess.run([str(BIN / "neuralis-build"), "ui", str(root)], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
    served = host_site([throws, single])
    page = browser_page.page
    page.goto(served.url)
    wait_for_host(page)
    wait_for_status(page, "@acme/single#widget:ticker", "failed")
    status = check_the_throwing_cards(page, "production")
    # one surface in its package: a timer's throw is that surface's
    assert surface_states(status)["@acme/single#widget:ticker"] == failed("single timer failed"), dump(status)
    assert panel(page, "ticker").locator(".ticker").inner_text() == "tick"  # drawn still, under the failure
    # the throws no boundary caught reached the window: the browser reports them, the page does not hide them
    assert sorted(browser_page.log.page_errors) == ["handler failed", "single timer failed", "timer failed"]
    assert browser_page.log.failed_requests == []


def test_the_dev_page_marks_every_throw_failed(tmp_path, dev_server, browser_page):
    throws, _ = throwing_packages(tmp_path)
    dev = dev_server(throws)
    page = browser_page.page
    open_dev_page(browser_page, dev.url)
    check_the_throwing_cards(page, "development")
    assert sorted(browser_page.log.page_errors) == ["handler failed", "timer failed"]
    stop_cleanly(dev)
