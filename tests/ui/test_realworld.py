"""Real libraries from npm (tests/ui/realworld/package-lock.json), built and rendered in Chromium.

The dashboard fixture uses recharts, chart.js with react-chartjs-2, @radix-ui/react-dialog,
react-hook-form with zod, @tanstack/react-query, react-redux with @reduxjs/toolkit, swr, zustand with
its devtools middleware, jotai, styled-components,
@fontsource/inter, react-day-picker's stylesheet, an SVG, two PNGs and a CSS module, through the
aliases of a solution-style tsconfig. Each is built with and without --minify and loaded through the
host page (import map, React from the host), which serves the module under another URL than the page.
"""

from __future__ import annotations

import pytest

from neuralis_build.esbuild.analyze import read_modules
from tests.browserkit import dump, requires_chromium, surface_states, wait_for_host

pytestmark = [pytest.mark.e2e]


def bundled_packages(inputs: tuple[str, ...]) -> set[str]:
    from neuralis_build.ui.graph import package_of

    return {p for p in map(package_of, inputs) if p is not None}


@pytest.mark.parametrize("minify", [False, True], ids=["plain", "minified"])
def test_the_dashboard_builds_with_real_libraries(realworld, build, esbuild, minify):
    root = realworld("dashboard")
    result = build(root, minify=minify)
    # React stays the host's: required through CommonJS (use-sync-external-store, react-redux) it is imported.
    assert result.record.to_json() == {
        "hostApiVersion": "1",
        "reactMajor": 19,
        "sharedImports": ["react", "react-dom", "react/jsx-runtime"],
    }
    [parsed] = read_modules(root, ["dist/app/host.js"], esbuild).values()
    assert parsed.ids == result.record.shared_imports
    assert all(kind == "import-statement" for _, kind in parsed.imports)
    packages = bundled_packages(result.inputs)
    assert {"recharts", "chart.js", "zod", "@radix-ui/react-dialog", "use-sync-external-store"} <= packages
    assert {"zustand", "jotai", "styled-components"} <= packages
    # their environment reads cannot throw in a browser: a bare import.meta.env (zustand's devtools), a
    # process.env read behind typeof process in its own expression (styled-components): warnings, one per file
    warned = [d.file for d in result.warnings if d.code == "NB1915"]
    assert sorted(bundled_packages(tuple(warned))) == ["styled-components", "zustand"], result.warnings
    assert len(warned) == len(set(warned))
    assert not packages & {"react", "react-dom", "scheduler"}
    # The latin Inter woff2 and the 7 kB photo are files; the icon and the 4x4 dot are inlined.
    assets = [o for o in result.outputs if "/assets/" in o]
    assert any(o.startswith("dist/app/assets/inter-latin-400-normal-") and o.endswith(".woff2") for o in assets)
    assert any(o.startswith("dist/app/assets/photo-") for o in assets)
    assert not any("icon" in o or "dot-" in o for o in assets)
    js = (root / "dist/app/host.js").read_text()
    assert "import.meta.url" in js and "data:image/svg+xml;base64," in js
    modes = {oct((root / o).stat().st_mode & 0o777) for o in result.outputs}
    assert modes == {"0o644"} and oct((root / "dist/app/assets").stat().st_mode & 0o777) == "0o755"


@requires_chromium
@pytest.mark.browser
@pytest.mark.parametrize("minify", [False, True], ids=["plain", "minified"])
def test_the_dashboard_renders_in_chromium(realworld, build, host_site, browser_page, minify):
    root = realworld("dashboard")
    build(root, minify=minify)
    served = host_site([root])
    page = browser_page.page
    page.goto(served.url)
    status = wait_for_host(page)
    assert surface_states(status) == {"@acme/dashboard#widget:dashboard": ("rendered", None)}, dump(status)
    for testid, text in (("redux", "7"), ("query", "12 runs"), ("swr", "green"), ("zustand", "4"), ("jotai", "atoms")):
        page.wait_for_function(
            f"document.querySelector('[data-testid={testid}]')?.textContent === {text!r}", timeout=60_000
        )
    page.wait_for_function(
        "[...document.querySelectorAll('[data-testid=card] img')].every((i) => i.complete && i.naturalWidth > 0)"
    )
    page.evaluate("document.fonts.ready")
    facts = page.evaluate(
        """() => {
          const q = (s) => document.querySelector(s);
          const card = q('[data-testid=card]');
          return {
            border: getComputedStyle(card).borderTopColor,
            titleFont: getComputedStyle(q('[data-testid=card] h2')).fontFamily,
            interLoaded: document.fonts.check('16px Inter'),
            recharts: !!q('.recharts-surface'),
            chartjs: !!q('[data-testid=card] canvas'),
            dialog: q('[role=dialog]')?.textContent,
            dayPicker: getComputedStyle(q('.rdp-root')).display !== '',
            photo: q('[data-testid=photo]').src.replace(location.origin, ''),
            pageIsNotModule: !location.pathname.includes('/dist/app/'),
            brand: getComputedStyle(q('[data-testid=brand]')).backgroundImage.startsWith('url("data:image/svg'),
            styled: getComputedStyle(q('[data-testid=styled]')).borderTopColor,
          };
        }"""
    )
    assert facts.pop("photo").endswith(".png") and facts.pop("pageIsNotModule")
    assert facts == {
        "border": "rgb(10, 120, 30)",
        "titleFont": "Inter, sans-serif",
        "interLoaded": True,
        "recharts": True,
        "chartjs": True,
        "dialog": "Details",
        "dayPicker": True,
        "brand": True,
        "styled": "rgb(200, 0, 0)",
    }
    photo = page.evaluate("document.querySelector('[data-testid=photo]').src")
    assert "/dist/app/assets/photo-" in photo
    assert browser_page.log.problems() == []


@requires_chromium
@pytest.mark.browser
@pytest.mark.parametrize("minify", [False, True], ids=["plain", "minified"])
def test_two_packages_with_css_modules_keep_their_styles_apart(realworld, build, host_site, browser_page, minify):
    dashboard, cards = realworld("dashboard"), realworld("cards")
    build(dashboard, minify=minify)
    build(cards, minify=minify)
    served = host_site([dashboard, cards])
    page = browser_page.page
    page.goto(served.url)
    status = wait_for_host(page)
    assert {s for s, _ in surface_states(status).values()} == {"rendered"}, dump(status)
    colors = page.evaluate(
        """() => ['[data-testid=card]', '[data-testid=cards-card]'].map(
             (s) => [getComputedStyle(document.querySelector(s)).borderTopColor,
                     document.querySelector(s).className])"""
    )
    assert [c for c, _ in colors] == ["rgb(10, 120, 30)", "rgb(40, 40, 200)"]
    assert colors[0][1] != colors[1][1]
    assert browser_page.log.problems() == []


@requires_chromium
@pytest.mark.browser
@pytest.mark.parametrize("minify", [False, True], ids=["plain", "minified"])
def test_a_tsconfig_jsx_import_source_is_kept(realworld, build, host_site, browser_page, minify):
    """Emotion's css prop works through tsconfig's jsxImportSource: the build forces the automatic runtime but
    keeps the package's import source (it was replaced by React's, and the prop rendered as "[object Object]")."""
    root = realworld("emotion")
    result = build(root, minify=minify)
    assert "@emotion/react" in bundled_packages(result.inputs)
    assert result.record.shared_imports == ("react", "react/jsx-runtime")
    served = host_site([root])
    page = browser_page.page
    page.goto(served.url)
    status = wait_for_host(page)
    assert surface_states(status) == {"@acme/emotion#widget:badge": ("rendered", None)}, dump(status)
    badge = page.evaluate(
        "(() => { const b = document.querySelector('[data-testid=badge]');"
        " return [getComputedStyle(b).color, b.getAttribute('css')]; })()"
    )
    assert badge == ["rgb(200, 0, 0)", None]
    assert browser_page.log.problems() == []
