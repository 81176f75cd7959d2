"""Which folder a command works on, and which members of an npm workspaces root it works on, as npm decides.

The package folder: npm's local prefix (@npmcli/config, ``loadLocalPrefix``) is the first folder, from
the working folder up, that holds a ``package.json`` file or a ``node_modules`` folder; when none does,
it is the working folder itself. A folder passed on the command line is taken as it is, as npm takes
``--prefix``. (npm then goes on up to a workspaces root that lists that folder, and runs the command
as that root's workspace: the package acted on is the same.)

The members: ``--workspace`` takes a name, a folder or a glob of folders, each matched by npm's own
rules (lib/utils/get-workspaces.js: the name; the folder, relative to the working folder; a glob
selects the members inside the folders it matches), over the members npm's map-workspaces finds
from the root's ``workspaces`` globs. Rather than copy those rules, npm is asked: ``npm exec`` with
the same flags runs one command in each selected member, in npm's order, and says "No workspaces
found" as npm says it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from neuralis_build.errors import NeuralisError, UsageError
from neuralis_build.npm.packagejson import read_package_json
from neuralis_build.process import run, which

MANIFEST = "package.json"
NPM_TIMEOUT = 120
# Printed by each selected member's shell: its folder as a JSON string (one line, whatever the name holds).
# Double quotes only, so that sh and cmd.exe (npm's script-shell on Windows) read it alike.
_PRINT_FOLDER = 'node -p "JSON.stringify(process.cwd())"'
# npm settings that would change which members npm selects, as an outer `npm run` or the environment may set them.
_WORKSPACE_SETTINGS = ("workspace", "workspaces", "include_workspace_root", "include-workspace-root")


@dataclass(frozen=True)
class Member:
    """One member of a workspaces root: its folder and its package.json's name and neuralis key."""

    path: Path
    name: str | None
    neuralis: bool


def package_root() -> Path:
    """The package folder npm finds from the working folder: ``.``, or the folder above it, as a relative path.

    The first folder from the working folder up holding a package.json file or a node_modules folder;
    the working folder itself when none does (the command then says there is no package.json there).
    """
    here = Path.cwd()
    for folder in (here, *here.parents):
        if (folder / MANIFEST).is_file() or (folder / "node_modules").is_dir():
            return Path(os.path.relpath(folder, here))
    return Path(".")


def workspace_patterns(folder: Path) -> list[str] | None:
    """The ``workspaces`` globs of ``folder``'s package.json (npm's array, or Yarn's ``{packages: [...]}``);
    None when it declares none."""
    patterns = read_package_json(folder).npm.workspaces
    return list(patterns) if patterns is not None else None


def is_workspaces_root(folder: Path) -> bool:
    """True for a folder whose package.json declares workspaces and is not itself a Neuralis package."""
    npm = read_package_json(folder).npm
    return npm.workspaces is not None and not npm.declares_neuralis


def workspaces_root_error(folder: Path, command: str, shown: str) -> UsageError:
    """What ``command`` says at a workspaces root it was not told which members of (``shown``: the folder as
    printed); dev serves one package, so it is sent to a member's folder."""
    patterns = workspace_patterns(folder) or []
    listed = f" ({', '.join(patterns)})" if patterns else ""
    message = f"{shown} is an npm workspaces root{listed}, not a Neuralis package: {command} works on its members"
    if command == "dev":
        return UsageError(message, hint="pass a member's folder (neuralis-build dev packages/NAME), or run it there")
    return UsageError(
        message,
        hint=f"run neuralis-build {command} --workspaces for every member that is a Neuralis package, or "
        "--workspace NAME (a name, a folder, or a glob of folders, as npm takes them; repeatable), "
        "or run it in a member's folder",
    )


def enclosing_workspaces_root(folder: Path) -> Path | None:
    """The nearest folder above ``folder`` whose package.json declares workspaces, or None."""
    here = Path(os.path.abspath(folder))
    for parent in here.parents:
        if workspace_patterns(parent) is not None:
            return parent
    return None


def select_members(where: Path, selectors: Sequence[str], *, every: bool) -> list[Member]:
    """The members npm selects when run in ``where`` with ``--workspace`` each of ``selectors`` (or
    ``--workspaces`` when ``every``), in npm's order; npm's refusal ("No workspaces found") is a usage error."""
    npm = which("npm", hint="--workspace and --workspaces select members as npm does, by asking npm: put npm on PATH")
    flags = [f"--workspace={s}" for s in selectors] + (["--workspaces"] if every else [])
    env = {k: v for k, v in os.environ.items() if not _is_workspace_setting(k)}
    env["npm_config_update_notifier"] = "false"
    try:
        done = run(
            [npm, "exec", *flags, "--call", _PRINT_FOLDER],
            cwd=where,
            env=env,
            timeout=NPM_TIMEOUT,
        )
    except NeuralisError as exc:
        raise UsageError(f"cannot ask npm for the workspaces of {where}: {exc.message}", hint=exc.hint) from None
    if done.returncode != 0:
        said = [
            line.removeprefix("npm error").strip()
            for line in done.stderr.splitlines()
            if line.startswith("npm error") and "complete log of this run" not in line
        ]
        reason = " ".join(s for s in said if s) or f"npm exec exited {done.returncode}"
        place = "the current folder" if str(where) == "." else str(where)
        raise UsageError(
            f"npm selects no workspace from {place}: {reason}",
            hint="pass a member's name (from its package.json), its folder, or a folder holding members; "
            "--workspaces selects every member; run it at (or below) the workspaces root",
        )
    members = []
    for line in done.stdout.splitlines():
        if line.startswith('"'):
            folder = Path(json.loads(line))
            fields = read_package_json(folder).npm
            members.append(Member(folder, fields.name, fields.declares_neuralis))
    return members


def _is_workspace_setting(key: str) -> bool:
    lowered = key.lower()
    return lowered.startswith("npm_config_") and lowered[len("npm_config_") :] in _WORKSPACE_SETTINGS
