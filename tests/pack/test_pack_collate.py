"""npm's orders without ICU: the ASCII table against node's localeCompare, exhaustively, and the node route."""

from __future__ import annotations

import json
import random
import string
import subprocess

import pytest
from packtools import needs_npm

from neuralis_build.pack import collate
from neuralis_build.pack.collate import collation_key, sort_listing, sort_packlist
from neuralis_build.pack.nodepath import extname

NODE_SORT = """
const { strings, mode } = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const { extname, basename } = require('path');
const coll = new Intl.Collator('en', { sensitivity: 'case', numeric: true });
const up = s => s.charAt(0) === s.charAt(0).toUpperCase();
const packlist = (a, b) => extname(a).toLowerCase().localeCompare(extname(b).toLowerCase(), 'en') ||
  basename(a).toLowerCase().localeCompare(basename(b).toLowerCase(), 'en') || a.localeCompare(b, 'en');
const out = mode === 'plain' ? strings.slice().sort((a, b) => a.localeCompare(b, 'en'))
  : mode === 'packlist' ? strings.slice().sort(packlist)
  : mode === 'ext' ? strings.map(s => extname(s))
  : [...strings.filter(up).sort(coll.compare), ...strings.filter(s => !up(s)).sort(coll.compare)];
process.stdout.write(JSON.stringify(out));
"""


def node(strings: list[str], mode: str) -> list[str]:
    done = subprocess.run(
        ["node", "-e", NODE_SORT],
        input=json.dumps({"strings": strings, "mode": mode}),
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=True,
    )
    return json.loads(done.stdout)


def test_ascii_rules() -> None:
    order = sorted(["b", "A", "a", "_", "-", "1", "B", " ", "~"], key=collation_key)
    assert order == [" ", "_", "-", "~", "1", "a", "A", "b", "B"]
    assert collation_key("aB") < collation_key("Ab")  # case decides only after every letter is equal
    assert collation_key("a\x01b") == collation_key("ab")  # most control characters are ignorable
    assert sort_listing(["a10", "a2", "B", "c"])[0] == ["B", "a2", "a10", "c"]


@pytest.mark.parametrize(
    ("path", "ext"), [("a.js", ".js"), (".hidden", ""), ("..", ""), ("a.", "."), ("x.d.ts", ".ts"), ("lib/.a.b", ".b")]
)
def test_extname_as_node(path: str, ext: str) -> None:
    assert extname(path) == ext


@pytest.mark.e2e
@needs_npm
def test_every_pair_of_ascii_characters_as_node() -> None:
    chars = [chr(c) for c in range(1, 128)]
    strings = [a + b for a in chars for b in chars]
    expected = node(strings, "plain")
    ours = sorted(strings, key=collation_key)
    # strings that differ only by ignorable characters compare equal, so compare keys position by position
    assert [collation_key(s) for s in ours] == [collation_key(s) for s in expected]


@pytest.mark.e2e
@needs_npm
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_paths_in_npm_orders(seed: int) -> None:
    rng = random.Random(seed)
    alphabet = string.ascii_letters + string.digits + " _-,;:!?.'\"()[]{}@*\\&#%`^+<=>|~$"
    paths = sorted(
        {
            "/".join("".join(rng.choice(alphabet) for _ in range(rng.randint(1, 7))) for _ in range(rng.randint(1, 3)))
            for _ in range(3000)
        }
    )
    assert sort_packlist(paths) == (node(paths, "packlist"), True)
    assert sort_listing(paths) == (node(paths, "listing"), True)
    assert [extname(p) for p in paths] == node(paths, "ext")


@pytest.mark.e2e
@needs_npm
def test_non_ascii_names_are_ordered_by_node() -> None:
    names = ["é.js", "e.js", "f.js", "中文.txt", "ß.md", "Ä.md", "a.md", "😀.js", "ñ/x.js", "n/x.js", "z.js"]
    assert sort_packlist(names) == (node(names, "packlist"), True)
    assert sort_listing(names) == (node(names, "listing"), True)


def test_non_ascii_fallback_without_node(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without node the order is approximate (and says so): accented letters sit beside their base letter."""
    monkeypatch.setattr(collate.shutil, "which", lambda _: None)
    order, exact = sort_packlist(["f.js", "é.js", "e.js", "中.js", "d.js"])
    assert (order, exact) == (["d.js", "e.js", "é.js", "f.js", "中.js"], False)
    assert sort_packlist(["b.js", "a.js"]) == (["a.js", "b.js"], True)
