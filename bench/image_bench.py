"""`neuralis-build image` against npm on the same packages: time and disk, cold caches, and `--frozen` against `npm ci`.

Two sets, each measured the same way:
  - ``real``: 28 real registry packages (express, axios, pg, mongodb, @aws-sdk/client-s3, sharp, bcrypt,
    puppeteer-core, @nestjs/core, socket.io, knex, winston, …) listed as ``npm:`` sources, fetched from
    the registry npm is configured for; npm installs the same 28 names at the same versions;
  - ``synthetic``: N package tarballs (1,500 by default), each a Neuralis package with a few files, a
    tool and a credential (so every one is validated), each depending on 3 packages drawn from a pool of
    43 popular npm packages; npm installs the same tarballs as ``file:`` dependencies.
In each round, alternating which goes first, with a fresh, empty npm cache (``npm_config_cache``) and
a fresh image folder, so both fetch every packument and tarball:
  - ``image``: builds a fresh image with the real ``neuralis-build image`` command;
  - ``npm install``: the same packages into an empty project (npm's default layout, ``--ignore-scripts``
    as the image never runs them);
  - ``--frozen``: the image again from its own locks, its ``node_modules`` and caches removed;
  - ``npm ci``: of the very lock the image wrote (its ``package.json``, ``package-lock.json`` and the
    listed tarballs it names), into an empty project.
Disk is the space the installed ``node_modules`` takes, each hard-linked file counted once (as ``du``
does); the caches are printed beside it (the image's ``.neuralis-cache``, npm's cache folder).
Prints the medians and the ratios image / npm; the aims are at most 1.0 for the times and at most
1.5 for the disk. Not a test: it never fails on a timing.

``--set sandbox`` measures what the sandbox costs instead: one load of node in bubblewrap against the
same node without it (``node -e 0``, 20 times each), and a build of the synthetic set in which every
50th package has an install script (so it is loaded), built with the sandbox and with none
(``NEURALIS_BWRAP=""``, which loads nothing), alternating, with npm's cache warm and a fresh image
folder each time: the difference is what the loads cost the build.

``--set whatif`` builds the synthetic set once, every 10th package a first-party UI module with a peer on
react, and times ``image what-if`` on it (the command, from its start) against the image's own profile and
against one that changes the host API, the React major, the Node version and a shared module.

    .venv/bin/python bench/image_bench.py [--set real|synthetic|all|sandbox|whatif] [--count 1500] [--rounds 1]
        [--jobs 2]
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

CLI = Path(sys.executable).parent / "neuralis-build"
# The real set: popular server-side packages, pinned (a bench compares like with like across changes).
REAL = {
    "express": "5.3.0",
    "axios": "1.21.1",
    "pg": "8.23.1",
    "mongodb": "7.9.1",
    "@aws-sdk/client-s3": "3.1175.0",
    "sharp": "0.35.5",
    "bcrypt": "6.0.0",
    "puppeteer-core": "25.16.0",
    "@nestjs/core": "12.5.1",
    "socket.io": "4.8.4",
    "knex": "3.3.0",
    "winston": "3.19.0",
    "lodash": "4.18.1",
    "dayjs": "1.11.23",
    "uuid": "14.0.3",
    "zod": "4.6.7",
    "jsonwebtoken": "9.0.3",
    "dotenv": "18.0.10",
    "ioredis": "6.0.0",
    "mysql2": "3.24.6",
    "nodemailer": "10.6.1",
    "pino": "10.4.0",
    "fastify": "5.12.8",
    "ws": "8.23.0",
    "cheerio": "1.2.0",
    "yaml": "2.9.1",
    "commander": "15.1.0",
    "better-sqlite3": "13.2.0",
}
# The synthetic set's pool: 43 popular dependencies, by range (each package takes 3 of them).
POOL = {
    "ms": "^2.1.0",
    "debug": "^4.3.0",
    "once": "^1.4.0",
    "semver": "^7.5.0",
    "picocolors": "^1.0.0",
    "escape-string-regexp": "^4.0.0",
    "is-number": "^7.0.0",
    "lru-cache": "^10.0.0",
    "inherits": "^2.0.4",
    "balanced-match": "^1.0.2",
    "express": "^4.18.0",
    "chalk": "^4.1.0",
    "commander": "^11.0.0",
    "lodash": "^4.17.0",
    "uuid": "^9.0.0",
    "axios": "^1.6.0",
    "dayjs": "^1.11.0",
    "yargs": "^17.0.0",
    "glob": "^10.0.0",
    "minimatch": "^9.0.0",
    "rimraf": "^5.0.0",
    "mkdirp": "^3.0.0",
    "fs-extra": "^11.0.0",
    "dotenv": "^16.0.0",
    "ws": "^8.0.0",
    "jsonwebtoken": "^9.0.0",
    "body-parser": "^1.20.0",
    "cookie": "^0.6.0",
    "qs": "^6.11.0",
    "mime": "^3.0.0",
    "mime-types": "^2.1.0",
    "async": "^3.2.0",
    "bluebird": "^3.7.0",
    "underscore": "^1.13.0",
    "classnames": "^2.3.0",
    "tslib": "^2.6.0",
    "rxjs": "^7.8.0",
    "date-fns": "^3.0.0",
    "validator": "^13.0.0",
    "ajv": "^8.12.0",
    "js-yaml": "^4.1.0",
    "node-fetch": "^2.7.0",
    "cross-spawn": "^7.0.0",
}
NPM_FLAGS = ["--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"]


def tgz(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as archive:
        for path, data in files.items():
            info = tarfile.TarInfo(f"package/{path}")
            info.size, info.mode, info.mtime = len(data), 0o644, 499162500
            archive.addfile(info, io.BytesIO(data))
    return gzip.compress(buffer.getvalue(), 9, mtime=0)


MODULE = b'import{jsx as j}from"react/jsx-runtime";function i(){}export{i as installBenchHostComponents};\n'
RECORD = {"hostApiVersion": "1", "reactMajor": 19, "sharedImports": ["@neuralis/client", "react/jsx-runtime"]}


def synthetic(folder: Path, count: int, scripts_every: int = 0, modules_every: int = 0) -> tuple[str, dict[str, str]]:
    """N package tarballs in ``folder``: the SPEC's text and npm's dependencies for the same packages (every
    ``scripts_every``-th one with an install script, which the image loads it for; every ``modules_every``-th
    one a first-party package with a built UI module and a peer on react)."""
    pick = random.Random(1)
    spec, deps = [], {}
    for i in range(count):
        name = f"bench-pkg-{i:04d}"
        uses = {d: POOL[d] for d in sorted(pick.sample(sorted(POOL), 3))}
        ui = bool(modules_every and i % modules_every == 0)
        manifest: dict[str, object] = {
            "name": name,
            "version": "1.0.0",
            "main": "lib/index.js",
            "files": ["lib", "tools", *(["dist"] if ui else [])],
            "dependencies": uses,
            **({"peerDependencies": {"react": "^19.0.0"}} if ui else {}),
            **({"scripts": {"postinstall": "node setup.js"}} if scripts_every and i % scripts_every == 0 else {}),
            "neuralis": {
                "name": f"Bench {i}",
                "description": "A package of the image benchmark.",
                "credentials": [{"id": f"bench{i}.apiKey", "label": "API key"}],
                **({"app": {"module": {"entry": "dist/app/host.js"}}} if ui else {}),
            },
        }
        requires = "".join(f"require({json.dumps(d)});\n" for d in uses)
        files = {
            "package.json": json.dumps(manifest, indent=2).encode(),
            "README.md": f"# {name}\n".encode(),
            "lib/index.js": requires.encode() + f"module.exports = {i};\n".encode() * 40,
            "lib/util.js": b"exports.util = () => 1;\n" * 80,
            "lib/data.json": json.dumps({"values": list(range(200))}).encode(),
            f"tools/bench_tool_{i:04d}.json": json.dumps({"description": "a tool"}).encode(),
        }
        if ui:
            files["dist/app/host.js"] = MODULE
            files["dist/app/shared-imports.json"] = json.dumps(RECORD).encode()
        path = folder / f"{name}-1.0.0.tgz"
        path.write_bytes(tgz(files))
        spec.append(f'[[packages]]\nsource = "tgz/{path.name}"\nclass = "{"host-dependency" if ui else "installed"}"\n')
        deps[name] = f"file:{path}"
    return "\n".join(spec), deps


def real() -> tuple[str, dict[str, str]]:
    spec = [f'[[packages]]\nsource = "npm:{n}@{v}"\nclass = "installed"\n' for n, v in REAL.items()]
    return "\n".join(spec), dict(REAL)


def run(command: list[str], cwd: Path | None, env: dict[str, str], ok: tuple[int, ...] = (0,)) -> float:
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode not in ok:
        sys.exit(f"{' '.join(command[:4])} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return elapsed


def fresh(*folders: Path) -> None:
    for folder in folders:
        if folder.exists():
            shutil.rmtree(folder)


def disk(root: Path) -> int:
    """Bytes allocated under ``root``, each inode once (hard links are not counted twice, as du does)."""
    seen: set[tuple[int, int]] = set()
    total = 0
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            st = os.lstat(os.path.join(folder, name))
            if (st.st_dev, st.st_ino) not in seen:
                seen.add((st.st_dev, st.st_ino))
                total += st.st_blocks * 512
    return total


def folders(modules: Path) -> int:
    """Installed package folders: each package.json directly in a node_modules/<name> or node_modules/@s/<name>."""
    count = 0
    for manifest in modules.rglob("package.json"):
        parent = manifest.parent
        if parent.parent.name == "node_modules" or (
            parent.parent.name.startswith("@") and parent.parent.parent.name == "node_modules"
        ):
            count += 1
    return count


@dataclass
class Results:
    times: dict[str, list[float]] = field(default_factory=dict)
    sizes: dict[str, int] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)
    refused: int = 0

    def add(self, key: str, seconds: float) -> None:
        self.times.setdefault(key, []).append(seconds)
        print(f"  ({key}: {seconds:.2f} s)", file=sys.stderr, flush=True)

    def median(self, key: str) -> float:
        return statistics.median(self.times[key])


def measure(name: str, spec_text: str, deps: dict[str, str], root: Path, rounds: int, jobs: int) -> Results:
    spec = root / f"{name}.toml"
    spec.write_text(spec_text)
    image, project, ci = root / f"{name}-image", root / f"{name}-npm", root / f"{name}-ci"
    cache = root / "npm-cache"
    env = dict(os.environ, npm_config_cache=str(cache))
    build = [str(CLI), "image", str(spec), "--out", str(image), "--jobs", str(jobs), "--format", "json"]
    results = Results()

    def image_cold() -> None:
        fresh(image, cache)
        results.add("image", run(build, None, env, ok=(0, 1)))  # 1: some package refused, the image is built
        results.sizes["image"] = disk(image / "node_modules")
        results.sizes["image cache"] = disk(image / ".neuralis-cache")
        results.counts["image"] = folders(image / "node_modules")

    def npm_install() -> None:
        fresh(project, cache)
        project.mkdir()
        manifest = {"name": "bench", "version": "1.0.0", "private": True, "dependencies": deps}
        (project / "package.json").write_text(json.dumps(manifest, indent=2))
        results.add("npm install", run(["npm", "install", *NPM_FLAGS], project, env))
        results.sizes["npm install"] = disk(project / "node_modules")
        results.sizes["npm cache"] = disk(cache)
        results.counts["npm install"] = folders(project / "node_modules")

    for round_ in range(rounds):
        steps: list[Callable[[], None]] = [image_cold, npm_install]
        for step in steps if round_ % 2 == 0 else reversed(steps):
            step()
    report = json.loads((image / "neuralis-image.json").read_text())
    results.refused = sum(1 for p in report["packages"] if p["status"] == "refused")
    # --frozen and npm ci, both from the lock the image wrote, both cold; --frozen wants every source pinned
    import tomllib

    locked = tomllib.loads((image / "neuralis-image.lock").read_text())["package"]
    pins = {p["source"]: p["integrity"] for p in locked if "integrity" in p}
    pinned = root / f"{name}-pinned.toml"
    pinned.write_text(
        "\n".join(
            f'[[packages]]\nsource = "{p["source"]}"\nclass = "installed"\nintegrity = "{pins[p["source"]]}"\n'
            for p in locked
        )
    )
    frozen_out = root / f"{name}-frozen"

    def frozen() -> None:
        fresh(frozen_out, cache)
        frozen_out.mkdir()
        for entry in ("package.json", "package-lock.json", "neuralis-image.lock"):
            shutil.copyfile(image / entry, frozen_out / entry)
        shutil.copytree(image / ".neuralis-tarballs", frozen_out / ".neuralis-tarballs")
        if (image / ".neuralis-resolution").is_dir():  # npm's whole resolution, which --frozen builds from
            shutil.copytree(image / ".neuralis-resolution", frozen_out / ".neuralis-resolution")
        command = [str(CLI), "image", str(pinned), "--out", str(frozen_out), *build[5:], "--frozen"]
        results.add("--frozen", run(command, None, env, ok=(0, 1)))

    def npm_ci() -> None:
        fresh(ci, cache)
        ci.mkdir()
        for entry in ("package.json", "package-lock.json"):
            shutil.copyfile(image / entry, ci / entry)
        shutil.copytree(image / ".neuralis-tarballs", ci / ".neuralis-tarballs")
        results.add("npm ci", run(["npm", "ci", *NPM_FLAGS], ci, env))
        results.sizes["npm ci"] = disk(ci / "node_modules")
        results.counts["npm ci"] = folders(ci / "node_modules")

    for round_ in range(rounds):
        steps = [frozen, npm_ci]
        for step in steps if round_ % 2 == 0 else reversed(steps):
            step()
    # an unchanged rerun keeps the tree
    start = time.perf_counter()
    run(build, None, env, ok=(0, 1))
    results.add("rerun", time.perf_counter() - start)
    fresh(image, project, ci, frozen_out, cache)
    return results


def show(name: str, packages: int, r: Results) -> None:
    mb = 1024 * 1024

    def times(key: str) -> str:
        return f"{r.median(key):7.2f} s (median of {', '.join(f'{t:.2f}' for t in r.times[key])})"

    print(f"== {name}: {packages} listed packages ({r.refused} refused by the image)")
    print(
        f"  installed folders:   image {r.counts['image']}, npm install {r.counts['npm install']}, "
        f"npm ci {r.counts['npm ci']}"
    )
    print(f"  image:               {times('image')}")
    print(f"  npm install:         {times('npm install')}")
    print(f"  ratio image/npm:     {r.median('image') / r.median('npm install'):.2f} (aim: at most 1.0)")
    print(f"  image --frozen:      {times('--frozen')}")
    print(f"  npm ci (same lock):  {times('npm ci')}")
    print(f"  ratio frozen/ci:     {r.median('--frozen') / r.median('npm ci'):.2f} (aim: at most 1.0)")
    print(f"  unchanged rerun:     {times('rerun')}")
    image_mb, npm_mb = r.sizes["image"] / mb, r.sizes["npm install"] / mb
    print(
        f"  disk node_modules:   image {image_mb:.1f} MB, npm install {npm_mb:.1f} MB, "
        f"npm ci {r.sizes['npm ci'] / mb:.1f} MB"
    )
    print(f"  ratio disk image/npm: {image_mb / npm_mb:.2f} (aim: at most 1.5)")
    print(f"  caches:              image {r.sizes['image cache'] / mb:.1f} MB, npm {r.sizes['npm cache'] / mb:.1f} MB")


def sandbox_cost(root: Path, count: int, rounds: int, jobs: int) -> None:
    """What the sandbox costs one load, and a build of ``count`` packages of which every 50th is loaded."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from neuralis_build.util.sandbox import NoSandbox, find_sandbox

    node = shutil.which("node") or "node"
    box = find_sandbox(node)
    if isinstance(box, NoSandbox):
        sys.exit(f"no sandbox here: {box.reason}")
    plain, boxed = [], []
    clean = {"PATH": os.environ.get("PATH", ""), "HOME": str(root), "LANG": "C.UTF-8"}  # as a load had it before
    for _ in range(20):
        start = time.perf_counter()
        subprocess.run([node, "-e", "0"], check=True, env=clean)
        plain.append(time.perf_counter() - start)
        start = time.perf_counter()
        assert box.run(["-e", "0"], timeout=60).returncode == 0
        boxed.append(time.perf_counter() - start)
    p, b = statistics.median(plain) * 1000, statistics.median(boxed) * 1000
    print(f"== one load: node -e 0 {p:.1f} ms, in the sandbox {b:.1f} ms: the sandbox adds {b - p:.1f} ms")
    (root / "tgz").mkdir()
    text, _ = synthetic(root / "tgz", count, scripts_every=50)
    spec = root / "sandbox.toml"
    spec.write_text(text)
    image = root / "sandbox-image"
    env = dict(os.environ, npm_config_cache=str(root / "npm-cache"))
    build = [str(CLI), "image", str(spec), "--out", str(image), "--jobs", str(jobs), "--format", "json"]
    run(build, None, env, ok=(0, 1))  # npm's cache warm for both
    results = Results()
    for round_ in range(rounds):
        ways = [("sandbox", env), ("no sandbox", dict(env, NEURALIS_BWRAP=""))]
        for way, environment in ways if round_ % 2 == 0 else reversed(ways):
            fresh(image)
            results.add(way, run(build, None, environment, ok=(0, 1)))
    loaded = sum(1 for s in json.loads((image / "neuralis-image.json").read_text())["scripts"] if s["load"])
    with_, without = results.median("sandbox"), results.median("no sandbox")
    print(f"== a build of {count} packages, {loaded} of them loaded (the last round's report)")
    print(
        f"  with the sandbox:    {with_:7.2f} s (median of {', '.join(f'{t:.2f}' for t in results.times['sandbox'])})"
    )
    print(f"  loading nothing:     {without:7.2f} s")
    each = (with_ - without) / max(loaded, 1) * 1000
    print(f"  the loads cost:      {with_ - without:7.2f} s ({each:.0f} ms a loaded package)")
    fresh(image)


def what_if_cost(root: Path, count: int, rounds: int, jobs: int) -> None:
    """``image what-if`` on a synthetic image of ``count`` packages (every 10th a first-party UI module with a peer on
    react): the command as a person runs it, against the image's own profile and against a new one that changes
    everything it judges (host API, React, Node, a shared module gone)."""
    (root / "tgz").mkdir()
    text, _ = synthetic(root / "tgz", count, modules_every=10)
    spec = root / "whatif.toml"
    spec.write_text(text)
    image = root / "whatif-image"
    env = dict(os.environ, npm_config_cache=str(root / "npm-cache"))
    build = [str(CLI), "image", str(spec), "--out", str(image), "--jobs", str(jobs), "--format", "json"]
    print(f"  (building the image: {run(build, None, env, ok=(0, 1)):.1f} s)", file=sys.stderr, flush=True)
    current = json.loads((image / "neuralis-image.json").read_text())["host"]
    shared = [m for m in current["sharedModules"] if m != "@neuralis/client"]
    profiles = {
        "the same profile": current,
        "a new profile": {
            **current,
            "hostApiVersion": "2",
            "reactMajor": 20,
            "nodeVersion": "14.0.0",
            "sharedModules": shared,
        },
    }
    results = Results()
    for label, profile in profiles.items():
        path = root / f"{label.replace(' ', '-')}.json"
        path.write_text(json.dumps(profile))
        command = [str(CLI), "image", "what-if", str(image), "--host", str(path), "--format", "json"]
        for _ in range(rounds):
            results.add(label, run(command, None, env, ok=(0, 1)))
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        found = json.loads(done.stdout)
        kinds: dict[str, int] = {}
        for refusal in found["refused"]:
            kinds[refusal["kind"]] = kinds.get(refusal["kind"], 0) + 1
        judged = found["judged"]
        print(
            f"== what-if, {label}: {results.median(label):.2f} s (median of "
            f"{', '.join(f'{t:.2f}' for t in results.times[label])}); {judged['packages']} installed packages and "
            f"{judged['modules']} UI modules judged; refused: {kinds or 'nothing'} (exit {done.returncode})"
        )
    fresh(image)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", choices=("real", "synthetic", "all", "sandbox", "whatif"), default="all")
    parser.add_argument("--count", type=int, default=1500, help="packages of the synthetic set")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    print(
        f"neuralis-build image against npm {subprocess.check_output(['npm', '--version'], text=True).strip()}, "
        f"{args.rounds} alternating round(s), --jobs {args.jobs}, cold caches"
    )
    with tempfile.TemporaryDirectory(prefix="image-bench-") as scratch:
        root = Path(scratch)
        if args.set == "sandbox":
            sandbox_cost(root, args.count, args.rounds, args.jobs)
            return
        if args.set == "whatif":
            what_if_cost(root, args.count, args.rounds, args.jobs)
            return
        if args.set in ("real", "all"):
            text, deps = real()
            show("real", len(REAL), measure("real", text, deps, root, args.rounds, args.jobs))
        if args.set in ("synthetic", "all"):
            (root / "tgz").mkdir()
            text, deps = synthetic(root / "tgz", args.count)
            show("synthetic", args.count, measure("synthetic", text, deps, root, args.rounds, args.jobs))


if __name__ == "__main__":
    main()
