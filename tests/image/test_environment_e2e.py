"""An outage or a typo in the SPEC never replaces the image: exit 2, the previous image kept, the cause named.

A build that cannot be made as the SPEC writes it (a name or a version the registry does not have,
bytes that are not the pinned ones, a registry that does not answer, a package listed twice) is not
a build of fewer packages: the operator's guide promises exit 2 and the image as it was.
"""

from __future__ import annotations

import socket
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import requires_node
from tests.image.conftest import LocalRegistry, Run, spec_text, tree_bytes

pytestmark = [pytest.mark.e2e, pytest.mark.registry, requires_node]

RunImage = Callable[..., Run]

GOOD = {"source": "npm:ms@2.1.3", "class": "installed"}
PIN = "sha512-6FlzubTLZG3J2a/NVCAleEhjzq5oxgHyaCU9yYXvcLsvoVaHJq/s5xXI6/XXP6tz7R9xAOtHnSO/tXtF3WRTlA=="


def _image_of(run_image: RunImage, tmp_path: Path) -> tuple[Run, dict[str, bytes], bytes]:
    first = run_image(spec_text(GOOD))
    assert first.code == 0, first.err
    return first, tree_bytes(first.image / "node_modules"), (first.image / "neuralis-image.json").read_bytes()


@pytest.mark.parametrize(
    ("entry", "said"),
    [
        (
            {"source": "npm:acme-no-such-package@1.0.0", "class": "installed"},
            "npm:acme-no-such-package@1.0.0: npm pack acme-no-such-package@1.0.0 failed: E404",
        ),
        (
            {"source": "npm:debug@9.9.9", "class": "installed"},
            "npm:debug@9.9.9: npm pack debug@9.9.9 failed: ETARGET",
        ),
        (
            {"source": "npm:debug@4.4.3", "class": "installed", "integrity": PIN},
            "npm:debug@4.4.3: the source's integrity is sha512-",
        ),
    ],
    ids=["a misspelt name", "a version that does not exist", "a wrong pin"],
)
def test_a_source_that_cannot_be_had_keeps_the_previous_image_and_exits_2(
    tmp_path: Path, npm_registry: LocalRegistry, run_image: RunImage, entry: dict[str, str], said: str
) -> None:
    first, tree, report = _image_of(run_image, tmp_path)
    broken = run_image(spec_text(GOOD, entry))
    assert broken.code == 2, broken.err
    assert "error: the SPEC cannot be built as written: " + said in broken.err
    assert "hint: fix the SPEC's source or pin, or the registry npm is configured for; the image folder keeps the" in (
        broken.err
    )
    assert tree_bytes(first.image / "node_modules") == tree
    assert (first.image / "neuralis-image.json").read_bytes() == report


def test_a_package_listed_twice_is_a_spec_error_at_its_line(
    tmp_path: Path, npm_registry: LocalRegistry, run_image: RunImage
) -> None:
    first, tree, _ = _image_of(run_image, tmp_path)
    broken = run_image(spec_text(GOOD, {"source": "npm:ms@2.0.0", "class": "installed"}))
    assert broken.code == 2
    assert f"error: {tmp_path / 'image.toml'}:5: npm:ms is listed at two versions (first at line 1)" in broken.err
    assert tree_bytes(first.image / "node_modules") == tree


def test_a_registry_that_does_not_answer_keeps_the_previous_image_and_names_the_cause(
    tmp_path: Path, npm_registry: LocalRegistry, run_image: RunImage, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, tree, report = _image_of(run_image, tmp_path)
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]  # nothing listens here once the socket is closed
    monkeypatch.setenv("npm_config_registry", f"http://127.0.0.1:{port}/")
    monkeypatch.setenv("npm_config_fetch_retries", "0")
    broken = run_image(spec_text({"source": "npm:koa@3.0.0", "class": "installed"}))
    assert broken.code == 2, broken.err
    assert "ECONNREFUSED" in broken.err and "comes from file:" not in broken.err
    assert tree_bytes(first.image / "node_modules") == tree
    assert (first.image / "neuralis-image.json").read_bytes() == report
