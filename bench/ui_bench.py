"""Bench: `neuralis-build ui` against esbuild alone and Vite's library build on the same package, alternating.

Run: .venv/bin/python bench/ui_bench.py [--small 3] [--large 800] [--rounds 15] [--no-vite] [--parts] [--watch]

esbuild alone and neuralis-build do the same bundling job (same entry, flags, externals, tsconfig
and metafile); the difference is what neuralis-build adds: start-up, reading the package, resolving
node_modules, judging the metafile, writing the record and swapping dist/app/ in. Vite's library
mode (bench/peer, pinned, externals set the same way) is what an author would otherwise pick.
Prints medians, the fixed overhead over esbuild alone, the ratio to esbuild and to Vite (the aim: at
most 0.6x Vite's build), for a small and a large package. ``--parts`` also times where the fixed
overhead goes: a bare interpreter, typer's import, and every import of a ui build.
``--watch`` times a rebuild instead: ``ui --watch`` running, one source file edited, the build time
the watch loop reports, against esbuild's own incremental rebuild of the same change (its JS API,
``context.rebuild()``, bench/peer's pinned esbuild).
"""

from __future__ import annotations

import argparse
import json
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


def esbuild_alone_args(root: Path, mode: str = "production") -> list[str]:
    """The exact esbuild command line the build runs, writing beside it instead of into dist/app."""
    from neuralis_build.hostprofile import default_host_profile
    from neuralis_build.npm.nodemodules import package_name_of
    from neuralis_build.ui.build import esbuild_args
    from neuralis_build.ui.driver import LOG_FLAGS, write_tsconfig

    work = root / "esbuild-alone"
    work.mkdir()
    tsconfig = write_tsconfig(root, work, "src/app/host.tsx")
    externals = sorted({package_name_of(m) for m in default_host_profile().shared_modules})
    args = esbuild_args(
        "src/app/host.tsx",
        "esbuild-alone/out",
        tsconfig,
        externals,
        minify=False,
        sourcemap=False,
        mode=mode,  # type: ignore[arg-type]
    )
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


def timed(cmd: list[str], cwd: Path) -> float:
    started = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


PARTS = {
    "python -c pass": "pass",
    "python + import typer": "import typer",
    "python + ui imports": "import neuralis_build.cli.build, neuralis_build.ui.run",
}
"""Where the fixed cost goes (--parts): the interpreter, typer, all the imports of a ui build."""


def measure(modules: int, rounds: int, with_vite: bool, parts: bool = False) -> None:
    from neuralis_build.esbuild.runner import find_esbuild

    esbuild = find_esbuild()
    cli = str(Path(sys.executable).parent / "neuralis-build")
    root = Path(tempfile.mkdtemp(prefix="neuralis-ui-bench-"))
    try:
        generate(root, modules)
        alone = [str(esbuild.path), *esbuild_alone_args(root)]
        vite = vite_command(root) if with_vite else None
        sides: list[tuple[str, list[str]]] = [("esbuild alone", alone), ("neuralis-build ui", [cli, "ui", "."])]
        if vite:
            sides.append(("vite build (lib)", vite))
        if parts:
            sides += [(name, [sys.executable, "-c", code]) for name, code in PARTS.items()]
        for _, cmd in sides:
            timed(cmd, root)  # warm the file cache and every binary
        times: dict[str, list[float]] = {name: [] for name, _ in sides}
        for _ in range(rounds):
            for name, cmd in sides:
                times[name].append(timed(cmd, root))
        size = (root / "dist" / "app" / "host.js").stat().st_size / 1e6
        print(f"input: {modules} TSX modules, bundle {size:.2f} MB, {rounds} rounds alternating")
        med = {name: statistics.median(t) for name, t in times.items()}
        for name, t in times.items():
            print(f"  {name:<22} median {med[name] * 1000:8.1f} ms  (min {min(t) * 1000:.1f})")
        a, o = med["esbuild alone"], med["neuralis-build ui"]
        print(f"  ui - esbuild alone: {(o - a) * 1000:.1f} ms fixed overhead; ratio {o / a:.3f}")
        if "vite build (lib)" in med:
            print(f"  ui / vite build (lib): {o / med['vite build (lib)']:.2f} (aim: at most 0.6)")
    finally:
        shutil.rmtree(root, ignore_errors=True)


REBUILD = """\
// esbuild's own incremental rebuild of one edit: the same options as the CLI run, a context, rebuild() timed.
const esbuild = require(process.argv[2]);
const fs = require("fs");
const [root, rounds, file, ...args] = process.argv.slice(3);
process.chdir(root);
const opts = { absWorkingDir: root, bundle: true, write: true, logLevel: "silent", metafile: true };
(async () => {
  const ctx = await esbuild.context({ ...opts, ...fromArgs(args) });
  await ctx.rebuild();
  const times = [];
  for (let i = 0; i < Number(rounds); i++) {
    fs.appendFileSync(file, `\nexport const edit${i} = ${i};\n`);
    const t0 = process.hrtime.bigint();
    await ctx.rebuild();
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  await ctx.dispose();
  console.log(JSON.stringify(times));
})();
function fromArgs(args) {  // the CLI flags the build passes (--name, --name=v, --name:sub=v), as JS API options
  const o = { entryPoints: [], external: [], loader: {}, define: {} };
  for (const a of args) {
    if (!a.startsWith("--")) { o.entryPoints.push(a); continue; }
    const [, name, sub, value] = /^--([a-z-]+)(?::([^=]*))?(?:=(.*))?$/s.exec(a);
    const key = name.replace(/-([a-z])/g, (_, c) => c.toUpperCase());
    if (key === "external") o.external.push(sub);
    else if (key === "loader" || key === "define") o[key][sub] = value;
    else o[key] = value === undefined ? true : value;
  }
  return o;
}
"""


def measure_rebuild(modules: int, rounds: int) -> None:
    """One edit, rebuilt: the time ``ui --watch`` reports for its build against esbuild's ``rebuild()``."""
    import re

    cli = str(Path(sys.executable).parent / "neuralis-build")
    root = Path(tempfile.mkdtemp(prefix="neuralis-ui-rebuild-"))
    edited = root / "src" / "app" / "parts" / "w0.tsx"
    try:
        generate(root, modules)
        esbuild_js = PEER / "node_modules" / "esbuild"
        if vite_command(root) is None or not esbuild_js.is_dir():
            print("esbuild's JS API (bench/peer) is not installed: rebuild left out")
            return
        script = root / "rebuild.cjs"
        script.write_text(REBUILD)
        skip = ("--metafile", "--log", "--color")
        args = [a for a in esbuild_alone_args(root, "development") if not a.startswith(skip)]
        copy = root / "w0.tsx.orig"
        copy.write_bytes(edited.read_bytes())
        done = subprocess.run(
            ["node", str(script), str(esbuild_js), str(root), str(rounds), str(edited), *args],
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            raise SystemExit(f"esbuild's rebuild failed: {done.stderr}")
        theirs = json.loads(done.stdout)
        edited.write_bytes(copy.read_bytes())
        ours: list[float] = []
        with subprocess.Popen(
            [cli, "ui", "--watch", "."], cwd=root, stdout=subprocess.PIPE, text=True, bufsize=1
        ) as proc:
            assert proc.stdout is not None
            line = proc.stdout.readline()  # the first build
            while "watching" not in line:
                line = proc.stdout.readline()
            for i in range(rounds):
                with edited.open("a") as f:
                    f.write(f"\nexport const edit{i} = {i};\n")
                line = proc.stdout.readline()
                found = re.search(r" in (\d+) ms$", line.strip())
                if found is None:
                    raise SystemExit(f"ui --watch said: {line!r}")
                ours.append(float(found[1]))
            proc.terminate()
        m_ours, m_theirs = statistics.median(ours), statistics.median(theirs)
        print(f"rebuild after one edit: {modules} TSX modules, {rounds} edits")
        print(f"  esbuild rebuild()       median {m_theirs:8.1f} ms  (min {min(theirs):.1f})")
        print(f"  ui --watch rebuild      median {m_ours:8.1f} ms  (min {min(ours):.1f})")
        print(f"  ratio {m_ours / m_theirs:.2f}")
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", type=int, default=3, help="modules of the small package")
    parser.add_argument("--large", type=int, default=800, help="modules of the large package")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--no-vite", action="store_true", help="skip Vite's library mode")
    parser.add_argument("--parts", action="store_true", help="also time the interpreter, typer and the imports")
    parser.add_argument("--watch", action="store_true", help="time a rebuild in ui --watch against esbuild's")
    opts = parser.parse_args()
    # A wheel install has its bytecode compiled; an editable checkout run with PYTHONDONTWRITEBYTECODE
    # would otherwise compile every module on every run and time the compiler, not the build.
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(Path(__file__).resolve().parents[1] / "neuralis_build")]
    )
    for modules in (opts.small, opts.large):
        if opts.watch:
            measure_rebuild(modules, opts.rounds)
        else:
            measure(modules, opts.rounds, not opts.no_vite, opts.parts)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
