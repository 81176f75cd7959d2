"""The host page's HTML: the import map of the host profile, each module's host.css, the page config.

The URL layout is fixed so a static copy (``site.py``) and the dev server serve the same page:
``/`` the page, ``/__neuralis/`` its own script, styles and the shared modules (``vendor/``), and
``/pkg/<slug>/<package path>`` each package's served trees (``dist/app/`` and its surface roots).
"""

from __future__ import annotations

import html
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from neuralis_build.hostpage.model import PagePackage
from neuralis_build.hostprofile import HostProfile
from neuralis_build.util.trust import Trust

ASSETS = "/__neuralis/"
VENDOR = ASSETS + "vendor/"
PAGE_FILES = ("host-page.js", "host-page.css")
DATA = Path(__file__).resolve().parent.parent / "data" / "hostpage"

# Runs before any module: the status object exists, and page errors are recorded, even when the
# page's own module cannot load (an id missing from the import map, say).
_BOOT = """\
window.__neuralisHost = { state: "loading", errors: [] };
addEventListener("error", (e) => { window.__neuralisHost.errors.push(String(e.message || e)); });
addEventListener("unhandledrejection", (e) => {
  window.__neuralisHost.errors.push(String((e.reason && e.reason.message) || e.reason));
});"""


def script_json(value: Any) -> str:
    """JSON safe inside a <script> element (no ``</script>``, no ``<!--``)."""
    text = json.dumps(value, indent=1, sort_keys=False, ensure_ascii=False)
    return text.replace("<", "\\u003c").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def import_map(
    packages: Sequence[PagePackage], shared: Mapping[str, str], host: HostProfile, package_origin: str = ""
) -> dict[str, str]:
    """The host's shared ids (those it can serve) and the ids each accepted module publishes."""
    imports = {mid: url for mid, url in shared.items() if mid in host.shared_modules}
    for pkg in packages:
        module = pkg.module
        if module is not None and module.refused is None:
            for mid in module.provides:
                imports.setdefault(mid, package_origin + module.url)
    return dict(sorted(imports.items()))


def page_config(
    packages: Sequence[PagePackage],
    host: HostProfile,
    trust: Trust,
    shared_exports: Mapping[str, Sequence[str]],
    extra: Mapping[str, Any] | None = None,
    package_origin: str = "",
) -> dict[str, Any]:
    """What the page's script reads: the host, every package with its verdicts, surfaces and diagnostics."""
    config: dict[str, Any] = {
        "hostApiVersion": host.host_api_version,
        "reactMajor": host.react_major,
        "trust": trust,
        "sharedExports": {k: list(v) for k, v in sorted(shared_exports.items())},
        "missingShared": sorted(set(host.shared_modules) - set(shared_exports)),
        "packages": [p.to_json(package_origin) for p in packages],
    }
    config.update(extra or {})
    return config


def render_page(
    packages: Sequence[PagePackage],
    host: HostProfile,
    trust: Trust,
    shared: Mapping[str, str],
    shared_exports: Mapping[str, Sequence[str]],
    *,
    title: str | None = None,
    extra_config: Mapping[str, Any] | None = None,
    extra_scripts: Sequence[str] = (),
    package_origin: str = "",
) -> str:
    """The page's HTML. ``shared`` maps each shared id to its URL; ``extra_scripts`` are module URLs.

    ``package_origin`` goes before every package URL (``/pkg/...``): the dev server serves the
    packages from an origin of their own; a static copy serves them beside the page.
    """
    imports = import_map(packages, shared, host, package_origin)
    css = [
        package_origin + p.module.css_url
        for p in packages
        if p.module is not None and p.module.refused is None and p.module.css_url
    ]
    config = page_config(packages, host, trust, shared_exports, extra_config, package_origin)
    heading = title or ", ".join(p.name for p in packages) or "no package"
    lines = [
        "<!doctype html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        f"<title>{html.escape(heading)} · neuralis host page</title>",
        '<link rel="icon" href="data:,">',
        f'<script type="importmap">\n{script_json({"imports": imports})}\n</script>',
        f"<script>\n{_BOOT}\n</script>",
        f'<link rel="stylesheet" href="{ASSETS}host-page.css">',
        *[f'<link rel="stylesheet" href="{html.escape(url)}" data-package-css>' for url in css],
        f'<script type="application/json" id="neuralis-host-config">\n{script_json(config)}\n</script>',
        f'<script type="module" src="{ASSETS}host-page.js"></script>',
        *[f'<script type="module" src="{html.escape(url)}"></script>' for url in extra_scripts],
        "</head>",
        "<body>",
        '<header class="nh-bar">',
        f"<h1>{html.escape(heading)}</h1>",
        f'<span class="nh-bar__meta">host API {html.escape(host.host_api_version)} · React {host.react_major}'
        f" · trust {html.escape(trust)}</span>",
        '<span class="nh-bar__state" id="neuralis-dev-state"></span>',
        "</header>",
        '<main class="nh-main">',
        '<div id="neuralis-host"></div>',
        '<aside class="nh-side" id="neuralis-side"></aside>',
        "</main>",
        '<script type="application/json" id="neuralis-host-status">{"state": "loading"}</script>',
        "</body>",
        "</html>",
        "",
    ]
    return "\n".join(lines)
