"""``python -m docsgen [--check]``: write the generated pages of docs/, or only list the stale ones (exit 1)."""

from __future__ import annotations

import sys

from docsgen.pages import stale, write


def main(argv: list[str]) -> int:
    if argv == ["--check"]:
        found = stale()
        for rel in found:
            print(f"stale: docs/{rel}")
        if found:
            print("run ./scripts/docs-gen and commit the pages it writes", file=sys.stderr)
        return 1 if found else 0
    if argv:
        print("usage: python -m docsgen [--check]", file=sys.stderr)
        return 2
    for rel in write():
        print(f"wrote docs/{rel}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
