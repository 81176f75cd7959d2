"""Hand the admitted packages to npm's resolver and hold its lock to the rules the image relies on.

npm sees a generated, private ``package.json`` whose dependencies are the admitted packages as
``file:`` tarballs (every listed package at the root, so npm never fetches a listed name from a
registry), and writes ``package-lock.json`` with ``--package-lock-only``: it resolves the closure
and downloads no registry tarball. The tarballs are named by their content, so a changed package
is a changed ``file:`` spec npm cannot serve from a stale cache (npm/cli#1550). A previous lock
is handed back to npm, which keeps its versions where they still satisfy; ``--frozen`` runs no npm
resolution at all and builds from the lock as it is.

The lock's own rules (``check_lock``: each listed name at its validated tarball, every place and version
one the image can write, an integrity on every entry) are the lock's: a lock that breaks them stops the
build. Whether each other entry comes from a registry npm is configured for (``not_from_registry``) is
the packages': the tree refuses whatever needs one that does not (tree.py).
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

from neuralis_build.image.archive.integrity import matches, strongest
from neuralis_build.image.resolution.npmcli import OVERRIDES, NpmFailed, Runner, run_npm
from neuralis_build.image.resolution.npmlock import MODULES, NPM_LOCK, LockNode, NpmLock, parse_npm_lock, read_npm_lock
from neuralis_build.image.resolution.registries import Registries, read_registries, scopes_of
from neuralis_build.util.errors import UsageError

TARBALLS = ".neuralis-tarballs"
MANIFEST = "package.json"
ROOT_NAME = "neuralis-image"
RESOLVE_DIR = "resolve"
AHEAD_DIR = "resolve-ahead"
RESOLUTION = ".neuralis-resolution"
"""Where the image folder keeps npm's whole resolution (outfiles.py): the inputs of the next build and of --frozen."""


def previous_inputs(out: Path) -> Path:
    """The folder of the last build's resolution: its own, or the image folder of a build made before it existed."""
    kept = out / RESOLUTION
    return kept if (kept / MANIFEST).is_file() else out


@dataclass(frozen=True)
class Admitted:
    """A listed package as npm sees it: its name and the tarball the image validated."""

    name: str
    integrity: str
    source: Path | None  # the tarball file to copy, or None when ``data`` holds the bytes
    data: bytes | None = None
    needs: tuple[str, ...] = ()  # the names it depends on directly (to say who needs what npm cannot find)

    @property
    def filename(self) -> str:
        return tarball_name(self.name, self.integrity)

    @property
    def spec(self) -> str:
        return f"file:{TARBALLS}/{self.filename}"


def tarball_name(name: str, integrity: str) -> str:
    """The file a listed package's tarball is written to under ``.neuralis-tarballs``: named by its content."""
    best = strongest(integrity)
    assert best is not None
    return f"{name.removeprefix('@').replace('/', '-')}-{best[1].hex()[:16]}.tgz"


def held(out: Path, name: str, integrity: str | None) -> Path | None:
    """The tarball of ``integrity`` the image in ``out`` already holds (its bytes checked), or None."""
    if integrity is None or strongest(integrity) is None:
        return None
    path = out / TARBALLS / tarball_name(name, integrity)
    try:
        return path if matches(path.read_bytes(), integrity) else None
    except OSError:
        return None


def root_manifest(admitted: list[Admitted]) -> str:
    """The generated package.json: private, one ``file:`` dependency per admitted package, sorted."""
    deps = {a.name: a.spec for a in sorted(admitted, key=lambda a: a.name)}
    data = {
        "name": ROOT_NAME,
        "version": "0.0.0",
        "private": True,
        "description": "Written by neuralis-build image: the packages npm resolved this image's closure from.",
        "dependencies": deps,
    }
    return json.dumps(data, indent=2) + "\n"


def resolve(admitted: list[Admitted], staging: Path, out: Path, *, frozen: bool, npm: Runner = run_npm) -> NpmLock:
    """Write the tarballs and package.json into ``staging``, get npm's lock for them, and check it."""
    staging.mkdir(parents=True, exist_ok=True)
    folder = staging / TARBALLS
    folder.mkdir(exist_ok=True)
    for a in admitted:
        target = folder / a.filename
        if a.data is not None:
            target.write_bytes(a.data)
        else:
            assert a.source is not None
            shutil.copyfile(a.source, target)
    manifest = root_manifest(admitted)
    (staging / MANIFEST).write_text(manifest, "utf-8")
    previous = previous_inputs(out)
    previous_manifest = _read(previous / MANIFEST)
    previous_lock = previous / NPM_LOCK
    if frozen:
        if not _covers(previous_manifest, admitted):
            raise UsageError(
                f"--frozen: the admitted packages differ from {previous / MANIFEST} (the packages npm's lock was "
                "made for)",
                hint="rebuild without --frozen to resolve the closure again",
            )
        lock = read_npm_lock(previous_lock)
        shutil.copyfile(previous_lock, staging / NPM_LOCK)
    elif previous_manifest == manifest and previous_lock.is_file():
        # npm install would find nothing to do: the lock was made for exactly this package.json
        shutil.copyfile(previous_lock, staging / NPM_LOCK)
        lock = read_npm_lock(staging / NPM_LOCK)
    else:
        if previous_lock.is_file():
            shutil.copyfile(previous_lock, staging / NPM_LOCK)
        try:
            npm(["install", "--package-lock-only", *OVERRIDES], staging, 900.0)
        except NpmFailed as exc:
            raise _who_needs(exc, admitted) from None
        lock = read_npm_lock(staging / NPM_LOCK)
    check_lock(lock, admitted)
    return lock


class Ahead:
    """npm's resolution started early, while the admitted packages are staged and checked: it waits on the registry.

    It resolves the packages that are alive once every tarball is read, in a folder of its own. If the
    packages admitted in the end are among them (names and integrities), its folder becomes the
    resolution's: a package refused meanwhile is left out of the walk, as one refused after npm ran is.
    If npm failed for exactly the packages admitted, its error is the resolution's: npm is never run
    twice for the same question. Else (a package changed, or fewer are admitted than npm was asked
    about, one of which may be what npm failed on) it is thrown away and npm runs again.
    """

    def __init__(self, admitted: list[Admitted], folder: Path, out: Path, npm: Runner) -> None:
        import threading

        self.key = _key(admitted)
        self.folder = folder
        self.lock: NpmLock | None = None
        self.error: NpmFailed | UsageError | None = None
        self.registries: Registries | None = None  # npm's registry settings for the lock's scopes, read meanwhile
        self.thread = threading.Thread(target=self._run, args=(admitted, out, npm), daemon=True)
        self.thread.start()

    def _run(self, admitted: list[Admitted], out: Path, npm: Runner) -> None:
        try:
            self.lock = resolve(admitted, self.folder, out, frozen=False, npm=npm)
        except UsageError as exc:  # npm's answer (NpmFailed) or the lock's rules: raised in the build's own order
            self.lock, self.error = None, exc
            return
        except Exception:  # anything else: the resolution runs again in the build's own order, and raises there
            self.lock = None
            return
        try:
            self.registries = read_registries(scopes_of(self.lock), npm)
        except Exception:  # read again by the tree, which says what went wrong
            self.registries = None

    def wait(self) -> None:
        self.thread.join()

    def take(self, admitted: list[Admitted], folder: Path) -> NpmLock | None:
        """npm's lock for ``admitted``, its files moved to ``folder``; None when it resolved other packages.

        A lock of more packages serves: a package refused while npm ran is one more listed package the walk
        does not start from, as a package refused after the resolution is (tree.py).
        """
        self.thread.join()
        if self.lock is None and self.error is not None and _key(admitted) == self.key:
            raise self.error
        if self.lock is None or not set(_key(admitted)) <= set(self.key) or folder.exists():
            return None
        self.folder.replace(folder)
        return self.lock


def _covers(manifest: str | None, admitted: list[Admitted]) -> bool:
    """Whether a generated package.json lists every admitted package at its very tarball (and maybe more:
    the packages refused after npm resolved them)."""
    if manifest is None:
        return False
    try:
        listed = json.loads(manifest).get("dependencies") or {}
    except (ValueError, AttributeError):
        return False
    return isinstance(listed, dict) and all(listed.get(a.name) == a.spec for a in admitted)


def _key(admitted: list[Admitted]) -> list[tuple[str, str]]:
    return sorted((a.name, a.integrity) for a in admitted)


def _who_needs(exc: NpmFailed, admitted: list[Admitted]) -> NpmFailed:
    """Add which listed packages depend on the package npm's message names (npm says only what it looked for)."""
    named = set(re.findall(r"(?:^|[\s'/(])((?:@[\w.-]+/)?[\w.-]+)@", exc.message))
    named |= set(re.findall(r"https?://[^/\s]+/((?:@[\w.-]+(?:/|%2[fF]))?[\w.-]+)(?:\s|$|/)", exc.message))
    named = {n.replace("%2f", "/").replace("%2F", "/") for n in named}
    needers = sorted(a.name for a in admitted if named & set(a.needs))
    if not needers:
        return exc
    return NpmFailed(f"{exc.message} (needed by {', '.join(needers)})", code=exc.code, hint=exc.hint)


def _read(path: Path) -> str | None:
    try:
        return path.read_text("utf-8")
    except OSError:
        return None


_VERSION = re.compile(r"[0-9A-Za-z][0-9A-Za-z.+-]*")


def place_problem(node: LockNode) -> str | None:
    """What makes an entry's place unsafe to write to, or None: its path must be ``node_modules/<name>`` steps
    (a scoped name is two segments) with no empty, ``.`` or ``..`` segment, and the version of a top-level
    entry, which names its folder in the image (tiers.py), one semver-like word. npm writes no other; a lock
    edited by hand (``--frozen`` builds from the one in the image folder) could aim a write outside the image.
    """
    parts = node.path.split("/")
    at = 0
    while at < len(parts):
        name_len = 2 if parts[at + 1 : at + 2] and parts[at + 1].startswith("@") else 1
        step = parts[at + 1 : at + 1 + name_len]
        if parts[at] != MODULES.rstrip("/") or len(step) != name_len:
            return "is not a node_modules/<name> path"
        if any(seg in ("", ".", "..") or "\\" in seg for seg in step):
            return "has an empty, '.' or '..' segment"
        at += 1 + name_len
    if len(parts) <= 3 and not _VERSION.fullmatch(node.version):
        return f"has the version {node.version!r}, which cannot name a folder"
    return None


def own_tarball(lock: NpmLock, node: LockNode) -> bool:
    """A listed package's validated tarball, wherever npm's lock (or the layout of it) places it: at the root,
    or, for one refused since npm resolved it, where the layout puts what the others need of it."""
    spec = lock.root_dependencies.get(node.name)
    return spec is not None and spec.startswith(f"file:{TARBALLS}/") and node.resolved == spec


def _fetched(node: LockNode) -> bool:
    """An entry the image fetches from its ``resolved`` URL (not a link, nor a path or a git URL)."""
    return not node.link and (node.resolved is None or node.resolved.startswith(("https://", "http://")))


def check_lock(lock: NpmLock, admitted: list[Admitted]) -> None:
    """The lock's own rules: each listed name is its validated tarball, every other entry a verified one.

    An entry that does not come from a registry at all is the fault of the package that depends on it, not of
    the lock: ``not_from_registry`` names it, and the tree refuses what needs it.
    """
    problems: list[str] = []
    listed = {f"{MODULES}{a.name}": a for a in admitted}
    for path, a in sorted(listed.items()):
        node = lock.nodes.get(path)
        if node is None:
            problems.append(f"{a.name} is not at {path} in npm's lock")
        elif node.resolved != a.spec or node.integrity != a.integrity:
            problems.append(
                f"npm resolved {a.name} to {node.resolved or '(nothing)'} ({node.integrity}), not to the tarball "
                f"the image validated ({a.spec}, {a.integrity})"
            )
    for path, node in sorted(lock.nodes.items()):
        misplaced = place_problem(node)
        if misplaced is not None:
            problems.append(f"the entry {path!r} {misplaced}")
            continue
        if path in listed or node.in_bundle or own_tarball(lock, node) or not _fetched(node):
            continue
        where = f"{node.name}@{node.version} at {path}"
        if node.resolved is None or node.integrity is None:
            problems.append(
                f"{where} has no resolved URL or integrity in npm's lock (is omit-lockfile-registry-resolved set?)"
            )
        elif strongest(node.integrity) is None:
            problems.append(f"{where} has an integrity the image cannot check ({node.integrity})")
    if problems:
        raise UsageError(
            "npm's lock breaks the image's rules:\n  " + "\n  ".join(problems),
            hint="rebuild without --frozen; if it persists, report it with the lock",
        )


def not_from_registry(lock: NpmLock, listed: Collection[str], registries: Registries) -> dict[str, str]:
    """Every entry of ``lock`` (npm's, or the image's layout of it) that a registry does not serve, with why.

    ``listed``: the paths of the listed packages, which come from their own tarballs. A package bundled in
    its parent's tarball is its parent's; every other entry must be a tarball of the registry npm fetches
    its name from (registries.py): a dependency on a URL, a file, a folder or git is none.
    """
    out: dict[str, str] = {}
    for path, node in sorted(lock.nodes.items()):
        if path in listed or node.in_bundle or own_tarball(lock, node):
            continue
        if node.link:
            out[path] = f"npm's lock links it to the folder {node.resolved or '(unnamed)'}"
        elif node.resolved is None:
            continue  # check_lock's to refuse: the lock's fault, not a package's
        elif not node.resolved.startswith(("https://", "http://")):
            out[path] = f"npm's lock resolves it to {node.resolved}, which is not a registry's tarball"
        elif not registries.serves(node.package_name, node.resolved):
            out[path] = (
                f"npm's lock resolves it to {node.resolved}, which is not a tarball of the registry npm fetches "
                f"{node.package_name} from ({registries.registry_of(node.package_name)})"
            )
    return out


__all__ = ["TARBALLS", "Admitted", "check_lock", "not_from_registry", "parse_npm_lock", "resolve", "root_manifest"]
