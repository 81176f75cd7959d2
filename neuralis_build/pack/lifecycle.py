"""The lifecycle scripts `npm pack` runs (prepack, prepare, postpack): when, in what order and environment.

npm 11 (libnpmpack and pacote, through @npmcli/run-script 10) runs ``prepack`` before it lists the
files, ``prepare`` right before it packs them, and ``postpack`` after the tarball is written, dry runs
included, each with ``sh -c`` in the package folder. ``--ignore-scripts`` (or npm's own
``ignore-scripts`` setting) runs none of them. The environment is run-script's: the package's name,
version, config, engines and bin as ``npm_package_*``, the event and its command line, the
``node_modules/.bin`` of the folder and of every folder above it first on PATH, and what the pack
command itself adds (``npm_command``, ``INIT_CWD``, the dry run, the tarball's integrity after it).
npm's other configuration (``npm_config_*``) is npm's, not ours: an ``npm`` the script runs reads it
from the .npmrc files itself. Where this differs from npm on purpose is in docs/packing.md.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from neuralis_build.npm.fields import NpmFields
from neuralis_build.npm.packagejson import MANIFEST
from neuralis_build.pack.fields import identity_diagnostics, js_string, normalize_bin
from neuralis_build.package import Package, load_package
from neuralis_build.util.diagnostics import Diagnostic, code
from neuralis_build.util.errors import DiagnosedError, ScriptError

if TYPE_CHECKING:
    from typing import Literal

    Event = Literal["prepack", "prepare", "postpack"]

NB1711 = code("NB1711", "scripts-not-run", "pack did not run the lifecycle scripts, as asked (--ignore-scripts)")
NB1718 = code("NB1718", "script-failed", "a lifecycle script pack runs (prepack, prepare, postpack) failed")

LIFECYCLE: tuple[Event, ...] = ("prepack", "prepare", "postpack")


def lifecycle_scripts(npm: NpmFields) -> dict[str, str]:
    """The lifecycle scripts npm pack would run, by event: a non-empty string (npm drops any other value)."""
    return {e: s for e in LIFECYCLE if (s := npm.script_text(e))}


def _flatten(values: Mapping[str, Any], prefix: str, env: dict[str, str]) -> dict[str, str]:
    """run-script's ``packageEnvs``: nested keys joined by ``_``, array items by index, null and false empty."""
    for key, value in values.items():
        if value is None or value is False:
            env[f"{prefix}{key}"] = ""
        elif isinstance(value, list):
            for i, item in enumerate(value):
                _flatten({f"{key}_{i}": item}, prefix, env)
        elif isinstance(value, dict):
            _flatten(value, f"{prefix}{key}_", env)
        else:
            env[f"{prefix}{key}"] = js_string(value)
    return env


def package_envs(manifest: Mapping[str, Any], root: Path | None = None) -> dict[str, str]:
    """The ``npm_package_*`` variables of a script: name, version, config, engines and the normalised bin.

    Only these five fields (npm RFC 183); a field the manifest lacks sets nothing.
    """
    values: dict[str, Any] = {}
    for key in ("name", "version", "config", "engines"):
        if key in manifest:
            values[key] = manifest[key]
    if "bin" in manifest or "directories" in manifest:
        bins = normalize_bin(dict(manifest), root)
        if bins or "bin" in manifest:
            values["bin"] = bins
    return _flatten(values, "npm_package_", {})


def bin_dirs(root: Path) -> list[str]:
    """``node_modules/.bin`` of ``root`` and of every folder above it, nearest first, as run-script adds them."""
    found = []
    folder = Path(os.path.abspath(root))
    while True:
        found.append(str(folder / "node_modules" / ".bin"))
        if folder.parent == folder:
            return found
        folder = folder.parent


def with_bin_dirs(root: Path, env: dict[str, str]) -> dict[str, str]:
    """Put the bin folders first on PATH: every PATH-like key (``Path`` on Windows) gets the same merged value."""
    keys = [k for k in env if k.lower() == "path" and env[k]]
    merged: list[str] = []
    for key in keys:
        merged += [p for p in env[key].split(os.pathsep) if p not in merged]
    value = os.pathsep.join([*bin_dirs(root), os.pathsep.join(merged)] if merged else bin_dirs(root))
    for key in keys or ["PATH"]:
        env[key] = value
    return env


def _tool_paths(path: str | None) -> dict[str, str]:
    """``NODE``/``npm_node_execpath`` and ``npm_execpath``, as npm sets them, for the node and npm on PATH."""
    import shutil

    found: dict[str, str] = {}
    node = shutil.which("node", path=path)
    if node is not None:
        found["NODE"] = found["npm_node_execpath"] = os.path.realpath(node)
    npm = shutil.which("npm", path=path)
    if npm is not None and os.path.basename(os.path.realpath(npm)) == "npm-cli.js":
        found["npm_execpath"] = os.path.realpath(npm)
    return found


@dataclass(frozen=True)
class ScriptContext:
    """What the pack command adds to every script's environment, and where their output goes."""

    on_output: Callable[[str], None]
    init_cwd: Path
    dry_run: bool = False


def script_env(
    package: Package, event: str, script: str, context: ScriptContext, extra: Mapping[str, str] = {}
) -> dict[str, str]:
    """The environment of one lifecycle script, in run-script's order: ours, then the event's, then the package's."""
    env = dict(os.environ)
    env.update(_tool_paths(env.get("PATH")))
    env["npm_command"] = "pack"
    env["INIT_CWD"] = str(context.init_cwd)
    if context.dry_run:
        env["npm_config_dry_run"] = "true"  # a script (or the npm it runs) can tell a dry run, as under npm
    env.update(extra)
    env.update(package_envs(package.manifest, package.root))
    env["npm_package_json"] = str(package.root / MANIFEST)
    env["npm_lifecycle_event"] = event
    env["npm_lifecycle_script"] = script
    return with_bin_dirs(package.root, env)


def banner(package: Package, event: str, script: str) -> str:
    """npm's banner before a script: a blank line, ``> <name>@<version> <event>``, the command line, a blank line."""
    name, version = package.npm.name, package.npm.version
    head = f"{name}@{version} {event}" if name is not None and version is not None else event
    return f"\n> {head}\n> " + script.strip().replace("\n", "\n> ") + "\n\n"


def _shell(script: str) -> list[str]:
    """How run-script starts a script: ``sh -c`` (``cmd /d /s /c`` on Windows)."""
    if os.name == "nt":  # pragma: no cover - the toolchain is tested on POSIX
        return [os.environ.get("COMSPEC", "cmd.exe"), "/d", "/s", "/c", script]
    return ["sh", "-c", script]


def run_script(
    package: Package, event: Event, context: ScriptContext, extra: Mapping[str, str] = {}, after: str = ""
) -> bool:
    """Run the package's ``event`` script, if it has one; a script that fails raises ScriptError (NB1718).

    ``after`` is said in the message of a failure (what already happened: the tarball written).
    """
    from neuralis_build.util.process import stream

    script = lifecycle_scripts(package.npm).get(event)
    if script is None:
        return False
    context.on_output(banner(package, event, script))
    env = script_env(package, event, script, context, extra)
    done = stream(_shell(script), cwd=package.root, env=env, on_output=context.on_output)
    if done.returncode == 0:
        return True
    if done.returncode < 0:
        import signal

        how = f"was ended by {signal.Signals(-done.returncode).name}"
    else:
        how = f"exited {done.returncode}"
    d = package.locate(
        Diagnostic(
            "error",
            NB1718.id,
            MANIFEST,
            f"/scripts/{event}",
            f'the "{event}" script {how}: {script}' + (f"; {after}" if after else ""),
            "its output is above: fix what it reports and pack again (--ignore-scripts packs the folder as it is, "
            "without running it)",
        )
    )
    name = package.name or package.root.name
    raise ScriptError(f"{name} was not packed: its {event} script failed", [d], command=done.command, output=done.tail)


def before_pack(package: Package, context: ScriptContext) -> Package:
    """Run prepack, then prepare, as npm pack does before it lists the files; the package as they left it.

    npm reads the name and version first and runs nothing for a package without them; the folder is
    read again after each script, so what is judged and packed is what the scripts made.
    """
    scripts = lifecycle_scripts(package.npm)
    if not scripts:
        return package
    identity = [package.locate(d) for d in identity_diagnostics(package.manifest)]
    if identity:
        raise DiagnosedError("npm packs only a package with a name and a version; no script was run", identity)
    if run_script(package, "prepack", context):
        package = load_package(package.root)
    # pacote's own environment for prepare (its integrity is not known yet: npm says "null")
    extra = {"npm_package_resolved": str(package.root), "npm_package_integrity": "null"}
    if run_script(package, "prepare", context, extra):
        package = load_package(package.root)
    return package


def after_pack(package: Package, context: ScriptContext, integrity: str, written: Path | None) -> None:
    """Run postpack, as npm does once the tarball is written (or, in a dry run, computed)."""
    extra = {
        "npm_package_from": f"file:{package.root}",
        "npm_package_resolved": str(package.root),
        "npm_package_integrity": integrity,
    }
    after = f"the tarball was written: {written}" if written is not None else ""
    run_script(package, "postpack", context, extra, after)


def ignored_by_npm(root: Path) -> bool:
    """npm's own ``ignore-scripts`` setting (an .npmrc, ``npm_config_ignore_scripts``) as npm reads it here.

    Asked of the npm on PATH (about 0.2 s), only for a package that has lifecycle scripts; without
    npm there is no setting to honour.
    """
    from neuralis_build.util.errors import NeuralisError
    from neuralis_build.util.process import run

    try:
        done = run(["npm", "config", "get", "ignore-scripts"], timeout=60, cwd=root)
    except NeuralisError:
        return False
    return done.returncode == 0 and done.stdout.strip() == "true"


def skipped_notes(package: Package, by_flag: bool) -> list[Diagnostic]:
    """A note per lifecycle script not run (by ``--ignore-scripts``, else npm's setting), at its line."""
    if by_flag:
        why, hint = "--ignore-scripts", "pack without --ignore-scripts to run it first, as npm pack does"
    else:
        why = "npm's ignore-scripts setting is true"
        hint = "npm config get ignore-scripts says where it is set (an .npmrc, npm_config_ignore_scripts)"
    return [
        package.locate(
            Diagnostic(
                "note",
                NB1711.id,
                MANIFEST,
                f"/scripts/{event}",
                f'the "{event}" script was not run ({why}): the folder is packed as it is',
                hint,
            )
        )
        for event in lifecycle_scripts(package.npm)
    ]
