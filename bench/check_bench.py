"""How many manifests per second `check` validates in one process.

Copies the example packages into a scratch folder until there are N of them (1,000 by default),
each with its own name, then checks every one in one process and prints the rate. A second row
checks one manifest with E errors (8,000 dock entries opening a widget nobody declares) and with
2E: the time must grow with the number of errors, not its square. Not a test: it never fails on a
timing; compare its numbers across changes.

    .venv/bin/python bench/check_bench.py [--count 1000] [--rounds 3] [--errors 8000]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from neuralis_build.check import check_path  # noqa: E402
from neuralis_build.hostprofile import default_host_profile  # noqa: E402


def examples() -> list[Path]:
    return sorted(p for p in (REPO / "example-packages").iterdir() if (p / "package.json").is_file())


def make_corpus(dest: Path, count: int) -> list[Path]:
    sources = examples()
    roots = []
    for i in range(count):
        src = sources[i % len(sources)]
        root = dest / f"pkg{i:04d}"
        shutil.copytree(src, root, ignore=shutil.ignore_patterns("node_modules"))
        data = json.loads((root / "package.json").read_text("utf-8"))
        old, data["name"] = data["name"], f"{data['name']}-{i}"
        block = data.get("neuralis")
        if isinstance(block, dict):
            if "id" in block:
                block["id"] = data["name"]
            module = block.get("app", {}).get("module", {})
            if "provides" in module:  # published ids are subpaths of the package's own name
                module["provides"] = [p.replace(old, data["name"], 1) for p in module["provides"]]
        (root / "package.json").write_text(json.dumps(data, indent=2), "utf-8")
        roots.append(root)
    return roots


def many_errors(dest: Path, errors: int) -> Path:
    """A package whose every dock entry opens an undeclared widget: ``errors`` located errors."""
    surfaces = [
        {"kind": "dock", "id": f"d{i}", "label": "Open", "action": {"type": "open-widget", "widget": "nowhere"}}
        for i in range(errors)
    ]
    manifest = {"name": f"errors-{errors}", "version": "1.0.0", "neuralis": {"app": {"surfaces": surfaces}}}
    root = dest / f"errors-{errors}"
    root.mkdir()
    (root / "package.json").write_text(json.dumps(manifest, indent=2), "utf-8")
    return root


def time_errors(dest: Path, errors: int, host: Any) -> float:
    root = many_errors(dest, errors)
    start = time.perf_counter()
    result = check_path(root, "first-party", host)
    elapsed = time.perf_counter() - start
    assert len(result.diagnostics) == errors
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--errors", type=int, default=8000)
    args = parser.parse_args()
    host = default_host_profile()
    with tempfile.TemporaryDirectory() as tmp:
        roots = make_corpus(Path(tmp), args.count)
        rates = []
        for _ in range(args.rounds):
            start = time.perf_counter()
            errors = sum(0 if check_path(r, "first-party", host).ok else 1 for r in roots)
            elapsed = time.perf_counter() - start
            rates.append(len(roots) / elapsed)
        print(f"check: {len(roots)} manifests from {len(examples())} examples, {errors} rejected")
        print(
            f"check: median {statistics.median(rates):,.0f} manifests/s over {args.rounds} rounds "
            f"(min {min(rates):,.0f}, max {max(rates):,.0f})"
        )
        one = time_errors(Path(tmp), args.errors, host)
        two = time_errors(Path(tmp), 2 * args.errors, host)
        print(
            f"check: one manifest with {args.errors:,} errors in {one:.2f} s, with {2 * args.errors:,} in "
            f"{two:.2f} s (ratio {two / one:.2f}; 2 is linear, 4 quadratic)"
        )


if __name__ == "__main__":
    main()
