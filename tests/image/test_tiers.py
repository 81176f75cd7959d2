"""The image's layout of npm's hoisted lock: listed packages at the root, every hoisted package in its tier's folder.

Each test builds a lock as npm writes it, lays it out, walks it as the image build does, and checks where
each edge lands: on the very package npm chose, never on a copy another trust tier brought in.
"""

from __future__ import annotations

from neuralis_build.image.graph import Root, walk
from neuralis_build.image.tiers import Layout, layout_of, links_of, top_of
from neuralis_build.trust import Trust
from tests.image.test_closure_rules import LINUX, listed, lock_of, reg

FIRST = "node_modules/.store/first-party/node_modules"
UNTRUSTED = "node_modules/.store/untrusted/node_modules"

# npm's hoisted tree for a first-party app (rxjs, debug) and an untrusted @nestjs/core (rxjs as a peer, and
# reflect-metadata); app nests its own ms@2.0.0, debug finds the hoisted ms@2.1.3
HOISTED = {
    "node_modules/app": listed("app", dependencies={"rxjs": "^7", "debug": "^4", "ms": "2.0.0"}),
    "node_modules/app/node_modules/ms": reg("ms", "2.0.0"),
    "node_modules/@nestjs/core": listed("@nestjs/core", peerDependencies={"rxjs": "^7", "reflect-metadata": "*"}),
    "node_modules/rxjs": reg("rxjs", "7.8.2", dependencies={"tslib": "^2"}),
    "node_modules/tslib": reg("tslib", "2.8.1"),
    "node_modules/reflect-metadata": reg("reflect-metadata", "0.2.2", peer=True),
    "node_modules/debug": reg("debug", "4.4.3", dependencies={"ms": "^2.1.3"}),
    "node_modules/ms": reg("ms", "2.1.3"),
}
TIERS: dict[str, Trust] = {"app": "first-party", "@nestjs/core": "untrusted"}
ROOTS = [Root("app", "first-party", "host-dependency", 0), Root("@nestjs/core", "untrusted", "installed", 1)]


def _layout() -> Layout:
    return layout_of(lock_of(HOISTED, {"app": "file:a.tgz", "@nestjs/core": "file:b.tgz"}), TIERS)


def test_the_root_keeps_the_listed_packages_and_their_nested_folders() -> None:
    layout = _layout()
    assert sorted(p for p in layout.nodes if not p.startswith("node_modules/.store/")) == [
        "node_modules/@nestjs/core",
        "node_modules/app",
        "node_modules/app/node_modules/ms",
    ]
    # every hoisted package is laid out once per tier present; the walk places only what a tier reaches
    assert f"{FIRST}/rxjs" in layout.nodes and f"{UNTRUSTED}/rxjs" in layout.nodes
    assert layout.nodes[f"{FIRST}/rxjs"].path == f"{FIRST}/rxjs"


def test_each_edge_finds_npm_s_choice_in_its_own_tier() -> None:
    layout = _layout()
    found = {
        (start, name): getattr(layout.find(start, name), "path", None)
        for start, name in [
            ("node_modules/app", "rxjs"),  # through the link in app's node_modules
            ("node_modules/app", "ms"),  # app's own nested copy comes first
            (f"{FIRST}/debug", "ms"),  # the hoisted ms, in the tier's folder
            ("node_modules/@nestjs/core", "rxjs"),
            (f"{UNTRUSTED}/rxjs", "tslib"),
            ("node_modules/app", "reflect-metadata"),  # the layout's find follows a link to any top of its tier
            (f"{UNTRUSTED}/rxjs", "app"),  # out of the tier folder: the listed packages at the root
            ("", "rxjs"),  # the root holds listed packages only
        ]
    }
    assert found == {
        ("node_modules/app", "rxjs"): f"{FIRST}/rxjs",
        ("node_modules/app", "ms"): "node_modules/app/node_modules/ms",
        (f"{FIRST}/debug", "ms"): f"{FIRST}/ms",
        ("node_modules/@nestjs/core", "rxjs"): f"{UNTRUSTED}/rxjs",
        (f"{UNTRUSTED}/rxjs", "tslib"): f"{UNTRUSTED}/tslib",
        ("node_modules/app", "reflect-metadata"): f"{FIRST}/reflect-metadata",
        (f"{UNTRUSTED}/rxjs", "app"): "node_modules/app",
        ("", "rxjs"): None,
    }


def test_the_walk_places_each_tier_s_copies_and_the_links_its_listed_packages_need() -> None:
    layout = _layout()
    closure = walk(layout, ROOTS, {"react"}, LINUX)
    placed = {path: p.trust for path, p in closure.placed.items()}
    assert placed == {
        "node_modules/app": "first-party",
        "node_modules/app/node_modules/ms": "first-party",
        f"{FIRST}/rxjs": "first-party",
        f"{FIRST}/tslib": "first-party",
        f"{FIRST}/debug": "first-party",
        f"{FIRST}/ms": "first-party",
        "node_modules/@nestjs/core": "untrusted",
        f"{UNTRUSTED}/rxjs": "untrusted",
        f"{UNTRUSTED}/tslib": "untrusted",
        f"{UNTRUSTED}/reflect-metadata": "untrusted",
    }
    # the first-party tier has no reflect-metadata: only @nestjs/core's walk reaches it
    assert f"{FIRST}/reflect-metadata" not in closure.placed
    assert links_of(closure.edges, closure.placed, layout) == {
        "node_modules/@nestjs/core/node_modules/reflect-metadata": f"{UNTRUSTED}/reflect-metadata",
        "node_modules/@nestjs/core/node_modules/rxjs": f"{UNTRUSTED}/rxjs",
        "node_modules/app/node_modules/debug": f"{FIRST}/debug",
        "node_modules/app/node_modules/rxjs": f"{FIRST}/rxjs",
    }


def test_a_single_tier_is_npm_s_own_tree_under_one_folder() -> None:
    lock = lock_of(HOISTED, {"app": "file:a.tgz", "@nestjs/core": "file:b.tgz"})
    layout = layout_of(lock, {"app": "untrusted", "@nestjs/core": "untrusted"})
    moved = {p.removeprefix("node_modules/.store/untrusted/") for p in layout.nodes}
    assert moved == set(lock.nodes)
    assert top_of("node_modules/a/node_modules/b") == "node_modules/a"
