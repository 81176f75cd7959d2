// Runs neuralis-build (a Python tool, not an npm package) for this package's npm scripts, and says in
// one line how to install it when it is not on PATH, instead of the shell's "neuralis-build: not found".
// It stays the parent of neuralis-build until that ends: a SIGTERM or SIGHUP sent to this process alone
// (npm passing on `kill`) is passed on, and if npm goes without passing anything on, neuralis-build is
// stopped too, so `npm run dev` never leaves a server behind.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";

// What to install: NEURALIS_BUILD_INSTALL when set (one machine, or a CI variable), else package.json's
// config.neuralisBuildInstall, which `neuralis new` pins to the toolchain that made the package. The generated
// workflow installs from the same two places, so the message and CI never disagree.
const installSpec = () => {
  if (process.env.NEURALIS_BUILD_INSTALL) return process.env.NEURALIS_BUILD_INSTALL;
  try {
    const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
    const spec = manifest?.config?.neuralisBuildInstall;
    if (typeof spec === "string" && spec !== "") return spec;
  } catch {
    // no readable package.json: name the package itself
  }
  return "neuralis-build";
};

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
    const spec = JSON.stringify(installSpec());
    console.error(
      `neuralis-build is not installed (or not on PATH): install it with \`pipx install ${spec}\` ` +
        `(or \`uv tool install ${spec}\`); the spec is package.json's config.neuralisBuildInstall ` +
        "(NEURALIS_BUILD_INSTALL overrides it); see README.md, Install the toolchain.",
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
