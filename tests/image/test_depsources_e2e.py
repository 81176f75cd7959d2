"""A listed package whose dependency is not on a registry (a tarball file, a folder, git) is refused with the way out.

npm resolves the closure with git and folder sources off, and a relative tarball path points where npm
cannot look; the whole build used to stop with npm's error (or "rebuild without --frozen; if it
persists, report it"). Now the package is refused before npm runs, naming the dependency and what to do,
and the rest of the image is built.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import manifest, requires_node
from tests.image.conftest import LocalRegistry, Run, package_tgz, spec_text, write_tgz

pytestmark = [pytest.mark.e2e, pytest.mark.registry, requires_node]

RunImage = Callable[..., Run]

FIX = (
    "publish {name} to your registry and depend on a version of it, or list it in the image SPEC as a package of "
    'its own (source = its .tgz or folder) and depend on its version ("{name}": "<version>")'
)


@pytest.mark.parametrize(
    ("spec", "kind"),
    [
        ("file:../vend/vend-1.0.0.tgz", "a tarball file"),
        ("file:vendor/vend", "a folder"),
        ("../vend", "a folder"),
        ("github:acme/vend", "a git repository"),
        ("git+https://git.example/acme/vend.git#v1.0.0", "a git repository"),
    ],
)
def test_a_dependency_from_outside_a_registry_refuses_the_package(
    tmp_path: Path, local_registry: LocalRegistry, run_image: RunImage, spec: str, kind: str
) -> None:
    write_tgz(tmp_path / "tgz", "app.tgz", package_tgz(manifest(name="acme-app", dependencies={"vend": spec})))
    write_tgz(tmp_path / "tgz", "fine.tgz", package_tgz(manifest(name="acme-fine")))
    run = run_image(spec_text({"source": "tgz/app.tgz"}, {"source": "tgz/fine.tgz"}))
    assert run.code == 1, run.err
    app = run.package("acme-app")
    assert app["status"] == "refused"
    [d] = app["diagnostics"]
    assert (d["severity"], d["code"], d["pointer"]) == ("error", "NB1815", "/dependencies/vend")
    assert d["message"] == (
        f'vend comes from {kind} ("{spec}"): the image installs registry packages only (each checked against the '
        "registry's integrity), so npm's resolution of the closure cannot take it"
    )
    assert d["hint"] == FIX.format(name="vend")
    assert run.package("acme-fine")["status"] == "loaded"  # the rest of the image is built
    assert [c["name"] for c in run.report["closure"]] == ["acme-fine"]


def test_an_optional_one_is_left_out_with_a_warning(
    tmp_path: Path, local_registry: LocalRegistry, run_image: RunImage
) -> None:
    data = manifest(name="acme-app", optionalDependencies={"vend": "github:acme/vend"})
    write_tgz(tmp_path / "tgz", "app.tgz", package_tgz(data))
    run = run_image(spec_text({"source": "tgz/app.tgz"}))
    assert run.code == 0, run.err
    app = run.package("acme-app")
    assert app["status"] == "loaded"
    assert [(d["severity"], d["code"], d["pointer"]) for d in app["diagnostics"]] == [
        ("warning", "NB1815", "/optionalDependencies/vend")
    ]


def test_the_hint_works_list_it_in_the_spec_and_depend_on_its_version(
    tmp_path: Path, local_registry: LocalRegistry, run_image: RunImage
) -> None:
    write_tgz(tmp_path / "tgz", "vend.tgz", package_tgz({"name": "vend", "version": "1.0.0", "license": "MIT"}))
    write_tgz(tmp_path / "tgz", "app.tgz", package_tgz(manifest(name="acme-app", dependencies={"vend": "1.0.0"})))
    run = run_image(spec_text({"source": "tgz/vend.tgz"}, {"source": "tgz/app.tgz"}))
    assert run.code == 0, run.err
    assert [(c["path"], c["chain"]) for c in run.report["closure"]] == [
        ("node_modules/acme-app", ["acme-app"]),
        ("node_modules/vend", ["vend"]),
    ]
