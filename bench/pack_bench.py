"""Time `neuralis-build pack` against `npm pack` on a package of 3,000 files; print the median ratio.

Run: .venv/bin/python bench/pack_bench.py [--rounds 7] [--files 3000]

The two commands run alternately (so load on the machine hits both alike), each writing its tarball
into its own folder; the first round of each is a warm-up and is not counted. The script also checks
that both tarballs hold the same uncompressed tar stream.
"""

from __future__ import annotations

import argparse
import gzip
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def make_package(root: Path, count: int) -> None:
    """A package with ``count`` files: sources in nested folders, docs, and cruft npm leaves out."""
    (root / "package.json").write_text(
        json.dumps(
            {
                "name": "@bench/many-files",
                "version": "1.0.0",
                "main": "lib/index.js",
                "files": ["lib", "dist", "types"],
                "neuralis": {"name": "Many files"},
            },
            indent=2,
        )
        + "\n"
    )
    (root / "README.md").write_text("# many files\n")
    (root / "LICENSE").write_text("MIT\n")
    (root / ".npmignore").write_text("*.map\n")
    exts = [".js", ".ts", ".json", ".css", ".map", ".d.ts", ".md"]
    written = 3
    i = 0
    while written < count:
        top = ("lib", "dist", "types", "test")[i % 4]
        folder = root / top / f"mod{i % 30}" / f"part{i % 7}"
        folder.mkdir(parents=True, exist_ok=True)
        body = (f"export const value{i} = {i};\n" * (1 + i % 40)).encode()
        (folder / f"file{i}{exts[i % len(exts)]}").write_bytes(body)
        written += 1
        i += 1


def neuralis_build() -> list[str]:
    exe = Path(sys.executable).parent / "neuralis-build"
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "neuralis_build"]


def timed(cmd: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--files", type=int, default=3000)
    args = parser.parse_args()
    if shutil.which("npm") is None:
        print("npm is not on PATH", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        pkg, ours_out, npm_out = base / "pkg", base / "ours", base / "npm"
        for folder in (pkg, ours_out, npm_out):
            folder.mkdir()
        make_package(pkg, args.files)
        ours_cmd = [*neuralis_build(), "pack", "--trust", "untrusted", "--out", str(ours_out)]
        npm_cmd = ["npm", "pack", "--ignore-scripts", "--pack-destination", str(npm_out)]
        ours: list[float] = []
        npm: list[float] = []
        for round_ in range(args.rounds + 1):
            a = timed(ours_cmd, pkg)
            b = timed(npm_cmd, pkg)
            if round_:
                ours.append(a)
                npm.append(b)
        name = "bench-many-files-1.0.0.tgz"
        same = gzip.decompress((ours_out / name).read_bytes()) == gzip.decompress((npm_out / name).read_bytes())
        ratios = [a / b for a, b in zip(ours, npm, strict=True)]
        print(f"package: {args.files} files; rounds: {args.rounds} (after one warm-up)")
        print(f"neuralis-build pack  median {statistics.median(ours):.3f} s  ({', '.join(f'{t:.2f}' for t in ours)})")
        print(f"npm pack             median {statistics.median(npm):.3f} s  ({', '.join(f'{t:.2f}' for t in npm)})")
        print(f"same uncompressed tar stream: {'yes' if same else 'NO'}")
        print(f"median ratio (neuralis-build / npm): {statistics.median(ratios):.2f}  (aim: at most 0.30)")
        return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
