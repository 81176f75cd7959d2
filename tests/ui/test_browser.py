"""Headless Chromium loads the built example modules on the host page, through the host's import map."""

from __future__ import annotations

import json

import pytest

from neuralis_build.hostprofile import default_host_profile
from tests.browserkit import dump, requires_chromium, surface_states, wait_for_host
from tests.ui.ui_helpers import copy_example

pytestmark = [pytest.mark.e2e, pytest.mark.browser, requires_chromium]


def test_the_built_modules_render_in_chromium(examples, build, host_site, browser_page, tmp_path):
    charts, reports = examples()
    build(charts)
    build(reports)
    weather = copy_example("weather-widget", tmp_path)
    served = host_site([charts, reports, weather])
    record = json.loads((reports / "dist/app/shared-imports.json").read_text())
    page_map = json.loads(
        (served.site.folder / "index.html").read_text().split('<script type="importmap">')[1].split("</script>")[0]
    )["imports"]
    # The host declares the published ids before it imports any module, and every shared id it has.
    assert set(record["sharedImports"]) <= set(page_map)
    assert set(default_host_profile().shared_modules) <= set(page_map)
    assert page_map["@acme/charts/app/charts"] == "/pkg/acme-charts/dist/app/host.js"

    page = browser_page.page
    page.goto(served.url)
    status = wait_for_host(page)

    assert status["state"] == "ready", dump(status)
    assert surface_states(status) == {
        "@acme/reports#widget:acme-reports.widget": ("rendered", None),
        "@acme/reports#card:acme-reports.summary": ("rendered", None),
        "@acme/reports#dock:acme-reports.open": ("rendered", None),
        "weather-widget#widget:weather.widget": ("rendered", None),
        "weather-widget#card:weather_now": ("rendered", None),
        "weather-widget#dock:weather.open": ("rendered", None),
    }
    assert [(p["name"], p["module"], p["registered"]) for p in status["packages"]] == [
        ("@acme/charts", {"status": "accepted", "reason": None}, {"widgets": [], "cards": []}),
        (
            "@acme/reports",
            {"status": "accepted", "reason": None},
            {"widgets": ["acme_reports"], "cards": ["acme-reports.summary"]},
        ),
        ("weather-widget", None, {"widgets": [], "cards": []}),
    ]

    card = page.locator('[data-surface-id="acme-reports.summary"]')
    assert card.locator(".acme-report__title").inner_text() == "Weekly runs"
    assert card.locator(".acme-report__title").evaluate("e => getComputedStyle(e).color") == "rgb(31, 35, 40)"
    assert card.locator(".acme-report__total").inner_text() == "1,234 results"
    bars = card.locator(".acme-bar-chart rect").evaluate_all(
        "rs => rs.map(r => [r.dataset.label, r.getAttribute('fill')])"
    )
    assert bars == [["passed", "rgb(200, 40, 40)"], ["failed", "rgb(200, 40, 40)"]]

    # The iframe surfaces: the self-contained forecast, the bundle card with its sibling script and css.
    forecast = page.frame_locator('[data-surface-id="weather.widget"] iframe')
    assert forecast.locator(".day").first.locator("span").all_inner_texts() == ["Mon", "14 °C"]
    assert page.frame_locator('[data-surface-id="weather_now"] iframe').locator("#temp").inner_text() == "14"

    # A dock entry is an action that opens its widget.
    page.get_by_role("button", name="Reports").click()
    page.wait_for_function("() => window.__neuralisHost.opened !== null")
    assert page.locator('[data-surface-id="acme-reports.widget"]').get_attribute("data-open") == "true"

    assert browser_page.log.problems() == []
