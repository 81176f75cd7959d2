"""The image's layout of npm's hoisted lock: listed packages at the root, every hoisted package in its tier's folder.

Each test builds a lock as npm writes it, lays it out, walks it as the image build does, and checks where
each edge lands: on the very package npm chose, never on a copy another trust tier brought in.
"""

from __future__ import annotations

from neuralis_build.image.layout.graph import Root, walk
from neuralis_build.image.layout.tiers import Layout, layout_of, links_of, lookup, stored, top_of
from neuralis_build.util.trust import Trust
from tests.image.test_closure_rules import LINUX, listed, lock_of, reg


def first(name: str) -> str:
    return stored("first-party", name, VERSIONS[name])


def untrusted(name: str) -> str:
    return stored("untrusted", name, VERSIONS[name])


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
VERSIONS = {"rxjs": "7.8.2", "tslib": "2.8.1", "reflect-metadata": "0.2.2", "debug": "4.4.3", "ms": "2.1.3"}
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
    assert first("rxjs") in layout.nodes and untrusted("rxjs") in layout.nodes
    assert layout.nodes[first("rxjs")].path == first("rxjs")


def test_each_edge_finds_npm_s_choice_in_its_own_tier() -> None:
    layout = _layout()
    found = {
        (start, name): getattr(layout.find(start, name), "path", None)
        for start, name in [
            ("node_modules/app", "rxjs"),  # through the link in app's node_modules
            ("node_modules/app", "ms"),  # app's own nested copy comes first
            (first("debug"), "ms"),  # the hoisted ms, in the tier's folder
            ("node_modules/@nestjs/core", "rxjs"),
            (untrusted("rxjs"), "tslib"),
            ("node_modules/app", "reflect-metadata"),  # the layout's find follows a link to any top of its tier
            (untrusted("rxjs"), "app"),  # out of the tier folder: the listed packages at the root
            ("", "rxjs"),  # the root holds listed packages only
        ]
    }
    assert found == {
        ("node_modules/app", "rxjs"): first("rxjs"),
        ("node_modules/app", "ms"): "node_modules/app/node_modules/ms",
        (first("debug"), "ms"): first("ms"),
        ("node_modules/@nestjs/core", "rxjs"): untrusted("rxjs"),
        (untrusted("rxjs"), "tslib"): untrusted("tslib"),
        ("node_modules/app", "reflect-metadata"): first("reflect-metadata"),
        (untrusted("rxjs"), "app"): "node_modules/app",
        ("", "rxjs"): None,
    }


def test_the_walk_places_each_tier_s_copies_and_the_links_its_listed_packages_need() -> None:
    layout = _layout()
    closure = walk(layout, ROOTS, {"react"}, LINUX)
    placed = {path: p.trust for path, p in closure.placed.items()}
    assert placed == {
        "node_modules/app": "first-party",
        "node_modules/app/node_modules/ms": "first-party",
        first("rxjs"): "first-party",
        first("tslib"): "first-party",
        first("debug"): "first-party",
        first("ms"): "first-party",
        "node_modules/@nestjs/core": "untrusted",
        untrusted("rxjs"): "untrusted",
        untrusted("tslib"): "untrusted",
        untrusted("reflect-metadata"): "untrusted",
    }
    # the first-party tier has no reflect-metadata: only @nestjs/core's walk reaches it
    assert first("reflect-metadata") not in closure.placed
    fp, un = "node_modules/.store/first-party/node_modules", "node_modules/.store/untrusted/node_modules"
    assert links_of(closure.edges, closure.placed, layout) == {
        # each listed package links to its tier's link, which links to the top's own folder
        "node_modules/@nestjs/core/node_modules/reflect-metadata": f"{un}/reflect-metadata",
        "node_modules/@nestjs/core/node_modules/rxjs": f"{un}/rxjs",
        f"{fp}/debug": first("debug"),
        f"{fp}/ms": first("ms"),
        f"{fp}/rxjs": first("rxjs"),
        f"{fp}/tslib": first("tslib"),
        f"{un}/reflect-metadata": untrusted("reflect-metadata"),
        f"{un}/rxjs": untrusted("rxjs"),
        f"{un}/tslib": untrusted("tslib"),
        "node_modules/app/node_modules/debug": f"{fp}/debug",
        "node_modules/app/node_modules/rxjs": f"{fp}/rxjs",
    }


def test_a_single_tier_is_npm_s_own_tree_under_one_folder() -> None:
    lock = lock_of(HOISTED, {"app": "file:a.tgz", "@nestjs/core": "file:b.tgz"})
    layout = layout_of(lock, {"app": "untrusted", "@nestjs/core": "untrusted"})
    assert len(layout.nodes) == len(lock.nodes) and len(layout.links) == 5  # rxjs, tslib, reflect-metadata, debug, ms
    assert layout.nodes[untrusted("debug")].path == untrusted("debug")
    assert top_of("node_modules/a/node_modules/b") == "node_modules/a"


def test_lookup_is_node_s_list_of_node_modules_folders() -> None:
    assert list(lookup("node_modules/@s/a/node_modules/b")) == [
        "node_modules/@s/a/node_modules/b/node_modules",
        "node_modules/@s/a/node_modules",
        "node_modules/@s/node_modules",
        "node_modules",
    ]
    assert list(lookup(untrusted("rxjs"))) == [
        f"{untrusted('rxjs')}/node_modules",
        "node_modules/.store/untrusted/rxjs@7.8.2/node_modules",
        "node_modules/.store/untrusted/node_modules",
        "node_modules/.store/node_modules",
        "node_modules",
    ]
