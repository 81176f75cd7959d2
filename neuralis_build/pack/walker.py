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

from neuralis_build.pack import nodepath
from neuralis_build.pack.minimatch import Minimatch

DEFAULT = "<npm defaults>"
STRICT = "<npm strict rules>"
PACKAGE = "package.json"
IGNORE_FILES = (".npmignore", ".gitignore")

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

# JavaScript's String.prototype.trim set (WhiteSpace and LineTerminator), which differs from str.strip().
_JS_SPACE = "\t\n\v\f\r \u00a0\u1680" + "".join(map(chr, range(0x2000, 0x200B)))
_JS_SPACE += "\u2028\u2029\u202f\u205f\u3000\ufeff"

_RULE_CACHE: dict[str, Minimatch] = {}


def parse_rules(text: str) -> list[Minimatch]:
    """ignore-walk's reading of an ignore file: one trimmed minimatch rule per non-comment line."""
    rules = []
    for line in text.replace("\r\n", "\n").split("\n"):
        rule = line.strip(_JS_SPACE)
        if not rule or rule.startswith("#"):
            continue
        mm = _RULE_CACHE.get(rule)
        if mm is None:
            mm = _RULE_CACHE[rule] = Minimatch(rule)
        rules.append(mm)
    return rules


def _relative_rule(rule: Minimatch) -> bool:
    return any(len(part) <= (1 if part[-1] else 2) for part in rule.glob_parts)


class WalkError(Exception):
    """A file the walk cannot read (a name that is not UTF-8, an ignore file that is a folder): npm fails too."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


@dataclass
class Walker:
    """One directory of the walk; ``rules`` maps each rule set to its rules (None when discarded)."""

    path: str
    rel: str
    ignore_files: Sequence[str]
    parent: Walker | None = None
    exact: bool = False
    required: list[str] = field(default_factory=list)
    on_package: Callable[[Walker], None] | None = None
    rules: dict[str, list[Minimatch] | None] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.basename = posixpath.basename(self.path)
        self.rules[DEFAULT] = parse_rules("\n".join(DEFAULT_RULES))
        if self.on_package is None:
            self.rules[STRICT] = parse_rules("\n".join([*STRICT_DEFAULTS, *(f"!{f}" for f in self.required)]))

    def filter_entry(self, entry: str, partial: bool = False, entry_basename: str | None = None) -> bool:
        """Whether ``entry`` (a path below this directory) is included, as ignore-walk decides it."""
        included = True
        if self.parent is not None:
            included = self.parent.filter_entry(f"{self.basename}/{entry}", partial, entry_basename or entry)
            if not included and not self.exact:
                return False
        slash_entry = "/" + entry
        for name in self.ignore_files:
            rules = self.rules.get(name)
            if not rules:
                continue
            for rule in rules:
                if rule.negate == included:
                    continue
                match = rule.match(slash_entry) or rule.match(entry)
                if not match and partial:
                    match = (
                        rule.match(slash_entry + "/")
                        or rule.match(entry + "/")
                        or (rule.negate and (rule.match(slash_entry, True) or rule.match(entry, True)))
                    )
                    if not match and entry_basename and _relative_rule(rule):
                        base = entry_basename
                        match = (
                            rule.match(f"/{base}/")
                            or rule.match(f"{base}/")
                            or (rule.negate and (rule.match("/" + base, True) or rule.match(base, True)))
                        )
                if match:
                    included = rule.negate
        return included

    def walk(self, result: set[str]) -> None:
        """Add every included regular file below this directory to ``result`` (paths relative to the root)."""
        with os.scandir(self.path) as it:
            entries = list(it)
        names = {e.name for e in entries}
        for name in self.ignore_files:
            if name in names and name not in (DEFAULT, STRICT):
                if name == PACKAGE and self.on_package is not None:
                    self.on_package(self)
                elif name != PACKAGE:
                    self.rules[name] = parse_rules(_read_text(os.path.join(self.path, name), self.rel, name))
        if self.rules.get(PACKAGE) is not None:
            self.rules[".npmignore"] = self.rules[".gitignore"] = None
        elif self.rules.get(".npmignore") is not None:
            self.rules[".gitignore"] = None
        for entry in entries:
            name = entry.name
            as_file = self.filter_entry(name)
            as_dir = self.filter_entry(name, True)
            if not (as_file or as_dir) or "*" in name:
                continue
            if entry.is_symlink():
                continue
            rel = f"{self.rel}/{name}" if self.rel else name
            _check_name(rel)
            if entry.is_dir(follow_symlinks=False):
                if as_dir:
                    exact = as_file or self.filter_entry(name + "/")
                    self.child(entry.path, rel, exact).walk(result)
            elif entry.is_file(follow_symlinks=False) and as_file:
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
        with open(path, "rb") as fh:
            return fh.read().decode("utf-8", errors="replace")
    except OSError as exc:
        raise WalkError(f"{rel}/{name}" if rel else name, exc.strerror or "cannot be read") from None


def _check_name(rel: str) -> None:
    try:
        rel.encode("utf-8")
    except UnicodeEncodeError:
        shown = rel.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
        raise WalkError(shown, "the name is not UTF-8") from None
