"""The image's verdict on a UI module: check's verdict (judged once, with esbuild), asked again with the ids
the image's packages publish; each refusal carries a reason a person can act on."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from neuralis_build.hostprofile import default_host_profile
from neuralis_build.image.judge.moduleverdict import ReportedVerdict, reported
from neuralis_build.model.block import read_module
from neuralis_build.record.verdict import judge_module
from tests.conftest import build_file_tree

MODULE = read_module({"entry": "dist/app/host.js"})
BUNDLE = 'import{jsx}from"react/jsx-runtime";function a(){}export{a as installAcmeHostComponents};\n'


def judge(tmp_path: Path, record: Any, bundle: str = BUNDLE, published: tuple[str, ...] = ()) -> ReportedVerdict:
    files: dict[str, Any] = {"dist/app/host.js": bundle}
    if record is not None:
        files["dist/app/shared-imports.json"] = record if isinstance(record, str) else json.dumps(record)
    build_file_tree(tmp_path, files)
    return on_disk(tmp_path, published)


def on_disk(root: Path, published: tuple[str, ...] = ()) -> ReportedVerdict:
    """check's verdict (judged with the host's shared modules alone), then the image's, as image/build.py asks it."""
    host = default_host_profile()
    checked = judge_module(root, MODULE, host, set(host.shared_modules), package_id="@acme/x")
    return reported(checked, host, published)


def record(**changes: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"hostApiVersion": "1", "reactMajor": 19, "sharedImports": ["react/jsx-runtime"]}
    base.update(changes)
    return base


def test_a_current_module_is_accepted(tmp_path: Path) -> None:
    assert judge(tmp_path, record()) == ReportedVerdict("accepted")


def test_a_module_reading_a_published_id_is_accepted(tmp_path: Path) -> None:
    verdict = judge(tmp_path, record(sharedImports=["@acme/charts/app/charts"]), published=("@acme/charts/app/charts",))
    assert verdict.status == "accepted"


REBUILD = "rebuild with neuralis-build ui (npm run build:ui)"


@pytest.mark.parametrize(
    ("rec", "bundle", "reason"),
    [
        (record(hostApiVersion="0"), BUNDLE, f"built for host API 0, host is 1: {REBUILD}"),
        (
            record(reactMajor=18),
            BUNDLE,
            f"built against React 18, host provides React 19: move react to ^19.0.0 and {REBUILD}",
        ),
        (
            record(reactMajor=None),
            BUNDLE,
            f"the bundle reads React but records no React major: install react 19 (or declare a react range) and "
            f"{REBUILD}",
        ),
        (None, BUNDLE, f"dist/app/host.js has no shared-imports.json beside it: {REBUILD}"),
        ({"hostApiVersion": "1"}, BUNDLE, f'dist/app/shared-imports.json: the key "reactMajor" is missing: {REBUILD}'),
        (
            record(reactMajor="19"),
            BUNDLE,
            f"dist/app/shared-imports.json: reactMajor must be a whole number or null: {REBUILD}",
        ),
        (
            record(),
            "export function setup() {}\n",
            "dist/app/host.js exports setup, but no install<Name>HostComponents function: add to the UI entry: "
            f"export function installAcmeXHostComponents(host) {{ ... }}; then {REBUILD}",
        ),
        (
            record(sharedImports=["@acme/charts/app/charts", "react"]),
            BUNDLE,
            'the bundle reads "@acme/charts/app/charts", which neither the host nor any loaded package provides: '
            "install the package that publishes it in app.module.provides, or stop importing it",
        ),
    ],
)
def test_refusals_name_their_reason(tmp_path: Path, rec: Any, bundle: str, reason: str) -> None:
    assert judge(tmp_path, rec, bundle) == ReportedVerdict("refused", reason)


def test_a_record_without_a_react_major_is_fine_when_the_bundle_does_not_read_react(tmp_path: Path) -> None:
    assert judge(tmp_path, record(reactMajor=None, sharedImports=["@neuralis/client"])).status == "accepted"


def test_a_missing_entry_is_refused(tmp_path: Path) -> None:
    assert on_disk(tmp_path) == ReportedVerdict("refused", f"dist/app/host.js has not been built: {REBUILD}")


def test_a_published_id_check_did_not_know_of_is_accepted_without_parsing_again(tmp_path: Path) -> None:
    """check saw no package publishing the id (NB1609, a warning); the image, which loads one, accepts it."""
    build_file_tree(
        tmp_path,
        {"dist/app/host.js": BUNDLE, "dist/app/shared-imports.json": json.dumps(record(sharedImports=["@a/b/c"]))},
    )
    host = default_host_profile()
    checked = judge_module(tmp_path, MODULE, host, set(host.shared_modules))
    assert [p.code.id for p in checked.problems] == ["NB1609"]
    (tmp_path / "dist/app/host.js").unlink()  # the image never reads the module again: the verdict is handed on
    assert reported(checked, host, ("@a/b/c",)) == ReportedVerdict("accepted")
