"""The shared-imports record and judge_module: every reason a host refuses a built module."""

from __future__ import annotations

import json

import pytest

from neuralis_build.esbuild.analyze import read_modules
from neuralis_build.hostprofile import HostProfile, default_host_profile
from neuralis_build.model.block import read_module
from neuralis_build.record.sharedimports import parse_record
from neuralis_build.record.verdict import judge_module
from tests.ui.ui_helpers import build_file_tree

HOST = default_host_profile()
AVAILABLE = set(HOST.shared_modules) | {"@acme/charts/app/charts"}
GOOD_JS = 'import { jsx } from "react/jsx-runtime";\nfunction i(h) {}\nexport {\n  i as installAcmeHostComponents\n};\n'
GOOD_RECORD = {"hostApiVersion": "1", "reactMajor": 19, "sharedImports": ["react/jsx-runtime"]}
MODULE = {"entry": "dist/app/host.js"}


def test_record_round_trip():
    record, problems = parse_record(GOOD_RECORD)
    assert problems == [] and record is not None
    assert json.loads(record.dumps()) == GOOD_RECORD
    assert record.dumps().endswith("}\n")


@pytest.mark.parametrize(
    ("data", "pointers"),
    [
        ([], [""]),
        ({"hostApiVersion": "1", "reactMajor": 19}, [""]),
        ({**GOOD_RECORD, "extra": 1}, ["/extra"]),
        ({**GOOD_RECORD, "hostApiVersion": 1}, ["/hostApiVersion"]),
        ({**GOOD_RECORD, "hostApiVersion": ""}, ["/hostApiVersion"]),
        ({**GOOD_RECORD, "reactMajor": "19"}, ["/reactMajor"]),
        ({**GOOD_RECORD, "reactMajor": True}, ["/reactMajor"]),
        ({**GOOD_RECORD, "sharedImports": "react"}, ["/sharedImports"]),
        ({**GOOD_RECORD, "sharedImports": ["react", 3]}, ["/sharedImports/1"]),
        ({**GOOD_RECORD, "sharedImports": ["react", "react"]}, ["/sharedImports"]),
        ({**GOOD_RECORD, "sharedImports": ["react/jsx-runtime", "react"]}, ["/sharedImports"]),
    ],
)
def test_malformed_records(data, pointers):
    record, problems = parse_record(data)
    assert record is None
    assert [p.pointer for p in problems] == pointers


def test_null_react_major_is_well_formed():
    record, problems = parse_record({**GOOD_RECORD, "reactMajor": None, "sharedImports": []})
    assert problems == [] and record is not None and record.react_major is None


def test_exports_are_read_by_esbuild_not_by_pattern(tmp_path, esbuild):
    text = (
        "// export function fake() {}\n"
        'const s = "export const alsoFake = 1";\n'
        "const re = /\\//g;\n"
        "export async function installYHostComponents() { return [s, re]; }\n"
        "export const subject = 'x';\nexport class K {}\nexport default 1;\n"
    )
    build_file_tree(tmp_path, {"a.js": GOOD_JS, "b.js": text, "c.js": "export const = ;\n"})
    found = read_modules(tmp_path, ["a.js", "b.js", "c.js"], esbuild)
    assert found["a.js"].exports == ("installAcmeHostComponents",)
    assert found["a.js"].imports == (("react/jsx-runtime", "import-statement"),)
    assert found["b.js"].exports == ("K", "default", "installYHostComponents", "subject")
    assert found["c.js"].error == 'Expected identifier but found "=" (line 1, column 14)'


def built(tmp_path, files):
    tree = {"dist/app/host.js": GOOD_JS, "dist/app/shared-imports.json": GOOD_RECORD}
    tree.update(files)
    return build_file_tree(tmp_path, {k: v for k, v in tree.items() if v is not None})


def judge(root, module=MODULE, host=HOST, available=AVAILABLE):
    verdict = judge_module(root, read_module(module), host, available)
    return [(p.code.id, p.file, p.pointer) for p in verdict.problems], verdict


def test_a_good_module_is_accepted(tmp_path):
    problems, verdict = judge(built(tmp_path, {}))
    assert problems == [] and verdict.accepted and verdict.reason is None
    assert verdict.record is not None and verdict.record.shared_imports == ("react/jsx-runtime",)


def test_unbuilt_entry(tmp_path):
    problems, verdict = judge(built(tmp_path, {"dist/app/host.js": None}))
    assert problems == [("NB1601", "package.json", "/neuralis/app/module/entry")]
    assert verdict.reason == "dist/app/host.js has not been built"


def test_no_declared_entry(tmp_path):
    assert judge(built(tmp_path, {}), module={})[0] == [("NB1601", "package.json", "/neuralis/app/module")]


def test_entry_leading_out_of_the_package(tmp_path):
    assert judge(built(tmp_path, {}), module={"entry": "../x.js"})[0] == [
        ("NB1611", "package.json", "/neuralis/app/module/entry")
    ]


def test_declared_css_not_built(tmp_path):
    module = {**MODULE, "css": "dist/app/host.css"}
    assert judge(built(tmp_path, {}), module=module)[0] == [("NB1602", "package.json", "/neuralis/app/module/css")]
    root = built(tmp_path, {"dist/app/host.css": "p{}"})
    assert judge(root, module=module)[0] == []


def test_missing_record(tmp_path):
    problems, verdict = judge(built(tmp_path, {"dist/app/shared-imports.json": None}))
    assert problems == [("NB1604", "dist/app/shared-imports.json", "")]
    assert verdict.reason == "dist/app/host.js has no shared-imports.json beside it"


def test_malformed_record(tmp_path):
    root = built(tmp_path, {"dist/app/shared-imports.json": "{not json"})
    assert judge(root)[0] == [("NB1605", "dist/app/shared-imports.json", "")]
    root = built(tmp_path, {"dist/app/shared-imports.json": {**GOOD_RECORD, "reactMajor": "x"}})
    assert judge(root)[0] == [("NB1605", "dist/app/shared-imports.json", "/reactMajor")]


def test_other_host_api_version(tmp_path):
    root = built(tmp_path, {"dist/app/shared-imports.json": {**GOOD_RECORD, "hostApiVersion": "0"}})
    problems, verdict = judge(root)
    assert problems == [("NB1606", "dist/app/shared-imports.json", "/hostApiVersion")]
    assert verdict.reason == "built for host API 0, host is 1: rebuild with neuralis-build ui (npm run build:ui)"


def test_other_react_major(tmp_path):
    root = built(tmp_path, {"dist/app/shared-imports.json": {**GOOD_RECORD, "reactMajor": 18}})
    problems, verdict = judge(root)
    assert problems == [("NB1607", "dist/app/shared-imports.json", "/reactMajor")]
    assert verdict.reason == "built against React 18, host provides React 19"


def test_reads_react_with_no_major(tmp_path):
    root = built(tmp_path, {"dist/app/shared-imports.json": {**GOOD_RECORD, "reactMajor": None}})
    assert judge(root)[0] == [("NB1608", "dist/app/shared-imports.json", "/reactMajor")]
    no_react = {"hostApiVersion": "1", "reactMajor": None, "sharedImports": ["@neuralis/client"]}
    assert judge(built(tmp_path, {"dist/app/shared-imports.json": no_react}))[0] == []


def test_unavailable_shared_import(tmp_path):
    record = {**GOOD_RECORD, "sharedImports": ["@acme/maps/app/map", "react/jsx-runtime"]}
    problems, verdict = judge(built(tmp_path, {"dist/app/shared-imports.json": record}))
    assert problems == [("NB1609", "dist/app/shared-imports.json", "/sharedImports/0")]
    assert verdict.reason == (
        'the bundle reads "@acme/maps/app/map", which neither the host nor any loaded package provides'
    )


def test_no_install_export(tmp_path):
    root = built(tmp_path, {"dist/app/host.js": "const a = 1;\nexport { a as installer };\n"})
    problems, verdict = judge(root)
    assert problems == [("NB1610", "dist/app/host.js", "")]
    assert verdict.reason == "dist/app/host.js exports installer, but no install<Name>HostComponents function"


def test_a_file_esbuild_cannot_read(tmp_path):
    root = built(tmp_path, {"dist/app/host.js": "export { a as installer };\n"})
    problems, verdict = judge(root)
    assert problems == [("NB1614", "dist/app/host.js", "")]
    assert verdict.reason == ('dist/app/host.js cannot be read: "a" is not declared in this file (line 1, column 10)')


def test_every_problem_is_reported(tmp_path):
    record = {"hostApiVersion": "0", "reactMajor": 18, "sharedImports": ["nope"]}
    root = built(tmp_path, {"dist/app/host.js": "export {};", "dist/app/shared-imports.json": record})
    assert [c for c, _, _ in judge(root)[0]] == ["NB1606", "NB1607", "NB1609", "NB1610"]


def test_a_verdict_asked_again_for_another_host_rejudges_only_what_depends_on_the_host(tmp_path):
    # the verdict for host 1 / React 19, then for host 2 / React 20 without @neuralis/client: the record's reasons
    # are judged afresh, in judge_module's order, and the bytes' own (no install export) stay where they were
    record = {"hostApiVersion": "1", "reactMajor": 19, "sharedImports": ["@neuralis/client", "react/jsx-runtime"]}
    root = built(tmp_path, {"dist/app/host.js": "export {};", "dist/app/shared-imports.json": record})
    _, verdict = judge(root)
    assert [p.code.id for p in verdict.problems] == ["NB1610"]
    nxt = HostProfile(host_api_version="2", react_major=20, shared_modules=("react", "react/jsx-runtime"))
    again = verdict.on(nxt, set(nxt.shared_modules))
    assert [(p.code.id, p.pointer) for p in again.problems] == [
        ("NB1606", "/hostApiVersion"),
        ("NB1607", "/reactMajor"),
        ("NB1609", "/sharedImports/0"),
        ("NB1610", ""),
    ]
    assert again.on(HOST, AVAILABLE) == verdict  # and back: the same verdict as for the first host


def test_a_verdict_without_the_parse_leaves_out_only_what_esbuild_tells(tmp_path):
    record = {"hostApiVersion": "0", "reactMajor": 18, "sharedImports": ["nope"]}
    root = built(tmp_path, {"dist/app/host.js": "export {};", "dist/app/shared-imports.json": record})
    verdict = judge_module(root, read_module(MODULE), HOST, AVAILABLE, parse=False)
    assert [p.code.id for p in verdict.problems] == ["NB1606", "NB1607", "NB1609"]  # no NB1610: nothing parsed
