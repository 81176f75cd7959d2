"""Stylesheet pipelines with the real tools from npm (tests/ui/realworld), each built with `ui` and rendered in
Chromium with its styles applied: Tailwind v4 through @tailwindcss/postcss, Tailwind v3 with autoprefixer and
the package's browserslist (its own node_modules), Sass with a partial and a CSS module, Less with a mixin."""

from __future__ import annotations

import json
import re
import shutil

import pytest

from neuralis_build.ui.sourcemap import SourceMap
from tests.browserkit import dump, requires_chromium, surface_states, wait_for_host
from tests.ui.ui_helpers import snapshot

pytestmark = [pytest.mark.e2e]

# What each fixture's page must show, read with getComputedStyle: (selector, property) -> value. (Tailwind's
# spacing is in rem, and the host page sets its own root font size: colours, borders and displays are compared.)
RENDERED = {
    "tailwind4": (
        "@acme/tailwind4#widget:tiles",
        {
            ("[data-testid=tiles]", "display"): "flex",
            ("[data-testid=tiles]", "backgroundColor"): "oklch(0.685 0.169 237.323)",
            ("[data-testid=brand]", "color"): "rgb(12, 34, 56)",
            ("[data-testid=brand]", "fontWeight"): "700",
        },
    ),
    "tailwind3": (
        "@acme/tailwind3#widget:cards",
        {
            ("[data-testid=card]", "color"): "rgb(5, 150, 105)",
            ("[data-testid=card]", "borderTopColor"): "rgb(90, 20, 60)",
            ("[data-testid=card]", "borderTopWidth"): "2px",
            ("[data-testid=card]", "userSelect"): "none",
            ("[data-testid=brand]", "color"): "rgb(90, 20, 60)",
        },
    ),
    "sass": (
        "@acme/sass#widget:panel",
        {
            ("[data-testid=panel]", "paddingTop"): "8px",
            ("[data-testid=panel]", "borderTopColor"): "rgb(160, 40, 20)",
            ("[data-testid=title]", "color"): "rgb(20, 90, 160)",
            ("[data-testid=badge]", "display"): "inline-block",
            ("[data-testid=badge]", "color"): "rgb(160, 40, 20)",
            ("[data-testid=badge] b", "fontWeight"): "700",
        },
    ),
    "less": (
        "@acme/less#widget:notice",
        {
            ("[data-testid=notice]", "paddingTop"): "12px",
            ("[data-testid=notice]", "borderTopColor"): "rgb(120, 30, 140)",
            ("[data-testid=notice]", "borderTopLeftRadius"): "10px",
            ("[data-testid=title]", "color"): "rgb(120, 30, 140)",
        },
    ),
}


def computed(page, expected: dict[tuple[str, str], str]) -> dict[tuple[str, str], str]:
    probes = [[selector, prop] for selector, prop in expected]
    values = page.evaluate(
        "(probes) => probes.map(([s, p]) => getComputedStyle(document.querySelector(s))[p])",
        probes,
    )
    return dict(zip(expected, values, strict=True))


@requires_chromium
@pytest.mark.browser
@pytest.mark.parametrize(
    ("fixture", "minify"),
    [("tailwind4", False), ("tailwind3", False), ("sass", False), ("sass", True), ("less", False)],
    ids=["tailwind4", "tailwind3", "sass", "sass-minified", "less"],
)
def test_each_pipeline_renders_with_its_styles(realworld, build, host_site, browser_page, fixture, minify):
    root = realworld(fixture)
    result = build(root, minify=minify)
    # the Tailwind fixtures keep the preflight, as Tailwind's docs set it up: the build warns that it styles the page
    assert result.css and [w.code for w in result.warnings] == (["NB1926"] if fixture.startswith("tailwind") else [])
    surface, expected = RENDERED[fixture]
    served = host_site([root])
    page = browser_page.page
    page.goto(served.url)
    status = wait_for_host(page)
    assert surface_states(status) == {surface: ("rendered", None)}, dump(status)
    assert computed(page, expected) == expected
    assert browser_page.log.problems() == []


def test_tailwind4_goes_through_its_postcss_plugin(realworld, build):
    root = realworld("tailwind4")
    result = build(root)
    css = (root / "dist/app/host.css").read_text()
    # utilities for exactly the classes the sources use, the package's @theme colour, no directive left
    assert ".bg-sky-500" in css and ".text-brand" in css and ".bg-red-500" not in css
    assert "--color-brand:#0c2238" in css
    assert "@tailwind" not in css and "@theme" not in css and '@import "tailwindcss"' not in css
    # the config is an input of the build (a change to it rebuilds and makes the build stale), dist/ is not
    assert {"postcss.config.mjs", "src/app/styles.css", "src/app/host.tsx"} <= set(result.inputs)
    record = json.loads((root / "dist/app/build-inputs.json").read_text())["outputs"]["host.js"]
    assert "postcss.config.mjs" in record and not any(p.startswith("dist/") for p in record)


def test_tailwind_scanning_dist_is_named_and_kept_out_of_the_record(realworld, build):
    """Without dist/ in .gitignore Tailwind v4 scans the last build's output for class names: a warning."""
    root = realworld("tailwind4")
    (root / ".gitignore").unlink()
    build(root)
    result = build(root)
    [warning] = [w for w in result.warnings if w.code != "NB1926"]  # the preflight's is test_css_outside.py's
    assert (warning.severity, warning.code, warning.file) == ("warning", "NB1921", "postcss.config.mjs")
    assert "read the build's own output in dist/ (dist/app/" in warning.message
    assert warning.hint.startswith("add dist/ to the package's .gitignore")
    record = json.loads((root / "dist/app/build-inputs.json").read_text())["outputs"]["host.js"]
    assert not any(p.startswith("dist/") for p in record)


def test_tailwind3_with_autoprefixer_follows_the_package_browserslist(realworld, build):
    root = realworld("tailwind3")
    result = build(root)
    assert {"postcss.config.cjs", "tailwind.config.cjs"} <= set(result.inputs)
    css = (root / "dist/app/host.css").read_text()
    assert ".text-emerald-600" in css and "@tailwind" not in css and "@apply" not in css
    assert re.search(r"\.select-none \{\n  -webkit-user-select: none;\n  user-select: none;", css)
    manifest = json.loads((root / "package.json").read_text())
    manifest["browserslist"] = ["chrome 120"]  # a browser that needs no prefix: autoprefixer adds none
    (root / "package.json").write_text(json.dumps(manifest))
    build(root)
    css = (root / "dist/app/host.css").read_text()
    assert ".select-none {\n  user-select: none;" in css and "-webkit-user-select" not in css


def origin_of(generated: str, map_path, needle: str) -> tuple[str, int]:
    """The source file and 1-based line a needle of a generated file maps back to."""
    text = generated
    at = text.index(needle)
    line = text.count("\n", 0, at)
    column = at - (text.rfind("\n", 0, at) + 1)
    found = SourceMap(json.loads(map_path.read_text())).origin(line, column)
    assert found is not None
    return found.source, found.line + 1


def test_source_maps_point_at_the_authors_scss_and_less(realworld, build):
    sass = realworld("sass")
    build(sass, sourcemap=True)
    out = sass / "dist/app"
    sources = json.loads((out / "host.css.map").read_text())["sources"]
    assert sorted(set(sources)) == [
        "../../src/app/Badge.module.scss",
        "../../src/app/styles/_palette.scss",
        "../../src/app/theme.scss",
    ]
    css = (out / "host.css").read_text()
    # a declaration maps to the line of the .scss that wrote it, a variable's value to the partial
    assert origin_of(css, out / "host.css.map", "padding: 8px") == ("../../src/app/theme.scss", 5)
    assert origin_of(css, out / "host.css.map", "color: rgb(20, 90, 160)") == ("../../src/app/theme.scss", 9)
    assert origin_of(css, out / "host.css.map", "display: inline-block") == ("../../src/app/Badge.module.scss", 4)
    assert "../../src/app/Badge.module.scss" in json.loads((out / "host.js.map").read_text())["sources"]

    less = realworld("less")
    build(less, sourcemap=True)
    out = less / "dist/app"
    css = (out / "host.css").read_text()
    assert origin_of(css, out / "host.css.map", "padding: 12px") == ("../../src/app/notice.less", 4)
    assert origin_of(css, out / "host.css.map", "border-radius: 10px") == ("../../src/app/variables.less", 5)


@pytest.mark.parametrize("minify", [False, True], ids=["plain", "minified"])
def test_a_sass_css_module_is_scoped_to_the_package(realworld, build, minify):
    root = realworld("sass")
    build(root, minify=minify)
    css = (root / "dist/app/host.css").read_text()
    js = (root / "dist/app/host.js").read_text()
    prefix = "n" if minify else "acme-sass_"
    names = re.findall(r"\.(" + prefix + r"[A-Za-z0-9_-]+)", css)
    assert len(set(names)) == 2, css  # badge and label, both scoped
    assert all(f'"{n}"' in js for n in set(names))
    assert ".panel" in css  # a global stylesheet keeps its names
    # Sass read the partial; the record holds it so a change to it makes the build stale
    record = json.loads((root / "dist/app/build-inputs.json").read_text())["outputs"]["host.js"]
    assert "src/app/styles/_palette.scss" in record


@pytest.mark.parametrize("fixture", ["sass", "less", "tailwind4"])
def test_the_same_sources_build_the_same_bytes_anywhere(realworld, build, tmp_path, fixture):
    """Each tool's map reaches esbuild with sources relative to the stylesheet: no folder of this machine is
    written into the maps, and another folder (or a second build) gives the same bytes."""
    first = realworld(fixture)
    build(first, sourcemap=True)
    second = tmp_path / "elsewhere" / "deeper" / fixture
    shutil.copytree(first, second, symlinks=True, ignore=shutil.ignore_patterns("dist"))
    build(second, sourcemap=True)
    build(second, sourcemap=True)
    assert snapshot(first / "dist") == snapshot(second / "dist")
    for out in (first / "dist/app").glob("*.map"):
        text = base64_decoded(out.read_text())
        assert str(tmp_path) not in text and "file:" not in text


def base64_decoded(text: str) -> str:
    """A map's text with each inline base64 map (a tool's, kept in a CSS module's sourcesContent) decoded."""
    import base64

    inline = re.findall(r"base64,([A-Za-z0-9+/=]+)", text)
    return text + "".join(base64.b64decode(b).decode("utf-8") for b in inline)


def test_watch_rebuilds_when_a_file_the_tools_read_changes(realworld, esbuild):
    """tailwind.config.cjs and postcss.config.cjs sit outside src/ and esbuild never reads them: the tools'
    reads make them inputs, so `ui --watch` rebuilds when they change, and not for an unrelated file."""
    from neuralis_build.hostprofile import default_host_profile
    from neuralis_build.ui.run import BuildOptions, build_path
    from neuralis_build.ui.watch import inputs_of
    from neuralis_build.ui.watchset import build_watch_set, real

    root = realworld("tailwind3")
    built = build_path(root, BuildOptions(default_host_profile()), esbuild)
    watching = build_watch_set(root, inputs_of(built), failed=False, since=0)
    assert watching.matters(real(root / "tailwind.config.cjs"), False)
    assert watching.matters(real(root / "postcss.config.cjs"), False)
    assert not watching.matters(real(root / "notes.txt"), False)
