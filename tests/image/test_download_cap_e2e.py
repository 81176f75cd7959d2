"""A registry tarball is never read past the tarball cap: an oversized answer refuses its package, in bounded memory.

A registry (here a proxy in front of the local verdaccio, which npm resolves through, so npm's lock points
the image at it) answers one package's tarball with 1.5 GB of zeros: once announcing it in its
Content-Length, once streaming without one. The download used to be read whole into memory; now the
first is refused before its body is read and the second as soon as it passes the cap, and the package
that needs it is refused with the package, the URL, the size and the cap named. The build runs as its
own process, so its peak memory is its own (``RUSAGE_CHILDREN`` of a process that starts only it).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from neuralis_build.image.archive.extract import Limits
from tests.conftest import manifest, requires_node
from tests.image.conftest import LocalRegistry, package_tgz, spec_text, write_tgz
from tests.image.httpkit import Answer, Served, registry_proxy, zeros_answer
from tests.image.test_closure_e2e import lib, publish

pytestmark = [pytest.mark.e2e, pytest.mark.registry, requires_node]

CLI = str(Path(sys.executable).parent / "neuralis-build")
SERVED = 1536 * 1024 * 1024  # 1.5 GiB
CAP = Limits().max_tarball_bytes
HUGE = "/acme-huge/-/acme-huge-1.0.0.tgz"
# runs the build as its only child and prints that child's peak resident set (KiB on Linux)
PEAK = (
    "import resource, subprocess, sys\n"
    "code = subprocess.run(sys.argv[1:]).returncode\n"
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr)\n"
    "sys.exit(code)\n"
)


def _build(tmp_path: Path, registry: Served) -> tuple[int, dict[str, object], int, str]:
    """The real CLI on the SPEC in tmp_path, npm pointed at ``registry``: exit code, report, peak RSS, stderr."""
    env = dict(os.environ, npm_config_registry=registry.url)
    done = subprocess.run(
        [sys.executable, "-c", PEAK, CLI, "image", "image.toml", "--out", "out", "--format", "json"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    *_, peak = done.stderr.strip().splitlines()
    report = json.loads((tmp_path / "out/neuralis-image.json").read_text()) if done.returncode in (0, 1) else {}
    return done.returncode, report, int(peak) * 1024, done.stderr


@pytest.mark.parametrize("announce", [True, False], ids=["content-length", "streamed"])
def test_an_oversized_registry_tarball_refuses_its_package_without_being_read_whole(
    tmp_path: Path, npm_registry: LocalRegistry, announce: bool
) -> None:
    publish(npm_registry, tmp_path, lib("acme-huge", "1.0.0"), {"index.js": "module.exports = 1;\n"})
    t = tmp_path / "tgz"
    write_tgz(t, "app.tgz", package_tgz(manifest(name="acme-app", dependencies={"acme-huge": "1.0.0"})))
    write_tgz(t, "fine.tgz", package_tgz(manifest(name="acme-fine", dependencies={"ms": "2.1.3"})))
    (tmp_path / "image.toml").write_text(spec_text({"source": "tgz/app.tgz"}, {"source": "tgz/fine.tgz"}))

    def own(served: Served, path: str) -> Answer | None:
        return zeros_answer(served, SERVED, announce=announce) if path == HUGE else None

    with registry_proxy(npm_registry.url, own) as registry:
        code, report, peak, err = _build(tmp_path, registry)
    assert code == 1, err
    packages = {p["name"]: p for p in report["packages"]}  # type: ignore[union-attr]
    assert packages["acme-fine"]["status"] == "loaded"
    [d] = packages["acme-app"]["diagnostics"]
    url = f"{registry.url}{HUGE[1:]}"
    size = (
        f"is {SERVED:,} bytes (its Content-Length; none of it was read)"
        if announce
        else f"passed {CAP:,} bytes without saying its size, where the download stopped"
    )
    assert (d["code"], d["message"]) == (
        "NB1813",
        "it needs acme-huge@1.0.0 (acme-app → acme-huge), which is refused: its registry tarball is refused: "
        f"acme-huge@1.0.0: the answer from {url} {size}, more than the {CAP:,} bytes the image reads of one tarball "
        "(the most its reader lets a package inflate to; no flag raises it)",
    )
    assert [c["name"] for c in report["closure"]] == ["ms", "acme-fine"]  # type: ignore[index]
    assert registry.requests.count(HUGE) == 1  # never handed to npm to fetch instead
    # what got out before the build hung up: the socket buffers' worth, or the cap and those buffers
    assert registry.sent[HUGE] < (0 if announce else CAP) + 64 * 1024 * 1024
    # the build's peak memory is far below what was served (the cap is what it may hold of one tarball)
    assert peak < (SERVED // 4 if announce else SERVED * 2 // 3), peak
