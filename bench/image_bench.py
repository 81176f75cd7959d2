"""`neuralis-build image` against `npm install` of the same closure, alternating, cold caches, and a rerun.

Makes N package tarballs (50 by default; each a Neuralis package with a few files, a tool and a
credential, so every one is validated, and each depending on 3 of 10 small, popular npm packages
from the registry npm is configured for), then in each round, alternating which goes first:
  - builds a fresh image of them with the real `neuralis-build image` command (npm resolves the
    closure with --package-lock-only; the image build fetches, checks and writes the packages);
  - runs `npm install` of the same tarballs (`file:` dependencies) into an empty project, with the
    same layout and the same switches (--install-strategy=shallow --ignore-scripts --omit=peer);
each with a fresh, empty npm cache (npm_config_cache), so both fetch every packument and tarball.
Finally it reruns the image build on the unchanged SPEC. Prints the median of each and the ratio
image / npm (the aim is at most 1.0). Not a test: it never fails on a timing.

    .venv/bin/python bench/image_bench.py [--count 50] [--rounds 3] [--jobs 2]
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
from pathlib import Path

CLI = Path(sys.executable).parent / "neuralis-build"
DEPENDENCIES = {
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
}
NPM_FLAGS = ["--install-strategy=shallow", "--ignore-scripts", "--omit=peer", "--no-audit", "--no-fund"]


def tgz(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as archive:
        for path, data in files.items():
            info = tarfile.TarInfo(f"package/{path}")
            info.size, info.mode, info.mtime = len(data), 0o644, 499162500
            archive.addfile(info, io.BytesIO(data))
    return gzip.compress(buffer.getvalue(), 9, mtime=0)


def make_corpus(folder: Path, count: int) -> list[tuple[str, Path]]:
    pick = random.Random(1)
    out = []
    for i in range(count):
        name = f"bench-pkg-{i:03d}"
        deps = {d: DEPENDENCIES[d] for d in sorted(pick.sample(sorted(DEPENDENCIES), 3))}
        manifest = {
            "name": name,
            "version": "1.0.0",
            "main": "lib/index.js",
            "files": ["lib", "tools"],
            "dependencies": deps,
            "neuralis": {
                "name": f"Bench {i}",
                "description": "A package of the image benchmark.",
                "credentials": [{"id": f"bench{i}.apiKey", "label": "API key"}],
            },
        }
        requires = "".join(f"require({json.dumps(d)});\n" for d in deps)
        files = {
            "package.json": json.dumps(manifest, indent=2).encode(),
            "README.md": f"# {name}\n".encode(),
            "lib/index.js": requires.encode() + f"module.exports = {i};\n".encode() * 40,
            "lib/util.js": b"exports.util = () => 1;\n" * 80,
            "lib/data.json": json.dumps({"values": list(range(200))}).encode(),
            f"tools/bench_tool_{i:03d}.json": json.dumps({"description": "a tool"}).encode(),
        }
        path = folder / f"{name}-1.0.0.tgz"
        path.write_bytes(tgz(files))
        out.append((name, path))
    return out


def timed(command: list[str], cwd: Path | None, cache: Path) -> float:
    if cache.exists():
        shutil.rmtree(cache)
    env = dict(os.environ, npm_config_cache=str(cache))
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"{' '.join(command[:3])} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return elapsed


def run_image(spec: Path, out: Path, jobs: int, cache: Path) -> float:
    if out.exists():
        shutil.rmtree(out)
    command = [str(CLI), "image", str(spec), "--out", str(out), "--jobs", str(jobs), "--format", "json"]
    return timed(command, None, cache)


def run_npm(project: Path, corpus: list[tuple[str, Path]], cache: Path) -> float:
    if project.exists():
        shutil.rmtree(project)
    project.mkdir()
    deps = {name: f"file:{path}" for name, path in corpus}
    (project / "package.json").write_text(json.dumps({"name": "bench", "private": True, "dependencies": deps}))
    return timed(["npm", "install", *NPM_FLAGS, "--loglevel=error"], project, cache)


def count_packages(modules: Path) -> int:
    return sum(1 for _ in modules.rglob("package.json") if _.parent.parent.name in ("node_modules",))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="image-bench-") as scratch:
        root = Path(scratch)
        (root / "tgz").mkdir()
        corpus = make_corpus(root / "tgz", args.count)
        spec = root / "image.toml"
        spec.write_text("".join(f'[[packages]]\nsource = "tgz/{p.name}"\n\n' for _, p in corpus))
        image_times: list[float] = []
        npm_times: list[float] = []
        for round_ in range(args.rounds):
            steps = [
                lambda: image_times.append(run_image(spec, root / "image", args.jobs, root / "cache-image")),
                lambda: npm_times.append(run_npm(root / "project", corpus, root / "cache-npm")),
            ]
            for step in steps if round_ % 2 == 0 else reversed(steps):
                step()
        installed = len(json.loads((root / "image/neuralis-image.json").read_text())["closure"])
        npm_installed = count_packages(root / "project/node_modules")
        reruns = []
        for _ in range(args.rounds):
            start = time.perf_counter()
            subprocess.run(
                [str(CLI), "image", str(spec), "--out", str(root / "image"), "--jobs", str(args.jobs)],
                capture_output=True,
                check=True,
            )
            reruns.append(time.perf_counter() - start)
    image_median, npm_median = statistics.median(image_times), statistics.median(npm_times)
    print(f"packages:              {args.count} tarballs, {args.rounds} alternating rounds, --jobs {args.jobs}")
    print(f"installed:             image {installed} package folders, npm {npm_installed}")
    print(f"neuralis-build image:  {image_median:.2f} s (median of {', '.join(f'{t:.2f}' for t in image_times)})")
    print(f"npm install:           {npm_median:.2f} s (median of {', '.join(f'{t:.2f}' for t in npm_times)})")
    print(f"ratio image / npm:     {image_median / npm_median:.3f} (aim: at most 1.0)")
    rerun_list = ", ".join(f"{t:.2f}" for t in reruns)
    print(f"unchanged rerun:       {statistics.median(reruns):.2f} s (median of {rerun_list})")


if __name__ == "__main__":
    main()
