"""Work that grew with the square of the input: many errors in one manifest, an adversarial iframe page."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from neuralis_build.manifest import htmlrefs
from neuralis_build.manifest.checker import Checker
from neuralis_build.manifest.shape import NB0100
from neuralis_build.util.diagnostics import Diagnostics
from tests.hostile.conftest import cli, package_json, write_package

MiB = 1024 * 1024


class NoScan(set[str]):
    """A set that may be added to and looked up, never iterated: a rule that scans it is quadratic."""

    def __iter__(self):  # type: ignore[no-untyped-def]
        raise AssertionError("the invalid pointers were scanned")


def test_is_valid_never_scans_the_errors_already_found():
    c = Checker(Diagnostics(), "first-party", invalid=NoScan(), dropped=NoScan())
    for i in range(100):
        c.error(NB0100, f"/neuralis/app/surfaces/{i}/action/widget", "bad")
    assert not c.is_valid("/neuralis/app/surfaces/7")
    assert not c.is_valid("/neuralis/app")
    assert not c.is_valid("")
    assert c.is_valid("/neuralis/app/surfaces/100")
    assert c.is_valid("/neuralis/app/surfaces/7/id")  # a sibling of the error, not under it
    assert c.usable("/neuralis/requires")


def test_eight_thousand_bad_dock_actions_are_all_reported(pkg: Path):
    surfaces = [
        {"kind": "dock", "id": f"d{i}", "label": "L", "action": {"type": "open-widget", "widget": "nowhere"}}
        for i in range(8000)
    ]
    write_package(pkg, package_json({"app": {"surfaces": surfaces}}))
    done = cli("check", pkg, "--trust", "untrusted", "--format", "json")
    assert done.code == 1
    diagnostics = done.diagnostics()
    assert len(diagnostics) == 8000 and {d["code"] for d in diagnostics} == {"NB0512"}
    assert diagnostics[-1]["pointer"] == "/neuralis/app/surfaces/7999/action/widget"


ADVERSARIAL = {
    "unclosed tags": "<a" * (5 * MiB),  # HTMLParser.close() rescans the rest once per tag: hours
    "unclosed comments": "<!--" * (2 * MiB),
    "nested url(": "<style>" + "url(" * (2 * MiB) + "</style>",
    "unclosed style attribute": '<p style="' + "url(" * (2 * MiB) + '">',
    "lone <": "<" * (10 * MiB),
    "tiny tags": "<b>" * (3 * MiB),
}


@pytest.mark.parametrize("shape", sorted(ADVERSARIAL))
def test_a_ten_megabyte_adversarial_iframe_entry_is_judged_within_a_budget(pkg: Path, shape: str):
    url = "./app/surfaces/widget/w/index.html"
    surface = {"kind": "widget", "id": "w", "type": "w", "title": "W", "component": {"renderer": "iframe", "url": url}}
    write_package(
        pkg, package_json({"app": {"surfaces": [surface]}}), {"app/surfaces/widget/w/index.html": ADVERSARIAL[shape]}
    )
    done = cli("check", pkg, "--trust", "untrusted", "--format", "json")
    assert done.code == 0, done.out
    (d,) = done.diagnostics()
    assert (d["severity"], d["code"]) == ("warning", "NB0515")
    assert d["message"].startswith("app/surfaces/widget/w/index.html is too large to scan in full: check stopped")


def test_a_page_with_thousands_of_references_lists_twenty_and_counts_the_rest(pkg: Path):
    url = "./app/surfaces/widget/w/index.html"
    surface = {"kind": "widget", "id": "w", "type": "w", "title": "W", "component": {"renderer": "iframe", "url": url}}
    page = "\n".join(f'<img src="img/{i}.png">' for i in range(5000))
    write_package(pkg, package_json({"app": {"surfaces": [surface]}}), {"app/surfaces/widget/w/index.html": page})
    done = cli("check", pkg, "--trust", "untrusted", "--format", "json")
    messages = [d["message"] for d in done.diagnostics()]
    assert len(messages) == 21
    assert messages[19] == (
        'app/surfaces/widget/w/index.html line 20 references the file "img/19.png", but a self-contained entry is '
        "served alone"
    )
    assert messages[20] == "app/surfaces/widget/w/index.html has 4,980 more references like these, not listed"


def test_the_end_of_a_page_is_read_as_html5_reads_it():
    # an unclosed <style> keeps its text (url() references first, then @import, as for a closed one)
    assert htmlrefs.references('<style>@import "a.css";\n  p { background: url(b.png) }') == [
        htmlrefs.Reference("b.png", 2),
        htmlrefs.Reference("a.css", 1),
    ]
    assert htmlrefs.references('<img src="x.png"><img src="y.png"') == [htmlrefs.Reference("x.png", 1)]
    assert htmlrefs.references('<script type="module">\nimport "./a.js";\n\nimport("./b.js")') == [
        htmlrefs.Reference("./a.js", 2),
        htmlrefs.Reference("./b.js", 4),
    ]


def test_a_scan_stops_at_each_budget_and_says_where():
    many = htmlrefs.scan("<i>\n" * htmlrefs.MAX_EVENTS)  # two events a line: the tag and the newline
    assert (many.stopped_at, many.why) == (htmlrefs.MAX_EVENTS // 2 + 1, "after 100,000 tags and text runs")
    refs = htmlrefs.scan('<img src="a.png">' * (htmlrefs.MAX_REFERENCES + 1))
    assert (len(refs.references), refs.why) == (htmlrefs.MAX_REFERENCES, "after 10,000 references")
    big = htmlrefs.scan("x\n" * (htmlrefs.MAX_CHARS // 2) + '<img src="late.png">')
    assert (big.references, big.stopped_at, big.why) == ([], htmlrefs.MAX_CHARS // 2 + 1, "after 4,194,304 characters")
    assert htmlrefs.scan('<img src="a.png">').stopped_at is None


@pytest.mark.parametrize(
    ("srcset", "urls"),
    [
        ("a.png 1x, b.png 2x", ["a.png", "b.png"]),
        ("data:image/png;base64,AA,BB 1x, c.png", ["data:image/png;base64,AA,BB", "c.png"]),
        ("x.png (a,b) 1x, y.png", ["x.png", "y.png"]),
        ("a.png 1x (unclosed, b.png", ["a.png"]),
        ("a.png,b.png", ["a.png,b.png"]),
        (" , z.png", ["z.png"]),
    ],
)
def test_srcset_candidates(srcset: str, urls: list[str]):
    assert htmlrefs.srcset_urls(srcset) == urls


def test_a_huge_srcset_is_split_in_linear_time():
    # one candidate whose descriptors hold a million unclosed groups: the old loop walked them per character
    assert htmlrefs.srcset_urls("a.png " + "(" * 1_000_000) == ["a.png"]
    assert json.dumps(htmlrefs.srcset_urls("b.png 1x," * 10)) == json.dumps(["b.png"] * 10)
