"""One rule, run by check, pack and image: an exports map must keep require.resolve('<name>/package.json').

chalk 5, commander 14 and sharp 0.35 are real packages whose exports maps hide package.json; given a
neuralis block, the host could not find their root. check used to say nothing, pack refused (NB1707)
and image refused for another reason (NB1810, node's view); now all three say NB1707 at /exports.
"""

from __future__ import annotations

import json
import tarfile
from pathlib import Path

import pytest

from neuralis_build.cli.build import main
from tests.conftest import requires_node
from tests.image.conftest import fixture_tarball, spec_text

REAL = ["chalk@5.6.2", "commander@14.0.3", "sharp@0.35.5"]


def unpacked(spec: str, into: Path, *, keep_package_json: bool = False) -> Path:
    """The real tarball of ``spec`` unpacked as a folder, with a neuralis block added to its package.json."""
    folder = into / spec.split("@")[0]
    with tarfile.open(fixture_tarball(spec)) as archive:
        for member in archive.getmembers():
            if member.isfile():
                target = folder / member.name.removeprefix("package/")
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(archive.extractfile(member).read())  # type: ignore[union-attr]
    data = json.loads((folder / "package.json").read_text())
    data.pop("scripts", None)  # pack would run prepack and friends: not what is judged here
    data["neuralis"] = {}
    if keep_package_json:
        exports = data["exports"]
        data["exports"] = {
            **(exports if isinstance(exports, dict) else {".": exports}),
            "./package.json": "./package.json",
        }
    (folder / "package.json").write_text(json.dumps(data, indent=2) + "\n")
    return folder


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    capsys.readouterr()
    code = main(list(args))
    return code, capsys.readouterr().out


def codes(diagnostics: list[dict[str, str]]) -> list[tuple[str, str, str]]:
    return [(d["severity"], d["code"], d["pointer"]) for d in diagnostics]


@pytest.mark.parametrize("spec", REAL)
def test_check_and_pack_refuse_a_real_exports_map_that_hides_package_json(
    spec: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = unpacked(spec, tmp_path)
    code, out = run(capsys, "check", str(folder), "--trust", "first-party", "--format", "json")
    (result,) = json.loads(out)
    assert code == 1
    assert codes(result["diagnostics"]) == [("error", "NB1707", "/exports")]
    name = spec.rsplit("@", 1)[0]
    assert (
        f"require.resolve('{name}/package.json') would fail with ERR_PACKAGE_PATH_NOT_EXPORTED"
        in (result["diagnostics"][0]["message"])
    )
    code, out = run(capsys, "pack", str(folder), "--trust", "first-party", "--dry-run", "--json")
    assert code == 1
    assert [d["code"] for d in json.loads(out)[0]["error"]["diagnostics"]] == ["NB1707"]  # said once, not twice


@pytest.mark.parametrize("spec", REAL)
def test_the_same_package_keeping_package_json_passes(
    spec: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = unpacked(spec, tmp_path, keep_package_json=True)
    code, out = run(capsys, "check", str(folder), "--trust", "first-party", "--format", "json")
    assert code == 0, out
    assert codes(json.loads(out)[0]["diagnostics"]) == []


@pytest.mark.e2e
@requires_node
def test_image_refuses_it_with_the_same_rule(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """chalk and commander have no dependencies: the image needs no registry to judge them."""
    unpacked("chalk@5.6.2", tmp_path)
    unpacked("commander@14.0.3", tmp_path / "kept", keep_package_json=True)
    spec = tmp_path / "image.toml"
    spec.write_text(spec_text({"source": "chalk"}, {"source": "kept/commander"}))
    code, out = run(capsys, "image", str(spec), "--out", str(tmp_path / "out"), "--format", "json")
    report = json.loads(out)
    assert code == 1
    chalk, commander = report["packages"]
    assert (chalk["name"], chalk["status"]) == ("chalk", "refused")
    assert codes(chalk["diagnostics"]) == [("error", "NB1707", "/exports")]
    assert (commander["name"], commander["status"]) == ("commander", "loaded")
    assert [c["name"] for c in report["closure"]] == ["commander"]
