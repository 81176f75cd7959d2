"""npm's range semantics through semantic_version (npm/ranges.py), held to node-semver on every case we use."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from neuralis_build.npm.ranges import meeting_version, satisfies
from tests.conftest import requires_node

SATISFIES = [
    ("1.6.0", "1.6.0"),
    ("1.6.1", "1.6.0"),
    ("1.6.1", "^1.6.0"),
    ("2.0.0", "^1.6.0"),
    ("0.2.9", "^0.2.3"),
    ("0.3.0", "^0.2.3"),
    ("0.0.4", "^0.0.3"),
    ("20.20.2", ">=18"),
    ("20.20.2", ">= 10"),
    ("20.20.2", "^22 || >=24"),
    ("20.20.2", "^18.18.0 || ^20.9.0 || >=21.1.0"),
    ("20.20.2", ">=20.19.0 <21 || >=22.12.0"),
    ("22.11.0", ">=20.19.0 <21 || >=22.12.0"),
    ("20.20.2", "14 - 22"),
    ("23.0.0", "14 - 22"),
    ("1.2.3", "1.x"),
    ("1.2.3", "~1.2"),
    ("1.3.0", "~1.2"),
    ("1.2.3", "*"),
    ("1.2.3", ""),
    ("1.2.4-rc.1", "^1.2.3"),
    ("1.2.3-rc.2", ">=1.2.3-rc.1"),
]

MEET = [
    ("1.6.0", "^1.6.0"),
    ("^1.0.0", "^2.0.0"),
    (">1.2.3", "<1.2.5"),
    (">1.2.3", "<1.2.4"),
    ("~1.0.0", ">=1.0.0 <1.0.1"),
    ("2.6.9", "^4.0.0"),
    ("^0.2.3", "0.2.x"),
    ("^0.0.3", "0.0.4"),
    ("^1.2.0 || ^2.1.0", "~2.1.5"),
    (">=2 <3", "1.x || 3.x"),
    ("*", "^9.9.9"),
]

# Do two ranges meet? node-semver's intersects() answers for real intervals (">1.2.3" and "<1.2.4" meet
# there), so the truth is asked of satisfies() itself, over every version of a grid wide enough for the cases.
NODE = r"""
const semver = require(process.argv[1]);
const cases = JSON.parse(require("fs").readFileSync(0, "utf8"));
const grid = [];
for (let a = 0; a <= 12; a++) for (let b = 0; b <= 12; b++) for (let c = 0; c <= 12; c++) grid.push(`${a}.${b}.${c}`);
process.stdout.write(JSON.stringify({
  satisfies: cases.satisfies.map(([v, r]) => semver.satisfies(v, r)),
  meet: cases.meet.map(([a, b]) => grid.some((v) => semver.satisfies(v, a) && semver.satisfies(v, b))),
  witness: cases.witness.map(([v, a, b]) => semver.satisfies(v, a) && semver.satisfies(v, b)),
}));
"""


def npm_semver() -> str:
    npm = shutil.which("npm")
    assert npm is not None
    return str(Path(os.path.realpath(npm)).parent.parent / "node_modules" / "semver")


@requires_node
def test_our_answers_are_node_semver_s() -> None:
    witnesses = [(meeting_version([a, b]), a, b) for a, b in MEET]
    found = [(w, a, b) for w, a, b in witnesses if w is not None]
    payload = json.dumps({"satisfies": SATISFIES, "meet": MEET, "witness": found})
    done = subprocess.run(["node", "-e", NODE, npm_semver()], input=payload, capture_output=True, text=True, check=True)
    node = json.loads(done.stdout)
    assert [satisfies(v, r) for v, r in SATISFIES] == node["satisfies"]
    assert [w is not None for w, _, _ in witnesses] == node["meet"]
    assert node["witness"] == [True] * len(found)  # each witness satisfies both ranges, by node-semver


def test_the_witness_is_a_version_every_range_admits() -> None:
    assert meeting_version(["1.6.0", "^1.6.0"], ["1.6.1", "1.6.0"]) == "1.6.0"
    assert meeting_version([">1.2.3", "<1.2.5"]) == "1.2.4"
    assert meeting_version(["^1.0.0", "^2.0.0"]) is None


def test_what_cannot_be_read_is_no_answer() -> None:
    assert satisfies("1.0.0", "latest") is None
    assert satisfies("not-a-version", "^1") is None
    with pytest.raises(ValueError):
        meeting_version(["latest", "^1.0.0"])
