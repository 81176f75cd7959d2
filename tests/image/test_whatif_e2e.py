"""`neuralis-build image what-if OUT --host NEXT.json`: real images, built by the real command, judged for a new host.

The examples' image (built from example-packages/, with ms from a local registry) against the host profiles an
operator would try next; images of tarballs made here for the other refusals (a config key the platform reserves,
a peer the host no longer provides, a module the image refuses already, an engines range); and a few hundred
packages, to hold what what-if reads: the report and the tree's package.json files and records, no tarball,
no cache, no lock, and never npm.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from neuralis_build.cli.build import main
from tests.conftest import REPO, manifest, requires_node
from tests.image.conftest import LocalRegistry, Run, package_tgz, spec_text, write_tgz

pytestmark = [pytest.mark.e2e, requires_node]

CLI = str(Path(sys.executable).parent / "neuralis-build")
DEFAULT = json.loads((REPO / "neuralis_build/data/host-profile.json").read_text())
REBUILD = "rebuild with neuralis-build ui (npm run build:ui)"
BUNDLE = 'import{jsx as j}from"react/jsx-runtime";function i(){}export{i as installAcmeHostComponents};\n'
RECORD = {"hostApiVersion": "1", "reactMajor": 19, "sharedImports": ["react/jsx-runtime"]}


def profile(folder: Path, name: str, **changes: Any) -> str:
    """A host profile file in ``folder``: the default one with ``changes``; its name, to run in ``folder``."""
    (folder / name).write_text(json.dumps({**DEFAULT, **changes}, indent=2))
    return name


def what_if(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The installed console script, as an operator runs it."""
    return subprocess.run([CLI, "image", "what-if", *args], cwd=cwd, capture_output=True, text=True, check=False)


@pytest.mark.registry
def test_what_if_judges_the_examples_image_for_each_next_host(tmp_path: Path, npm_registry: LocalRegistry) -> None:
    examples = tmp_path / "example-packages"
    shutil.copytree(REPO / "example-packages", examples, ignore=shutil.ignore_patterns("node_modules", "dist"))
    ops = json.loads((examples / "acme-ops/package.json").read_text())
    ops["engines"] = {"node": ">=20 <22"}  # what a package written for Node 20 declares
    (examples / "acme-ops/package.json").write_text(json.dumps(ops, indent=2))
    host = profile(tmp_path, "host.json", nodeVersion="20.18.0")
    build = subprocess.run(
        [CLI, "image", str(examples / "image.toml"), "--out", "image", "--host", host],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert build.returncode == 0, build.stdout + build.stderr
    judged = "6 package(s) and 2 UI module(s) judged against"

    same = what_if(tmp_path, "image", "--host", host)
    assert (same.returncode, same.stderr) == (0, "")
    assert same.stdout == (
        "what-if image --host host.json\n"
        "profile: the same as the image's host\n"
        f"nothing would be refused: {judged} host.json\n"
    )

    react = what_if(
        tmp_path, "image", "--host", profile(tmp_path, "react20.json", nodeVersion="20.18.0", reactMajor=20)
    )
    assert react.returncode == 1
    rebuild = "(the image build rebuilds it from the folder {}: build the image with --host react20.json)"
    assert react.stdout == (
        "what-if image --host react20.json\n"
        "profile: React 19 → 20\n"
        "✗ @acme/charts@1.0.0 UI module: built against React 19, host provides React 20\n"
        "    fix: move @acme/charts's react to ^20.0.0 and rebuild its UI module with neuralis-build ui against the "
        f"new profile {rebuild.format('acme-charts')}\n"
        "✗ @acme/charts@1.0.0 peer: @acme/charts declares the peer react@^19.0.0, which the host's React 20 does not "
        "meet; the image installs no react (the host provides it)\n"
        '    fix: widen @acme/charts\'s peer range on react to admit React 20 ("react": "^20.0.0")\n'
        "✗ @acme/reports@1.0.0 UI module: built against React 19, host provides React 20\n"
        "    fix: move @acme/reports's react to ^20.0.0 and rebuild its UI module with neuralis-build ui against the "
        f"new profile {rebuild.format('acme-reports')}\n"
        "✗ @acme/reports@1.0.0 peer: @acme/reports declares the peer react@^19.0.0, which the host's React 20 does "
        "not meet; the image installs no react (the host provides it)\n"
        '    fix: widen @acme/reports\'s peer range on react to admit React 20 ("react": "^20.0.0")\n'
        "would refuse 2 UI module(s) and 2 package(s) (4 of 4 refusal(s) new with this profile) · "
        f"{judged} react20.json\n"
    )

    api2 = profile(tmp_path, "api2.json", nodeVersion="20.18.0", hostApiVersion="2")
    api = what_if(tmp_path, "image", "--host", api2, "--format", "json")
    assert api.returncode == 1
    fix = (
        "rebuild {0}'s UI module with neuralis-build ui against the new profile (the image build rebuilds it from "
        "the folder {1}: build the image with --host api2.json)"
    )
    assert json.loads(api.stdout) == {
        "image": "image",
        "current": {**DEFAULT, "nodeVersion": "20.18.0"},
        "next": {**DEFAULT, "nodeVersion": "20.18.0", "hostApiVersion": "2"},
        "nextSource": "api2.json",
        "node": {"current": "20.18.0", "next": "20.18.0"},
        "judged": {"packages": 6, "modules": 2},
        "refused": [
            {
                "kind": "host-api",
                "subject": "module",
                "name": name,
                "version": "1.0.0",
                "path": f"node_modules/{name}",
                "chain": [name],
                "code": "NB1606",
                "message": f"built for host API 1, host is 2: {REBUILD}",
                "fix": fix.format(name, folder),
                "already": False,
            }
            for name, folder in (("@acme/charts", "acme-charts"), ("@acme/reports", "acme-reports"))
        ],
    }
    github = what_if(tmp_path, "image", "--host", api2, "-f", "github")
    assert github.returncode == 1
    assert github.stdout == "".join(
        f"::error title=neuralis-build image what-if%3A host-api::{name}@1.0.0 (node_modules/{name}) UI module: "
        f"built for host API 1, host is 2: {REBUILD}%0Afix: {fix.format(name, folder)}\n"
        for name, folder in (("@acme/charts", "acme-charts"), ("@acme/reports", "acme-reports"))
    )

    node = what_if(tmp_path, "image", "--host", profile(tmp_path, "node22.json", nodeVersion="22.12.0"))
    assert node.returncode == 1
    assert node.stdout == (
        "what-if image --host node22.json\n"
        "profile: Node 20.18.0 → 22.12.0\n"
        "✗ acme-ops@2.0.0 engines: acme-ops@2.0.0 (node_modules/acme-ops, via acme-ops) declares engines.node "
        "'>=20 <22', which Node 22.12.0 (the new host profile's nodeVersion) does not satisfy: npm warns EBADENGINE "
        "and installs it, and it may fail at run time\n"
        "    fix: let acme-ops's engines.node (in the folder acme-ops) admit Node 22.12.0, once it runs there\n"
        "would refuse 0 UI module(s) and 1 package(s) (1 of 1 refusal(s) new with this profile) · "
        f"{judged} node22.json\n"
    )

    shared = [m for m in DEFAULT["sharedModules"] if m != "@neuralis/client"]
    gone = what_if(
        tmp_path, "image", "--host", profile(tmp_path, "noclient.json", nodeVersion="20.18.0", sharedModules=shared)
    )
    assert gone.returncode == 1
    assert gone.stdout == (
        "what-if image --host noclient.json\n"
        "profile: shared modules -@neuralis/client\n"
        '✗ @acme/reports@1.0.0 UI module: the bundle reads "@neuralis/client", which neither the host nor any loaded '
        "package provides\n"
        "    fix: keep \"@neuralis/client\" in the new profile's sharedModules, or rebuild @acme/reports's UI module "
        "without importing it (the image build rebuilds it from the folder acme-reports: build the image with "
        "--host noclient.json)\n"
        "would refuse 1 UI module(s) and 0 package(s) (1 of 1 refusal(s) new with this profile) · "
        f"{judged} noclient.json\n"
    )

    # the fix holds: the image built for the new profile, from the same folders, is one it accepts
    rebuilt = subprocess.run(
        [CLI, "image", str(examples / "image.toml"), "--out", "image", "--host", api2],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert rebuilt.returncode == 0, rebuilt.stdout + rebuilt.stderr
    assert what_if(tmp_path, "image", "--host", api2).returncode == 0


def test_what_if_refuses_to_judge_what_is_not_an_image(tmp_path: Path) -> None:
    host = profile(tmp_path, "next.json")
    (tmp_path / "folder").mkdir()
    (tmp_path / "bad.json").write_text('{"hostApiVersion": 2}')
    cases = [
        (("folder", "--host", host), "error: folder holds no neuralis-image.json: it is not an image\n"),
        (("next.json", "--host", host), "error: next.json is a file; what-if needs the image folder"),
        (("folder", "--host", "missing.json"), "error: missing.json: host profile not found\n"),
        (("folder", "--host", "bad.json"), 'error: bad.json: hostApiVersion must be a non-empty string such as "1"\n'),
    ]
    for args, error in cases:
        done = what_if(tmp_path, *args)
        assert (done.returncode, done.stdout) == (2, ""), done.stderr
        assert done.stderr.startswith(error), done.stderr
    missing = what_if(tmp_path, "folder")
    assert missing.returncode == 2 and "Missing option '--host'" in missing.stderr


RunImage = Callable[..., Run]


def ui_package(name: str, record: dict[str, Any], bundle: str = BUNDLE, **extra: Any) -> bytes:
    block = {"app": {"module": {"entry": "dist/app/host.js"}}}
    return package_tgz(
        manifest(block, name=name, **extra),
        {"dist/app/host.js": bundle, "dist/app/shared-imports.json": json.dumps(record)},
    )


def judge(tmp_path: Path, capsys: pytest.CaptureFixture[str], image: Path, host: str) -> tuple[int, dict[str, Any]]:
    capsys.readouterr()
    code = main(["image", "what-if", str(image), "--host", str(tmp_path / host), "--format", "json"])
    found: dict[str, Any] = json.loads(capsys.readouterr().out)
    return code, found


def test_what_if_names_config_keys_engines_and_what_the_image_refuses_already(
    tmp_path: Path, run_image: RunImage, capsys: pytest.CaptureFixture[str]
) -> None:
    t = tmp_path / "tgz"
    key = {"configSettings": [{"key": "themeColor", "label": "T", "type": "number", "default": 1, "category": "x"}]}
    write_tgz(t, "keys.tgz", package_tgz(manifest(key, name="acme-theme")))
    write_tgz(t, "future.tgz", package_tgz(manifest(name="acme-future", engines={"node": ">=99"})))
    write_tgz(t, "bad.tgz", ui_package("acme-bad", RECORD, bundle="export const other = 1;\n"))
    write_tgz(t, "ui.tgz", ui_package("acme-ui", RECORD))
    spec = spec_text(*({"source": f"tgz/{n}.tgz"} for n in ("keys", "future", "bad", "ui")))
    built = run_image(spec, "--allow-refused")
    assert built.code == 0, built.err
    assert built.package("acme-bad")["module"]["status"] == "refused"
    profile(tmp_path, "same.json")

    # the image's own host: only what its build refused or warned about already, each marked so
    code, same = judge(tmp_path, capsys, built.image, "same.json")
    assert code == 1
    node = same["node"]["current"]
    assert same["node"] == {"current": node, "next": node}  # neither profile sets nodeVersion: the node on PATH
    assert [(r["kind"], r["name"], r["code"], r["already"]) for r in same["refused"]] == [
        ("engines", "acme-future", None, True),
        ("module", "acme-bad", "NB1610", True),
    ]
    bad = same["refused"][1]
    assert bad["message"] == "dist/app/host.js exports other, but no install<Name>HostComponents function"
    assert (
        bad["fix"]
        == f"add to the UI entry: export function installAcmeBadHostComponents(host) {{ ... }}; then {REBUILD}"
    )
    assert same["refused"][0]["fix"] == "upgrade acme-future to a version whose engines.node admits Node " + node

    # a platform that reserves the config key and moves to host API 2
    profile(tmp_path, "next.json", platformConfigKeys=["themeColor"], hostApiVersion="2")
    code, upgrade = judge(tmp_path, capsys, built.image, "next.json")
    assert code == 1
    assert upgrade["refused"] == [
        {
            "kind": "config-key",
            "subject": "package",
            "name": "acme-theme",
            "version": "1.0.0",
            "path": "node_modules/acme-theme",
            "chain": ["acme-theme"],
            "code": "NB1822",
            "message": 'the config key "themeColor" is the platform\'s own config key; a key has exactly one owning '
            "declarer",
            "fix": 'rename the key within your package (for example acmeThemeThemeColor), or take "themeColor" out of '
            "the new profile's platformConfigKeys",
            "already": False,
        },
        same["refused"][0],
        host_api("acme-bad"),
        bad,
        host_api("acme-ui"),
    ]
    # what the build itself says with the new profile: the same refusals, each module's first reason its verdict
    rebuilt = run_image(spec, "--allow-refused", "--host", str(tmp_path / "next.json"), out=tmp_path / "next")
    rows = {p["name"]: p for p in rebuilt.report["packages"]}
    assert rows["acme-theme"]["status"] == "refused"
    assert [d["code"] for d in rows["acme-theme"]["diagnostics"] if d["severity"] == "error"] == ["NB1822"]
    assert {n: rows[n]["module"] for n in ("acme-bad", "acme-ui")} == {
        n: {"status": "refused", "reason": f"built for host API 1, host is 2: {REBUILD}"}
        for n in ("acme-bad", "acme-ui")
    }
    engines = same["refused"][0]["message"]  # the build's own words, but for whose Node it is
    engines = engines.replace(
        "the node on PATH: the new profile sets none", "the node on PATH, as no nodeVersion is set"
    )
    assert [c["message"] for c in rebuilt.report["conflicts"]] == [engines]


@pytest.mark.registry
def test_what_if_names_peers_on_what_the_host_provides(
    tmp_path: Path, npm_registry: LocalRegistry, run_image: RunImage, capsys: pytest.CaptureFixture[str]
) -> None:
    t = tmp_path / "tgz"
    write_tgz(t, "old.tgz", package_tgz(manifest(name="acme-old", peerDependencies={"react": "^18.0.0"})))
    write_tgz(t, "new.tgz", package_tgz(manifest(name="acme-new", peerDependencies={"react": "^18.0.0 || ^19.0.0"})))
    built = run_image(spec_text({"source": "tgz/old.tgz"}, {"source": "tgz/new.tgz"}))
    assert built.code == 0, built.err
    profile(tmp_path, "same.json")
    code, same = judge(tmp_path, capsys, built.image, "same.json")
    assert code == 1
    old = {
        "kind": "peer",
        "subject": "package",
        "name": "acme-old",
        "version": "1.0.0",
        "path": "node_modules/acme-old",
        "chain": ["acme-old"],
        "code": None,
        "message": "acme-old declares the peer react@^18.0.0, which the host's React 19 does not meet; the image "
        "installs no react (the host provides it)",
        "fix": "upgrade acme-old to a version whose peer range on react admits React 19",
        "already": True,
    }
    assert same["refused"] == [old]  # the build's own peer warning, made by the image's host already

    # a host that no longer provides react: the image left it to the host, so neither package would find one
    shared = [m for m in DEFAULT["sharedModules"] if not m.startswith("react/") and m != "react"]
    profile(tmp_path, "noreact.json", sharedModules=shared)
    code, gone = judge(tmp_path, capsys, built.image, "noreact.json")
    assert code == 1
    assert gone["refused"] == [
        {
            **old,
            "name": name,
            "path": f"node_modules/{name}",
            "chain": [name],
            "message": f"{name} declares the peer react@{spec}, which the new host no longer provides; the image "
            f"installs no react (the host it was built for provides it), so {name} would not find it",
            "fix": f"keep react in the new profile's sharedModules, or build the image against the new profile, which "
            f"installs react for {name}",
            "already": False,
        }
        for name, spec in (("acme-old", "^18.0.0"), ("acme-new", "^18.0.0 || ^19.0.0"))
    ]


def host_api(name: str) -> dict[str, Any]:
    """The refusal of a listed tarball's UI module built for host API 1, by a host of API 2."""
    return {
        "kind": "host-api",
        "subject": "module",
        "name": name,
        "version": "1.0.0",
        "path": f"node_modules/{name}",
        "chain": [name],
        "code": "NB1606",
        "message": f"built for host API 1, host is 2: {REBUILD}",
        "fix": f"rebuild {name}'s UI module with neuralis-build ui against the new profile, and list the new release "
        "in the SPEC",
        "already": False,
    }


_RECORDING: list[tuple[str, Any]] | None = None


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if _RECORDING is not None and event in ("open", "subprocess.Popen", "os.posix_spawn", "os.exec", "os.system"):
        _RECORDING.append((event, args))


@contextmanager
def recording() -> Iterator[list[tuple[str, Any]]]:
    """Every file opened and every process started meanwhile, as Python's audit events tell them."""
    global _RECORDING
    if not getattr(recording, "hooked", False):
        sys.addaudithook(_audit)  # a hook stays for the process's life: it records only inside this block
        recording.hooked = True  # type: ignore[attr-defined]
    _RECORDING = []
    try:
        yield _RECORDING
    finally:
        _RECORDING = None


WIDGETS = {
    "name": "acme-widgets",
    "version": "1.0.0",
    "neuralis": {"app": {"module": {"entry": "dist/app/host.js", "provides": ["acme-widgets/app/widgets"]}}},
}


@pytest.mark.registry
def test_what_if_over_a_few_hundred_packages_reads_the_report_and_the_tree_only(
    tmp_path: Path, npm_registry: LocalRegistry, run_image: RunImage
) -> None:
    """300 listed tarballs in three tiers, their registry dependencies (debug, ms) in each tier's store, ten UI
    modules and a neuralis dependency with its own: what-if opens the report, the new profile, one package.json
    per listed folder and per registry tarball, and each module's record; it extracts no tarball, reads no cache,
    lock or SBOM, parses no module, writes nothing, and starts node only (never npm): its version, and npm's semver
    over the peer ranges."""
    widgets = tmp_path / "widgets"
    (widgets / "dist/app").mkdir(parents=True)
    (widgets / "package.json").write_text(json.dumps(WIDGETS))
    (widgets / "dist/app/host.js").write_text(BUNDLE)
    (widgets / "dist/app/shared-imports.json").write_text(json.dumps(RECORD))
    npm_registry.publish(widgets)
    t, entries = tmp_path / "tgz", []
    for i in range(300):
        name, tier = f"acme-{i:03d}", i % 3
        deps = {"debug": "^4.3.0"} if i % 2 else {"ms": "^2.1.0"}
        if i % 30 == 0:  # a first-party UI module, with a peer on react and a dependency that has a module too
            data = ui_package(
                name, RECORD, dependencies={**deps, "acme-widgets": "^1.0.0"}, peerDependencies={"react": "^19.0.0"}
            )
        else:
            data = package_tgz(manifest(name=name, dependencies=deps))
        write_tgz(t, f"{name}.tgz", data)
        entry = {"source": f"tgz/{name}.tgz", "class": "host-dependency" if tier == 0 else "installed"}
        entries.append(entry | ({"trust": "trusted"} if tier == 1 else {}))
    built = run_image(spec_text(*entries))
    assert built.code == 0, built.err
    report = built.report
    image = built.image
    next_host = profile(tmp_path, "next.json", hostApiVersion="2", reactMajor=20)
    from neuralis_build import api

    with recording() as events:
        found = api.what_if(image, api.load_host_profile(tmp_path / next_host))

    assert (found.packages, found.modules) == (len(report["closure"]), 11)
    refused = {(r.name, r.kind) for r in found.refusals}
    modules = {f"acme-{i:03d}" for i in range(0, 300, 30)} | {"acme-widgets"}
    assert refused == {(n, k) for n in modules for k in ("host-api", "react")} | {
        (n, "peer") for n in modules - {"acme-widgets"}
    }
    [widget] = {r.fix for r in found.refusals if r.name == "acme-widgets" and r.kind == "host-api"}
    assert widget == (
        "rebuild acme-widgets's UI module with neuralis-build ui against the new profile, and publish it as a "
        "release acme-000 depends on"
    )

    opened = [args for event, args in events if event == "open" and isinstance(args[0], str | bytes | os.PathLike)]
    inside = [Path(os.fsdecode(path)) for path, *_ in opened if Path(os.fsdecode(path)).is_relative_to(tmp_path)]
    mine = sorted(p.relative_to(image).as_posix() for p in inside if p.is_relative_to(image))
    assert sorted(p for p in inside if not p.is_relative_to(image)) == [tmp_path / "next.json"]
    manifests = [p for p in mine if p.endswith("/package.json")]
    records = [p for p in mine if p.endswith("/dist/app/shared-imports.json")]
    assert sorted({*manifests, *records, "neuralis-image.json"}) == mine  # nothing else, and nothing twice
    assert len(mine) == len(set(mine))
    # a registry tarball's copies in the three tiers are links to one store entry: its package.json is read once
    distinct = {r["integrity"] for r in report["closure"] if "/.store/" in r["path"]}
    assert len(distinct) == 3  # debug, ms (in each tier) and acme-widgets (first-party only)
    assert len(manifests) == 300 + len(distinct)
    assert len(records) == 11
    ours = [a for a in opened if Path(os.fsdecode(a[0])).is_relative_to(tmp_path)]
    writes = [a for a in ours if isinstance(a[1], str) and set(a[1]) & set("wax+")]
    writes += [a for a in ours if isinstance(a[2], int) and a[2] & (os.O_WRONLY | os.O_RDWR | os.O_CREAT)]
    assert writes == []
    # the node on PATH: its version (the new profile sets no nodeVersion), then npm's semver on the peer ranges
    started = [[Path(os.fsdecode(a[0] or a[1][0])).name, *a[1][1:2]] for e, a in events if e != "open"]
    assert started == [["node", "--version"], ["node", "-e"]]
