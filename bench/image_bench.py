"""`neuralis-build image` against `npm install` on the same 200 tarballs, alternating, and an unchanged rerun.

Makes N package tarballs (200 by default; each a Neuralis package with a few files, a tool and a
credential, so every one is validated) in a scratch folder, then in each round, alternating which
goes first:
  - builds a fresh image of them with the real `neuralis-build image` command;
  - runs `npm install` of the same tarballs (`file:` dependencies) into an empty project;
and finally reruns the image build on the unchanged SPEC (the content-hash cache). Prints the
median of each, the ratio image / npm (the aim is at most 0.25) and the rerun time (aim: under a
second). Not a test: it never fails on a timing.

    .venv/bin/python bench/image_bench.py [--count 200] [--rounds 3] [--jobs 2]
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CLI = Path(sys.executable).parent / "neuralis-build"


def tgz(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as archive:
        for path, data in files.items():
            info = tarfile.TarInfo(f"package/{path}")
            info.size, info.mode, info.mtime = len(data), 0o644, 499162500
            archive.addfile(info, io.BytesIO(data))
    return gzip.compress(buffer.getvalue(), 9, mtime=0)


def make_corpus(folder: Path, count: int) -> list[tuple[str, Path]]:
    out = []
    for i in range(count):
        name = f"bench-pkg-{i:03d}"
        manifest = {
            "name": name,
            "version": "1.0.0",
            "main": "lib/index.js",
            "files": ["lib", "tools"],
            "neuralis": {
                "name": f"Bench {i}",
                "description": "A package of the image benchmark.",
                "credentials": [{"id": f"bench{i}.apiKey", "label": "API key"}],
            },
        }
        files = {
            "package.json": json.dumps(manifest, indent=2).encode(),
            "README.md": f"# {name}\n".encode(),
            "lib/index.js": f"module.exports = {i};\n".encode() * 40,
            "lib/util.js": b"exports.util = () => 1;\n" * 80,
            "lib/data.json": json.dumps({"values": list(range(200))}).encode(),
            f"tools/bench_tool_{i:03d}.json": json.dumps({"description": "a tool"}).encode(),
        }
        path = folder / f"{name}-1.0.0.tgz"
        path.write_bytes(tgz(files))
        out.append((name, path))
    return out


def run_image(spec: Path, out: Path, jobs: int) -> float:
    start = time.perf_counter()
    done = subprocess.run(
        [str(CLI), "image", str(spec), "--out", str(out), "--jobs", str(jobs), "--format", "json"],
        capture_output=True,
        text=True,
        check=False,
    )
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"image build failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return elapsed


def run_npm(project: Path, corpus: list[tuple[str, Path]], cache: Path) -> float:
    if project.exists():
        shutil.rmtree(project)
    project.mkdir()
    deps = {name: f"file:{path}" for name, path in corpus}
    (project / "package.json").write_text(json.dumps({"name": "bench", "private": True, "dependencies": deps}))
    start = time.perf_counter()
    done = subprocess.run(
        ["npm", "install", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error", "--cache", str(cache)],
        cwd=project,
        capture_output=True,
        text=True,
        check=False,
    )
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"npm install failed:\n{done.stderr[-3000:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=200)
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
            out = root / f"image{round_}"
            steps = [
                lambda out=out: image_times.append(run_image(spec, out, args.jobs)),
                lambda: npm_times.append(run_npm(root / "project", corpus, root / "npm-cache")),
            ]
            for step in steps if round_ % 2 == 0 else reversed(steps):
                step()
        reruns = [run_image(spec, root / "image0", args.jobs) for _ in range(args.rounds)]
    image_median, npm_median = statistics.median(image_times), statistics.median(npm_times)
    print(f"packages:              {args.count} tarballs, {args.rounds} alternating rounds, --jobs {args.jobs}")
    print(f"neuralis-build image:  {image_median:.2f} s (median of {', '.join(f'{t:.2f}' for t in image_times)})")
    print(f"npm install:           {npm_median:.2f} s (median of {', '.join(f'{t:.2f}' for t in npm_times)})")
    print(f"ratio image / npm:     {image_median / npm_median:.3f} (aim: at most 0.25)")
    rerun_list = ", ".join(f"{t:.2f}" for t in reruns)
    print(f"unchanged rerun:       {statistics.median(reruns):.2f} s (median of {rerun_list})")


if __name__ == "__main__":
    main()
