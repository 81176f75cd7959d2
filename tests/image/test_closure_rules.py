"""The closure's rules one by one, on locks and npm outputs written in the test (no npm, no registry)."""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from neuralis_build.image.archive.integrity import matches, strongest
from neuralis_build.image.judge.conflicts import closure_conflicts, installed_of
from neuralis_build.image.layout.graph import Root, platform_problem, walk
from neuralis_build.image.resolution.npmcli import translate
from neuralis_build.image.resolution.npmlock import parse_npm_lock
from neuralis_build.image.resolution.registries import Registries
from neuralis_build.image.resolution.registrytarballs import TarballStore
from neuralis_build.image.resolution.resolve import Admitted, check_lock, not_from_registry, root_manifest
from neuralis_build.image.tree.staged import host_package_names
from neuralis_build.npm.fields import license_of
from neuralis_build.util.errors import UsageError

LINUX = ("linux", "x64", "glibc")


def sri(data: bytes, algo: str = "sha512") -> str:
    return f"{algo}-" + base64.b64encode(hashlib.new(algo, data).digest()).decode()


def reg(name: str, version: str, **extra: Any) -> dict[str, Any]:
    base = name.rsplit("/", 1)[-1]
    return {
        "version": version,
        "resolved": f"https://registry.example/{name}/-/{base}-{version}.tgz",
        "integrity": sri(f"{name}@{version}".encode()),
        **extra,
    }


def listed(name: str, **extra: Any) -> dict[str, Any]:
    """A listed package's lock entry: its tarball, staged by the image build."""
    return {
        "version": "1.0.0",
        "resolved": f"file:.neuralis-tarballs/{name}.tgz",
        "integrity": sri(name.encode()),
        **extra,
    }


def lock_of(packages: dict[str, dict[str, Any]], root: dict[str, str] | None = None) -> Any:
    data = {"lockfileVersion": 3, "packages": {"": {"dependencies": root or {}}, **packages}}
    return parse_npm_lock(json.dumps(data), Path("package-lock.json"))


TREE = {
    "node_modules/app": {
        "version": "1.0.0",
        "resolved": "file:.neuralis-tarballs/app.tgz",
        "integrity": sri(b"app"),
        "dependencies": {"x": "^1.0.0", "lib": "^1.0.0"},
        "peerDependencies": {"react": "^18.0.0"},
        "optionalDependencies": {"fsevents": "^2.0.0"},
    },
    "node_modules/app/node_modules/x": reg("x", "1.0.0", dependencies={"y": "^1.0.0", "gone": "^1.0.0"}),
    "node_modules/app/node_modules/y": reg("y", "1.0.0"),
    "node_modules/app/node_modules/fsevents": reg("fsevents", "2.3.3", os=["darwin"], optional=True),
    "node_modules/lib": {
        "version": "1.0.0",
        "resolved": "file:.neuralis-tarballs/lib.tgz",
        "integrity": sri(b"lib"),
        "dependencies": {"z": "^1.0.0"},
    },
    "node_modules/lib/node_modules/z": reg("z", "1.0.0"),
    "node_modules/shady": {
        "version": "1.0.0",
        "resolved": "file:.neuralis-tarballs/shady.tgz",
        "integrity": sri(b"shady"),
        "dependencies": {"x": "^1.0.0"},
        "peerDependencies": {"colors": "^1.0.0"},
    },
    "node_modules/shady/node_modules/x": reg("x", "1.0.0", dependencies={"y": "^1.0.0"}),
    "node_modules/shady/node_modules/y": reg("y", "2.0.0"),
    "node_modules/colors": reg("colors", "1.4.0", peer=True),
    "node_modules/react": reg("react", "18.3.1", peer=True),
    "node_modules/stray": {"extraneous": True},
}
ROOTS = [
    Root("shady", "untrusted", "installed", 2),
    Root("app", "first-party", "host-dependency", 0),
    Root("lib", "trusted", "installed", 1),
]


def test_the_walk_places_what_each_listed_package_reaches_at_its_tier() -> None:
    lock = lock_of(TREE, {"app": "file:…", "lib": "file:…", "shady": "file:…"})
    assert "node_modules/stray" not in lock.nodes
    closure = walk(lock, ROOTS, {"react"}, LINUX)
    placed = {path: (" > ".join(p.chain), p.trust) for path, p in sorted(closure.placed.items())}
    assert placed == {
        "node_modules/app": ("app", "first-party"),
        "node_modules/app/node_modules/x": ("app > x", "first-party"),
        "node_modules/app/node_modules/y": ("app > x > y", "first-party"),
        "node_modules/colors": ("shady > colors", "untrusted"),  # a peer no host provides is installed
        "node_modules/lib": ("lib", "trusted"),  # reached from app too, but a listed package keeps its own tier
        "node_modules/lib/node_modules/z": ("lib > z", "trusted"),
        "node_modules/shady": ("shady", "untrusted"),
        "node_modules/shady/node_modules/x": ("shady > x", "untrusted"),
        "node_modules/shady/node_modules/y": ("shady > x > y", "untrusted"),
    }
    assert closure.edges["node_modules/app"] == {"lib": "node_modules/lib", "x": "node_modules/app/node_modules/x"}
    assert [(p.path, p.name, p.range) for p in closure.host_peers] == [("node_modules/app", "react", "^18.0.0")]
    assert closure.skipped == [
        ("node_modules/app/node_modules/fsevents", "optional, for os darwin (this machine: linux)")
    ]
    assert [(m.path, m.name, m.kind, m.reason) for m in closure.missing] == [
        ("node_modules/app/node_modules/x", "gone", "prod", "it is not in npm's lock")
    ]
    assert closure.reaching()["node_modules/lib"] == {"app", "lib"}
    assert closure.reaching()["node_modules/app/node_modules/y"] == {"app"}


def test_a_blocked_path_is_a_hit_for_every_walk_that_reaches_it() -> None:
    lock = lock_of(TREE)
    closure = walk(lock, [r for r in ROOTS if r.name != "lib"], {"react"}, LINUX, blocked={"node_modules/lib"})
    assert closure.hits == [("app", "node_modules/lib", ("app", "lib"))]
    assert "node_modules/lib/node_modules/z" not in closure.placed


@pytest.mark.parametrize(
    ("os_", "cpu", "libc", "problem"),
    [
        (["linux"], [], [], None),
        (["!win32"], ["x64", "arm64"], [], None),
        (["darwin", "win32"], [], [], "os darwin, win32 (this machine: linux)"),
        ([], ["!x64"], [], "cpu !x64 (this machine: x64)"),
        ([], [], ["musl"], "libc musl (this machine: glibc)"),
    ],
)
def test_platform_rules_as_npm_reads_them(os_: list[str], cpu: list[str], libc: list[str], problem: str | None) -> None:
    node = lock_of({"node_modules/n": reg("n", "1.0.0", os=os_, cpu=cpu, libc=libc)}).nodes["node_modules/n"]
    assert platform_problem(node, LINUX) == problem


def test_closure_conflicts_name_versions_peers_and_gaps() -> None:
    closure = walk(lock_of(TREE), ROOTS, {"react"}, LINUX)
    conflicts = closure_conflicts(
        closure,
        {"app": "1.0.0", "lib": "1.0.0", "shady": "1.0.0"},
        frozenset({"react"}),
        19,
        {("node_modules/app", "react", "^18.0.0"): False},
    )
    assert [(c.kind, c.name, c.message) for c in conflicts] == [
        (
            "versions",
            "y",
            "y is installed at 2 versions (1.0.0 for x (^1.0.0, under app); 2.0.0 for x (^1.0.0, under shady)): "
            "the ranges meet (1.0.0 satisfies every one), but npm kept the copy it placed first where the others "
            "look and nested another for the range it excludes",
        ),
        (
            "peer",
            "react",
            "app declares the peer react@^18.0.0, which the host's React 19 does not meet; the image "
            "installs no react (the host provides it)",
        ),
        (
            "missing",
            "gone",
            "app → x needs gone@^1.0.0 (prod dependency), which is not installed: it is not in npm's lock",
        ),
    ]
    rows = installed_of(closure, {})
    assert [(i.path, i.flags, i.trust) for i in rows][:2] == [
        ("node_modules/app", (), "first-party"),
        ("node_modules/app/node_modules/x", (), "first-party"),
    ]
    assert next(i for i in rows if i.name == "colors").flags == ("peer",)


def admitted(name: str) -> Admitted:
    return Admitted(name, sri(name.encode()), None, b"")


def test_the_lock_must_resolve_each_listed_name_to_its_own_tarball() -> None:
    ours = [admitted("app"), admitted("lib")]
    good = {
        "node_modules/app": {"version": "1.0.0", "resolved": ours[0].spec, "integrity": ours[0].integrity},
        "node_modules/lib": {"version": "1.0.0", "resolved": ours[1].spec, "integrity": ours[1].integrity},
        "node_modules/app/node_modules/x": reg("x", "1.0.0"),
        "node_modules/app/node_modules/b": {"version": "1.0.0", "inBundle": True},
    }
    check_lock(lock_of(good), ours)
    confused = {**good, "node_modules/lib": reg("lib", "1.0.0")}
    bad = {
        **confused,
        "node_modules/app/node_modules/n": {"version": "1.0.0", "integrity": sri(b"n")},
        "node_modules/app/node_modules/w": reg("w", "1.0.0", integrity="md5-bm8="),
    }
    with pytest.raises(UsageError) as refused:
        check_lock(lock_of(bad), ours)
    assert refused.value.message.splitlines() == [
        "npm's lock breaks the image's rules:",
        f"  npm resolved lib to https://registry.example/lib/-/lib-1.0.0.tgz ({sri(b'lib@1.0.0')}), not to the "
        f"tarball the image validated ({ours[1].spec}, {ours[1].integrity})",
        "  n@1.0.0 at node_modules/app/node_modules/n has no resolved URL or integrity in npm's lock (is "
        "omit-lockfile-registry-resolved set?)",
        "  w@1.0.0 at node_modules/app/node_modules/w has an integrity the image cannot check (md5-bm8=)",
    ]
    assert refused.value.hint == "rebuild without --frozen; if it persists, report it with the lock"


EXAMPLE = Registries("https://registry.example/", {"@corp": "https://npm.corp.example/api/npm/"})


def test_every_package_not_listed_must_be_a_tarball_of_the_registry_npm_fetches_it_from() -> None:
    """Not the lock's fault but the packages': the tree refuses whoever needs one (NB1815), so check_lock lets
    them pass and not_from_registry names each."""
    ours = [admitted("app")]
    app = {"version": "1.0.0", "resolved": ours[0].spec, "integrity": ours[0].integrity}
    at = "node_modules/app/node_modules/"
    packages = {
        "node_modules/app": app,
        f"{at}x": reg("x", "1.0.0"),
        f"{at}b": {"version": "1.0.0", "inBundle": True},
        f"{at}@corp/ok": reg("@corp/ok", "1.0.0", resolved="https://npm.corp.example/api/npm/@corp/ok/-/ok-1.0.0.tgz"),
        f"{at}@corp/stray": reg("@corp/stray", "1.0.0"),  # its scope's registry is the corp one
        f"{at}u": reg("u", "1.0.0", resolved="http://127.0.0.1:8080/lodash-4.17.21.tgz"),
        f"{at}p": reg("p", "1.0.0", resolved="http://registry.example/p/-/p-1.0.0.tgz"),  # another origin
        f"{at}g": {"version": "1.0.0", "resolved": "git+ssh://git@host/g.git#abc"},
        f"{at}f": {"version": "1.0.0", "resolved": "file:../f.tgz", "integrity": sri(b"f")},
        f"{at}l": {"version": "1.0.0", "resolved": "../l", "link": True},
    }
    lock = lock_of(packages)
    check_lock(lock, ours)
    outside = not_from_registry(lock, {"node_modules/app"}, EXAMPLE)
    assert outside == {
        f"{at}@corp/stray": "npm's lock resolves it to https://registry.example/@corp/stray/-/stray-1.0.0.tgz, which "
        "is not a tarball of the registry npm fetches @corp/stray from (https://npm.corp.example/api/npm/)",
        f"{at}f": "npm's lock resolves it to file:../f.tgz, which is not a registry's tarball",
        f"{at}g": "npm's lock resolves it to git+ssh://git@host/g.git#abc, which is not a registry's tarball",
        f"{at}l": "npm's lock links it to the folder ../l",
        f"{at}p": "npm's lock resolves it to http://registry.example/p/-/p-1.0.0.tgz, which is not a tarball of the "
        "registry npm fetches p from (https://registry.example/)",
        f"{at}u": "npm's lock resolves it to http://127.0.0.1:8080/lodash-4.17.21.tgz, which is not a tarball of the "
        "registry npm fetches u from (https://registry.example/)",
    }


@pytest.mark.parametrize(
    ("registry", "replace", "url", "served"),
    [
        ("http://127.0.0.1:4873/", "npmjs", "http://127.0.0.1:4873/ms/-/ms-2.1.3.tgz", True),
        ("http://127.0.0.1:4873", "npmjs", "http://127.0.0.1:4873/ms/-/ms-2.1.3.tgz", True),
        ("http://127.0.0.1:4873/", "npmjs", "http://127.0.0.1:4874/ms/-/ms-2.1.3.tgz", False),
        ("https://registry.npmjs.org/", "npmjs", "https://registry.npmjs.org:443/ms/-/ms-2.1.3.tgz", True),
        ("https://r.example/npm/", "npmjs", "https://r.example/npmx/ms/-/ms-2.1.3.tgz", False),
        ("https://r.example/npm/", "npmjs", "https://r.example/npm/ms/-/ms-2.1.3.tgz", True),
        # npm fetches a registry.npmjs.org URL from the configured registry (replace-registry-host=npmjs)
        ("https://mirror.example/npm/", "npmjs", "https://registry.npmjs.org/ms/-/ms-2.1.3.tgz", True),
        ("https://mirror.example/npm/", "never", "https://registry.npmjs.org/ms/-/ms-2.1.3.tgz", False),
        ("https://mirror.example/", "always", "https://elsewhere.example/ms/-/ms-2.1.3.tgz", True),
        ("https://mirror.example/", "old.example", "https://old.example/ms/-/ms-2.1.3.tgz", True),
        ("https://mirror.example/", "https://old.example/r", "https://old.example/r/ms/-/ms-2.1.3.tgz", True),
        ("https://mirror.example/", "https://old.example/r", "https://old.example/ms/-/ms-2.1.3.tgz", False),
        ("http://127.0.0.1:4873/", "npmjs", "http://127.0.0.1:notaport/ms.tgz", False),
    ],
)
def test_a_url_is_a_registry_tarball_as_npm_tells_one(registry: str, replace: str, url: str, served: bool) -> None:
    assert Registries(registry, {}, replace).serves("ms", url) is served


def test_a_lock_entry_placed_outside_node_modules_is_refused() -> None:
    """npm writes node_modules/<name> paths and semver versions only; a lock edited by hand (--frozen builds from
    the image folder's) must not aim a write outside the image, through a path or through a top's version,
    which names its folder in a tier."""
    ours = [admitted("app")]
    app = {"version": "1.0.0", "resolved": ours[0].spec, "integrity": ours[0].integrity}
    good = {
        "node_modules/app": app,
        "node_modules/@scope/x": reg("@scope/x", "1.2.3-beta.1+build.5"),
        "node_modules/app/node_modules/@scope/x/node_modules/y": reg("y", "1.0.0"),
    }
    check_lock(lock_of(good), ours)
    bad = {
        "node_modules/app": app,
        "node_modules/app/node_modules/../../../escape": reg("escape", "1.0.0"),
        "node_modules/app/node_modules/./x": reg("x", "1.0.0"),
        "node_modules/@scope": reg("@scope", "1.0.0"),
        "node_modules/up": reg("up", "../../../../etc"),
    }
    with pytest.raises(UsageError) as refused:
        check_lock(lock_of(bad), ours)
    assert refused.value.message.splitlines() == [
        "npm's lock breaks the image's rules:",
        "  the entry 'node_modules/@scope' is not a node_modules/<name> path",
        "  the entry 'node_modules/app/node_modules/../../../escape' has an empty, '.' or '..' segment",
        "  the entry 'node_modules/app/node_modules/./x' has an empty, '.' or '..' segment",
        "  the entry 'node_modules/up' has the version '../../../../etc', which cannot name a folder",
    ]


def test_the_generated_package_json_is_stable_and_names_tarballs_by_content() -> None:
    a, b = admitted("@acme/b"), admitted("a")
    assert a.filename == f"acme-b-{hashlib.sha512(b'@acme/b').hexdigest()[:16]}.tgz"
    text = root_manifest([a, b])
    assert text == root_manifest([b, a])
    assert json.loads(text)["dependencies"] == {"@acme/b": a.spec, "a": b.spec}
    assert json.loads(text)["private"] is True


def test_npm_failures_become_one_line() -> None:
    e404 = {
        "error": {
            "code": "E404",
            "summary": "Not Found - GET https://r.example/nope - Not found",
            "detail": "The requested resource 'nope@^1.0.0' could not be found or you do not have permission",
        }
    }
    failed = translate(["install"], json.dumps(e404), "npm error code E404\n")
    assert (failed.message, failed.code) == (
        "npm install failed: E404 Not Found - GET https://r.example/nope - Not found (nope@^1.0.0)",
        "E404",
    )
    assert failed.hint is not None and "registry" in failed.hint
    conn = {
        "error": {
            "code": "ECONNREFUSED",
            "summary": "FetchError: request to http://127.0.0.1:9/ms failed, reason: connect ECONNREFUSED\n"
            "    at ClientRequest.<anonymous> (minipass-fetch/lib/index.js:130:14)",
        }
    }
    assert translate(["install"], json.dumps(conn), "").message == (
        "npm install failed: ECONNREFUSED request to http://127.0.0.1:9/ms failed, reason: connect ECONNREFUSED"
    )
    eresolve = {
        "error": {
            "code": "ERESOLVE",
            "summary": "unable to resolve dependency tree",
            "detail": "While resolving: x@1.0.0\nFound: react@19.1.0\n"
            'Could not resolve dependency:\npeer react@"^18" from ui@1.0.0\n',
        }
    }
    assert translate(["install"], json.dumps(eresolve), "").message == (
        'npm install failed: ERESOLVE found react@19.1.0; peer react@"^18" from ui@1.0.0'
    )
    stderr = "npm error code ETARGET\nnpm error notarget No matching version found for ms@^9.\nnpm error A complete log"
    assert translate(["install"], "not json", stderr).message == (
        "npm install failed: ETARGET notarget No matching version found for ms@^9."
    )


def test_integrity_strings_and_the_tarball_store(tmp_path: Path) -> None:
    data = b"the bytes"
    both = f"{sri(data, 'sha1')} {sri(data)}"
    best = strongest(both)
    assert best is not None and best[0] == "sha512"
    assert matches(data, both) and not matches(b"other", both)
    assert strongest("md5-AAAA") is None
    store = TarballStore(tmp_path / "store")
    assert store.get(sri(data)) is None
    store.put(sri(data), data)
    assert store.get(sri(data)) == data
    store.path(sri(data)).write_bytes(b"tampered")
    assert store.get(sri(data)) is None  # every read is verified


def test_small_readers() -> None:
    shared = ("react", "react/jsx-runtime", "react-dom/client", "@neuralis/client", "@neuralis/client/x")
    assert host_package_names(shared) == {"react", "react-dom", "@neuralis/client"}
    assert license_of("MIT") == "MIT"
    assert license_of({"type": "ISC"}) == "ISC"
    assert license_of([{"type": "MIT"}, {"type": "Apache-2.0"}]) == "MIT OR Apache-2.0"
    assert license_of(None) is None


def test_a_lock_nested_past_what_is_read_is_a_usage_error_not_a_crash() -> None:
    with pytest.raises(UsageError) as refused:
        parse_npm_lock('{"packages": ' + "[" * 3000 + "]" * 3000 + "}", Path("out/package-lock.json"))
    assert refused.value.message == (
        "out/package-lock.json: not JSON (arrays and objects nest more than 64 levels deep here)"
    )


def test_a_peer_found_at_a_version_its_range_excludes_is_named() -> None:
    """npm (strict-peer-deps off) nests ajv-keywords@5 beside the listed package's own ajv@6 and only warns;
    ajv-keywords then fails when it loads ajv@8's API. The image names it."""
    tree = {
        "node_modules/app": listed("app", dependencies={"ajv": "^6.12.6", "ajv-keywords": "^5.1.0", "ok-peer": "^1"}),
        "node_modules/app/node_modules/ajv": reg("ajv", "6.15.0"),
        "node_modules/app/node_modules/ajv-keywords": reg("ajv-keywords", "5.1.0", peerDependencies={"ajv": "^8.8.2"}),
        "node_modules/app/node_modules/ok-peer": reg("ok-peer", "1.0.0", peerDependencies={"ajv": "^6.0.0 || ^8"}),
    }
    closure = walk(lock_of(tree), [Root("app", "first-party", "host-dependency", 0)], {"react"}, LINUX)
    conflicts = closure_conflicts(closure, {"app": "1.0.0"}, frozenset({"react"}), 19, {})
    assert [(c.kind, c.name, c.severity, c.message) for c in conflicts] == [
        (
            "peer",
            "ajv",
            "warning",
            "app → ajv-keywords declares the peer ajv@^8.8.2, but the ajv it finds is 6.15.0 "
            "(node_modules/app/node_modules/ajv): npm found no place for a matching copy where ajv-keywords looks, "
            "so ajv-keywords may fail when it loads ajv; depend "
            "on a version of ajv-keywords whose peer range admits ajv@6.15.0, or on ajv@^8.8.2 yourself",
        )
    ]


def test_a_copy_in_a_versions_conflict_names_every_package_that_finds_it() -> None:
    tree = {
        "node_modules/app": listed("app", dependencies={"express": "^4.0.0", "debug": "^4.0.0"}),
        "node_modules/app/node_modules/express": reg(
            "express", "4.21.2", dependencies={"debug": "2.6.9", "send": "0.19.0"}
        ),
        "node_modules/app/node_modules/express/node_modules/debug": reg("debug", "2.6.9"),
        "node_modules/app/node_modules/express/node_modules/send": reg(
            "send", "0.19.0", dependencies={"debug": "2.6.9"}
        ),
        "node_modules/app/node_modules/debug": reg("debug", "4.4.0"),
    }
    closure = walk(lock_of(tree), [Root("app", "first-party", "host-dependency", 0)], {"react"}, LINUX)
    [conflict] = closure_conflicts(closure, {"app": "1.0.0"}, frozenset({"react"}), 19, {})
    assert conflict.message == (
        "debug is installed at 2 versions (2.6.9 for express (2.6.9, under app), send (2.6.9, under app); 4.4.0 "
        "for app (^4.0.0)): no version satisfies every range, so npm nested each version under the package that "
        "needs it"
    )


def test_two_copies_whose_ranges_meet_are_not_said_to_conflict() -> None:
    """1.6.0 and ^1.6.0 meet at 1.6.0, yet npm may have placed 1.6.1 first (for ^1.6.0, at the root) and nested
    1.6.0 for the exact range. The message says so, not that the ranges do not meet."""
    tree = {
        "node_modules/a": listed("a", dependencies={"@colors/colors": "1.6.0"}),
        "node_modules/a/node_modules/@colors/colors": reg("@colors/colors", "1.6.0"),
        "node_modules/b": listed("b", dependencies={"@colors/colors": "^1.6.0"}),
        "node_modules/@colors/colors": reg("@colors/colors", "1.6.1"),
    }
    roots = [Root("a", "first-party", "host-dependency", 0), Root("b", "first-party", "host-dependency", 1)]
    closure = walk(lock_of(tree), roots, {"react"}, LINUX)
    [conflict] = closure_conflicts(closure, {"a": "1.0.0", "b": "1.0.0"}, frozenset({"react"}), 19, {})
    assert conflict.message == (
        "@colors/colors is installed at 2 versions (1.6.0 for a (1.6.0); 1.6.1 for b (^1.6.0)): the ranges meet "
        "(1.6.0 satisfies every one), but npm kept the copy it placed first where the others look and nested "
        "another for the range it excludes"
    )


def test_two_copies_in_one_listed_package_s_tree_whose_ranges_meet() -> None:
    tree = {
        "node_modules/app": listed("app", dependencies={"ms": "^2.0.0", "x": "1.0.0"}),
        "node_modules/app/node_modules/ms": reg("ms", "2.1.3"),
        "node_modules/app/node_modules/x": reg("x", "1.0.0", dependencies={"ms": "2.0.0"}),
        "node_modules/app/node_modules/x/node_modules/ms": reg("ms", "2.0.0"),
    }
    closure = walk(lock_of(tree), [Root("app", "first-party", "host-dependency", 0)], {"react"}, LINUX)
    [conflict] = closure_conflicts(closure, {"app": "1.0.0"}, frozenset({"react"}), 19, {})
    assert conflict.message == (
        "ms is installed at 2 versions (2.0.0 for x (2.0.0, under app); 2.1.3 for app (^2.0.0)): the ranges meet "
        "(2.0.0 satisfies every one), but npm kept the copy it placed first where the others look and nested "
        "another for the range it excludes"
    )


def test_a_range_semantic_version_cannot_read_is_not_judged() -> None:
    tree = {
        "node_modules/a": listed("a", dependencies={"ms": "latest"}),
        "node_modules/a/node_modules/ms": reg("ms", "2.1.3"),
        "node_modules/b": listed("b", dependencies={"ms": "2.0.0"}),
        "node_modules/b/node_modules/ms": reg("ms", "2.0.0"),
    }
    roots = [Root("a", "first-party", "host-dependency", 0), Root("b", "first-party", "host-dependency", 1)]
    [conflict] = closure_conflicts(walk(lock_of(tree), roots, {"react"}, LINUX), {}, frozenset({"react"}), 19, {})
    assert conflict.message == (
        "ms is installed at 2 versions (2.0.0 for b (2.0.0); 2.1.3 for a (latest)): npm nested each version under "
        "the package that needs it"
    )


def test_what_counts_as_from_the_registry_is_what_the_sbom_names_with_a_plain_npm_purl() -> None:
    """One predicate for the report's "from the registry" count and the SBOM's purls: a listed package is the archive
    the image made of it, a bundled one its parent's (npm's own identity for it), every other one a registry's (the
    lock check lets no other URL into the image: test_url_dependencies_e2e)."""
    from neuralis_build.hostprofile import default_host_profile
    from neuralis_build.image.judge.conflicts import Installed
    from neuralis_build.image.judge.report import ImageResult
    from neuralis_build.image.layout.graph import Closure
    from neuralis_build.image.output.sbom import render_sbom

    ms = "node_modules/.store/first-party/ms@2.1.3/node_modules/ms"
    rows = [
        Installed(
            "node_modules/app",
            "app",
            "1.0.0",
            sri(b"app"),
            "file:.neuralis-tarballs/app-0011.tgz",
            None,
            ("app",),
            "first-party",
        ),
        Installed(
            ms,
            "ms",
            "2.1.3",
            sri(b"ms"),
            "https://registry.example/ms/-/ms-2.1.3.tgz",
            "MIT",
            ("app", "ms"),
            "first-party",
        ),
        Installed(
            "node_modules/app/node_modules/b",
            "b",
            "1.0.0",
            None,
            None,
            None,
            ("app", "b"),
            "first-party",
            flags=("bundled",),
        ),
    ]
    assert [r.from_registry for r in rows] == [False, True, False]
    bom = json.loads(
        render_sbom(ImageResult(Path("out"), default_host_profile(), [], [], {}, installed=rows), Closure())
    )
    assert {c["bom-ref"]: c["purl"] for c in bom["components"]} == {
        "node_modules/app": f"pkg:npm/app@1.0.0?checksum=sha512:{hashlib.sha512(b'app').hexdigest()}"
        "&file_name=app-0011.tgz",
        ms: "pkg:npm/ms@2.1.3",
        "node_modules/app/node_modules/b": "pkg:npm/b@1.0.0",
    }


def test_a_tarball_npm_pack_fetched_past_the_cap_is_refused_without_being_read(tmp_path: Path) -> None:
    """The fallback for what a direct download could not get (npm's credentials, proxy): npm itself has no cap,
    so what it wrote is measured on disk, and one past the cap is refused, not read into memory."""
    from neuralis_build.image.resolution.npmcli import NpmResult
    from neuralis_build.image.resolution.registrytarballs import Wanted

    store = TarballStore(tmp_path / "registry")
    w = Wanted("https://registry.example/big/-/big-1.0.0.tgz", sri(b"big"), "big@1.0.0")

    def npm(args: Any, cwd: Path, timeout: float) -> NpmResult:
        destination = Path(args[list(args).index("--pack-destination") + 1])
        with (destination / "big-1.0.0.tgz").open("wb") as f:
            f.truncate(2_000_000)  # sparse: its size is what counts
        return NpmResult(json.dumps([{"filename": "big-1.0.0.tgz"}]), "")

    refused = store.fetch_through_npm([w], 1_000_000, npm)
    assert refused[w.integrity].message == (
        "big@1.0.0: the answer from https://registry.example/big/-/big-1.0.0.tgz is 2,000,000 bytes (as npm pack "
        "fetched it), more than the 1,000,000 bytes the image reads of one tarball (the most its reader lets a "
        "package inflate to; no flag raises it)"
    )
    assert refused[w.integrity].rule.id == "NB1806"
    assert store.get(w.integrity) is None
