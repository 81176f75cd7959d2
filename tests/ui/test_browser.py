"""Headless Chromium loads the built example modules through an import map, as the host does."""

from __future__ import annotations

import functools
import html
import http.server
import json
import os
import re
import shutil
import subprocess
import threading
from pathlib import Path
from typing import ClassVar

import pytest

from neuralis_build.hostprofile import default_host_profile

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.browser,
    pytest.mark.skipif(not shutil.which("chromium") and not os.environ.get("CI"), reason="Debian's chromium is needed"),
]

# React 19 ships CommonJS only: bundle it once into an ESM vendor file (one React for everyone),
# then give each shared id a tiny ESM module that re-exports from it.
VENDOR_ENTRY = """\
import * as React from "react";
import * as JSXRuntime from "react/jsx-runtime";
import * as ReactDOM from "react-dom";
import * as ReactDOMClient from "react-dom/client";
export { React, JSXRuntime, ReactDOM, ReactDOMClient };
"""
SHIMS = {
    "react": "React",
    "react/jsx-runtime": "JSXRuntime",
    "react-dom": "ReactDOM",
    "react-dom/client": "ReactDOMClient",
}
CLIENT_STAND_IN = """\
// A stand-in for the platform client library (@neuralis/client is not on npm).
export function useNeuralisTheme() {
  return { mode: "light", accent: "rgb(200, 40, 40)" };
}
"""
PAGE = """\
<!doctype html>
<html>
<head>
<script type="importmap">{import_map}</script>
<link rel="stylesheet" href="/reports/dist/app/host.css">
</head>
<body>
<div id="root"></div>
<pre id="result">pending</pre>
<script type="module">
const out = document.getElementById("result");
try {{
  const {{ createElement }} = await import("react");
  const {{ flushSync }} = await import("react-dom");
  const {{ createRoot }} = await import("react-dom/client");
  const registry = new Map();
  const host = {{ register(type, component) {{ registry.set(type, component); }} }};
  (await import("/charts/dist/app/host.js")).installAcmeChartsHostComponents(host);
  (await import("/reports/dist/app/host.js")).installAcmeReportsHostComponents(host);
  const Report = registry.get("acme-reports.report");
  const root = createRoot(document.getElementById("root"));
  const rows = [{{ label: "passed", count: 1200 }}, {{ label: "failed", count: 34 }}];
  flushSync(() => root.render(createElement(Report, {{ title: "Weekly runs", rows }})));
  const title = document.querySelector(".acme-report__title");
  out.textContent = JSON.stringify({{
    registered: [...registry.keys()].sort(),
    titleColor: getComputedStyle(title).color,
    bars: [...document.querySelectorAll(".acme-bar-chart rect")].map((r) => [r.dataset.label, r.getAttribute("fill")]),
    total: document.querySelector(".acme-report__total").textContent,
  }});
}} catch (e) {{
  out.textContent = "error: " + (e && e.stack || e);
}}
</script>
</body>
</html>
"""


def node_keys(node_modules: Path, module_id: str) -> list[str]:
    script = f"console.log(JSON.stringify(Object.keys(require({json.dumps(module_id)}))))"
    done = subprocess.run(["node", "-e", script], cwd=node_modules.parent, capture_output=True, text=True, check=True)
    return sorted(k for k in json.loads(done.stdout) if re.fullmatch(r"[A-Za-z_$][\w$]*", k))


def vendor(folder: Path, node_modules: Path, esbuild) -> dict[str, str]:
    """ESM shims of React 19 for the browser; returns the import-map entries (id -> URL)."""
    work = node_modules.parent
    (work / "vendor-entry.js").write_text(VENDOR_ENTRY)
    run = esbuild.run(
        [
            "vendor-entry.js",
            "--bundle",
            "--format=esm",
            "--platform=browser",
            '--define:process.env.NODE_ENV="production"',
            f"--outfile={folder / 'vendor.js'}",
            "--log-level=error",
        ],
        work,
    )
    assert run.returncode == 0, run.stderr
    urls = {}
    for module_id, name in SHIMS.items():
        file = module_id.replace("/", "-") + ".js"
        keys = node_keys(node_modules, module_id)
        (folder / file).write_text(
            f'import {{ {name} as ns }} from "./vendor.js";\n'
            "const m = ns.default ?? ns;\nexport default m;\n"
            f"export const {{ {', '.join(keys)} }} = m;\n"
        )
        urls[module_id] = f"/vendor/{file}"
    (folder / "neuralis-client.js").write_text(CLIENT_STAND_IN)
    urls["@neuralis/client"] = "/vendor/neuralis-client.js"
    return urls


class Quiet(http.server.SimpleHTTPRequestHandler):
    extensions_map: ClassVar[dict[str, str]] = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".js": "text/javascript",
    }

    def log_message(self, format: str, *args: object) -> None:
        pass


def dump_dom(url: str, profile: Path) -> str:
    done = subprocess.run(
        [
            "chromium",
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            f"--user-data-dir={profile}",
            "--virtual-time-budget=15000",
            "--dump-dom",
            url,
        ],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_built_modules_render_in_chromium(examples, build, react_modules, esbuild, tmp_path):
    charts, reports = examples()
    build(charts)
    build(reports)
    site = tmp_path / "site"
    (site / "vendor").mkdir(parents=True)
    import_map = vendor(site / "vendor", react_modules, esbuild)
    # The host declares the published ids before it imports any module.
    import_map["@acme/charts/app/charts"] = "/charts/dist/app/host.js"
    record = json.loads((reports / "dist/app/shared-imports.json").read_text())
    assert set(record["sharedImports"]) <= set(import_map)
    assert set(default_host_profile().shared_modules) <= set(import_map)
    os.symlink(charts, site / "charts")
    os.symlink(reports, site / "reports")
    (site / "host.html").write_text(PAGE.format(import_map=json.dumps({"imports": import_map})))

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        dom = dump_dom(f"http://127.0.0.1:{server.server_address[1]}/host.html", tmp_path / "profile")
    finally:
        server.shutdown()
        server.server_close()
        thread.join()

    result = re.search(r'<pre id="result">(.*?)</pre>', dom, re.DOTALL)
    assert result, dom
    assert json.loads(html.unescape(result.group(1))) == {
        "registered": ["acme-charts.bar", "acme-reports.report"],
        "titleColor": "rgb(31, 35, 40)",
        "bars": [["passed", "rgb(200, 40, 40)"], ["failed", "rgb(200, 40, 40)"]],
        "total": "1,234 results",
    }
    assert '<h2 class="acme-report__title">Weekly runs</h2>' in dom
