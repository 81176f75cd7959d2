"""Property tests: any mutation of a manifest gets diagnostics, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from neuralis_build.check import check_path
from neuralis_build.cli.build import main
from neuralis_build.manifest.block import NEURALIS

KEYS = sorted(NEURALIS.fields)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**40), max_value=2**40),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=40),
    st.sampled_from(["", "..", "/abs", "dist/app/host.js", "git.x", "data://<self>/**", "${appRoot}/x", "a" * 300]),
)
JSON = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.one_of(st.sampled_from(KEYS), st.text(max_size=12)), inner, max_size=5),
    ),
    max_leaves=25,
)
BLOCKS = st.dictionaries(st.sampled_from(KEYS), JSON, max_size=6)


def _write(root: Path, data: Any) -> None:
    root.mkdir(exist_ok=True)
    (root / "package.json").write_text(json.dumps(data), encoding="utf-8")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(block=BLOCKS, trust=st.sampled_from(["first-party", "trusted", "untrusted"]))
def test_any_block_gets_an_answer(tmp_path: Path, block: dict[str, Any], trust: Any) -> None:
    root = tmp_path / "pkg"
    _write(root, {"name": "acme-pkg", "version": "1.0.0", "neuralis": block})
    result = check_path(root, trust)
    for d in result.diagnostics:
        assert d.severity in ("error", "warning", "note")
        assert d.code.startswith("NB") and d.message
        assert d.pointer == "" or d.pointer.startswith("/")
    json.dumps(result.to_json())


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=JSON)
def test_any_package_json_gets_an_answer(tmp_path: Path, data: Any) -> None:
    root = tmp_path / "pkg"
    _write(root, data)
    result = check_path(root, "untrusted")
    json.dumps(result.to_json())


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(max_size=80))
def test_any_text_gets_an_answer_from_the_cli(tmp_path: Path, text: str, capsys: Any) -> None:
    root = tmp_path / "pkg"
    root.mkdir(exist_ok=True)
    (root / "package.json").write_text(text, encoding="utf-8")
    code = main(["check", str(root), "--trust", "untrusted", "--format", "json"])
    out, err = capsys.readouterr()
    assert code in (0, 1)
    assert "Traceback" not in err and "internal error" not in err
    json.loads(out)
