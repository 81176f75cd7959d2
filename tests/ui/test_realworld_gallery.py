"""Thirty-one real React libraries in one package (tests/ui/realworld/gallery, pinned by tests/ui/realworld's
lockfile).

Each widget of the gallery draws a small real use of one library: a Mantine button in its provider, an antd
date picker, a victory and a nivo chart, tiptap, CodeMirror and lexical editors, an xterm terminal, an ag-grid
grid, a formik form validated by yup, a sonner toast, a vaul drawer, ... The package is built by `neuralis-build
ui` (what ships: production, minified) and shown on the host page, and served by `neuralis-build dev` (a
development build under development React); on both, every surface renders, the console has no error, no
request fails, one React renders every widget, and each library has drawn what it draws.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from neuralis_build.esbuild.analyze import read_modules
from tests.browserkit import dump, requires_chromium, surface_states, wait_for_host
from tests.conftest import requires_node
from tests.dev.conftest import dev_server  # noqa: F401  (the dev page fixture, used by the second test)
from tests.dev.test_dev import open_dev_page, stop_cleanly

pytestmark = [pytest.mark.e2e, pytest.mark.browser, requires_chromium, requires_node]

BIN = Path(sys.executable).parent
GALLERY = "@acme/gallery"

# Surface id -> (a JavaScript expression over `box`, the widget's [data-testid] element; what it must give).
# Each reads something only the library draws: its own class names, its SVG, text it formats or validates.
FACTS: dict[str, tuple[str, object]] = {
    "mantine": (
        "getComputedStyle(box.querySelector('button.mantine-Button-root')).backgroundColor",
        "rgb(34, 139, 230)",
    ),
    "antd": ("box.querySelector('.ant-picker input')?.placeholder", "Pick a day"),
    "chakra": ("box.querySelector('button.chakra-button')?.textContent", "Chakra"),
    "react-select": ("box.querySelector('.gallery-select__single-value')?.textContent", "Plum"),
    "react-datepicker": ("box.querySelector('.react-datepicker__current-month')?.textContent", "May 2024"),
    "dnd-kit": ("box.querySelector('button')?.getAttribute('aria-roledescription')", "draggable"),
    "headlessui": ("box.querySelector('[role=switch]')?.getAttribute('data-headlessui-state')", "checked"),
    "react-window": (
        "[box.querySelector('[role=listitem]')?.textContent, box.querySelectorAll('[role=listitem]').length < 50]",
        ["row 0", True],
    ),
    "tanstack-virtual": (
        "[box.querySelector('.inner').style.height, box.querySelector('.item')?.textContent,"
        " box.querySelectorAll('.item').length < 50]",
        ["240000px", "item 0", True],
    ),
    "victory": ("box.querySelectorAll('svg path').length", 4),
    "nivo": (
        "[...box.querySelectorAll('svg rect')].slice(1).map((r) => r.getAttribute('height'))",
        ["104", "128", "112", "152"],
    ),
    "d3": ("box.querySelector('path')?.getAttribute('d')", "M10,80L83.333,50L156.667,70L230,20"),
    "visx": ("box.querySelector('path.visx-linepath')?.getAttribute('d')", "M10,52L80,34L150,46L220,16"),
    "tiptap": ("box.querySelector('.ProseMirror[contenteditable=true] strong')?.textContent", "tiptap"),
    "codemirror": ("box.querySelector('.cm-editor .cm-content')?.textContent", "const answer = 42;"),
    "lexical": ("box.querySelector('[data-lexical-editor=true] p')?.textContent", "Hello lexical"),
    "xterm": ("box.querySelector('.xterm .xterm-rows')?.textContent.trim()", "hello from xterm"),
    "ag-grid": (
        "[!!box.querySelector('.ag-root'),"
        " [...box.querySelectorAll('.ag-row [col-id=make]')].map((c) => c.textContent).sort()]",
        [True, ["Ford", "Tesla", "Toyota"]],
    ),
    "swiper": ("box.querySelector('.swiper')?.classList.contains('swiper-initialized')", True),
    "embla": ("box.querySelector('.count')?.textContent", "3 slides"),
    "react-spring": ("box.querySelector('.fade')?.style.opacity", "1"),
    "redux-toolkit": ("box.textContent", "42"),
    "mobx": ("box.textContent", "clicked 0"),
    "i18next": ("box.textContent", "Bonjour Ada"),
    "formik": ("box.querySelector('.error')?.textContent", "Not an email address"),
    "react-intl": ("box.textContent", "1.234,50\u00a0€"),
    "floating-ui": (
        "Math.round(box.querySelector('button').getBoundingClientRect().top"
        " - box.querySelector('.tooltip').getBoundingClientRect().bottom)",
        6,
    ),
    "sonner": ("box.querySelector('[data-sonner-toast]')?.textContent", "Saved"),
    "cmdk": ("[...box.querySelectorAll('[cmdk-item]')].map((i) => i.textContent)", ["Open file", "Close file"]),
    "vaul": ("box.querySelector('button')?.getAttribute('aria-haspopup')", "dialog"),
    "qrcode": (
        "[box.querySelector('svg')?.getAttribute('height'), box.querySelectorAll('svg path').length]",
        ["96", 2],
    ),
}

READ_FACTS = (
    "() => ({"
    + ", ".join(
        f"{json.dumps(name)}: (() => {{ const box = document.querySelector('[data-testid={name}]');"
        f" try {{ return {expr}; }} catch (e) {{ return 'threw: ' + e.message; }} }})()"
        for name, (expr, _) in FACTS.items()
    )
    + "})"
)
EXPECTED = {name: value for name, (_, value) in FACTS.items()}

# Every react-dom that starts on the page announces itself to the DevTools hook: a stand-in records each one.
COUNT_RENDERERS = """
window.__renderers = [];
window.__REACT_DEVTOOLS_GLOBAL_HOOK__ = {
  supportsFiber: true, isDisabled: false, renderers: new Map(),
  inject(renderer) {
    window.__renderers.push({ version: renderer.version, bundleType: renderer.bundleType });
    this.renderers.set(window.__renderers.length, renderer);
    return window.__renderers.length;
  },
  checkDCE() {}, onScheduleFiberRoot() {}, onCommitFiberRoot() {}, onCommitFiberUnmount() {},
  onPostCommitFiberRoot() {},
};
"""

# The packages the libraries' own dependency ranges make npm install twice or more (headless UI pins
# @floating-ui/react 0.26, nivo d3 v1-v3 modules, victory its own victory-vendor and react-fast-compare, antd
# older emotion utilities): warnings, named by the build; React never among them.
DUPLICATED = [
    "@emotion/hash",
    "@emotion/unitless",
    "@floating-ui/react",
    "d3-array",
    "d3-format",
    "d3-path",
    "d3-shape",
    "d3-time",
    "d3-time-format",
    "internmap",
    "react-fast-compare",
    "react-is",
    "stylis",
    "victory-vendor",
]


def check_the_gallery(browser_page, status: dict, bundle_type: int) -> None:
    """Every surface rendered, each library's fact, one React of the page's build, a clean console."""
    from playwright.sync_api import TimeoutError as Timeout

    page = browser_page.page
    assert surface_states(status) == {f"{GALLERY}#widget:{name}": ("rendered", None) for name in FACTS}, dump(status)
    # animations (react-spring, nivo's bars) and asynchronous validation (yup) settle on their own; a fact that
    # never comes is reported by the comparison below, library by library
    with contextlib.suppress(Timeout):
        page.wait_for_function(
            f"(expected) => JSON.stringify(({READ_FACTS})()) === JSON.stringify(expected)", arg=EXPECTED
        )
    assert page.evaluate(READ_FACTS) == EXPECTED
    # what a user does: mobx's observer re-renders on a click, vaul opens its drawer
    page.click("[data-testid=mobx] button")
    page.wait_for_function("() => document.querySelector('[data-testid=mobx]').textContent === 'clicked 1'")
    page.click("[data-testid=vaul] button")
    page.wait_for_function("() => document.querySelector('[data-vaul-drawer] h2')?.textContent === 'Drawer'")
    assert page.evaluate("() => window.__renderers") == [{"version": "19.2.0", "bundleType": bundle_type}]
    vendor = page.evaluate(
        "() => performance.getEntriesByType('resource').map((r) => new URL(r.name).pathname)"
        ".filter((p) => p.startsWith('/__neuralis/vendor/'))"
    )
    assert sorted(vendor) == [
        f"/__neuralis/vendor/{f}"
        for f in ("react-dom-client.js", "react-dom.js", "react-jsx-runtime.js", "react.js", "vendor.js")
    ]
    status = wait_for_host(page)
    assert {s for s, _ in surface_states(status).values()} == {"rendered"}, dump(status)
    assert [p["errors"] for p in status["packages"]] == [[]] and status["errors"] == []
    assert browser_page.log.problems() == []


def test_the_shipped_gallery_renders_on_the_host_page(realworld, esbuild, host_site, browser_page):
    root = realworld("gallery")
    command = [str(BIN / "neuralis-build"), "ui", str(root), "--format", "json"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    [built] = json.loads(done.stdout)
    assert (built["mode"], built["minified"]) == ("production", True)
    assert built["record"]["sharedImports"] == ["react", "react-dom", "react-dom/client", "react/jsx-runtime"]
    diagnostics = [d for d in built["diagnostics"] if d["code"] == "NB1923"]
    # two libraries' stylesheets style the whole page (Mantine's :root, * and body, swiper's :host): named at the
    # gallery's imports of them
    outside = [(d["file"], d["line"], d["message"]) for d in built["diagnostics"] if d["code"] == "NB1926"]
    assert [(f, line, m.split(", imported by ")[0]) for f, line, m in outside] == [
        ("src/app/widgets/kits.tsx", 2, "the stylesheet node_modules/@mantine/core/styles.css of @mantine/core"),
        ("src/app/widgets/lists.tsx", 2, "the stylesheet node_modules/swiper/swiper.css of swiper"),
    ]
    assert {d["code"] for d in built["diagnostics"]} == {"NB1923", "NB1926"}
    assert sorted(d["message"].split(" copies of ", 1)[1].split(" ", 1)[0] for d in diagnostics) == DUPLICATED
    # nivo's two d3-array 2 each keep an internmap 1 under d3's internmap 2: npm dedupe leaves them, the hint says so
    [internmap] = [d["hint"] for d in diagnostics if " copies of internmap " in d["message"]]
    assert internmap.startswith("every copy is 1.0.1, each under a package that needs it, since node_modules/internmap")
    # React is the host's: the bundle reaches it through static imports of the shared ids only
    [parsed] = read_modules(root, ["dist/app/host.js"], esbuild).values()
    assert parsed.ids == tuple(built["record"]["sharedImports"])
    assert all(kind == "import-statement" for _, kind in parsed.imports)

    served = host_site([root])
    page = browser_page.page
    page.add_init_script(COUNT_RENDERERS)
    page.goto(served.url)
    check_the_gallery(browser_page, wait_for_host(page), bundle_type=0)


def test_the_gallery_renders_on_the_dev_page(realworld, dev_server, browser_page):  # noqa: F811
    root = realworld("gallery")
    dev = dev_server(root)
    browser_page.page.add_init_script(COUNT_RENDERERS)
    status = open_dev_page(browser_page, dev.url)
    check_the_gallery(browser_page, status, bundle_type=1)
    stop_cleanly(dev)
