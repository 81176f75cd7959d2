"""npm's file walk: ignore-walk 8 with npm-packlist 10's rule sets, one walker per directory, synchronously.

Each directory judges an entry first through its parent's rules (as ``<dir>/<entry>``), then through its
own rule sets in order: npm's defaults, the root package.json's ``files`` (root only), ``.npmignore``,
``.gitignore``, and the strict set (always-included and never-included files). The last matching rule
wins; a negated rule re-includes. This is a faithful port: the quirks it reproduces are on purpose.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from neuralis_build.manifest.paths import size_problem
from neuralis_build.pack import nodepath
from neuralis_build.pack.rules import RuleSet, Run, parse_rules
from neuralis_build.util.limits import MAX_PATH_DEPTH
from neuralis_build.util.regularfile import NotRegularFile, read_regular


@dataclass(frozen=True)
class Synthetic:
    """A rule set npm makes itself rather than reads from a file: a key no file name can be (npm-packlist
    keys them with ``Symbol('npm-packlist.rules.default')`` and ``Symbol('npm-packlist.rules.strict')``)."""

    name: str


DEFAULT = Synthetic("npm-packlist.rules.default")  # what npm never packs (.git, .DS_Store, ...)
STRICT = Synthetic("npm-packlist.rules.strict")  # what npm always packs, or never, whatever the rest says
PACKAGE = "package.json"  # the root's files list, read from the file of that name (keyed by it, as npm does)
IGNORE_FILES = (".npmignore", ".gitignore")
RuleKey = str | Synthetic
"""A rule set's key: the ignore file it was read from, or one of npm's synthetic sets."""

DEFAULT_RULES = (
    ".npmignore",
    ".gitignore",
    "**/.git",
    "**/.svn",
    "**/.hg",
    "**/CVS",
    "**/.git/**",
    "**/.svn/**",
    "**/.hg/**",
    "**/CVS/**",
    "/.lock-wscript",
    "/.wafpickle-*",
    "/build/config.gypi",
    "npm-debug.log",
    "**/.npmrc",
    ".*.swp",
    ".DS_Store",
    "**/.DS_Store/**",
    "._*",
    "**/._*/**",
    "*.orig",
    "/archived-packages/**",
)
STRICT_DEFAULTS = ("/.git",)


class WalkError(Exception):
    """A file the walk cannot read (a name that is not UTF-8, an ignore file that is a folder): npm fails too."""

    def __init__(self, path: str, reason: str, npm: str = "npm pack fails on it too") -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason
        self.npm = npm


class WalkTooDeep(WalkError):
    """A folder or file the walk would pack is nested deeper, or named longer, than a package may hold.

    npm has no such cap, but the image refuses such a tarball, and judging each entry through every
    ancestor's rules costs the square of the depth: the cap keeps the walk linear in the files it lists.
    """


@dataclass
class Walker:
    """One directory of the walk; ``rules`` maps each rule set to its rules (None when discarded)."""

    path: str
    rel: str
    ignore_files: Sequence[RuleKey]
    parent: Walker | None = None
    exact: bool = False
    required: list[str] = field(default_factory=list)
    on_package: Callable[[Walker], None] | None = None
    outside: Sequence[str] = ()
    """Ignore files read above the package (a workspace root's, pack/workspace.py): more default rules."""
    rules: dict[RuleKey, RuleSet | None] = field(default_factory=dict)
    _runs: list[Run] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        self.basename = posixpath.basename(self.path)
        self.rules[DEFAULT] = parse_rules("\n".join([*DEFAULT_RULES, *self.outside]))
        if self.on_package is None:
            self.rules[STRICT] = parse_rules("\n".join([*STRICT_DEFAULTS, *(f"!{f}" for f in self.required)]))

    def runs(self) -> list[Run]:
        """Every run of every rule set in order; fixed once the folder's ignore files are read."""
        if self._runs is None:
            self._runs = [run for name in self.ignore_files if (rs := self.rules.get(name)) for run in rs.runs]
        return self._runs

    def filter_entry(self, entry: str, partial: bool = False, entry_basename: str | None = None) -> bool:
        """Whether ``entry`` (a path below this directory) is included, as ignore-walk decides it."""
        included = True
        if self.parent is not None:
            included = self.parent.filter_entry(f"{self.basename}/{entry}", partial, entry_basename or entry)
            if not included and not self.exact:
                return False
        slash_entry = "/" + entry
        for run in self.runs():
            if run.negate == included:
                continue
            if run.hit_partial(slash_entry, entry, entry_basename) if partial else run.hit(slash_entry, entry):
                included = run.negate
        return included

    def walk(self, result: set[str]) -> None:
        """Add every included regular file below this directory to ``result`` (paths relative to the root)."""
        with os.scandir(self.path) as it:
            entries = list(it)
        names = {e.name for e in entries}
        for name in self.ignore_files:
            if isinstance(name, Synthetic) or name not in names:
                continue
            if name == PACKAGE:  # only the root reads package.json's files list (ignore-walk's onReadPackageJson)
                if self.on_package is not None:
                    self.on_package(self)
            else:
                self.rules[name] = parse_rules(_read_text(os.path.join(self.path, name), self.rel, name))
        # npm-packlist's precedence in one folder: a files list hides .npmignore and .gitignore; an
        # .npmignore hides .gitignore (a set of None is read but discarded, as npm-packlist drops it)
        if self.rules.get(PACKAGE) is not None:
            self.rules[".npmignore"] = self.rules[".gitignore"] = None
        elif self.rules.get(".npmignore") is not None:
            self.rules[".gitignore"] = None
        for entry in entries:
            name = entry.name
            if "*" in name or entry.is_symlink():
                continue  # npm drops both whatever the rules say
            rel = f"{self.rel}/{name}" if self.rel else name
            too_big = size_problem(rel)
            if not _utf8(name):  # npm stats what passes the rules and fails on a name it cannot encode
                if self.filter_entry(name) or self.filter_entry(name, True):
                    raise WalkError(_shown(rel), "the name is not UTF-8")
                continue
            if entry.is_dir(follow_symlinks=False):
                # a folder is walked when it may hold included files (a partial match)
                if self.filter_entry(name, True):
                    if too_big is not None or rel.count("/") + 1 >= MAX_PATH_DEPTH:
                        raise WalkTooDeep(
                            _shown(rel), too_big or f"holds files more than {MAX_PATH_DEPTH} segments deep"
                        )
                    exact = self.filter_entry(name) or self.filter_entry(name + "/")
                    self.child(entry.path, rel, exact).walk(result)
            elif entry.is_file(follow_symlinks=False) and self.filter_entry(name):
                if too_big is not None:
                    raise WalkTooDeep(_shown(rel), too_big)
                result.add(rel)

    def child(self, path: str, rel: str, exact: bool) -> Walker:
        name = posixpath.basename(path)
        required = [nodepath.relative(name, f) for f in self.required if nodepath.relative(f, name) == ".."]
        return Walker(
            path=path,
            rel=rel,
            ignore_files=(DEFAULT, *IGNORE_FILES, STRICT),
            parent=self,
            exact=exact,
            required=required,
        )


def _read_text(path: str, rel: str, name: str) -> str:
    try:
        return read_regular(path).decode("utf-8", errors="replace")
    except NotRegularFile as exc:
        # npm's readFile would wait forever on a FIFO; a folder, a device or a FIFO is refused instead
        where = f"{rel}/{name}" if rel else name
        npm = "npm pack would block reading it" if exc.fifo else "npm pack fails on it too"
        raise WalkError(where, f"it is {exc.strerror}, not a regular file", npm) from None
    except OSError as exc:
        raise WalkError(f"{rel}/{name}" if rel else name, exc.strerror or "cannot be read") from None


def _shown(rel: str) -> str:
    """A path as a person can read it: bytes that are not UTF-8 become U+FFFD."""
    return rel.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def _utf8(name: str) -> bool:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
