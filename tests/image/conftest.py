"""Helpers for the image tests: tarballs crafted in the test (honest and hostile), SPEC files, and a CLI runner."""

from __future__ import annotations

import gzip
import io
import json
import tarfile
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from neuralis_build.cli.build import main

Member = tuple[str, Any]  # (name, bytes | str | TarInfo-tweaking dict)


def raw_tgz(members: Iterable[tarfile.TarInfo | tuple[tarfile.TarInfo, bytes]], *, compress: bool = True) -> bytes:
    """A tarball of exactly these members, in this order, with no sanitising at all (for hostile cases)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as archive:
        for member in members:
            if isinstance(member, tuple):
                info, data = member
                info.size = len(data)
                archive.addfile(info, io.BytesIO(data))
            else:
                archive.addfile(member)
    data = buffer.getvalue()
    return gzip.compress(data, mtime=0) if compress else data


def file_info(name: str, data: bytes) -> tuple[tarfile.TarInfo, bytes]:
    info = tarfile.TarInfo(name)
    info.mode = 0o644
    info.mtime = 499162500
    return info, data


def special(name: str, kind: bytes, linkname: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = linkname
    info.mode = 0o644
    return info


def package_tgz(manifest: Mapping[str, Any], files: Mapping[str, str | bytes] | None = None) -> bytes:
    """An npm-style package tarball: package/package.json plus ``files``, all under package/."""
    members = [file_info("package/package.json", (json.dumps(manifest, indent=2) + "\n").encode())]
    for path, content in (files or {}).items():
        members.append(file_info(f"package/{path}", content.encode() if isinstance(content, str) else content))
    return raw_tgz(members)


def write_tgz(folder: Path, name: str, data: bytes) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_bytes(data)
    return path


def spec_text(*entries: Mapping[str, str], extra: str = "") -> str:
    """A SPEC with one [[packages]] table per entry (string values only)."""
    lines: list[str] = []
    for entry in entries:
        lines.append("[[packages]]")
        lines.extend(f"{key} = {json.dumps(value)}" for key, value in entry.items())
        lines.append("")
    return "\n".join(lines) + extra


@dataclass
class Run:
    """One in-process run of ``neuralis-build``: the exit code, stdout, stderr and the parsed report."""

    code: int
    out: str
    err: str
    image: Path

    @property
    def report(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads((self.image / "neuralis-image.json").read_text("utf-8"))
        return data

    def package(self, name: str) -> dict[str, Any]:
        return next(p for p in self.report["packages"] if p["name"] == name or p["source"] == name)

    def codes(self, name: str) -> list[tuple[str, str, str]]:
        return [(d["severity"], d["code"], d["pointer"]) for d in self.package(name)["diagnostics"]]


@pytest.fixture
def run_image(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Callable[..., Run]:
    """Write a SPEC into tmp_path and run ``neuralis-build image`` on it in-process."""

    def run(spec: str, *args: str, out: Path | None = None, spec_name: str = "image.toml") -> Run:
        spec_path = tmp_path / spec_name
        spec_path.write_text(spec, "utf-8")
        image = out or tmp_path / "out"
        capsys.readouterr()
        code = main(["image", str(spec_path), "--out", str(image), "--format", "json", *args])
        captured = capsys.readouterr()
        return Run(code, captured.out, captured.err, image)

    return run


def tree_bytes(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` with its bytes, and every symbolic link with ``-> target`` (what "the same
    bytes" compares); links are not followed."""
    import os

    out: dict[str, bytes] = {}
    for folder, dirs, files in os.walk(root):
        for name in [*dirs, *files]:
            path = Path(folder, name)
            rel = path.relative_to(root).as_posix()
            if path.is_symlink():
                out[rel] = f"-> {os.readlink(path)}".encode()
            elif name in files:
                out[rel] = path.read_bytes()
    return dict(sorted(out.items()))


VERDACCIO = Path(__file__).resolve().parents[1] / "tools/node_modules/verdaccio/bin/verdaccio"


@dataclass
class LocalRegistry:
    """A verdaccio on loopback with its own storage, and an npm user config that points npm at it."""

    url: str
    npmrc: Path
    env: dict[str, str]

    def publish(self, what: Path) -> None:
        """``npm publish`` a package folder, or a tarball unchanged, to this registry (and nowhere else)."""
        import subprocess

        args = [str(what)] if what.is_file() else []
        done = subprocess.run(
            # no provenance: some real packages ask for it in publishConfig, which only a CI provider can give
            [
                "npm",
                "publish",
                *args,
                "--ignore-scripts",
                "--provenance=false",
                "--registry",
                self.url,
                "--tag",
                "latest",
            ],
            cwd=what.parent if what.is_file() else what,
            env=self.env,
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 0, done.stderr


def _free_port() -> int:
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


FIXTURES = Path(__file__).resolve().parents[1] / "tools"
PRIVATE_SCOPE = "@private"
"""Packages of this scope need credentials to read (what an organisation's private registry does)."""


def fixture_tarballs(*sets: str) -> list[Path]:
    """The real npm tarballs pinned in tests/tools/registry-fixtures.txt, each checked against its integrity.

    A line's third column names its set; a line without one is in the ``base`` set every registry starts with.
    """
    import base64
    import hashlib
    import os

    wanted = set(sets or ("base",))
    folder = FIXTURES / "registry-tarballs"
    out = []
    for line in (FIXTURES / "registry-fixtures.txt").read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        spec, integrity, *group = line.split()
        if (group[0] if group else "base") not in wanted:
            continue
        name, version = spec.rsplit("@", 1)
        path = folder / f"{name.removeprefix('@').replace('/', '-')}-{version}.tgz"
        if not path.is_file():
            if os.environ.get("CI"):
                pytest.fail(f"{path} is missing: ./scripts/setup --test fetches the pinned npm tarballs")
            pytest.skip("the pinned npm tarballs are not fetched (./scripts/setup --test)")
        digest = "sha512-" + base64.b64encode(hashlib.sha512(path.read_bytes()).digest()).decode()
        assert digest == integrity, f"{path} does not match its pinned integrity"
        out.append(path)
    return out


@contextmanager
def _verdaccio(root: Path) -> Iterator[LocalRegistry]:
    """Start verdaccio on 127.0.0.1 (a free port, config and storage under ``root``), log a user in, stop it after."""
    import os
    import queue
    import shutil
    import subprocess
    import threading
    import urllib.request

    node = shutil.which("node")
    if node is None or not VERDACCIO.is_file():
        if os.environ.get("CI"):
            pytest.fail("verdaccio is not installed: ./scripts/setup --test runs npm ci in tests/tools")
        pytest.skip("verdaccio is not installed (./scripts/setup --test)")
    port = _free_port()
    config = root / "config.yaml"
    config.write_text(
        f"storage: {root / 'storage'}\n"
        f"auth:\n  htpasswd:\n    file: {root / 'htpasswd'}\n    max_users: 10\n"
        "uplinks: {}\n"
        "packages:\n"
        f"  '{PRIVATE_SCOPE}/*':\n    access: $authenticated\n    publish: $authenticated\n"
        "  '**':\n    access: $all\n    publish: $authenticated\n"
        "log: { type: stdout, format: pretty, level: warn }\n",
        "utf-8",
    )
    proc = subprocess.Popen(
        [node, str(VERDACCIO), "--config", str(config), "--listen", f"127.0.0.1:{port}"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        text=True,
    )
    lines: queue.Queue[str] = queue.Queue()

    def pump() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.put(line)
        lines.put("")

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    try:
        seen = []
        while True:
            line = lines.get(timeout=60)
            seen.append(line)
            if not line:
                pytest.fail("verdaccio stopped before it listened:\n" + "".join(seen))
            if "http address" in line:
                break
        url = f"http://127.0.0.1:{port}/"
        request = urllib.request.Request(
            f"{url}-/user/org.couchdb.user:tester",
            data=json.dumps({"name": "tester", "password": "tester-password-1"}).encode(),
            method="PUT",
            headers={"content-type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            token = json.loads(response.read())["token"]
        npmrc = root / "npmrc"
        npmrc.write_text(f"registry={url}\n//127.0.0.1:{port}/:_authToken={token}\n", "utf-8")
        env = dict(os.environ, npm_config_userconfig=str(npmrc), npm_config_cache=str(root / "npm-cache"))
        yield LocalRegistry(url, npmrc, env)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        reader.join(timeout=20)
        if proc.stdout is not None:
            proc.stdout.close()


def _use(registry: LocalRegistry, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("npm_config_userconfig", registry.env["npm_config_userconfig"])
    monkeypatch.setenv("npm_config_cache", registry.env["npm_config_cache"])


@pytest.fixture
def local_registry(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[LocalRegistry]:
    """An empty verdaccio that npm is pointed at (through npm_config_userconfig) for the test."""
    with _verdaccio(tmp_path_factory.mktemp("registry")) as registry:
        _use(registry, monkeypatch)
        yield registry


@pytest.fixture(scope="session")
def seeded_storage(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A verdaccio storage folder holding the pinned real npm packages, published once per session."""
    root = tmp_path_factory.mktemp("seed")
    tarballs = fixture_tarballs()
    with _verdaccio(root) as registry:
        for tarball in tarballs:
            registry.publish(tarball)
    return root


@pytest.fixture(scope="session")
def realworld_storage(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A verdaccio storage folder with the base set and the real-world sets (proxy-agent's closure, native
    modules, @colors/colors, @nestjs/core's closure), each tarball published with npm publish.

    Publishing some 120 tarballs takes a minute or more, so the storage is kept beside the fetched tarballs
    (``tests/tools/registry-tarballs/.verdaccio-<digest>``, gone with them when the pinned list changes) and
    later sessions start from a copy of it.
    """
    import hashlib
    import os
    import shutil
    from concurrent.futures import ThreadPoolExecutor

    sets = ("base", "proxy", "native", "colors", "nest")
    tarballs = fixture_tarballs(*sets)
    version = json.loads((VERDACCIO.parents[1] / "package.json").read_text())["version"]
    layout = [version, "versions published in ascending order", [p.name for p in tarballs]]
    digest = hashlib.sha256(json.dumps(layout).encode()).hexdigest()[:16]
    kept = FIXTURES / "registry-tarballs" / f".verdaccio-{digest}"
    if (kept / "storage").is_dir():
        return kept
    root = tmp_path_factory.mktemp("seed-realworld")

    def publish_in_order(versions: list[Path]) -> None:
        for tarball in versions:  # the last one published is "latest", as on the real registry
            registry.publish(tarball)

    with _verdaccio(root) as registry, ThreadPoolExecutor(max_workers=4) as pool:
        list(pool.map(publish_in_order, _by_package(tarballs)))
    partial = kept.with_name(f"{kept.name}.{os.getpid()}")
    shutil.rmtree(partial, ignore_errors=True)
    shutil.copytree(root / "storage", partial / "storage")
    try:
        os.rename(partial, kept)
    except OSError:  # another session kept it first
        shutil.rmtree(partial, ignore_errors=True)
    return kept


def _by_package(tarballs: list[Path]) -> list[list[Path]]:
    """The tarballs grouped by package, each group in ascending version order.

    npm takes the ``latest`` tag when it satisfies a range, and verdaccio tags the version published
    last: publishing two versions of one package in parallel would make the older one latest at random.
    """
    import re

    from semantic_version import Version

    groups: dict[str, list[tuple[Version, Path]]] = {}
    for path in tarballs:
        match = re.fullmatch(r"(.+)-(\d+\.\d+\.\d+[^/]*)\.tgz", path.name)
        assert match is not None, path
        groups.setdefault(match[1], []).append((Version(match[2]), path))
    return [[path for _, path in sorted(group)] for group in groups.values()]


def _started(storage: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    import shutil

    root = tmp_path_factory.mktemp("registry")
    shutil.copytree(storage / "storage", root / "storage")
    return root


@pytest.fixture
def npm_registry(
    seeded_storage: Path, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[LocalRegistry]:
    """A verdaccio that starts with the pinned real npm packages (react, debug, ms, …) and npm pointed at it."""
    with _verdaccio(_started(seeded_storage, tmp_path_factory)) as registry:
        _use(registry, monkeypatch)
        yield registry


@pytest.fixture
def realworld_registry(
    realworld_storage: Path, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[LocalRegistry]:
    """A verdaccio with the base set and the real-world sets (see ``realworld_storage``), npm pointed at it."""
    with _verdaccio(_started(realworld_storage, tmp_path_factory)) as registry:
        _use(registry, monkeypatch)
        yield registry


def fixture_tarball(spec: str) -> Path:
    """One pinned real tarball by ``name@version`` (checked against its integrity), whatever its set."""
    name, version = spec.rsplit("@", 1)
    stem = f"{name.removeprefix('@').replace('/', '-')}-{version}.tgz"
    found = [p for p in fixture_tarballs("base", "proxy", "native", "colors", "exports", "nest") if p.name == stem]
    assert found, f"{spec} is not pinned in tests/tools/registry-fixtures.txt"
    return found[0]
