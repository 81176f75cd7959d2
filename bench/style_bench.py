"""Bench: what the stylesheet pipelines cost, and that a package without stylesheet tools pays nothing for them.

Run: .venv/bin/python bench/style_bench.py [--modules 300] [--rounds 9] [--before REF] [--no-vite]

1. A package with plain CSS (``--modules`` TSX components, one .css, one .module.css), built by ``ui`` with
   this tree's code and with ``--before``'s (default: main), alternating: the CLI path before and after.
2. The same build through the style host (esbuild's JS API in Node, no stylesheet tool called) against the
   CLI, in one process (``run_build`` on the same flags): what the host itself costs a build.
3. Each real-world fixture (Tailwind v4, Tailwind v3 with autoprefixer, Sass, Less), built by ``ui``, against
   Vite's library build of the same entry with the same tools (bench/peer's pinned Vite), alternating.
Prints medians of the wall time (and minimums) and of the CPU time the side's processes used (user + system,
of every process it waited for): on a shared machine the CPU time moves far less with the load than the
wall time does. Compare sides of one run, not runs.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.ui_bench import VITE_CONFIG, generate, vite_command

REPO = Path(__file__).resolve().parent.parent
REALWORLD = REPO / "tests" / "ui" / "realworld"


CPU: dict[str, list[float]] = {}
"""The CPU time of each side's runs, beside the wall times ``alternate`` returns."""


def children_cpu() -> float:
    import resource

    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def timed(cmd: list[str], cwd: Path, env: dict[str, str] | None = None, name: str | None = None) -> float:
    cpu = children_cpu()
    started = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, check=True, stdout=subprocess.DEVNULL, env=env)
    wall = time.perf_counter() - started
    if name is not None:
        CPU.setdefault(name, []).append(children_cpu() - cpu)
    return wall


def report(title: str, times: dict[str, list[float]]) -> dict[str, float]:
    print(title)
    med = {name: statistics.median(t) for name, t in times.items()}
    for name, t in times.items():
        cpu = f", cpu median {statistics.median(CPU[name]) * 1000:7.1f} ms" if CPU.get(name) else ""
        print(f"  {name:<34} median {med[name] * 1000:8.1f} ms  (min {min(t) * 1000:.1f}){cpu}")
    return med


Side = tuple[str, list[str], Path, "dict[str, str] | None"]
"""A side of a comparison: its name, command, folder and environment."""


def alternate(sides: list[Side], rounds: int) -> dict[str, list[float]]:
    for _, cmd, cwd, env in sides:
        timed(cmd, cwd, env)  # warm the file cache, npm's install of the host, every binary
    times: dict[str, list[float]] = {name: [] for name, *_ in sides}
    for _ in range(rounds):
        for name, cmd, cwd, env in sides:
            times[name].append(timed(cmd, cwd, env, name))
    return times


def plain_package(modules: int, rounds: int, before: str) -> None:
    root = Path(tempfile.mkdtemp(prefix="neuralis-style-bench-"))
    old = Path(tempfile.mkdtemp(prefix="neuralis-style-before-"))
    try:
        generate(root, modules)
        app = root / "src" / "app"
        (app / "plain.css").write_text(".bench { color: rgb(1, 2, 3); }\n")
        (app / "card.module.css").write_text(".card { border: 1px solid red; }\n")
        host = app / "host.tsx"
        host.write_text('import "./plain.css";\nimport card from "./card.module.css";\n' + host.read_text())
        host.write_text(host.read_text() + "export const cardClass = card.card;\n")
        import json

        manifest = json.loads((root / "package.json").read_text())
        manifest["neuralis"]["app"]["module"]["css"] = "dist/app/host.css"
        (root / "package.json").write_text(json.dumps(manifest, indent=2))
        git = ["git", "archive", before, "neuralis_build"]
        archive = subprocess.run(git, cwd=REPO, check=True, capture_output=True)
        subprocess.run(["tar", "-x", "-C", str(old)], input=archive.stdout, check=True)
        cmd = [sys.executable, "-m", "neuralis_build", "ui", "."]
        sides: list[Side] = [
            (f"ui, {before}", cmd, root, {**os.environ, "PYTHONPATH": str(old)}),
            ("ui, this tree", cmd, root, {**os.environ, "PYTHONPATH": str(REPO)}),
        ]
        med = report(f"1. plain CSS, {modules} modules: the CLI path before and after", alternate(sides, rounds))
        a, b = med[f"ui, {before}"], med["ui, this tree"]
        print(f"  difference: {(b - a) * 1000:+.1f} ms ({b / a:.3f}x)")
        host_overhead(root, rounds)
    finally:
        shutil.rmtree(root, ignore_errors=True)
        shutil.rmtree(old, ignore_errors=True)


def host_overhead(root: Path, rounds: int) -> None:
    """The same esbuild build through the CLI and through the style host (JS API, no tool to run)."""
    from neuralis_build.esbuild.runner import find_esbuild
    from neuralis_build.hostprofile import default_host_profile
    from neuralis_build.npm.nodemodules import package_name_of
    from neuralis_build.ui.build import esbuild_args
    from neuralis_build.ui.driver import run_build, write_tsconfig
    from neuralis_build.ui.stylehost import StyleHost, ensure_installed

    if TYPE_CHECKING:
        from neuralis_build.esbuild.runner import EsbuildRunner

    ensure_installed()
    binary = find_esbuild()
    work = root / "host-bench"
    work.mkdir()
    tsconfig = write_tsconfig(root, work, "src/app/host.tsx")
    externals = sorted({package_name_of(m) for m in default_host_profile().shared_modules})
    args = esbuild_args("src/app/host.tsx", "host-bench/out", tsconfig, externals, minify=False, sourcemap=False)
    runners: dict[str, EsbuildRunner] = {
        "esbuild CLI": binary,
        "esbuild JS API (style host)": StyleHost(binary, None, "production"),
    }
    times: dict[str, list[float]] = {name: [] for name in runners}
    for _ in range(rounds + 1):
        for name, runner in runners.items():
            started = time.perf_counter()
            run_build(runner, root, args, work / "meta.json", "bench")
            times[name].append(time.perf_counter() - started)
    # wall time only: Node does not wait for esbuild's service at exit, so its CPU time is not counted
    times = {name: t[1:] for name, t in times.items()}  # the first round warms up
    med = report("2. one build, in-process: the CLI against the style host, no stylesheet tool", times)
    print(f"  style host overhead: {(med['esbuild JS API (style host)'] - med['esbuild CLI']) * 1000:+.1f} ms")


FIXTURES = {"tailwind4": REALWORLD, "tailwind3": REALWORLD / "tailwind3", "sass": REALWORLD, "less": REALWORLD}


def pipelines(rounds: int, with_vite: bool) -> None:
    base = Path(tempfile.mkdtemp(prefix="neuralis-style-pipelines-"))
    try:
        cli = str(Path(sys.executable).parent / "neuralis-build")
        for name, project in FIXTURES.items():
            root = base / name
            shutil.copytree(REALWORLD / name, root, ignore=shutil.ignore_patterns("dist", "node_modules"))
            os.symlink(project / "node_modules", root / "node_modules")
            sides: list[Side] = [("neuralis-build ui", [cli, "ui", "."], root, None)]
            vite = vite_command(root) if with_vite else None
            if vite is not None:
                (root / "vite.config.mjs").write_text(VITE_CONFIG)
                sides.append(("vite build (lib)", vite, root, None))
            med = report(f"3. {name}", alternate(sides, rounds))
            if "vite build (lib)" in med:
                print(f"  ui / vite build (lib): {med['neuralis-build ui'] / med['vite build (lib)']:.2f}")
    finally:
        shutil.rmtree(base, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--modules", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--before", default="main", help="the git ref whose build is the baseline of 1.")
    parser.add_argument("--no-vite", action="store_true")
    args = parser.parse_args()
    plain_package(args.modules, args.rounds, args.before)
    pipelines(args.rounds, not args.no_vite)
    return 0


if __name__ == "__main__":
    sys.exit(main())
