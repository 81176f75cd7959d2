"""The watch set of `ui --watch` and `dev`: what the last build read (by real path, through links), the manifest,
the trees the page serves from elsewhere; nothing else. The watching itself runs in tests/dev/test_watching.py."""

from __future__ import annotations

import os
import time
from pathlib import Path

from neuralis_build.ui.watchset import build_watch_set
from tests.ui.ui_helpers import build_file_tree, link_package

INPUTS = ("src/app/host.tsx", "src/app/format.ts", "../lib/src/index.ts", "node_modules/dep/index.js")


def layout(tmp_path: Path) -> tuple[Path, Path, Path]:
    """tmp/app (a dependency in node_modules, tmp/lib linked into it) and tmp/charts, a provider."""
    lib = build_file_tree(tmp_path / "lib", {"package.json": {"name": "@acme/lib"}, "src/index.ts": "", "notes.md": ""})
    app = build_file_tree(
        tmp_path / "app",
        {
            "package.json": {"name": "@acme/app"},
            "tsconfig.json": {},
            "src/app/host.tsx": "",
            "src/app/format.ts": "",
            "src/app/host.test.tsx": "",
            "node_modules/dep/index.js": "",
            "node_modules/dep/lib/deep.js": "",
            "dist/app/host.js": "",
            "app/surfaces/card/c/index.html": "",
        },
    )
    link_package(app, lib, "@acme/lib")
    charts = build_file_tree(tmp_path / "charts", {"package.json": {"name": "@acme/charts"}, "src/x.ts": ""})
    return app, lib, charts


def test_a_good_build_watches_what_it_read_and_nothing_else(tmp_path):
    app, lib, charts = layout(tmp_path)
    # esbuild names a linked library by its real path; the link's own path is resolved the same way
    inputs = (*INPUTS, "node_modules/@acme/lib/src/index.ts")
    trees = [str(app / "app/surfaces/card/c"), str(app / "dist/app"), str(charts / "dist/app")]
    ws = build_watch_set(app, inputs, failed=False, since=0, trees=trees, manifests=[str(charts / "package.json")])
    real_app = os.path.realpath(app)
    assert sorted(ws.shown(f) for f in ws.files) == [
        "../charts/package.json",
        "../lib/src/index.ts",
        "node_modules/dep/index.js",
        "package.json",
        "src/app/format.ts",
        "src/app/host.tsx",
        "tsconfig.json",
    ]
    changed = [
        (app / "src/app/host.tsx", False, True),  # an input
        (lib / "src/index.ts", False, True),  # an input outside the package
        (app / "src/app/new.ts", True, True),  # a new source file beside the inputs
        (app / "src/app/host.test.tsx", False, False),  # a source file no build read
        (app / "dev.log", False, False),  # the command's own log
        (app / "dev.log", True, False),
        (app / "notes.json", False, False),
        (lib / "notes.md", True, False),  # beside an input outside the package: only what was read
        (lib / "src/new.ts", True, False),
        (app / "node_modules/dep/lib/deep.js", False, False),
        (app / "dist/app/host.js", False, False),  # the build's own output, even as a tree the page serves
        (app / "app/surfaces/card/c/index.html", False, True),  # a surface root
        (app / "app/surfaces/card/c/more/x.js", True, True),
        (charts / "dist/app/host.js", False, True),  # a provider's build
        (charts / "dist", True, True),  # its dist/ made, or dist/app/ swapped in
        (charts / "dist/app", True, True),
        (charts / "dist/.app-old-1", True, False),
        (charts / "src/x.ts", False, False),  # its sources are its own build's business
        (charts / "package.json", False, True),
    ]
    got = [(str(p), added, ws.matters(os.path.realpath(p), added)) for p, added, _ in changed]
    assert got == [(str(p), added, want) for p, added, want in changed]
    folders = set(ws.folders())
    assert os.path.realpath(lib / "src") in folders and real_app in folders
    assert os.path.realpath(app / "node_modules/dep") in folders
    assert os.path.realpath(app / "node_modules/dep/lib") not in folders  # never walked
    assert os.path.realpath(charts) in folders  # its dist/app/ is not there yet: watched from above
    assert not any(f.startswith(real_app + "/dist") for f in folders)


def test_after_a_failed_build_any_source_file_of_the_package_counts(tmp_path):
    app, lib, _ = layout(tmp_path)
    ws = build_watch_set(app, INPUTS, failed=True, since=0, named=[str(lib / "src/broken.ts")])
    assert ws.matters(os.path.realpath(app / "src/app/host.test.tsx"), False)  # it may be what the build reads now
    assert ws.matters(os.path.realpath(lib / "src/broken.ts"), False)  # named by the error
    assert ws.matters(os.path.realpath(lib / "src/index.ts"), False)  # read by the last good build
    for quiet in ("dev.log", "notes.md", ".host.tsx.swp", "dist/app/host.js", "node_modules/dep/lib/deep.js"):
        assert not ws.matters(os.path.realpath(app / quiet), False), quiet
    folders = set(ws.folders())
    assert os.path.realpath(app / "src/app") in folders
    assert os.path.realpath(app / "node_modules/dep/lib") not in folders  # what the last good build read, no more


def test_what_changed_before_the_watcher_started_is_found_by_mtime(tmp_path):
    app, lib, _ = layout(tmp_path)
    hour = 3600 * 10**9
    (app / "dev.log").touch()
    for path in [*app.rglob("*"), *lib.rglob("*")]:  # written an hour ago
        os.utime(path, ns=(time.time_ns() - hour, time.time_ns() - hour), follow_symlinks=False)
    since = time.time_ns()
    ws = build_watch_set(app, INPUTS, failed=False, since=since)
    (lib / "src/index.ts").write_text("export const x = 2;\n")  # edited during the build
    (app / "dev.log").write_text("built\n")
    future = time.time_ns() + hour  # unpacked from an archive: never "changed" here, or every build would start one
    os.utime(app / "src/app/format.ts", ns=(future, future))
    assert [ws.shown(p) for p in ws.changed_between(time.time_ns())] == ["../lib/src/index.ts"]
    assert ws.changed_between(since - hour) == []  # a watcher that started before the edit saw it itself
