// Runs neuralis-build (a Python tool, not an npm package) for this package's npm scripts, and says in
// one line how to install it when it is not on PATH, instead of the shell's "neuralis-build: not found".
// It stays the parent of neuralis-build until that ends: a SIGTERM or SIGHUP sent to this process alone
// (npm passing on `kill`) is passed on, and if npm goes without passing anything on, neuralis-build is
// stopped too, so `npm run dev` never leaves a server behind.
import { spawn } from "node:child_process";

const child = spawn("neuralis-build", process.argv.slice(2), { stdio: "inherit" });
const running = () => child.exitCode === null && child.signalCode === null;
const stop = (signal) => {
  if (running()) child.kill(signal);
};
process.on("SIGTERM", () => stop("SIGTERM"));
process.on("SIGHUP", () => stop("SIGHUP"));
// A terminal's Ctrl-C reaches neuralis-build itself; one sent to this process alone is passed on late.
process.on("SIGINT", () => setTimeout(() => stop("SIGINT"), 1000).unref());
const parent = process.ppid;
const orphaned = setInterval(() => {
  if (process.ppid !== parent) stop("SIGTERM"); // npm is gone: nobody is left to stop the build
}, 500);

child.on("error", (error) => {
  clearInterval(orphaned);
  if (error.code === "ENOENT") {
    console.error(
      "neuralis-build is not installed (or not on PATH): install it with `pipx install neuralis-build` " +
        "(or `uv tool install neuralis-build`); see README.md, Install.",
    );
    process.exit(127);
  }
  throw error;
});
child.on("exit", (code, signal) => {
  clearInterval(orphaned);
  if (signal) {
    process.removeAllListeners(signal);
    process.kill(process.pid, signal); // end as it ended, so npm and the shell see the same
    return;
  }
  process.exit(code ?? 1);
});
