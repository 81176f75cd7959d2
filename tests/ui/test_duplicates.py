"""More than one copy of a package in the bundle: named with versions and chains (NB1923), an error for React
(NB1924). lexical 0.53 beside @lexical/react 0.52 is the real case: npm gives each @lexical package that needs
0.52 its own copy, and esbuild bundles them all without a word."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from neuralis_build.hostprofile import HostProfile
from neuralis_build.util.errors import DiagnosedError
from tests.ui.ui_helpers import ui_manifest

pytestmark = pytest.mark.e2e

INSTALL = "export function installAcmeWidgetsHostComponents(host: { registerWidget(t: string, c: unknown): void }) {}\n"

LEXICAL = """\
import { $getRoot } from "lexical";
import { LexicalComposer } from "@lexical/react/LexicalComposer";
import { RichTextPlugin } from "@lexical/react/LexicalRichTextPlugin";
export const parts = [$getRoot, LexicalComposer, RichTextPlugin];
"""


def lexical_package(make_pkg, realworld_modules, source: str):
    deps = {"lexical": "0.53.0", "@lexical/react": "0.52.0"}
    root = make_pkg({"package.json": ui_manifest(dependencies=deps), "src/app/host.tsx": source + INSTALL})
    os.symlink(realworld_modules, root / "node_modules")
    return root


def test_lexical_with_an_older_lexical_react_is_a_warning_naming_each_copy(make_pkg, build, realworld_modules):
    root = lexical_package(make_pkg, realworld_modules, LEXICAL)
    result = build(root)  # a warning: the bundle is written
    [w] = [d for d in result.warnings if d.code == "NB1923"]
    lines = (root / "package.json").read_text().splitlines()
    declared = next(n for n, line in enumerate(lines, 1) if '"lexical"' in line)
    assert (w.severity, w.file, w.pointer, w.line) == ("warning", "package.json", "/dependencies/lexical", declared)
    assert w.message == (
        "the bundle holds 11 copies of lexical (versions 0.52.0, 0.53.0): "
        "0.53.0 at node_modules/lexical (src/app/host.tsx → lexical); "
        "0.52.0 at node_modules/@lexical/a11y/node_modules/lexical "
        "(src/app/host.tsx → @lexical/react → @lexical/rich-text → @lexical/a11y → lexical); "
        "0.52.0 at node_modules/@lexical/clipboard/node_modules/lexical "
        "(src/app/host.tsx → @lexical/react → @lexical/rich-text → @lexical/clipboard → lexical); "
        "0.52.0 at node_modules/@lexical/dragon/node_modules/lexical "
        "(src/app/host.tsx → @lexical/react → @lexical/dragon → lexical); "
        "7 more (0.52.0) for @lexical/extension, @lexical/html, @lexical/react, @lexical/rich-text, "
        "@lexical/selection, @lexical/text, @lexical/utils"
    )
    assert w.hint.startswith(
        "make them agree on one version of lexical (0.52.0 for @lexical/a11y, @lexical/clipboard, @lexical/dragon, "
        "@lexical/extension, @lexical/html, @lexical/react, @lexical/rich-text, @lexical/selection, @lexical/text, "
        "@lexical/utils; 0.53.0 for the package itself): install the version its dependents need"
    )
    assert (root / "dist/app/host.js").is_file()


def test_one_copy_of_each_package_is_no_warning(make_pkg, build, realworld_modules):
    source = 'import { $getRoot } from "lexical";\nexport const r = $getRoot;\n'
    root = lexical_package(make_pkg, realworld_modules, source)
    assert build(root).warnings == []


def copy_package(source, target) -> None:
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("node_modules"))


def test_two_copies_of_react_are_an_error(make_pkg, build, realworld_modules):
    """React bundled (a host that does not share it) from two folders, the same version in two places."""
    root = make_pkg(
        {
            "package.json": ui_manifest(dependencies={"react": "19.2.0", "ui-lib": "1.0.0"}),
            "src/app/host.tsx": 'import { useState } from "react";\nimport { useLib } from "ui-lib";\n'
            "export const hooks = [useState, useLib];\n" + INSTALL,
            "node_modules/ui-lib/package.json": json.dumps(
                {"name": "ui-lib", "version": "1.0.0", "main": "index.js", "dependencies": {"react": "19.2.0"}}
            ),
            "node_modules/ui-lib/index.js": 'import { useState } from "react";\nexport const useLib = useState;\n',
        }
    )
    copy_package(realworld_modules / "react", root / "node_modules/react")
    copy_package(realworld_modules / "react", root / "node_modules/ui-lib/node_modules/react")
    host = HostProfile("1", 19, ("@neuralis/client",))
    with pytest.raises(DiagnosedError) as err:
        build(root, host=host)
    [d] = [d for d in err.value.diagnostics if d.code == "NB1924"]
    assert (d.severity, d.file, d.pointer) == ("error", "package.json", "/dependencies/react")
    assert d.message == (
        "the bundle holds 2 copies of react (all 19.2.0): 19.2.0 at node_modules/react (src/app/host.tsx → react); "
        "19.2.0 at node_modules/ui-lib/node_modules/react (src/app/host.tsx → ui-lib → react); "
        "two Reacts in one page break hooks and context"
    )
    assert d.hint == "every copy is 19.2.0: npm dedupe (or a fresh npm install) leaves one copy that all resolve"
    assert not (root / "dist/app").exists()


def nested_copies(make_pkg, hoisted: str | None):
    """a and b each keep internmap 1.0.1 in their own node_modules, as npm leaves nivo's two d3-array 2; the top
    node_modules/internmap (``hoisted``: a version, or none) is what other dependents resolve."""

    def lib(name: str, version: str, source: str) -> dict[str, str]:
        manifest = {"name": name, "version": version, "main": "index.js"}
        return {"package.json": json.dumps(manifest), "index.js": source}

    tree = {
        "package.json": ui_manifest(dependencies={"a": "1.0.0", "b": "1.0.0"}),
        "src/app/host.tsx": 'import { a } from "a";\nimport { b } from "b";\nexport const both = [a, b];\n' + INSTALL,
    }
    for dependent in ("a", "b"):
        for rel, text in lib(dependent, "1.0.0", f'export {{ InternMap as {dependent} }} from "internmap";\n').items():
            tree[f"node_modules/{dependent}/{rel}"] = text
        for rel, text in lib("internmap", "1.0.1", "export class InternMap extends Map {}\n").items():
            tree[f"node_modules/{dependent}/node_modules/internmap/{rel}"] = text
    if hoisted is not None:
        for rel, text in lib("internmap", hoisted, "export class InternMap extends Map {}\n").items():
            tree[f"node_modules/internmap/{rel}"] = text
    return make_pkg(tree)


@pytest.mark.parametrize(
    ("hoisted", "hint"),
    [
        (None, "every copy is 1.0.1: npm dedupe (or a fresh npm install) leaves one copy that all resolve"),
        ("1.0.1", "every copy is 1.0.1: npm dedupe (or a fresh npm install) leaves one copy that all resolve"),
        (
            "2.0.3",
            "every copy is 1.0.1, each under a package that needs it, since node_modules/internmap is 2.0.3: npm "
            "dedupe merges them only if it can move 1.0.1 there; if they stay, pin internmap to one version that all "
            "its dependents accept with npm overrides, then npm dedupe",
        ),
    ],
    ids=["nothing-hoisted", "same-version-hoisted", "another-version-hoisted"],
)
def test_copies_of_one_version_say_whether_npm_dedupe_can_merge_them(make_pkg, build, hoisted, hint):
    """npm dedupe merges copies of one version into the top node_modules when it may; with another version there
    it left both of nivo's internmap 1.0.1 in place (tests/ui/test_realworld_gallery.py), and the hint says so."""
    root = nested_copies(make_pkg, hoisted)
    [w] = build(root).warnings
    assert w.code == "NB1923" and w.message.startswith("the bundle holds 2 copies of internmap (all 1.0.1): ")
    assert w.hint == hint
