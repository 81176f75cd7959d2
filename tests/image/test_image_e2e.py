"""`neuralis-build image` end to end: real tarballs made here, the example packages, the real node."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from neuralis_build.image.archive.integrity import integrity_of
from tests.conftest import REPO, manifest, requires_node
from tests.image.conftest import (
    LocalRegistry,
    Run,
    file_info,
    package_tgz,
    raw_tgz,
    spec_text,
    special,
    tree_bytes,
    write_tgz,
)

pytestmark = [pytest.mark.e2e, requires_node]

RunImage = Callable[..., Run]
REBUILD = "rebuild with neuralis-build ui (npm run build:ui)"
RECORD = {"hostApiVersion": "1", "reactMajor": 19, "sharedImports": ["react/jsx-runtime"]}
BUNDLE = 'import{jsx as j}from"react/jsx-runtime";function i(){}export{i as installAcmeHostComponents};\n'


def ui_package(name: str, record: dict[str, Any], provides: list[str] | None = None) -> bytes:
    module: dict[str, Any] = {"entry": "dist/app/host.js"}
    if provides:
        module["provides"] = provides
    return package_tgz(
        manifest({"app": {"module": module}}, name=name),
        {"dist/app/host.js": BUNDLE, "dist/app/shared-imports.json": json.dumps(record)},
    )


def installed(run: Run) -> list[str]:
    """The package folders under node_modules (scoped ones as @scope/name)."""
    root = run.image / "node_modules"
    if not root.is_dir():
        return []
    names = []
    for entry in sorted(root.iterdir()):
        if entry.name.startswith("@"):
            names.extend(f"{entry.name}/{sub.name}" for sub in sorted(entry.iterdir()))
        else:
            names.append(entry.name)
    return names


def test_discovery_statuses_and_an_invalid_manifest(tmp_path: Path, run_image: RunImage) -> None:
    t = tmp_path / "tgz"
    write_tgz(t, "plain.tgz", package_tgz({"name": "left-pad", "version": "1.3.0"}, {"index.js": "module.exports=1"}))
    write_tgz(t, "ref.tgz", package_tgz(manifest({"referenceOnly": True}, name="acme-docs")))
    bad = manifest({"credentials": [{"id": "bad/id", "label": "x"}]}, name="acme-bad")
    write_tgz(t, "bad.tgz", package_tgz(bad))
    write_tgz(t, "good.tgz", package_tgz(manifest({"name": "Good"}, name="@acme/good")))
    run = run_image(
        spec_text(
            {"source": "tgz/plain.tgz"},
            {"source": "tgz/ref.tgz", "class": "installed"},
            {"source": "tgz/bad.tgz"},
            {"source": "tgz/good.tgz", "class": "installed", "trust": "trusted"},
        )
    )
    assert run.code == 1, run.err
    statuses = [(p["name"], p["status"], p["class"], p["trust"]) for p in run.report["packages"]]
    assert statuses == [
        ("left-pad", "not-neuralis", "host-dependency", "first-party"),
        ("acme-docs", "reference-only", "installed", "untrusted"),
        ("acme-bad", "refused", "host-dependency", "first-party"),
        ("@acme/good", "loaded", "installed", "trusted"),
    ]
    assert run.codes("acme-bad") == [("error", "NB1002", "/neuralis/credentials/0/id")]
    assert run.package("acme-bad")["diagnostics"][0]["line"] is not None
    # the refused package wrote nothing into the image; the others are real folders
    assert installed(run) == ["@acme/good", "acme-docs", "left-pad"]
    assert (run.image / "node_modules/left-pad/index.js").read_text() == "module.exports=1"
    assert not (run.image / ".neuralis-staging").exists()
    assert json.loads(run.out) == run.report
    assert set(run.report) == {
        "host",
        "node",
        "packages",
        "tools",
        "services",
        "toolOwners",
        "closure",
        "size",
        "conflicts",
        "scripts",
    }


def test_allow_refused_exits_zero(tmp_path: Path, run_image: RunImage) -> None:
    write_tgz(tmp_path / "tgz", "bad.tgz", package_tgz(manifest({"id": "Bad Id"}, name="acme-bad")))
    assert run_image(spec_text({"source": "tgz/bad.tgz"}), "--allow-refused").code == 0


@pytest.mark.parametrize(
    "member",
    [
        file_info("package/../escape.js", b"x"),
        file_info("/abs.js", b"x"),
        file_info("escape.js", b"x"),
        special("package/link.js", b"2", "/etc/passwd"),
        special("package/hard.js", b"1", "package/package.json"),
        special("package/dev", b"3"),
        special("package/fifo", b"6"),
        file_info("package/OK.js", b"x"),  # collides with ok.js where case does not count
    ],
    ids=["dotdot", "absolute", "no-prefix", "symlink", "hardlink", "device", "fifo", "case-collision"],
)
def test_a_hostile_tarball_is_refused_and_writes_nothing(tmp_path: Path, run_image: RunImage, member: Any) -> None:
    head = file_info("package/package.json", json.dumps(manifest(name="acme-evil")).encode())
    write_tgz(tmp_path / "tgz", "evil.tgz", raw_tgz([head, file_info("package/ok.js", b"ok"), member]))
    write_tgz(tmp_path / "tgz", "fine.tgz", package_tgz(manifest(name="acme-fine")))
    run = run_image(spec_text({"source": "tgz/evil.tgz"}, {"source": "tgz/fine.tgz"}))
    assert run.code == 1
    evil = run.package("tgz/evil.tgz")
    assert evil["status"] == "refused"
    assert [d["code"] for d in evil["diagnostics"]] in (["NB1803"], ["NB1804"], ["NB1805"])
    assert evil["diagnostics"][0]["file"] == "tgz/evil.tgz"
    assert installed(run) == ["acme-fine"]
    assert not (tmp_path / "escape.js").exists() and not (run.image / "escape.js").exists()


def test_a_gzip_bomb_is_refused(tmp_path: Path, run_image: RunImage) -> None:
    import zlib

    head = file_info("package/package.json", json.dumps(manifest(name="acme-bomb")).encode())
    head[0].size = len(head[1])  # a well-formed entry, then zeros: only the cap can stop it
    body = head[0].tobuf() + head[1].ljust(512, b"\0")
    squeeze = zlib.compressobj(9, zlib.DEFLATED, 31)
    start = squeeze.compress(body) + squeeze.flush(zlib.Z_FULL_FLUSH)
    mebibyte = squeeze.compress(b"\0" * (1 << 20)) + squeeze.flush(zlib.Z_FULL_FLUSH)
    write_tgz(tmp_path / "tgz", "bomb.tgz", start + mebibyte * 300)
    run = run_image(spec_text({"source": "tgz/bomb.tgz"}))
    assert run.code == 1
    assert run.codes("tgz/bomb.tgz") == [("error", "NB1806", "")]
    assert installed(run) == []


def test_files_outside_the_whitelist_are_not_installed(tmp_path: Path, run_image: RunImage) -> None:
    data = package_tgz(
        manifest(name="acme-lib", files=["lib"], main="lib/index.js"),
        {"lib/index.js": "1", "lib/deep/b.js": "2", "README.md": "# hi", "secret.env": "TOKEN=1", "src/a.ts": "3"},
    )
    write_tgz(tmp_path / "tgz", "lib.tgz", data)
    run = run_image(spec_text({"source": "tgz/lib.tgz"}))
    assert run.code == 0, run.err
    assert sorted(tree_bytes(run.image / "node_modules/acme-lib")) == [
        "README.md",
        "lib/deep/b.js",
        "lib/index.js",
        "package.json",
    ]


def test_integrity_is_verified(tmp_path: Path, run_image: RunImage) -> None:
    data = package_tgz(manifest(name="acme-pinned"))
    write_tgz(tmp_path / "tgz", "pinned.tgz", data)
    ok = run_image(spec_text({"source": "tgz/pinned.tgz", "integrity": integrity_of(data)}))
    assert ok.code == 0
    wrong = integrity_of(b"other bytes")
    bad = run_image(spec_text({"source": "tgz/pinned.tgz", "integrity": wrong}), out=tmp_path / "out2")
    # the SPEC pins other bytes: it cannot be built as written (exit 2), and nothing is written
    assert bad.code == 2
    said = f"tgz/pinned.tgz: the source's integrity is {integrity_of(data)}, the image spec pins {wrong}"
    assert f"error: the SPEC cannot be built as written: {said}" in bad.err
    assert not (tmp_path / "out2" / "neuralis-image.json").exists()


def test_a_package_json_the_host_cannot_resolve_is_refused_only_when_the_host_loads_the_package(
    tmp_path: Path, run_image: RunImage
) -> None:
    # a neuralis package: the manifest rule check and pack run (NB1707); any other package: node's view (NB1810),
    # a note only: the host never loads it, and npm installs it
    data = package_tgz(manifest(name="acme-closed", exports={".": "./index.js"}), {"index.js": ""})
    write_tgz(tmp_path / "tgz", "closed.tgz", data)
    plain = {"name": "acme-plain-closed", "version": "1.0.0", "exports": {".": "./index.js"}}
    write_tgz(tmp_path / "tgz", "plain.tgz", package_tgz(plain, {"index.js": ""}))
    run = run_image(spec_text({"source": "tgz/closed.tgz"}, {"source": "tgz/plain.tgz"}))
    assert run.code == 1
    [diagnostic] = run.package("acme-closed")["diagnostics"]
    assert (diagnostic["code"], diagnostic["pointer"]) == ("NB1707", "/exports")
    [diagnostic] = run.package("acme-plain-closed")["diagnostics"]
    assert (diagnostic["severity"], diagnostic["code"], diagnostic["pointer"]) == ("note", "NB1810", "/exports")
    assert run.package("acme-plain-closed")["status"] == "not-neuralis"
    assert diagnostic["message"] == (
        "the host could not resolve require.resolve('acme-plain-closed/package.json'): ERR_PACKAGE_PATH_NOT_EXPORTED: "
        "Package subpath './package.json' is not defined by \"exports\" in "
        "node_modules/acme-plain-closed/package.json; "
        "the host loads only packages with a neuralis block, so it is installed as npm installs it, and a package "
        "that needs its package.json reads it by path"
    )
    assert installed(run) == ["acme-plain-closed"]


def test_stale_and_unpublished_modules_are_refused_with_reasons(tmp_path: Path, run_image: RunImage) -> None:
    t = tmp_path / "tgz"
    write_tgz(t, "stale.tgz", ui_package("acme-stale", {**RECORD, "hostApiVersion": "0"}))
    needs = {**RECORD, "sharedImports": ["@acme/charts/app/charts", "react/jsx-runtime"]}
    write_tgz(t, "reader.tgz", ui_package("acme-reader", needs))
    write_tgz(t, "current.tgz", ui_package("acme-current", RECORD))
    run = run_image(spec_text({"source": "tgz/stale.tgz"}, {"source": "tgz/reader.tgz"}, {"source": "tgz/current.tgz"}))
    assert run.code == 1
    modules = {p["name"]: (p["status"], p["module"]) for p in run.report["packages"]}
    assert modules == {
        "acme-stale": (
            "loaded",
            {"status": "refused", "reason": f"built for host API 0, host is 1: {REBUILD}"},
        ),
        "acme-reader": (
            "loaded",
            {
                "status": "refused",
                "reason": 'the bundle reads "@acme/charts/app/charts", which neither the host nor any loaded package '
                "provides: install the package that publishes it in app.module.provides, or stop importing it",
            },
        ),
        "acme-current": ("loaded", {"status": "accepted", "reason": None}),
    }
    # once a loaded package publishes the id, the reader's module is accepted
    write_tgz(t, "charts.tgz", ui_package("@acme/charts", RECORD, ["@acme/charts/app/charts"]))
    again = run_image(spec_text({"source": "tgz/reader.tgz"}, {"source": "tgz/charts.tgz"}), out=tmp_path / "o2")
    assert again.code == 0, again.err
    assert again.package("acme-reader")["module"] == {"status": "accepted", "reason": None}


def test_tool_contests_of_each_kind(tmp_path: Path, run_image: RunImage) -> None:
    t = tmp_path / "tgz"

    def tools(*names: str) -> dict[str, Any]:
        return {"tools": [{"name": n, "description": n} for n in names]}

    write_tgz(t, "a.tgz", package_tgz(manifest(tools("read_file", "deploy"), name="@acme/files")))
    write_tgz(t, "z.tgz", package_tgz(manifest(tools("read_file", "web_search"), name="zeta-tools")))
    write_tgz(t, "u.tgz", package_tgz(manifest(tools("deploy", "report"), name="aaa-untrusted")))
    write_tgz(t, "w.tgz", package_tgz(manifest(tools("report"), name="www-untrusted")))
    mcp = '\n[[mcp]]\nserver = "github"\ntools = ["report", "create_issue"]\n'
    mcp += '[[mcp]]\nserver = "linear"\ntools = ["create_issue"]\n'
    run = run_image(
        spec_text(
            {"source": "tgz/a.tgz", "class": "host-dependency"},
            {"source": "tgz/z.tgz", "class": "shipped"},
            {"source": "tgz/u.tgz", "class": "installed"},
            {"source": "tgz/w.tgz", "class": "installed", "trust": "trusted"},
            extra=mcp,
        )
    )
    assert run.code == 0, run.err
    assert run.report["tools"] == [
        {"name": "create_issue", "owner": "mcp:github", "shadowed": ["mcp:linear"]},
        {"name": "deploy", "owner": "@acme/files", "shadowed": ["aaa-untrusted"]},
        {"name": "read_file", "owner": "@acme/files", "shadowed": ["@neuralis/platform", "zeta-tools"]},
        {"name": "report", "owner": "aaa-untrusted", "shadowed": ["www-untrusted", "mcp:github"]},
        {"name": "web_search", "owner": "@neuralis/platform", "shadowed": ["zeta-tools"]},
    ]
    # every claimant stays loaded; the shadowed ones carry a warning at the tool
    assert {p["status"] for p in run.report["packages"]} == {"loaded"}
    assert ("warning", "NB1820", "/neuralis/tools/0/name") in run.codes("zeta-tools")


def test_singleton_services_and_config_keys(tmp_path: Path, run_image: RunImage) -> None:
    t = tmp_path / "tgz"
    write_tgz(t, "r1.tgz", package_tgz(manifest({"provides": ["runtime"]}, name="acme-runtime")))
    write_tgz(t, "r2.tgz", package_tgz(manifest({"provides": ["runtime"]}, name="beta-runtime")))
    key = {"configSettings": [{"key": "acmeLimit", "label": "L", "type": "number", "default": 1, "category": "x"}]}
    write_tgz(t, "k1.tgz", package_tgz(manifest(key, name="zed-config")))
    write_tgz(t, "k2.tgz", package_tgz(manifest(key, name="acme-config")))
    run = run_image(
        spec_text(
            {"source": "tgz/r2.tgz"}, {"source": "tgz/r1.tgz"}, {"source": "tgz/k1.tgz"}, {"source": "tgz/k2.tgz"}
        )
    )
    assert run.code == 1
    assert run.report["services"] == {"runtime": ["acme-runtime"]}
    statuses = {p["name"]: p["status"] for p in run.report["packages"]}
    assert statuses == {
        "beta-runtime": "refused",
        "acme-runtime": "loaded",
        "zed-config": "refused",
        "acme-config": "loaded",
    }
    [taken] = [d for d in run.package("beta-runtime")["diagnostics"] if d["severity"] == "error"]
    assert (taken["code"], taken["pointer"]) == ("NB1821", "/neuralis/provides/0")
    assert "acme-runtime" in taken["message"] and "beta-runtime" in taken["message"]
    assert [d["code"] for d in run.package("zed-config")["diagnostics"] if d["severity"] == "error"] == ["NB1822"]
    assert installed(run) == ["acme-config", "acme-runtime"]


def test_the_same_spec_gives_the_same_bytes_and_a_rerun_uses_the_cache(tmp_path: Path, run_image: RunImage) -> None:
    t = tmp_path / "tgz"
    write_tgz(t, "a.tgz", package_tgz(manifest(name="acme-a"), {"lib/a.js": "a", "bin/x.js": "#!"}))
    write_tgz(t, "b.tgz", package_tgz(manifest(name="@acme/b"), {"b.js": "b"}))
    spec = spec_text({"source": "tgz/a.tgz"}, {"source": "tgz/b.tgz"})
    first = run_image(spec, "--jobs", "1")
    second = run_image(spec, "--jobs", "2", out=tmp_path / "other")
    assert first.code == second.code == 0
    assert tree_bytes(first.image / "node_modules") == tree_bytes(second.image / "node_modules")
    assert "cached" not in first.err
    rerun = run_image(spec)
    assert rerun.code == 0
    assert rerun.err.count("(cached)") == 2
    assert rerun.report == first.report
    # the verdicts are reused, the files never: a touched install is installed afresh
    (first.image / "node_modules/acme-a/lib/a.js").write_text("tampered")
    healed = run_image(spec)
    assert healed.err.count("(cached)") == 2
    assert (first.image / "node_modules/acme-a/lib/a.js").read_text() == "a"


def test_frozen_refuses_a_build_that_differs_from_the_lock(tmp_path: Path, run_image: RunImage) -> None:
    t = tmp_path / "tgz"
    data = package_tgz(manifest(name="acme-a"))
    write_tgz(t, "a.tgz", data)
    first = run_image(spec_text({"source": "tgz/a.tgz", "integrity": integrity_of(data)}))
    assert first.code == 0
    lock = (first.image / "neuralis-image.lock").read_text()
    assert 'name = "acme-a"' in lock and f'integrity = "{integrity_of(data)}"' in lock
    assert run_image(spec_text({"source": "tgz/a.tgz", "integrity": integrity_of(data)}), "--frozen").code == 0
    # a new version of the package, pinned in the SPEC, no longer matches the lock
    newer = package_tgz(manifest(name="acme-a", version="1.1.0"))
    write_tgz(t, "a.tgz", newer)
    run = run_image(spec_text({"source": "tgz/a.tgz", "integrity": integrity_of(newer)}), "--frozen")
    assert run.code == 2
    assert "would differ from neuralis-image.lock" in run.err
    assert "version would be 1.1.0, the lock has 1.0.0" in run.err
    assert json.loads((run.image / "node_modules/acme-a/package.json").read_text())["version"] == "1.0.0"
    # --frozen without pinned integrity cannot build at all
    missing = run_image(spec_text({"source": "tgz/a.tgz"}), "--frozen")
    assert missing.code == 2 and "has no integrity (required with --frozen)" in missing.err


def test_a_package_no_longer_listed_leaves_the_image(tmp_path: Path, run_image: RunImage) -> None:
    t = tmp_path / "tgz"
    write_tgz(t, "a.tgz", package_tgz(manifest(name="acme-a")))
    write_tgz(t, "b.tgz", package_tgz(manifest(name="@acme/b")))
    assert installed(run_image(spec_text({"source": "tgz/a.tgz"}, {"source": "tgz/b.tgz"}))) == ["@acme/b", "acme-a"]
    assert installed(run_image(spec_text({"source": "tgz/a.tgz"}))) == ["acme-a"]


def test_a_swap_interrupted_by_a_kill_is_swept_on_the_next_build(tmp_path: Path, run_image: RunImage) -> None:
    t = tmp_path / "tgz"
    write_tgz(t, "a.tgz", package_tgz(manifest(name="acme-a")))
    write_tgz(t, "b.tgz", package_tgz(manifest(name="@acme/b")))
    first = run_image(spec_text({"source": "tgz/a.tgz"}, {"source": "tgz/b.tgz"}))
    modules = first.image / "node_modules"
    # what commit() leaves when the process dies between its two renames
    shutil.copytree(modules / "acme-a", modules / ".acme-a.old-4242")
    shutil.copytree(modules / "@acme/b", modules / "@acme/.b.old-4243")
    run_image(spec_text({"source": "tgz/a.tgz"}, {"source": "tgz/b.tgz"}))
    assert sorted(p.name for p in modules.iterdir()) == ["@acme", "acme-a"]
    assert sorted(p.name for p in (modules / "@acme").iterdir()) == ["b"]


def test_two_entries_of_one_name_refuse_the_later(tmp_path: Path, run_image: RunImage) -> None:
    t = tmp_path / "tgz"
    write_tgz(t, "a.tgz", package_tgz(manifest(name="acme-a")))
    write_tgz(t, "a2.tgz", package_tgz(manifest(name="acme-a", version="2.0.0")))
    run = run_image(spec_text({"source": "tgz/a.tgz"}, {"source": "tgz/a2.tgz"}))
    assert run.code == 1
    assert [p["status"] for p in run.report["packages"]] == ["loaded", "refused"]
    assert run.report["packages"][1]["diagnostics"][0]["code"] == "NB1811"
    assert json.loads((run.image / "node_modules/acme-a/package.json").read_text())["version"] == "1.0.0"


def test_a_bad_spec_exits_2_naming_file_and_line(tmp_path: Path, run_image: RunImage) -> None:
    run = run_image('[[packages]]\nsource = "nope"\n')
    assert run.code == 2
    assert "image.toml:1: nope: no such package folder" in run.err
    assert not run.image.exists()


@pytest.mark.registry
def test_the_example_packages_build_into_an_image(tmp_path: Path, npm_registry: LocalRegistry) -> None:
    """The README's main-job command, run as a person would: the installed console script on the shipped SPEC.

    npm is pointed at the local registry, which holds the real ms@2.1.3 acme-ops depends on.
    """
    examples = tmp_path / "example-packages"
    shutil.copytree(REPO / "example-packages", examples, ignore=shutil.ignore_patterns("node_modules", "dist"))
    out = tmp_path / "image"
    command = [
        str(Path(sys.executable).parent / "neuralis-build"),
        "image",
        str(examples / "image.toml"),
        "--out",
        str(out),
    ]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads((out / "neuralis-image.json").read_text())
    outcomes = {p["name"]: (p["status"], p["module"] and p["module"]["status"]) for p in report["packages"]}
    assert outcomes == {
        "hello-declarative": ("loaded", None),
        "acme-ops": ("loaded", None),
        "@acme/charts": ("loaded", "accepted"),
        "@acme/reports": ("loaded", "accepted"),
        "weather-widget": ("loaded", None),
    }
    assert report["services"] == {"oauth-callback:acme_ops_": ["acme-ops"]}
    # the folders' UI modules and events were built by the image build, then packed with their files
    reports = out / "node_modules/@acme/reports"
    assert sorted(p.relative_to(reports).as_posix() for p in reports.rglob("*") if p.is_file()) == [
        "dist/app/build-inputs.json",
        "dist/app/host.css",
        "dist/app/host.js",
        "dist/app/shared-imports.json",
        "dist/src/events/build-inputs.json",
        "dist/src/events/report.js",
        "package.json",
    ]
    assert report["tools"] == [
        {"name": "weather_forecast_lookup", "owner": "weather-widget", "shadowed": ["mcp:weather-mcp"]}
    ]
    assert "5 loaded" in done.stdout and "report:" in done.stdout
    assert (out / "node_modules/weather-widget/app/surfaces/widget/weather_forecast/index.html").is_file()
    # acme-ops' tool imports its real dependency (a link in its node_modules to the first-party copy) under node
    assert [(c["path"], c["version"], c["chain"]) for c in report["closure"] if c["name"] == "ms"] == [
        ("node_modules/.store/first-party/ms@2.1.3/node_modules/ms", "2.1.3", ["acme-ops", "ms"])
    ]
    tool = out / "node_modules/acme-ops/tools/acme_incident_age.js"
    call = "await t.run({openedAt: new Date(0).toISOString()}, 3 * 3600e3)"
    script = f"import({json.dumps(str(tool))}).then(async t => console.log({call}))"
    ran = subprocess.run(["node", "-e", script], capture_output=True, text=True, check=True)
    assert ran.stdout == "3 hours\n"
    assert (out / "sbom.cdx.json").is_file() and (out / "package-lock.json").is_file()


def test_the_host_profile_from_the_spec_or_the_flag(tmp_path: Path, run_image: RunImage) -> None:
    write_tgz(tmp_path / "tgz", "ui.tgz", ui_package("acme-ui", RECORD))
    profile = {"hostApiVersion": "2", "reactMajor": 19, "sharedModules": ["react/jsx-runtime"]}
    (tmp_path / "host2.json").write_text(json.dumps(profile))
    from_spec = run_image('[host]\nprofile = "host2.json"\n\n' + spec_text({"source": "tgz/ui.tgz"}))
    assert from_spec.code == 1
    assert from_spec.package("acme-ui")["module"] == {
        "status": "refused",
        "reason": f"built for host API 1, host is 2: {REBUILD}",
    }
    assert from_spec.report["host"]["hostApiVersion"] == "2"
    flag = run_image(spec_text({"source": "tgz/ui.tgz"}), "--host", str(tmp_path / "host2.json"), out=tmp_path / "o2")
    assert flag.code == 1 and flag.report["host"]["hostApiVersion"] == "2"


def test_a_folder_source_is_packed_with_its_files_and_never_follows_links(tmp_path: Path, run_image: RunImage) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("outside")
    folder = tmp_path / "pkgs/acme-folder"
    (folder / "lib").mkdir(parents=True)
    (folder / "package.json").write_text(json.dumps(manifest(name="acme-folder", files=["lib"])))
    (folder / "lib/index.js").write_text("module.exports = 1;\n")
    (folder / "lib/leak.txt").symlink_to(secret)
    (folder / "notes.md").write_text("not in files")
    (folder / "node_modules/dep").mkdir(parents=True)
    (folder / "node_modules/dep/index.js").write_text("")
    spec = spec_text({"source": "pkgs/acme-folder"})
    run = run_image(spec)
    assert run.code == 0, run.err
    assert sorted(tree_bytes(run.image / "node_modules/acme-folder")) == ["lib/index.js", "package.json"]
    lock = (run.image / "neuralis-image.lock").read_text()
    again = run_image(spec, out=tmp_path / "o2")
    assert (again.image / "neuralis-image.lock").read_text() == lock
    assert 'source = "pkgs/acme-folder"' in lock and 'integrity = "sha512-' in lock
    assert run_image(spec).err.count("(cached)") == 1
    (folder / "lib/index.js").write_text("module.exports = 2;\n")
    changed = run_image(spec)
    assert "(cached)" not in changed.err
    assert (run.image / "node_modules/acme-folder/lib/index.js").read_text() == "module.exports = 2;\n"


def test_the_text_report_names_each_refusal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from neuralis_build.cli.build import main

    monkeypatch.setenv("COLUMNS", "200")
    t = tmp_path / "tgz"
    write_tgz(t, "stale.tgz", ui_package("acme-stale", {**RECORD, "hostApiVersion": "0"}))
    write_tgz(t, "evil.tgz", raw_tgz([file_info("package/package.json", b"{}"), special("package/x", b"2", "/")]))
    write_tgz(t, "ref.tgz", package_tgz(manifest({"referenceOnly": True}, name="acme-docs")))
    (tmp_path / "image.toml").write_text(
        spec_text({"source": "tgz/stale.tgz"}, {"source": "tgz/evil.tgz"}, {"source": "tgz/ref.tgz"})
    )
    code = main(["image", str(tmp_path / "image.toml"), "--out", str(tmp_path / "out")])
    out, err = capsys.readouterr()
    assert code == 1
    assert f"UI module refused: built for host API 0, host is 1: {REBUILD}" in out
    assert "error NB1804 the entry 'package/x' is a symbolic link; a package installs regular files only" in out
    assert "1 loaded · 1 reference-only · 0 not-neuralis · 1 refused · 1 UI module(s) refused" in out
    assert "[2/3] refused" in err and "acme-docs@1.0.0" in err


def test_a_folder_is_rebuilt_so_a_stale_module_is_not_installed(tmp_path: Path, run_image: RunImage) -> None:
    charts = tmp_path / "acme-charts"
    shutil.copytree(
        REPO / "example-packages/acme-charts", charts, ignore=shutil.ignore_patterns("node_modules", "dist")
    )
    (charts / "dist/app").mkdir(parents=True)
    (charts / "dist/app/host.js").write_text("export {};\n")
    (charts / "dist/app/shared-imports.json").write_text(json.dumps({**RECORD, "hostApiVersion": "0"}))
    broken = tmp_path / "acme-broken"
    shutil.copytree(charts, broken)
    data = json.loads((broken / "package.json").read_text())
    data["name"] = "@acme/broken"
    data["neuralis"]["app"]["module"].pop("provides")
    (broken / "package.json").write_text(json.dumps(data))
    (broken / "src/app/host.tsx").write_text("export function installAcmeBrokenHostComponents( {\n")
    run = run_image(spec_text({"source": "acme-charts"}, {"source": "acme-broken"}))
    assert run.code == 1
    assert run.package("@acme/charts")["module"] == {"status": "accepted", "reason": None}
    record = json.loads((run.image / "node_modules/@acme/charts/dist/app/shared-imports.json").read_text())
    assert record["hostApiVersion"] == "1"
    broken_report = run.package("@acme/broken")
    assert broken_report["status"] == "refused"
    assert {d["code"][:4] for d in broken_report["diagnostics"] if d["severity"] == "error"} == {"NB19"}
    assert installed(run) == ["@acme/charts"]


def test_each_module_is_parsed_once_check_hands_its_verdict_on(
    tmp_path: Path, run_image: RunImage, monkeypatch: pytest.MonkeyPatch
) -> None:
    """esbuild reads a built module once per image build: check judges it, the image asks the verdict again.

    Every esbuild run goes through a wrapper that logs its arguments (NEURALIS_ESBUILD_BINARY).
    """
    from neuralis_build.esbuild.runner import find_esbuild

    log = tmp_path / "esbuild.log"
    wrapper = tmp_path / "esbuild"
    wrapper.write_text(f'#!/bin/sh\nprintf "%s\\n" "$*" >> "{log}"\nexec "{find_esbuild().path}" "$@"\n')
    wrapper.chmod(0o755)
    monkeypatch.setenv("NEURALIS_ESBUILD_BINARY", str(wrapper))
    write_tgz(tmp_path / "tgz", "ui.tgz", ui_package("acme-ui", RECORD))
    done = run_image(spec_text({"source": "tgz/ui.tgz"}))
    assert done.code == 0 and done.package("acme-ui")["module"] == {"status": "accepted", "reason": None}
    parses = [line for line in log.read_text().splitlines() if "dist/app/host.js" in line]
    assert len(parses) == 1, parses


def test_timings_name_each_phase_and_an_unchanged_rerun_installs_nothing(tmp_path: Path, run_image: RunImage) -> None:
    t = tmp_path / "tgz"
    write_tgz(t, "a.tgz", package_tgz(manifest(name="acme-a"), {"a.js": "a"}))
    spec = spec_text({"source": "tgz/a.tgz"})
    first = run_image(spec, "--timings")
    phases = [line.split()[1] for line in first.err.splitlines() if line.startswith("phase ")]
    assert phases == ["read", "resolve", "plan", "check", "install", "judge", "report", "commit", "total"]
    assert "phase " not in run_image(spec).err  # only when asked
    listing = {p: p.stat().st_ino for p in (first.image / "node_modules").rglob("*")}
    rerun = run_image(spec, "--timings")
    # the plan kept the tree: not one file of it was written again
    assert {p: p.stat().st_ino for p in (first.image / "node_modules").rglob("*")} == listing
    assert rerun.report == first.report
