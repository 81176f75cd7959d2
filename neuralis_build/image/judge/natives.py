"""Does a package whose install script never ran work anyway? Load it once in a fresh node and see.

Install scripts never run in the image, and for most packages that have one it does not matter (a
banner, a check, a prebuilt binary already in the tarball); for a native module it may mean the addon
was never built. So each installed package with an install script or a ``binding.gyp`` is loaded after
install, each in its own node process, the way its dependents load it: ``require`` (``import`` for an
ES module) from the folder it is installed under. A package that builds an addon (a top-level
``binding.gyp``) must also load that addon, found the way the package finds it: through
``node-gyp-build``, ``@mapbox/node-pre-gyp`` or ``bindings`` when it depends on one (better-sqlite3
loads it only when a database is opened), else ``build/Release/<target>.node``.

Loading a package runs its code, and an addon is machine code: every load runs in the OS sandbox
(``neuralis_build.util.sandbox``: its own namespaces, no network, no view of the build's environment, home
or processes) over the staged tree mounted read-only (``confine.py``), and that tree is proved
untouched before the commit. Where this machine has no sandbox, no package is loaded: each is "not
checked", never "works" (a language-level guard such as Node's permission model never sees an addon).

Inside the sandbox the network is gone whatever the code does; the guard in JavaScript (Node's
sockets, datagrams and name lookups replaced by ones that fail at once) only tells "it reached for
the network" apart from a failure, so the verdict says "could not be checked" rather than "fails": a
host has a network. A write into the read-only tree, or a file outside the image (which the sandbox
does not have, and a host may), is said the same way. The child exits once it has given its verdict,
so a package that starts a timer or a server on load does not hold it open.
"""

from __future__ import annotations

import ast
import json
import signal
import time
from collections.abc import Collection, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from neuralis_build.hostprofile import HostProfile
from neuralis_build.image.judge import confine
from neuralis_build.image.judge.conflicts import Conflict, engine_conflicts
from neuralis_build.image.judge.nodecheck import node_version
from neuralis_build.image.layout.graph import Closure
from neuralis_build.image.layout.materialize import PackageFacts
from neuralis_build.util.errors import UserError
from neuralis_build.util.process import which
from neuralis_build.util.sandbox import Confined, Mount, NoSandbox, Sandbox, find_sandbox

LOAD_TIMEOUT = 60.0
"""Seconds one package may take to load (a real native module loads in well under a second)."""

LOADERS = ("node-gyp-build", "@mapbox/node-pre-gyp", "bindings")

LoadStatus = Literal["works", "fails", "no-entry", "needs-host", "denied", "not-checked"]
STATUSES = ("works", "fails", "no-entry", "needs-host", "denied", "not-checked")

_SCRIPT = r"""
const path = require("path");
const fs = require("fs");
const [name, dir, target, loader, provided, image] = JSON.parse(process.argv[1]);
// no network: every socket, datagram and name lookup fails at once, as on a host without network access
function offline(what) {
  const e = new Error(`it reached for the network while loading (${what}), and the check allows none`);
  e.code = "ENETUNREACH";
  e.denied = true;
  throw e;
}
const where = (a) => {
  const o = Array.isArray(a) ? a[0] : a;
  return o && typeof o === "object" ? o.path || `${o.host || "localhost"}:${o.port}` : String(a);
};
require("net").Socket.prototype.connect = function (a) { offline(where(a)); };
require("dgram").createSocket = () => offline("a UDP socket");
const dns = require("dns");
dns.lookup = (host) => offline(`a name lookup of ${host}`);
dns.promises.lookup = async (host) => offline(`a name lookup of ${host}`);
const from = (id) => require(require.resolve(id, { paths: [dir] }));
function addon() {
  if (loader === "node-gyp-build") return from("node-gyp-build")(dir);
  if (loader === "@mapbox/node-pre-gyp") {
    return require(from("@mapbox/node-pre-gyp").find(path.join(dir, "package.json")));
  }
  if (!target) return;
  if (loader === "bindings") return from("bindings")({ bindings: target, module_root: dir });
  const built = ["Release", "Debug"].map((b) => path.join(dir, "build", b, `${target}.node`)).find(fs.existsSync);
  if (!built) throw new Error(`its addon ${target} was never built: build/Release/${target}.node is missing`);
  require(built);
}
// the verdict, then exit: a package that starts a timer or a server on load must not hold the check open
const say = (verdict) => process.stdout.write(JSON.stringify(verdict), () => process.exit(0));
(async () => {
  let entry = true;
  try {
    try {
      require(name);
    } catch (e) {
      if (e && e.code === "MODULE_NOT_FOUND" && String(e.message).startsWith(`Cannot find module '${name}'`)) {
        entry = false;
      } else if (e && (e.code === "ERR_REQUIRE_ESM" || e.code === "ERR_PACKAGE_PATH_NOT_EXPORTED")) {
        await import(name);
      } else {
        throw e;
      }
    }
    addon();
    say({ status: entry ? "works" : "no-entry" });
  } catch (e) {
    // a package the host provides (react) is not in the image: the host gives it at run time, the check cannot
    const lost = e && (e.code === "MODULE_NOT_FOUND" || e.code === "ERR_MODULE_NOT_FOUND");
    const missing = lost && /^Cannot find (?:module|package) '([^']+)'/.exec(String(e.message));
    const parts = missing ? missing[1].split("/") : [];
    const owner = parts[0] && parts[0].startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
    if (missing && provided.includes(owner)) return say({ status: "needs-host", detail: missing[1] });
    // what the check forbids (the network, a write, a process) says nothing of the host, which allows it
    if (e && e.denied) return say({ status: "denied", detail: e.message });
    // in the sandbox only the image's tree (at `image`) is this machine's: the host has files the sandbox has not
    if (e && typeof e.path === "string" && path.isAbsolute(e.path) && !e.path.startsWith(image + "/")) {
      const detail = `it reached for ${e.path} while loading, outside the image, and the check's sandbox has none`;
      return say({ status: "denied", detail });
    }
    if (e && e.code === "EROFS") {
      const detail = `it wrote to ${e.path} while loading, and the check's file system is read-only`;
      return say({ status: "denied", detail });
    }
    // the first line, and the next when the first only announces it ("Could not locate the bindings file. Tried:")
    const lines = String((e && e.message) || e).split("\n").map((l) => l.trim()).filter(Boolean);
    const message = lines.length > 1 && lines[0].endsWith(":") ? `${lines[0]} ${lines[1]}` : lines[0] || "";
    say({ status: "fails", detail: (e && e.code ? `${e.code}: ` : "") + message });
  }
})();
"""


@dataclass(frozen=True)
class Load:
    """What loading one installed package told: it works, it fails (and why), or it has no entry to load."""

    status: LoadStatus
    detail: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"status": self.status, "detail": self.detail or None}

    @property
    def sentence(self) -> str:
        """The verdict as the report says it."""
        if self.status == "works":
            return "works without its script"
        if self.status == "no-entry":
            return "has no entry point to load (nothing to check)"
        if self.status == "denied":
            return f"could not be checked: {self.detail}"
        if self.status == "not-checked":
            return f"was not loaded: {self.detail}"
        if self.status == "needs-host":
            return f"cannot be loaded here: it needs {self.detail}, which the host provides (nothing to check)"
        return f"will fail at run time: {self.detail}"


# gyp target types that make a loadable addon (node-gyp's default type is loadable_module)
_ADDON_TYPES = (None, "loadable_module", "shared_library")


def gyp_addon(folder: Path) -> str | None:
    """The ``target_name`` of the first addon ``binding.gyp`` builds (a Python literal, comments allowed):
    a copy step (``type: none``) or a test extension later in the list is not what the package loads."""
    try:
        data = ast.literal_eval((folder / "binding.gyp").read_text("utf-8"))
    except (OSError, ValueError, SyntaxError, UnicodeDecodeError, MemoryError, RecursionError):
        return None
    targets = data.get("targets") if isinstance(data, dict) else None
    for target in targets if isinstance(targets, list) else []:
        if isinstance(target, dict) and target.get("type") in _ADDON_TYPES:
            name = target.get("target_name")
            if isinstance(name, str) and name and "/" not in name and "\\" not in name:
                return name
    return None


def needs_loading(package_facts: PackageFacts | None) -> bool:
    """A package with an install script (a ``binding.gyp`` implies ``node-gyp rebuild``)."""
    return package_facts is not None and bool(package_facts.scripts)


@dataclass(frozen=True)
class Loaded:
    """Every load's verdict by path, how the loads ran, and what proves they changed nothing (``confine``)."""

    loads: dict[str, Load]
    note: str | None = None  # for the report: where the loads ran, or why some did not
    before: dict[str, confine.Entry] | None = None  # the staged tree as the loads found it
    windows: tuple[confine.Window, ...] = ()


def load_all(
    closure: Closure, package_facts: Mapping[str, PackageFacts], root: Path, jobs: int, provided: Collection[str] = ()
) -> Loaded:
    """Load every placed package that has an install script, ``jobs`` at a time, in the sandbox over the tree
    under ``root`` (read-only); where this machine has no sandbox, none is loaded. A package that needs one of
    ``provided`` (what the host provides, which the image does not install) cannot be checked."""
    paths = [p for p in sorted(closure.placed) if needs_loading(package_facts.get(p))]
    if not paths:
        return Loaded({})
    node = which("node", "install Node.js 20 or later; the image build loads native modules with node")
    box = find_sandbox(node)
    if isinstance(box, NoSandbox):
        note = (
            f"no sandbox on this machine ({box.reason}): {len(paths)} package(s) with install scripts were not loaded"
        )
        return Loaded(dict.fromkeys(paths, Load("not-checked", f"no sandbox on this machine ({box.reason})")), note)
    before = confine.snapshot(root / MODULES)
    loads = _Loads(box, closure, package_facts, root, sorted(provided))
    with ThreadPoolExecutor(max(1, jobs)) as pool:
        verdicts = dict(zip(paths, pool.map(loads.load, paths), strict=True))
    note = "packages with install scripts were loaded in the sandbox (bubblewrap: no network, no secrets)"
    return Loaded(verdicts, note, before, tuple(loads.windows))


MODULES = "node_modules"


class _Loads:
    """The loads of one build: the sandbox, the tree it mounts read-only, and when each load ran."""

    def __init__(
        self, box: Sandbox, closure: Closure, package_facts: Mapping[str, PackageFacts], root: Path, provided: list[str]
    ) -> None:
        self.box, self.closure, self.package_facts, self.root, self.provided = (
            box,
            closure,
            package_facts,
            root,
            provided,
        )
        self.mounts = [Mount(root / MODULES, f"{confine.INSIDE}/{MODULES}")]
        self.windows: list[confine.Window] = []

    def load(self, path: str) -> Load:
        """Load the package at ``path`` from the folder whose node_modules holds it, as its dependents do."""
        folder = self.root.joinpath(*path.split("/"))
        node = self.closure.placed[path].node
        parent = folder.parents[len(node.name.split("/"))]  # node.name: the folder require() goes by (an alias's)
        has_gyp = (folder / "binding.gyp").is_file()
        npm = self.package_facts[path].npm
        deps = set(npm.dependencies) | set(npm.optional_dependencies)
        loader = next((d for d in LOADERS if d in deps), "") if has_gyp else "none"
        target = gyp_addon(folder) if has_gyp else None
        inside = confine.inside(self.root, folder)
        payload = json.dumps([node.name, inside, target, loader, self.provided, confine.INSIDE])
        start = time.time_ns()
        try:
            done = self.box.run(
                ["-e", _SCRIPT, payload],
                mounts=self.mounts,
                cwd=confine.inside(self.root, parent),
                timeout=LOAD_TIMEOUT,
            )
        finally:
            self.windows.append(confine.Window(f"{node.package_name}@{node.version} ({path})", start, time.time_ns()))
        verdict = _verdict_of(done)
        # the image's own paths in the words: the same tree gives the same verdict wherever it was staged
        return Load(verdict.status, verdict.detail.replace(confine.INSIDE + "/", ""))


def _verdict_of(done: Confined) -> Load:
    """The verdict the load script printed, or how node ended without one."""
    if done.timed_out:
        return Load("fails", f"it did not finish loading within {LOAD_TIMEOUT:.0f} s")
    if done.overflowed:
        return Load("denied", "it printed more than the check reads (1 MiB) while loading")
    try:
        data = json.loads(done.stdout)
        status, detail = data["status"], str(data.get("detail") or "")
    except (ValueError, KeyError, TypeError):
        return Load("fails", _ended(done.returncode, done.stderr))
    if status not in STATUSES:
        return Load("fails", _ended(done.returncode, done.stderr))
    return Load(status, detail)


def _ended(code: int, stderr: str) -> str:
    """How a node that printed no verdict ended: the signal that killed it (a crash in an addon), or its error."""
    if code < 0:
        try:
            return f"node crashed while loading it ({signal.Signals(-code).name})"
        except ValueError:
            return f"node crashed while loading it (signal {-code})"
    last = next((line.strip() for line in reversed(stderr.splitlines()) if line.strip()), "")
    return f"node exited with {code} while loading it" + (f": {last}" if last else "")


BUILTIN = ("shipped", "host-dependency")
"""The install classes whose packages the host loads as its own (first-party): one that cannot load fails the image."""


def load_conflicts(
    closure: Closure, package_facts: Mapping[str, PackageFacts], loads: Mapping[str, Load]
) -> list[Conflict]:
    """A conflict for each package that fails to load: an error when a builtin-class package brings it in. One
    that did what the check forbids (the network, a write) could not be judged: a warning, whoever needs it."""
    out = []
    for path, load in sorted(loads.items()):
        placed = closure.placed[path]
        name, version = placed.node.package_name, placed.node.version
        if load.status in ("denied", "not-checked"):
            message = (
                f"{name}@{version} ({path}, via {' → '.join(placed.chain)}) {load.sentence}: load it on a host "
                "like yours to know whether it works without its install script"
                + (
                    "; install bubblewrap to have the image build load it in its sandbox"
                    if load.status == "not-checked"
                    else ""
                )
            )
            out.append(Conflict("load", name, "warning", message, path))
        if load.status != "fails":
            continue
        scripts = "; ".join(f"{k}: {v}" for k, v in sorted(package_facts[path].scripts.items()))
        builtin = placed.install_class in BUILTIN
        out.append(
            Conflict(
                "load",
                name,
                "error" if builtin else "warning",
                f"{name}@{version} ({path}, via {' → '.join(placed.chain)}) {load.sentence}; its install script "
                f"never ran ({scripts})"
                + (f", and the host loads what a {placed.install_class} package brings in" if builtin else "")
                + ": depend on a version that ships its compiled addon for this platform (a prebuilt binary), or "
                "on a pure-JavaScript alternative",
                path,
            )
        )
    return out


@dataclass(frozen=True)
class AtRunTime:
    """What the image's packages will meet when the host runs them: the Node they are judged against, npm's
    engine check (EBADENGINE) against it, and each package with an install script, loaded once."""

    node: str
    loaded: Loaded
    conflicts: list[Conflict]

    @property
    def loads(self) -> dict[str, Load]:
        return self.loaded.loads

    def verify(self, root: Path) -> None:
        """Raise UserError when the tree under ``root`` is not as the loads found it (see ``confine``)."""
        if self.loaded.before is None:
            return
        found = confine.changes(self.loaded.before, confine.snapshot(root / MODULES), self.loaded.windows, root)
        if found is None:
            return
        shown = ", ".join(f"{MODULES}/{p}" for p in found.changed[:5])
        more = f" and {len(found.changed) - 5} more" if len(found.changed) > 5 else ""
        raise UserError(
            f"the image's tree changed while its packages were loaded: {shown}{more}; loading at the time: "
            f"{', '.join(found.suspects)}",
            hint="nothing of this build was committed. A package that changes other packages' files when it is "
            "loaded is hostile: take it (or what brings it in) out of the SPEC, and build again",
        )


def at_run_time(
    closure: Closure, package_facts: Mapping[str, PackageFacts], root: Path, host: HostProfile, jobs: int
) -> AtRunTime:
    """The host's Node (its profile's ``nodeVersion``, else the node on PATH), the engine conflicts and the loads."""
    node = host.node_version or node_version()
    where = "the host profile's nodeVersion" if host.node_version else "the node on PATH, as no nodeVersion is set"
    loaded = load_all(closure, package_facts, root, jobs, host.provided_packages)
    conflicts = engine_conflicts(closure, node, where) + load_conflicts(closure, package_facts, loaded.loads)
    return AtRunTime(node, loaded, conflicts)
