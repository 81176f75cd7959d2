"""Judging a UI module against the host: each refusal carries a reason a person can act on."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from neuralis_build.hostprofile import default_host_profile
from neuralis_build.image.judge import ModuleVerdict, exported_names, judge_module
from tests.conftest import build_file_tree

MODULE = {"entry": "dist/app/host.js"}
BUNDLE = 'import{jsx}from"react/jsx-runtime";function a(){}export{a as installAcmeHostComponents};\n'


def judge(tmp_path: Path, record: Any, bundle: str = BUNDLE, published: tuple[str, ...] = ()) -> ModuleVerdict:
    files: dict[str, Any] = {"dist/app/host.js": bundle}
    if record is not None:
        files["dist/app/shared-imports.json"] = record if isinstance(record, str) else json.dumps(record)
    build_file_tree(tmp_path, files)
    return judge_module(tmp_path, MODULE, default_host_profile(), published)


def record(**changes: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"hostApiVersion": "1", "reactMajor": 19, "sharedImports": ["react/jsx-runtime"]}
    base.update(changes)
    return base


def test_a_current_module_is_accepted(tmp_path: Path) -> None:
    assert judge(tmp_path, record()) == ModuleVerdict("accepted")


def test_a_module_reading_a_published_id_is_accepted(tmp_path: Path) -> None:
    verdict = judge(tmp_path, record(sharedImports=["@acme/charts/app/charts"]), published=("@acme/charts/app/charts",))
    assert verdict.status == "accepted"


@pytest.mark.parametrize(
    ("rec", "bundle", "reason"),
    [
        (record(hostApiVersion="0"), BUNDLE, "built for host API 0, host is 1: rebuild with neuralis-build ui"),
        (
            record(reactMajor=18),
            BUNDLE,
            "built against React 18, host has React 19: move react to ^19 and rebuild with neuralis-build ui",
        ),
        (
            record(reactMajor=None),
            BUNDLE,
            "the bundle reads React but its record names no React major: install react and rebuild with "
            "neuralis-build ui",
        ),
        (None, BUNDLE, "there is no dist/app/shared-imports.json beside the bundle: rebuild with neuralis-build ui"),
        (
            {"hostApiVersion": "1"},
            BUNDLE,
            "dist/app/shared-imports.json lacks reactMajor, sharedImports: rebuild with neuralis-build ui",
        ),
        (
            record(reactMajor="19"),
            BUNDLE,
            "dist/app/shared-imports.json has a reactMajor that is neither a whole number nor null: rebuild with "
            "neuralis-build ui",
        ),
        (
            record(),
            "export function setup() {}\n",
            "dist/app/host.js exports no install<Name>HostComponents function: export one from src/app/host and "
            "rebuild with neuralis-build ui",
        ),
        (
            record(sharedImports=["@acme/charts/app/charts", "react"]),
            BUNDLE,
            "reads @acme/charts/app/charts, which neither the host nor any loaded package publishes: install the "
            "package that publishes it (app.module.provides), or bundle it and rebuild with neuralis-build ui",
        ),
    ],
)
def test_refusals_name_their_reason(tmp_path: Path, rec: Any, bundle: str, reason: str) -> None:
    assert judge(tmp_path, rec, bundle) == ModuleVerdict("refused", reason)


def test_a_record_without_a_react_major_is_fine_when_the_bundle_does_not_read_react(tmp_path: Path) -> None:
    assert judge(tmp_path, record(reactMajor=None, sharedImports=["@neuralis/client"])).status == "accepted"


def test_a_missing_entry_is_refused(tmp_path: Path) -> None:
    verdict = judge_module(tmp_path, MODULE, default_host_profile(), ())
    assert verdict.reason == (
        "the module entry dist/app/host.js is not in the installed package: rebuild with neuralis-build ui and keep "
        "dist/ in files"
    )


def test_exported_names_reads_clauses_and_declarations() -> None:
    source = "export { a as installXHostComponents, b };\nexport function c() {}\nexport const d = 1;\n"
    assert exported_names(source) == {"installXHostComponents", "b", "c", "d"}
