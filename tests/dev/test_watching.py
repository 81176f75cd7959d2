"""What `ui --watch` and `dev` watch: what the build read, wherever it lies (a workspace library linked into
node_modules, a provider package's dist/app/), the manifest and the surface roots, and nothing else (a log the
command itself writes into the package never starts a build). Real processes, real esbuild, real Chromium."""

from __future__ import annotations

import os
import queue
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.browserkit import requires_chromium, wait_for_host
from tests.conftest import requires_node
from tests.dev.conftest import URL_LINE
from tests.dev.test_dev import open_dev_page, reports_with_charts, stop_cleanly
from tests.ui.test_cli import Lines
from tests.ui.ui_helpers import build_file_tree, link_package, ui_manifest

pytestmark = [pytest.mark.e2e, requires_node]

BIN = Path(sys.executable).parent
CLI = str(BIN / "neuralis-build")

APP = """\
import { greeting } from "@acme/lib";
function Hello() { return <p className="greeting">{greeting}</p>; }
export function installAcmeAppHostComponents(host: { registerWidget(t: string, c: unknown): void }) {
  host.registerWidget("hello", Hello);
}
"""
WIDGET = {"kind": "widget", "id": "w", "type": "hello", "title": "Hello", "component": {"renderer": "react"}}


def app_with_a_linked_library(tmp_path: Path) -> tuple[Path, Path]:
    """tmp/app, whose node_modules/@acme/lib links to tmp/lib (as an npm workspace links its members)."""
    lib = build_file_tree(
        tmp_path / "lib",
        {
            "package.json": {"name": "@acme/lib", "version": "1.0.0", "type": "module", "exports": "./src/index.ts"},
            "src/index.ts": 'export const greeting = "hello v1";\n',
        },
    )
    manifest = ui_manifest(name="@acme/app")
    manifest["neuralis"]["app"]["surfaces"] = [WIDGET]
    app = build_file_tree(tmp_path / "app", {"package.json": manifest, "src/app/host.tsx": APP})
    link_package(app, lib, "@acme/lib")
    return app, lib


def edit(path: Path, text: str) -> None:
    """Save a file in one step, as editors do (the temp file beside it)."""
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def test_ui_watch_rebuilds_when_a_linked_library_outside_the_package_changes(tmp_path):
    app, lib = app_with_a_linked_library(tmp_path)
    with subprocess.Popen(
        [CLI, "ui", "--watch", str(app)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    ) as proc:
        lines = Lines(proc)
        try:
            assert " ok (development): " in lines.next()
            assert lines.next().startswith("watching ")
            assert "hello v1" in (app / "dist/app/host.js").read_text()
            edit(lib / "src/index.ts", 'export const greeting = "hello v2";\n')
            assert " ok (development): " in lines.next()
            assert "hello v2" in (app / "dist/app/host.js").read_text()
            # the library's own folder beside its sources is not watched for anything but what was read
            (lib / "notes.md").write_text("x")
            with pytest.raises(queue.Empty):
                lines.queue.get(timeout=2)
        finally:
            proc.send_signal(signal.SIGINT)
            proc.wait(timeout=60)
    assert proc.returncode == 0


@requires_chromium
@pytest.mark.browser
def test_dev_reloads_when_a_linked_library_outside_the_package_changes(tmp_path, dev_server, browser_page):
    app, lib = app_with_a_linked_library(tmp_path)
    dev = dev_server(app)
    page = browser_page.page
    open_dev_page(browser_page, dev.url)
    assert page.locator(".greeting").inner_text() == "hello v1"
    first = page.evaluate("() => window.__neuralisDev.generation")
    edit(lib / "src/index.ts", 'export const greeting = "hello v2";\n')
    dev.wait_line(r"ok in \d+ ms \(\.\./lib/src/index\.ts\): the page reloads")
    page.wait_for_function(f"() => window.__neuralisDev && window.__neuralisDev.generation > {first}")
    wait_for_host(page)
    assert page.locator(".greeting").inner_text() == "hello v2"
    assert browser_page.log.problems() == []
    stop_cleanly(dev)


@requires_chromium
@pytest.mark.browser
def test_a_providers_new_build_reloads_the_page_that_uses_it(tmp_path, dev_server, browser_page):
    reports = reports_with_charts(tmp_path)
    charts = tmp_path / "acme-charts"
    dev = dev_server(reports)
    page = browser_page.page
    open_dev_page(browser_page, dev.url)
    chart = page.locator('[data-surface-id="acme-reports.widget"] svg.acme-bar-chart')
    assert chart.get_attribute("data-version") is None
    first = page.evaluate("() => window.__neuralisDev.generation")

    source = charts / "src/app/BarChart.tsx"
    source.write_text(
        source.read_text().replace('className="acme-bar-chart"', 'className="acme-bar-chart" data-version="2"')
    )
    with pytest.raises(AssertionError):  # not built yet: the provider's sources are its own build's, not the page's
        dev.wait_line(r"ok in \d+ ms", timeout=2)
    built = subprocess.run([CLI, "ui", str(charts)], capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr
    dev.wait_line(r"ok in \d+ ms \(\.\./acme-charts/dist/app.*\): the page reloads")
    page.wait_for_function(f"() => window.__neuralisDev && window.__neuralisDev.generation > {first}")
    wait_for_host(page)
    assert chart.get_attribute("data-version") == "2"
    assert browser_page.log.problems() == []
    stop_cleanly(dev)


def _log_lines(log: Path, pattern: str, timeout: float = 300) -> list[str]:
    """The log's lines once one matches ``pattern`` (polled: the command writes the file, not a pipe)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        lines = log.read_text().splitlines()
        if any(re.search(pattern, line) for line in lines):
            return lines
        time.sleep(0.05)
    raise AssertionError(f"no line matching {pattern!r} in {log} within {timeout} s:\n{log.read_text()}")


def _builds(log: Path) -> list[str]:
    return [line for line in log.read_text().splitlines() if re.match(r"\[\d\d:\d\d:\d\d\] (built|ok|failed)", line)]


@pytest.mark.parametrize("command", ["dev", "ui --watch"])
def test_a_command_writing_its_log_into_the_package_builds_once(command, tmp_path):
    """`dev > dev.log` inside the package rebuilt 83 times in 9 s: each build printed, each print was a change.
    Here the log is written on every build, after a good one and after a failed one, and nothing loops."""
    app, _ = app_with_a_linked_library(tmp_path)
    log = app / ("dev.log" if command == "dev" else "watch.log")
    args = [CLI, *command.split(), str(app)] + (["--port", "0"] if command == "dev" else [])
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    with log.open("w") as out:
        proc = subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    try:
        _log_lines(log, URL_LINE.pattern if command == "dev" else r"^watching ")
        time.sleep(2)  # long enough for a loop to show itself: the debounce is 80 ms, a build about 100
        assert len(_builds(log)) == 1, log.read_text()

        host = app / "src/app/host.tsx"
        edit(host, APP + "export const broken = ;\n")
        _log_lines(log, r"failed")
        time.sleep(2)
        assert len(_builds(log)) == 2, log.read_text()  # after a failure too, the log is not a source

        edit(host, APP)
        _log_lines(log, r"\] ok ")
        time.sleep(2)
        assert len(_builds(log)) == 3, log.read_text()
    finally:
        os.killpg(proc.pid, signal.SIGINT)
        assert proc.wait(timeout=60) == 0, log.read_text()
