"""Fetch each source's bytes: a tarball is read, an ``npm:`` spec is packed by npm into the image's cache."""

from __future__ import annotations

import json
import os
import tempfile
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from neuralis_build.image.resolution.npmcli import NpmFailed, run_npm
from neuralis_build.npm.names import tarball_stem
from neuralis_build.util.diagnostics import code
from neuralis_build.util.errors import SubprocessError, UserError

FETCH_TIMEOUT = 600.0
"""Seconds ``npm pack`` of one ``npm:`` source may take."""

NB1801 = code("NB1801", "fetch-failed", "the package source could not be read or fetched")
NB1802 = code("NB1802", "integrity-mismatch", "the fetched bytes do not match the integrity the image spec pins")


class FetchFailed(UserError):
    """A source could not be read or fetched; the package is refused."""


def read_tarball_file(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise FetchFailed(f"cannot read {path}: {exc.strerror}") from None


UNREACHABLE = frozenset(
    {"ETIMEOUT", "ETIMEDOUT", "ECONNREFUSED", "ECONNRESET", "ENOTFOUND", "EAI_AGAIN", "ENETUNREACH"}
)
"""npm's codes for a registry that cannot be reached: no package is to blame, and asking again waits as long."""


def packed(name: str, version: str, cache: Path) -> Path:
    """Where ``npm pack <name>@<version>`` is kept in the cache: ``@a+b@1.0.0.tgz``, never npm's own file name,
    which is ``a-b-1.0.0.tgz`` for ``@a/b`` and for ``a-b`` alike."""
    return cache / f"{name.replace('/', '+')}@{version}.tgz"


def npm_pack_many(specs: Sequence[tuple[str, str]], cache: Path, jobs: int) -> None:
    """Pack every (name, version) the cache lacks with a few npm calls of several packages each.

    One ``npm pack a b c`` packs in turn in one Node process: a Node start per package (about a second)
    is most of what packing one costs. The calls run side by side. A call that fails packs nothing here:
    ``npm_pack`` then packs its packages one by one and names the one npm could not fetch.
    """
    todo = sorted({(n, v) for n, v in specs if not packed(n, v, cache).is_file()})
    stems = Counter(tarball_stem(n, v) for n, v in todo)
    todo = [(n, v) for n, v in todo if stems[tarball_stem(n, v)] == 1]  # @a/b and a-b: npm names both a-b-<v>.tgz
    if len(todo) < 2:
        return
    calls = min(len(todo), max(2, 2 * jobs))
    groups = [todo[i::calls] for i in range(calls)]
    cache.mkdir(parents=True, exist_ok=True)

    def pack(group: list[tuple[str, str]]) -> None:
        with tempfile.TemporaryDirectory(dir=cache, prefix=".fetch-") as scratch:
            args = [
                "pack",
                *(f"{n}@{v}" for n, v in group),
                "--json",
                "--ignore-scripts",
                "--pack-destination",
                scratch,
            ]
            try:
                done = run_npm(args, Path(scratch), FETCH_TIMEOUT)
                made = json.loads(done.stdout)
            except NpmFailed as exc:
                if exc.code in UNREACHABLE:
                    raise  # the registry does not answer: one by one would wait as long again
                return
            except ValueError:
                return
            for item in made if isinstance(made, list) else []:
                if not isinstance(item, dict):
                    continue
                name, version = str(item.get("name")), str(item.get("version"))
                made_at = Path(scratch) / Path(str(item.get("filename", ""))).name
                if (name, version) in group and made_at.is_file():
                    os.replace(made_at, packed(name, version, cache))

    with ThreadPoolExecutor(max_workers=calls) as pool:
        list(pool.map(pack, groups))


def npm_pack(name: str, version: str, cache: Path) -> Path:
    """``npm pack <name>@<version>`` from the registry npm is configured for, once: versions never change."""
    target = packed(name, version, cache)
    if target.is_file():
        return target
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache, prefix=".fetch-") as scratch:
        args = ["pack", f"{name}@{version}", "--json", "--ignore-scripts", "--pack-destination", scratch]
        try:  # the image's npm runner: a timeout, and npm's error in one line
            done = run_npm(args, Path(scratch), FETCH_TIMEOUT)
        except NpmFailed as exc:
            if exc.code in UNREACHABLE:
                raise  # the registry does not answer: the image cannot be built (exit 2), no package is to blame
            raise FetchFailed(
                exc.message.replace("npm pack failed", f"npm pack {name}@{version} failed"), hint=exc.hint
            ) from None
        try:
            filename = json.loads(done.stdout)[0]["filename"]
        except (ValueError, LookupError, TypeError):
            raise SubprocessError("npm pack printed no JSON", command=["npm", *args], output=done.stdout) from None
        os.replace(Path(scratch) / Path(filename).name, target)
    return target
