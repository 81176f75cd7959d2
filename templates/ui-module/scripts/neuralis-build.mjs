// Runs neuralis-build (a Python tool, not an npm package) for this package's npm scripts, and says in
// one line how to install it when it is not on PATH, instead of the shell's "neuralis-build: not found".
import { spawnSync } from "node:child_process";

const run = spawnSync("neuralis-build", process.argv.slice(2), { stdio: "inherit" });
if (run.error && run.error.code === "ENOENT") {
  console.error(
    "neuralis-build is not installed (or not on PATH): install it with `pipx install neuralis-build` " +
      "(or `uv tool install neuralis-build`); see README.md, Install.",
  );
  process.exit(127);
}
if (run.error) throw run.error;
process.exit(run.status ?? 1);
