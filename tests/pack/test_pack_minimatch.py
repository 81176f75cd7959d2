"""The minimatch port: unit cases for npm's rule shapes, and every pattern × path compared with npm's minimatch."""

from __future__ import annotations

import json
import random
import subprocess

import pytest
from packtools import needs_npm, reference_minimatch

from neuralis_build.pack.braces import brace_expand
from neuralis_build.pack.minimatch import Minimatch

PATTERNS = [
    "*",
    "*.js",
    "**",
    "lib",
    "/lib",
    "lib/",
    "lib/**",
    "lib/*",
    "lib/*.js",
    "lib/**/*.js",
    "**/c.js",
    "*/*.js",
    "/*.js",
    "li*",
    "lib/su*",
    "{lib,src}",
    "di?t",
    "[d]ist",
    "d*/",
    "d*",
    "{lib,src}/**",
    "d*/**",
    "LIB",
    "Lib/A.js",
    "!lib",
    "!!lib",
    "!/lib/**",
    "**/.git",
    "**/.git/**",
    "/.lock-wscript",
    "/.wafpickle-*",
    "/build/config.gypi",
    "npm-debug.log",
    ".*.swp",
    ".DS_Store",
    "**/.DS_Store/**",
    "._*",
    "**/._*/**",
    "*.orig",
    "/archived-packages/**",
    "!/readme{,.*[^~$]}",
    "!/license{,.*[^~$]}",
    "#comment",
    "",
    "a/**/b",
    "**/b/**",
    "a/**/b/**/c",
    "**/*",
    "*/",
    "@(a|b).js",
    "+(x)",
    "*.{js,ts}",
    "{1..3}.txt",
    "[a-c]*",
    "[!a]*",
    "[[:alpha:]]x",
    "a\\*b",
    "???",
    "???.js",
    ".*",
    "*.*",
    "x/../y",
    "a//b",
    "\\[x]",
    "[]",
    "[z-a]x",
    "foo/",
    "/",
    "!*.md",
    "!!!x",
    "a/**",
    "**/a",
    "a/*/b",
    "*/b/*",
    "[a-z].js",
    "x{a,b{c,d}}y",
    "{a,}b",
    "{,a}b",
]
PATHS = [
    "lib",
    "lib/a.js",
    "lib/sub/c.js",
    "src/d.js",
    "e.js",
    "dist/index.js",
    "docs/d.md",
    "README.md",
    "readme",
    "README.md~",
    "LICENSE-MIT",
    "licence",
    ".git",
    "a/.git",
    "a/.git/x",
    ".DS_Store",
    "x/.DS_Store/y",
    "._foo",
    "a.orig",
    "x/a.orig",
    "build/config.gypi",
    "a/b",
    "a/x/b",
    "a/x/y/b/z/c",
    "a/b/",
    "lib/",
    "x",
    "a*b",
    "abc",
    "a.js",
    "b.js",
    "c.js",
    "1.txt",
    "bx",
    ".hidden",
    "x.y",
    "y",
    "foo",
    "foo/",
    "LIB/A.JS",
    ".lock-wscript",
    "archived-packages/x",
    "/lib",
    "/lib/a.js",
    "/e.js",
    "/readme.md",
    "/README",
    "xxx",
    "xxx.js",
    "/x/",
    "xacy",
    "xy",
    "b",
    "ab",
    "a/q/b",
    "q/b/r",
    "a/./b",
    "a/../b",
    "./x",
    "../x",
    "x/.",
    "/..",
]


@pytest.mark.parametrize(
    ("pattern", "path", "partial", "hit"),
    [
        ("*.js", "lib/a.js", False, True),  # matchBase: a slash-less pattern matches the basename
        ("*.js", "lib", False, False),
        ("lib/*.js", "lib/sub/c.js", False, False),  # * never crosses a slash
        ("lib/**", "lib/sub/c.js", False, True),
        ("LIB", "lib", False, True),  # nocase
        (".*", ".hidden", False, True),  # dot
        ("**", ".git/x", False, True),
        ("lib/*.js", "lib", True, True),  # partial: the folder could lead to a match
        ("lib/*.js", "src", True, False),
        ("a/*", "a/b/", False, True),  # a trailing slash segment still matches
        ("#comment", "#comment", False, False),  # comments match nothing
        ("!lib", "lib", False, True),  # flipNegate: a hit is a hit
        ("{lib,src}/**", "src/x", False, True),
        ("[d]ist", "dist", False, True),
        ("!/readme{,.*[^~$]}", "/README.md", False, True),
        ("!/readme{,.*[^~$]}", "/README.md~", False, False),
    ],
)
def test_rules_npm_relies_on(pattern: str, path: str, partial: bool, hit: bool) -> None:
    assert Minimatch(pattern).match(path, partial) is hit


def test_negation_and_comments() -> None:
    assert Minimatch("!x").negate and not Minimatch("!!x").negate and Minimatch("!!!x").negate
    assert Minimatch("#x").comment and Minimatch("").empty


@pytest.mark.parametrize(
    ("pattern", "expanded"),
    [
        ("a{b,c}d", ["abd", "acd"]),
        ("{1..3}", ["1", "2", "3"]),
        ("{01..3}", ["01", "02", "03"]),
        ("{a..c}", ["a", "b", "c"]),
        ("{3..1}", ["3", "2", "1"]),
        ("x{a,b{c,d}}y", ["xay", "xbcy", "xbdy"]),
        ("{a,}b", ["ab", "b"]),
        ("a{b}c", ["a{b}c"]),
        ("{}x", ["{}x"]),
        ("a\\{b,c}", ["a{b,c}"]),
        ("/readme{,.*[^~$]}", ["/readme", "/readme.*[^~$]"]),
        ("$${a,b}", ["$${a,b}"]),
    ],
)
def test_brace_expansion(pattern: str, expanded: list[str]) -> None:
    assert brace_expand(pattern) == expanded


MINIMATCH_JS = """
const { Minimatch } = require(process.argv[1]);
const cases = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const opt = { matchBase: true, dot: true, flipNegate: true, nocase: true };
process.stdout.write(JSON.stringify(cases.map(([p, f, partial]) => {
  const m = new Minimatch(p, opt);
  return [m.negate, m.match(f, partial)];
})));
"""


def _random_pattern(rng: random.Random) -> str:
    atoms = ["a", "b", "x", "*", "**", "?", "[ab]", "{a,b}", ".", "lib", "A", "!"]
    return "/".join("".join(rng.choice(atoms) for _ in range(rng.randint(1, 3))) for _ in range(rng.randint(1, 3)))


@pytest.mark.e2e
@needs_npm
def test_every_pattern_and_path_as_npms_minimatch() -> None:
    rng = random.Random(20)
    patterns = PATTERNS + [_random_pattern(rng) for _ in range(150)]
    cases = [[p, f, partial] for p in patterns for f in PATHS for partial in (False, True)]
    done = subprocess.run(
        ["node", "-e", MINIMATCH_JS, str(reference_minimatch())],
        input=json.dumps(cases),
        capture_output=True,
        text=True,
        check=True,
    )
    expected = json.loads(done.stdout)
    ours = []
    for p, f, partial in cases:
        m = Minimatch(p)
        ours.append([m.negate, m.match(f, partial)])
    mismatches = [(c, e, o) for c, e, o in zip(cases, expected, ours, strict=True) if e != o]
    assert mismatches == []
