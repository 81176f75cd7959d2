"""Which folder a command works on, and which members of an npm workspaces root it works on, as npm decides.

The package folder: npm's local prefix (@npmcli/config, ``loadLocalPrefix``) is the first folder, from
the working folder up, that holds a ``package.json`` file or a ``node_modules`` folder; when none does,
it is the working folder itself. A folder passed on the command line is taken as it is, as npm takes
``--prefix``. (npm then goes on up to a workspaces root that lists that folder, and runs the command
as that root's workspace: the package acted on is the same.)

The members: ``--workspace`` takes a name, a folder or a glob of folders, each matched by npm's own
rules (lib/utils/get-workspaces.js: the name; the folder, relative to the working folder; a glob
selects the members inside the folders it matches; from inside a member, ``--workspaces`` means that
member), over the members npm's map-workspaces finds from the root's ``workspaces`` globs. Rather than
copy those rules, npm is asked, in a way that runs nothing of the tree:

- ``npm pkg get name`` with the same flags: npm selects the members and prints their names, in its
  order, or refuses ("No workspaces found") as npm refuses;
- ``npm prefix``: the root npm selected them from (its local prefix);
- npm's own ``@npmcli/map-workspaces`` (the module npm selected them with), run by node from the
  folder of the npm on PATH on the root's package.json: each name's folder.

``npm pkg get`` and ``npm prefix`` read configuration and package.json files and start
no program: no lifecycle script, no shell, so no ``script-shell`` or ``node-options`` a project
``.npmrc`` of the reviewed tree sets is ever used, and no PATH is changed, so a member's
``node_modules/.bin`` is never searched (``npm exec``, asked before, ran a command in each member
through npm's script-shell with that folder first on PATH). The settings a project ``.npmrc`` could
use to change the answer or write elsewhere are set on the command line, which wins over it:
``global``, ``include-workspace-root``, ``loglevel``, ``update-notifier`` (no registry is asked) and
``logs-dir`` (npm's debug log goes to a folder of our own, removed after). ``npm query`` was no
substitute: its ``.workspace`` ignores ``--workspace``, and with the flags it answers from the
installed ``node_modules`` tree, leaving out a member that is not installed, a nameless or
symlinked one, or one whose folder name holds ``[``, ``,``, ``"`` or ``)``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from neuralis_build.npm.home import npm_module
from neuralis_build.npm.packagejson import read_package_json
from neuralis_build.util.errors import NeuralisError, UsageError
from neuralis_build.util.printable import display_path, shown, shown_text
from neuralis_build.util.process import Completed, run, which

MANIFEST = "package.json"
NPM_TIMEOUT = 120
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
    import tempfile  # not at the top: only --workspace and --workspaces pay for it

    program = which(
        "npm", hint="--workspace and --workspaces select members as npm does, by asking npm: put npm on PATH"
    )
    with tempfile.TemporaryDirectory(prefix="neuralis-npm-") as logs:
        npm = _Npm(program, where, Path(logs))
        names = _selected_names(npm, [f"--workspace={s}" for s in selectors] + (["--workspaces"] if every else []))
        root = Path(npm.succeeding("prefix").stdout.strip())
        folders = _member_folders(root)
    unmapped = [name for name in names if name not in folders]
    if unmapped:
        raise UsageError(
            f"npm selects {', '.join(shown(n) for n in unmapped)} from {where}, but npm's map-workspaces finds "
            f"no member by that name under {shown(str(root))}",
            hint="npm printed the name otherwise than its package.json spells it (npm hides what looks like a "
            "credential): pass the member's folder as PATH instead",
        )
    members = []
    for name in names:
        folder = Path(folders[name])
        fields = read_package_json(folder).npm
        members.append(Member(folder, fields.name, fields.declares_neuralis))
    return members


@dataclass(frozen=True)
class _Npm:
    """npm, run in the folder a command was given, with the settings that must not come from the tree's .npmrc."""

    program: str
    where: Path
    logs: Path

    def __call__(self, *args: str) -> Completed:
        env = {k: v for k, v in os.environ.items() if not _is_workspace_setting(k)}
        pinned = [
            "--global=false",
            "--include-workspace-root=false",
            "--loglevel=error",
            "--update-notifier=false",
            f"--logs-dir={self.logs}",
        ]
        try:
            return run([self.program, *args, *pinned], cwd=self.where, env=env, timeout=NPM_TIMEOUT)
        except NeuralisError as exc:
            raise UsageError(
                f"cannot ask npm for the workspaces of {self.where}: {exc.message}", hint=exc.hint
            ) from None

    def succeeding(self, *args: str) -> Completed:
        """``npm ARGS``, which must succeed: a failure is npm's own trouble, reported with what npm said."""
        done = self(*args)
        if done.returncode != 0:
            raise UsageError(
                f"npm {' '.join(args)} failed in {self.where} (exit {done.returncode}): {_npm_said(done)}",
                hint="run it there to see why",
            )
        return done


def _selected_names(npm: _Npm, flags: list[str]) -> list[str]:
    """The names of the members npm selects with ``flags``, in npm's order (``npm pkg get name`` prints
    ``{member: its name}``, the members as npm's selection holds them)."""
    done = npm("pkg", "get", "name", *flags)
    if done.returncode != 0:
        place = "the current folder" if str(npm.where) == "." else str(npm.where)
        raise UsageError(
            f"npm selects no workspace from {place}: {_npm_said(done) or f'npm pkg get exited {done.returncode}'}",
            hint="pass a member's name (from its package.json), its folder, or a folder holding members; "
            "--workspaces selects every member; run it at (or below) the workspaces root",
        )
    try:
        selected = json.loads(done.stdout)
    except ValueError:
        selected = None
    if not isinstance(selected, dict):
        raise UsageError(
            f"npm pkg get name printed no object of members in {npm.where}: {shown_text(done.stdout[:200])}",
            hint="run npm pkg get name --workspaces there to see what npm says",
        )
    # JavaScript orders an object's keys that read as array indexes ("7") first: a member so named
    # comes first here as it does in npm's own output.
    return list(selected)


def _member_folders(root: Path) -> dict[str, str]:
    """Each member's folder by its name, as npm's map-workspaces (the module npm selects them with) finds them
    from the root's ``workspaces`` globs: no program of the tree runs, only npm's own module in node."""
    node = which("node", hint="--workspace and --workspaces read the members' folders with node: put node on PATH")
    try:
        done = run([node, "-e", _MAP_WORKSPACES, str(root), str(_map_workspaces())], cwd=root, timeout=NPM_TIMEOUT)
    except NeuralisError as exc:
        raise UsageError(f"cannot read the workspaces of {root}: {exc.message}", hint=exc.hint) from None
    try:
        pairs = json.loads(done.stdout) if done.returncode == 0 else None
    except ValueError:
        pairs = None
    if not isinstance(pairs, list) or not all(
        isinstance(p, list) and len(p) == 2 and all(isinstance(x, str) for x in p) for p in pairs
    ):
        raise UsageError(
            f"npm's map-workspaces did not list the workspaces of {root}: "
            f"{shown_text((done.stderr or done.stdout).strip()[-400:])}",
            hint="the toolchain reads the members' folders with the map-workspaces module npm ships: npm 10 or later",
        )
    return dict(pairs)


def _map_workspaces() -> Path:
    """npm's own ``@npmcli/map-workspaces``, beside the npm on PATH."""
    found = npm_module("@npmcli/map-workspaces")
    if found is None:
        raise UsageError(
            "cannot find @npmcli/map-workspaces in the folder of the npm on PATH",
            hint="the toolchain reads the members' folders with the map-workspaces module npm ships: npm 10 or later",
        )
    return found


# Run by node: npm's own @npmcli/map-workspaces, from npm's folder, on the root's package.json (as npm's
# get-workspaces calls it), printed as [[name, folder], ...] in its order.
_MAP_WORKSPACES = """
const { join } = require("node:path");
const { readFileSync } = require("node:fs");
const [root, module] = process.argv.slice(1);
const mapWorkspaces = require(module);
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8").replace(/^\\uFEFF/, ""));
mapWorkspaces({ cwd: root, pkg }).then((found) => {
  process.stdout.write(JSON.stringify([...found].map(([name, folder]) => [String(name), folder])));
});
"""


def _npm_said(done: Completed) -> str:
    """npm's error lines, joined (without the pointer to its debug log)."""
    said = [
        line.removeprefix("npm error").strip()
        for line in done.stderr.splitlines()
        if line.startswith("npm error") and "complete log of this run" not in line
    ]
    return " ".join(s for s in said if s)


def _is_workspace_setting(key: str) -> bool:
    lowered = key.lower()
    return lowered.startswith("npm_config_") and lowered[len("npm_config_") :] in _WORKSPACE_SETTINGS


@dataclass(frozen=True)
class Folders:
    """The package folders a command works on, in order, and the members ``--workspaces`` left out (what each
    lacks -> their names), for the command to say so."""

    paths: list[Path]
    left_out: dict[str, list[str]]

    def none_left(self) -> UsageError:
        """What a command says when ``--workspaces`` left out every member (after the notes that say why)."""
        return UsageError(
            "no member npm selects is one to work on here (see the notes above)",
            hint="neuralis init in a member's folder adds a neuralis block; neuralis new inside the root creates "
            "a member",
        )


def package_folders(
    paths: Sequence[Path] | None,
    selectors: Sequence[str] | None,
    every: bool,
    wanted: tuple[str, Callable[[Path], bool]] | None = None,
) -> Folders:
    """The folders to work on: the PATHs given, the members npm selects (shown relative to the working
    folder), or npm's package folder.

    Under ``--workspaces`` a member without a ``neuralis`` key is not a Neuralis package: it is left out
    (as ``npm run --if-present`` leaves out a member without the script), and so is one that ``wanted``
    (what it lacks, a test) turns down; a member named by ``--workspace`` is worked on whatever it is, so
    its report says what it lacks. With no member left, ``paths`` is empty: say the notes, then raise
    ``none_left()``.
    """
    if not selectors and not every:
        return Folders(list(paths) if paths else [package_root()], {})
    folders: list[Path] = []
    left_out: dict[str, list[str]] = {}
    for where in paths or [Path(".")]:
        for member in select_members(where, selectors or [], every=every):
            label = member.name or str(member.path)
            if every and not selectors and not member.neuralis:
                left_out.setdefault("a neuralis block", []).append(label)
                continue
            if every and not selectors and wanted is not None and not wanted[1](member.path):
                left_out.setdefault(wanted[0], []).append(label)
                continue
            shown_path = _relative(member.path)
            if shown_path not in folders:
                folders.append(shown_path)
    return Folders(folders, left_out)


def refuse_workspaces_root(folder: Path, command: str) -> None:
    """Raise what to do instead when ``folder`` is a workspaces root that is not a Neuralis package itself."""
    if is_workspaces_root(folder):
        where = display_path(folder)
        raise workspaces_root_error(folder, command, "this folder" if where == "." else where)


def _relative(path: Path) -> Path:
    """``path`` relative to the working folder when it sits below it, else as it is."""
    try:
        rel = os.path.relpath(path)
    except ValueError:  # another drive on Windows
        return path
    return path if rel.startswith("..") else Path(rel)
