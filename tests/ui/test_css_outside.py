"""Stylesheet rules that style elements outside the module (NB1926): the scanner, then the build with real tools.

Real Tailwind v4 with its preflight (tests/ui/realworld/tailwind4), Mantine's stylesheet and Sass from the
fixtures' node_modules; the templates' own stylesheet rendered beside Tailwind v4 in Chromium.
"""

from __future__ import annotations

import json
import os
import shutil

import pytest

from tests.browserkit import dump, requires_chromium, surface_states, wait_for_host
from tests.ui.ui_helpers import HOST_TSX, ui_manifest

WITH_CSS = {"entry": "dist/app/host.js", "css": "dist/app/host.css"}


def test_a_brace_comma_or_selector_inside_a_string_comment_or_url_is_never_structure():
    from neuralis_build.ui.cssscan import split_list, style_rules

    css = (
        '/* h1 { color: red } */ .a[title="}{,h1"] { content: "} h1 {"; background: url(x{y}.png) }\n'
        "@media (min-width: 1px) { @supports (display: grid) { b, .c::before { color: red } } }\n"
        '.d { content: "\\"}" } em { color: blue }'
    )
    assert [(r.selector, r.properties) for r in style_rules(css)] == [
        ('.a[title="}{,h1"]', ("content", "background")),
        ("b, .c::before", ("color",)),
        (".d", ("content",)),
        ("em", ("color",)),
    ]
    assert split_list('a, :is(b, c), [x=","]') == ["a", ":is(b, c)", '[x=","]']


@pytest.mark.parametrize(
    ("selector", "inside"),
    [
        (".card h1", True),
        ("h1.title", True),
        ("#root a", True),
        ("[data-acme] button", True),
        (":where(.acme) h1", True),
        (":is(.a, .b) > p", True),
        (":global(.dark) .card", True),
        ("*", False),
        ("html", False),
        ("body", False),
        (":root", False),
        (":host", False),
        ("h1", False),
        ("a:hover", False),
        ("::selection", False),
        ("*::before", False),
        (":is(.a, h1)", False),
        ("div:not(.acme)", False),
        ("div:has(.acme)", False),
        (":global(h1)", False),
        ("h1\\.title", False),
    ],
)
def test_a_selector_stays_inside_only_when_a_compound_names_a_class_id_or_attribute(selector, inside):
    from neuralis_build.ui.cssscan import scoped

    assert scoped(selector) is inside


def test_variables_and_rules_of_non_grouping_at_rules_are_not_counted():
    from neuralis_build.ui.cssscan import reaching

    css = (
        ":root, :host { --brand: red; --gap: 4px }\n"  # defines variables, restyles nothing
        "@font-face { font-family: X; src: url(x.woff2) }\n"
        "@keyframes spin { from { transform: none } to { transform: rotate(1turn) } }\n"
        "@scope (.card) { img { width: 100% } }\n"
        "@layer base { *, ::after { box-sizing: border-box; --tw: 0 } }\n"
        ".card { color: red; h1 { margin: 0 } }\n"
    )
    assert [(r.start, r.selectors) for r in reaching(css)] == [(css.index("*, ::after"), ("*", "::after"))]


def warnings_of(result, code="NB1926"):
    return [(d.file, d.line, d.column, d.message, d.hint) for d in result.warnings if d.code == code]


PREFLIGHT_V4 = (
    "Tailwind's preflight resets the page's elements: import Tailwind without it, replacing "
    '@import "tailwindcss"; with @layer theme, base, components, utilities; @import "tailwindcss/theme.css" '
    'layer(theme); @import "tailwindcss/utilities.css" layer(utilities); and style the module\'s elements '
    "with utilities (docs/styling.md, Global styles)"
)
EFFECT = "in the host's page they restyle every element they match, the host's and other modules' included"


@pytest.mark.e2e
def test_tailwind_v4_s_preflight_is_named_at_its_import_with_the_way_to_turn_it_off(realworld, build):
    root = realworld("tailwind4")
    assert warnings_of(build(root)) == [
        (
            "src/app/styles.css",
            1,
            1,
            "src/app/styles.css has 45 rules that style elements outside the module (*, :after, :before, "
            f"::backdrop, …): {EFFECT}",
            PREFLIGHT_V4,
        )
    ]
    # as the hint says: no preflight, and what is left (utilities, the theme's variables) stays inside
    styles = root / "src/app/styles.css"
    styles.write_text(
        styles.read_text().replace(
            '@import "tailwindcss";',
            '@layer theme, base, components, utilities;\n@import "tailwindcss/theme.css" layer(theme);\n'
            '@import "tailwindcss/utilities.css" layer(utilities);',
        )
    )
    assert warnings_of(build(root)) == []


@pytest.mark.e2e
def test_tailwind_v3_s_preflight_is_named_with_its_config_switch(realworld, build):
    root = realworld("tailwind3")
    assert warnings_of(build(root)) == [
        (
            "src/app/styles.css",
            1,
            1,
            "src/app/styles.css has 35 rules that style elements outside the module (*, ::before, ::after, html, "
            f"…): {EFFECT}",
            "Tailwind's preflight resets the page's elements: turn it off with corePlugins: { preflight: false } in "
            "tailwind.config.js (keep @tailwind base; for the variables its utilities use), and style the module's "
            "elements with utilities (docs/styling.md, Global styles)",
        )
    ]
    config = root / "tailwind.config.cjs"
    config.write_text(config.read_text().replace("plugins: [],", "plugins: [],\n  corePlugins: { preflight: false },"))
    assert warnings_of(build(root)) == []


@pytest.mark.e2e
def test_a_package_s_own_global_rules_are_one_warning_per_file(make_pkg, build):
    root = make_pkg(
        {
            "package.json": ui_manifest(WITH_CSS, name="@acme/widgets"),
            "src/app/host.tsx": 'import "./base.css";\nimport "./scoped.css";\n' + HOST_TSX,
            "src/app/base.css": '@import "./more.css";\n'
            "body { margin: 0 }\n.hello h1 { color: red }\nh1, h2 { font-weight: 400 }\n"
            "@media (min-width: 600px) { a:hover { color: blue } }\n"
            "@layer base { *, ::after { box-sizing: border-box } }\n",
            "src/app/more.css": ".hello { padding: 2px }\n\nbutton { font: inherit }\n",
            "src/app/scoped.css": "@font-face { font-family: X; src: local(Arial) }\n.hello p { margin: 0 }\n",
        }
    )
    own_hint = (
        "scope each selector under the module's root element (.acme-widgets h1, or .acme-widgets { h1 { … } } "
        "with CSS nesting; :where(.acme-widgets) h1 keeps it as easy to override as h1), and leave resets of "
        "html, body and * to the host's page"
    )
    assert warnings_of(build(root)) == [
        (
            "src/app/more.css",
            3,
            1,
            f"src/app/more.css has 1 rule that styles elements outside the module (button): {EFFECT}",
            own_hint,
        ),
        (
            "src/app/base.css",
            2,
            1,
            f"src/app/base.css has 4 rules that style elements outside the module (body, h1, h2, a:hover, …): {EFFECT}",
            own_hint,
        ),
    ]


@pytest.mark.e2e
def test_a_library_s_stylesheet_is_named_with_the_import_that_brought_it(make_pkg, build, realworld_modules):
    root = make_pkg(
        {
            "package.json": ui_manifest(WITH_CSS),
            "src/app/host.tsx": 'import { useState } from "react";\nimport "@mantine/core/styles.css";\n'
            + HOST_TSX.replace('import { useState } from "react";\n', ""),
        }
    )
    os.symlink(realworld_modules, root / "node_modules")
    assert warnings_of(build(root)) == [
        (
            "src/app/host.tsx",
            2,
            8,
            "the stylesheet node_modules/@mantine/core/styles.css of @mantine/core, imported by src/app/host.tsx as "
            '"@mantine/core/styles.css", has 6 rules that style elements outside the module (:root, :host, *, '
            f"*::before, …): {EFFECT}",
            "a library's page-wide stylesheet is written for an app that owns the page: import the part of "
            "@mantine/core that styles only its components if it ships one (its documentation names it), or scope "
            "its selectors under the module's root element at build time (postcss-prefix-selector with prefix "
            ".acme-widgets in the package's PostCSS config)",
        )
    ]


@pytest.mark.e2e
def test_a_rule_sass_wrote_is_named_in_the_partial_it_comes_from(make_pkg, build, realworld_modules):
    root = make_pkg(
        {
            "package.json": ui_manifest(WITH_CSS, devDependencies={"react": "^19.0.0", "sass": "1.108.2"}),
            "src/app/host.tsx": 'import "./theme.scss";\n' + HOST_TSX,
            "src/app/theme.scss": '@use "./reset";\n.hello { color: red; }\n',
            "src/app/_reset.scss": "// a reset that belongs to a page\n\nh1 {\n  margin: 0;\n}\n",
        }
    )
    os.symlink(realworld_modules, root / "node_modules")
    [(file, line, _, message, _)] = warnings_of(build(root))
    assert (file, line) == ("src/app/_reset.scss", 3)
    assert message.startswith("src/app/_reset.scss has 1 rule that styles elements outside the module (h1)")


@requires_chromium
@pytest.mark.browser
@pytest.mark.e2e
def test_the_template_s_stylesheet_gives_way_to_tailwind_v4_utilities(
    tmp_path, build, realworld_modules, host_site, browser_page
):
    """The ui-module template's host.css beside Tailwind v4: text-3xl sizes the template's h1 (its own rule was
    outside every layer, and beat Tailwind's layered utilities), and its rules still beat the preflight."""
    from neuralis_build.scaffold.create import Request, create, plan

    root = tmp_path / "acme-tiles"
    create(plan(Request("@acme/tiles", template="ui-module", directory=root)))
    os.symlink(realworld_modules, root / "node_modules")
    (root / "postcss.config.mjs").write_text('export default { plugins: { "@tailwindcss/postcss": {} } };\n')
    (root / "src/app/tailwind.css").write_text('@import "tailwindcss";\n')
    host = root / "src/app/host.tsx"
    text = host.read_text().replace('import "./host.css";', 'import "./tailwind.css";\nimport "./host.css";')
    host.write_text(text.replace("<h1>", '<h1 className="text-3xl">'))
    build(root)
    page = browser_page.page
    page.goto(host_site([root]).url)
    status = wait_for_host(page)
    assert {s for s, _ in surface_states(status).values()} == {"rendered"}, dump(status)
    sizes = page.evaluate(
        """() => {
          const rem = parseFloat(getComputedStyle(document.documentElement).fontSize);
          const h1 = document.querySelector('.acme-tiles-workspace h1');
          const button = document.querySelector('.acme-tiles-workspace button');
          return [parseFloat(getComputedStyle(h1).fontSize) / rem, getComputedStyle(button).paddingLeft];
        }"""
    )
    assert sizes == [1.875, "10px"]  # Tailwind's text-3xl; the template's button padding over preflight's 0
    assert browser_page.log.problems() == []
    shutil.rmtree(root / "dist")
    assert json.loads((root / "package.json").read_text())["type"] == "module"
