"""`neuralis-build image diff` on two images of the example packages: what a reviewer of the change reads."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from neuralis_build.cli.build import main
from tests.conftest import requires_node
from tests.image.conftest import LocalRegistry

pytestmark = [pytest.mark.e2e, pytest.mark.registry, requires_node]

REPO = Path(__file__).resolve().parents[2]


def edit(path: Path, **changes: object) -> None:
    data = json.loads(path.read_text())
    data.update(changes)
    path.write_text(json.dumps(data, indent=2) + "\n")


def build(capsys: pytest.CaptureFixture[str], spec: Path, out: Path) -> int:
    capsys.readouterr()
    code = main(["image", str(spec), "--out", str(out), "--format", "json", "--allow-refused"])
    capsys.readouterr()
    return code


def test_image_diff_names_every_change_between_two_images_of_the_examples(
    tmp_path: Path, npm_registry: LocalRegistry, capsys: pytest.CaptureFixture[str]
) -> None:
    old = tmp_path / "old"
    shutil.copytree(REPO / "example-packages", old, ignore=shutil.ignore_patterns("node_modules", "dist"))
    new = tmp_path / "new"
    shutil.copytree(old, new)
    # the change under review: acme-ops takes debug and changes licence, weather-widget drops to untrusted and
    # gains an install script, hello-declarative leaves, a broken package joins, the MCP server offers a tool
    # acme-ops already answers
    edit(new / "acme-ops/package.json", license="Apache-2.0", dependencies={"ms": "2.1.3", "debug": "4.4.3"})
    edit(new / "weather-widget/package.json", scripts={"postinstall": "node -e 0"})
    spec = (new / "image.toml").read_text()
    spec = spec.replace('[[packages]]\nsource = "hello-declarative"\nclass = "host-dependency"\n\n', "")
    spec = spec.replace('trust = "trusted"', 'trust = "untrusted"')
    spec = spec.replace('tools = ["weather_forecast_lookup", "weather_alerts"]', 'tools = ["acme_incident_age"]')
    spec += '\n[[packages]]\nsource = "broken/reserved-credential"\nclass = "host-dependency"\n'
    (new / "image.toml").write_text(spec)
    assert build(capsys, old / "image.toml", tmp_path / "image-old") == 0
    assert build(capsys, new / "image.toml", tmp_path / "image-new") == 0

    code = main(["image", "diff", str(tmp_path / "image-old"), str(tmp_path / "image-new"), "--format", "json"])
    diff = json.loads(capsys.readouterr().out)
    assert code == 0
    assert [(p["kind"], p["name"], p["old"], p["new"], p["chain"]) for p in diff["packages"]] == [
        ("added", "debug", [], ["4.4.3"], ["acme-ops", "debug"]),
        ("removed", "hello-declarative", ["0.1.0"], [], ["hello-declarative"]),
    ]
    assert diff["tools"] == [
        {
            "name": "acme_incident_age",
            "old": "acme-ops",
            "new": "acme-ops",
            "contested": True,
            "wasContested": False,
            "shadowed": ["mcp:weather-mcp"],
        },
        {
            "name": "weather_alerts",
            "old": "mcp:weather-mcp",
            "new": None,
            "contested": False,
            "wasContested": False,
            "shadowed": [],
        },
        {
            "name": "weather_forecast_lookup",
            "old": "weather-widget",
            "new": "weather-widget",
            "contested": False,
            "wasContested": True,
            "shadowed": [],
        },
    ]
    [refused] = diff["refused"]
    assert (refused["name"], refused["source"], refused["code"]) == (
        "reserved-credential",
        "broken/reserved-credential",
        "NB1002",
    )
    [script] = diff["scripts"]
    assert (script["name"], script["scripts"], script["was"]) == ("weather-widget", {"postinstall": "node -e 0"}, None)
    assert diff["trust"] == [{"name": "weather-widget", "old": ["trusted"], "new": ["untrusted"]}]
    assert diff["licenses"] == [{"name": "acme-ops", "old": ["MIT"], "new": ["Apache-2.0"]}]
    size = diff["size"]
    assert size["delta"]["bytes"] == size["new"]["bytes"] - size["old"]["bytes"] != 0
    assert {m["name"] for m in size["movers"]} >= {"debug", "hello-declarative"}

    main(["image", "diff", str(tmp_path / "image-old"), str(tmp_path / "image-new")])
    text = capsys.readouterr().out
    assert "packages: 1 added, 1 removed" in text
    assert "+ debug 4.4.3 (acme-ops → debug)" in text
    assert "weather-widget: trusted → untrusted" in text
    assert "acme-ops: MIT → Apache-2.0" in text
    main(
        [
            "image",
            "diff",
            str(tmp_path / "image-old"),
            str(tmp_path / "image-new" / "neuralis-image.json"),
            "-f",
            "github",
        ]
    )
    summary = capsys.readouterr().out
    assert summary.startswith("## Image diff: ")
    assert "### ✗ Newly refused" in summary and "| + | `debug` | 4.4.3 | acme-ops → debug |" in summary

    # the same image on both sides: nothing to review
    main(["image", "diff", str(tmp_path / "image-new"), str(tmp_path / "image-new")])
    assert capsys.readouterr().out.endswith("no change\n")


def test_image_diff_refuses_what_is_not_an_image(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "empty").mkdir()
    (tmp_path / "bad.json").write_text("{\n  nope\n")
    assert main(["image", "diff", str(tmp_path / "empty"), str(tmp_path / "bad.json")]) == 2
    assert f"{tmp_path / 'empty'} holds no neuralis-image.json" in capsys.readouterr().err
    (tmp_path / "empty" / "neuralis-image.json").write_text('{"packages": []}')
    assert main(["image", "diff", str(tmp_path / "empty"), str(tmp_path / "bad.json")]) == 2
    assert f"{tmp_path / 'bad.json'}:2:3: the image report is not valid JSON" in capsys.readouterr().err
