"""Bench: `neuralis-build ui` against esbuild alone on the same generated package, alternating.

Run: .venv/bin/python bench/ui_bench.py [--small 3] [--large 900] [--rounds 15] [--no-vite] [--parts]

esbuild alone and neuralis-build do the same bundling job (same entry, flags, externals, tsconfig
and metafile); the difference is what neuralis-build adds: start-up, reading the package, resolving
node_modules, judging the metafile, writing the record and swapping dist/app/ in. Vite's library
mode (bench/peer, pinned, externals set the same way) is what an author would otherwise pick.
neuralis-build runs two ways: cold (NEURALIS_BUILD_SERVER=0: a fresh interpreter imports everything,
as in CI) and served (the warm build server, neuralis_build/warm, which `ui` uses from a terminal: the
console script hands the build to a worker whose imports are done). Prints medians, the fixed overhead
of each over esbuild alone and the ratios, for a small and a large package. ``--parts`` also times where
the fixed overhead goes: a bare interpreter, the same ended with ``os._exit`` as ``ui`` ends (the floor
of any command written in Python), pip's console_scripts wrapper's ``import re`` (what launcher/neuralis-build
saves), the standard library the cold build cannot do without (re, json, pathlib, subprocess), and every
import of the ui fast path.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

COMPONENT = """\
import {{ useCallback, useEffect, useMemo, useReducer, useState, type ReactNode }} from "react";
{imports}
export interface Row{i} {{
  id: string;
  label: string;
  values: number[];
  tags?: string[];
}}

export interface Props{i} {{
  label: string;
  values: number[];
  rows?: Row{i}[];
  footer?: ReactNode;
}}

type Mode{i} = "compact" | "full" | "table";
type Action{i} = {{ type: "select"; id: string }} | {{ type: "clear" }} | {{ type: "toggle"; tag: string }};

interface State{i} {{
  selected: string | null;
  tags: Set<string>;
}}

function reduce{i}(state: State{i}, action: Action{i}): State{i} {{
  switch (action.type) {{
    case "select":
      return {{ ...state, selected: action.id }};
    case "clear":
      return {{ selected: null, tags: new Set() }};
    case "toggle": {{
      const tags = new Set(state.tags);
      if (tags.has(action.tag)) tags.delete(action.tag);
      else tags.add(action.tag);
      return {{ ...state, tags }};
    }}
  }}
}}

export function summarize{i}(values: number[]): {{ total: number; mean: number; max: number; min: number }} {{
  if (values.length === 0) return {{ total: 0, mean: 0, max: 0, min: 0 }};
  let total = 0;
  let max = -Infinity;
  let min = Infinity;
  for (const v of values) {{
    total += v;
    if (v > max) max = v;
    if (v < min) min = v;
  }}
  return {{ total, mean: total / values.length, max, min }};
}}

function useTicker{i}(enabled: boolean, every: number): number {{
  const [tick, setTick] = useState(0);
  useEffect(() => {{
    if (!enabled) return undefined;
    const id = setInterval(() => setTick((t) => t + 1), every);
    return () => clearInterval(id);
  }}, [enabled, every]);
  return tick;
}}

function RowView{i}({{ row, active, onSelect }}: {{ row: Row{i}; active: boolean; onSelect: (id: string) => void }}) {{
  const stats = useMemo(() => summarize{i}(row.values), [row.values]);
  return (
    <tr className={{active ? "row active" : "row"}} onClick={{() => onSelect(row.id)}}>
      <td>{{row.label}}</td>
      <td>{{stats.total.toFixed(1)}}</td>
      <td>{{stats.mean.toFixed(2)}}</td>
      <td>{{(row.tags ?? []).join(", ")}}</td>
    </tr>
  );
}}

export function Widget{i}({{ label, values, rows = [], footer }}: Props{i}) {{
  const [mode, setMode] = useState<Mode{i}>("compact");
  const [state, dispatch] = useReducer(reduce{i}, {{ selected: null, tags: new Set<string>() }});
  const tick = useTicker{i}(mode === "full", 1000 + {i});
  const stats = useMemo(() => summarize{i}(values), [values]);
  const select = useCallback((id: string) => dispatch({{ type: "select", id }}), []);
  const visible = rows.filter((r) => state.tags.size === 0 || (r.tags ?? []).some((t) => state.tags.has(t)));
  return (
    <div className="w{i}" data-mode={{mode}} data-tick={{tick}}>
      <header onClick={{() => setMode(mode === "full" ? "table" : mode === "table" ? "compact" : "full")}}>
        <span>{{label}}</span>
        <b>{{stats.total.toFixed(2)}}</b>
        <small>
          {{stats.min}}-{{stats.max}}
        </small>
      </header>
      {{mode === "table" ? (
        <table>
          <tbody>
            {{visible.map((row) => (
              <RowView{i} key={{row.id}} row={{row}} active={{row.id === state.selected}} onSelect={{select}} />
            ))}}
          </tbody>
        </table>
      ) : null}}
      {children}
      {{footer ?? <button onClick={{() => dispatch({{ type: "clear" }})}}>clear</button>}}
    </div>
  );
}}
"""


def generate(root: Path, modules: int) -> None:
    """A first-party package whose entry reaches ``modules`` TSX components through a binary tree."""
    app = root / "src" / "app"
    (app / "parts").mkdir(parents=True)
    for i in range(modules):
        kids = [k for k in (2 * i + 1, 2 * i + 2) if k < modules]
        imports = "".join(f'import {{ Widget{k} }} from "./w{k}";\n' for k in kids)
        children = " ".join(f'<Widget{k} label="{k}" values={{values}} />' for k in kids)
        (app / "parts" / f"w{i}.tsx").write_text(COMPONENT.format(i=i, imports=imports, children=children))
    (app / "host.tsx").write_text(
        'import { Widget0 } from "./parts/w0";\n'
        "export function installBenchHostComponents(host: { registerWidget(t: string, c: unknown): void }) {\n"
        '  host.registerWidget("bench.root", Widget0);\n}\n'
    )
    manifest = {
        "name": "bench-ui",
        "version": "1.0.0",
        "devDependencies": {"react": "^19.0.0"},
        "neuralis": {"app": {"module": {"entry": "dist/app/host.js"}}},
    }
    (root / "package.json").write_text(json.dumps(manifest, indent=2))
    (root / "tsconfig.json").write_text(json.dumps({"compilerOptions": {"jsx": "react-jsx", "strict": True}}))


def esbuild_alone_args(root: Path) -> list[str]:
    """The exact esbuild command line the build runs, writing beside it instead of into dist/app."""
    from neuralis_build.hostprofile import default_host_profile
    from neuralis_build.ui.build import esbuild_args
    from neuralis_build.ui.driver import LOG_FLAGS, write_tsconfig
    from neuralis_build.ui.resolve import package_name_of

    work = root / "esbuild-alone"
    work.mkdir()
    tsconfig = write_tsconfig(root, work, "src/app/host.tsx")
    externals = sorted({package_name_of(m) for m in default_host_profile().shared_modules})
    args = esbuild_args("src/app/host.tsx", "esbuild-alone/out", tsconfig, externals, minify=False, sourcemap=False)
    return [*args, f"--metafile={work / 'meta.json'}", *LOG_FLAGS]


PEER = Path(__file__).resolve().parent / "peer"
VITE_CONFIG = """\
// Vite's library mode with the externals neuralis-build uses (no import: a plain object is a config).
export default {
  logLevel: "error",
  build: {
    lib: { entry: "src/app/host.tsx", formats: ["es"], fileName: () => "host.js" },
    outDir: "vite-out",
    emptyOutDir: true,
    minify: false,
    reportCompressedSize: false,
    rollupOptions: { external: [/^react($|\\/)/, /^react-dom($|\\/)/, /^@neuralis\\/client($|\\/)/] },
  },
};
"""


def vite_command(root: Path) -> list[str] | None:
    """``vite build`` in library mode for ``root``, installing the pinned Vite (bench/peer) on first use."""
    vite = PEER / "node_modules" / "vite" / "bin" / "vite.js"
    if not vite.is_file():
        done = subprocess.run(["npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund"], cwd=PEER)
        if done.returncode != 0:
            print(f"vite build (lib) left out: npm ci failed in {PEER} (exit {done.returncode}; npm's error above)")
            return None
    (root / "vite.config.mjs").write_text(VITE_CONFIG)
    return ["node", str(vite), "build", "--config", str(root / "vite.config.mjs")]


def timed(cmd: list[str], cwd: Path, env: dict[str, str] | None = None) -> float:
    started = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, check=True, stdout=subprocess.DEVNULL, env=env)
    return time.perf_counter() - started


PARTS = {
    "python -c pass": "pass",
    "python, os._exit": "import os; os._exit(0)",
    "python + import re": "import re, os; os._exit(0)",
    "python + stdlib floor": "import re, json, pathlib, subprocess",
    "python + ui imports": "import neuralis_build.cli.entry, neuralis_build.cli.ui_run, neuralis_build.ui.run",
}
"""Where the fixed cost goes (--parts): the interpreter, the standard library the build needs, all its imports."""


def measure(modules: int, rounds: int, with_vite: bool, parts: bool = False) -> None:
    from neuralis_build.ui.esbuild import find_esbuild

    esbuild = find_esbuild()
    cli = str(Path(sys.executable).parent / "neuralis-build")
    root = Path(tempfile.mkdtemp(prefix="neuralis-ui-bench-"))
    servers = tempfile.mkdtemp(prefix="nbb-", dir="/tmp")  # a server of the bench's own, in a short private path
    cold = {**os.environ, "NEURALIS_BUILD_SERVER": "0"}
    served = {**os.environ, "NEURALIS_BUILD_SERVER": "1", "NEURALIS_BUILD_SERVER_DIR": servers}
    try:
        generate(root, modules)
        alone = [str(esbuild.path), *esbuild_alone_args(root)]
        ours = [cli, "ui", "."]
        vite = vite_command(root) if with_vite else None
        sides: list[tuple[str, list[str], dict[str, str] | None]] = [
            ("esbuild alone", alone, None),
            ("neuralis-build ui", ours, cold),
            ("ui, served", ours, served),
        ]
        if vite:
            sides.append(("vite build (lib)", vite, None))
        if parts:
            sides += [(name, [sys.executable, "-c", code], None) for name, code in PARTS.items()]
        for _, cmd, env in sides:
            timed(cmd, root, env)  # warm the file cache and every binary (and start the server)
        wait_for_server(cli, served)
        times: dict[str, list[float]] = {name: [] for name, _, _ in sides}
        for _ in range(rounds):
            for name, cmd, env in sides:
                times[name].append(timed(cmd, root, env))
        size = (root / "dist" / "app" / "host.js").stat().st_size / 1e6
        print(f"input: {modules} TSX modules, bundle {size:.2f} MB, {rounds} rounds alternating")
        med = {name: statistics.median(t) for name, t in times.items()}
        for name, t in times.items():
            print(f"  {name:<22} median {med[name] * 1000:8.1f} ms  (min {min(t) * 1000:.1f})")
        a, o, w = med["esbuild alone"], med["neuralis-build ui"], med["ui, served"]
        print(f"  cold - esbuild alone: {(o - a) * 1000:.1f} ms fixed overhead; ratio {o / a:.3f}")
        print(f"  served - esbuild alone: {(w - a) * 1000:.1f} ms fixed overhead; ratio {w / a:.3f}")
        if parts:
            floor = med["python, os._exit"]
            print(f"  served - esbuild alone - (python, os._exit): {(w - a - floor) * 1000:.1f} ms ours")
        if "vite build (lib)" in med:
            v = med["vite build (lib)"]
            print(f"  vite build (lib) / ours: {v / o:.2f}x cold, {v / w:.2f}x served")
    finally:
        subprocess.run([cli, "server", "stop"], env=served, stdout=subprocess.DEVNULL)
        shutil.rmtree(root, ignore_errors=True)
        shutil.rmtree(servers, ignore_errors=True)


def wait_for_server(cli: str, env: dict[str, str]) -> None:
    """The served side is timed against a server that answers (the warm-up run started it)."""
    for _ in range(200):
        done = subprocess.run([cli, "server", "--format", "json"], env=env, capture_output=True, text=True)
        if json.loads(done.stdout)["running"]:
            return
        time.sleep(0.05)
    raise SystemExit("the warm build server did not start")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", type=int, default=3, help="modules of the small package")
    parser.add_argument("--large", type=int, default=900, help="modules of the large package")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--no-vite", action="store_true", help="skip Vite's library mode")
    parser.add_argument("--parts", action="store_true", help="also time the interpreter, the stdlib and the imports")
    opts = parser.parse_args()
    # A wheel install has its bytecode compiled; an editable checkout run with PYTHONDONTWRITEBYTECODE
    # would otherwise compile every module on every run and time the compiler, not the build.
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(Path(__file__).resolve().parents[1] / "neuralis_build")]
    )
    for modules in (opts.small, opts.large):
        measure(modules, opts.rounds, not opts.no_vite, opts.parts)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
