"""What changed between two images: what a reviewer of a pull request that changes the image must read.

Both sides are image reports (``neuralis-image.json``, or the image folder that holds one). Packages
are compared by name across the whole installed tree (a package may be installed at several places,
so a side holds a set of versions per name); each added or changed package comes with the chain that
brings it in. Then: tool names whose owner changed or that became (or stopped being) contested, new
refusals, new install scripts and native modules with their load verdict, trust and licence changes,
new conflicts, and the size of the tree. A report made before a fact was recorded (sizes, tool
owners, load verdicts) simply yields no change for it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from neuralis_build.image.output.diffmodel import (
    ChangeKind,
    ImageDiff,
    PackageChange,
    Refusal,
    ScriptChange,
    Shift,
    SizeChange,
    ToolChange,
)
from neuralis_build.util.errors import UsageError
from neuralis_build.util.limits import MAX_LOCK_BYTES
from neuralis_build.util.regularfile import TooLarge, read_regular
from neuralis_build.util.strictjson import JSONRefused, describe, parse

REPORT = "neuralis-image.json"


def read_report(path: Path) -> dict[str, Any]:
    """An image report: the file itself, or ``neuralis-image.json`` in an image folder; a usage error otherwise."""
    target = path / REPORT if path.is_dir() else path
    try:  # a FIFO is refused, not waited on; a file past the cap, never read whole
        text = read_regular(target, limit=MAX_LOCK_BYTES).decode("utf-8")
    except FileNotFoundError:
        what = f"{path} holds no {REPORT}" if path.is_dir() else f"{path}: no such file"
        raise UsageError(what, hint="pass two image folders (--out of neuralis-build image) or two reports") from None
    except TooLarge as exc:
        raise UsageError(
            f"{target}: the image report is {exc.strerror}; it was not read",
            hint=f"pass the {REPORT} an image build wrote",
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{target}: cannot read the report ({exc})") from None
    try:
        data = parse(text)
    except JSONRefused as exc:
        raise UsageError(describe(exc.problems[0], str(target), text, "the image report")) from None
    if not isinstance(data, dict) or not isinstance(data.get("packages"), list):
        raise UsageError(f"{target}: not an image report (no packages list)", hint=f"pass a {REPORT}")
    return data


def _list(data: dict[str, Any], key: str) -> list[dict[str, Any]]:
    value = data.get(key)
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _chain(row: dict[str, Any]) -> tuple[str, ...]:
    chain = row.get("chain")
    return tuple(str(c) for c in chain) if isinstance(chain, list) else ()


def _version_key(version: str) -> tuple[Any, ...]:
    """Semver precedence (semantic_version, as npm orders versions); a version npm could not have installed
    (a report edited by hand) sorts before every valid one, by its text."""
    from semantic_version import Version  # type: ignore[import-untyped]

    try:
        return (1, Version(version), "")
    except ValueError:
        return (0, None, version)


def _by_name(report: dict[str, Any], key: str) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for row in _list(report, "closure"):
        value = row.get(key)
        if isinstance(row.get("name"), str) and isinstance(value, str):
            out.setdefault(row["name"], set()).add(value)
    return out


def _shortest_chain(report: dict[str, Any], name: str) -> tuple[str, ...]:
    chains = sorted((_chain(r) for r in _list(report, "closure") if r.get("name") == name), key=lambda c: (len(c), c))
    return chains[0] if chains else ()


def _packages(old: dict[str, Any], new: dict[str, Any]) -> list[PackageChange]:
    before, after = _by_name(old, "version"), _by_name(new, "version")
    out = []
    for name in sorted(before.keys() | after.keys()):
        a = tuple(sorted(before.get(name, ()), key=_version_key))
        b = tuple(sorted(after.get(name, ()), key=_version_key))
        if a == b:
            continue
        kind: ChangeKind
        if not a:
            kind = "added"
        elif not b:
            kind = "removed"
        elif max(b, key=_version_key) != max(a, key=_version_key):
            higher = _version_key(max(b, key=_version_key)) > _version_key(max(a, key=_version_key))
            kind = "upgraded" if higher else "downgraded"
        else:
            kind = "changed"  # another copy added or dropped beside the same newest version
        out.append(PackageChange(kind, name, a, b, _shortest_chain(new if b else old, name)))
    return out


def _owners(report: dict[str, Any]) -> tuple[dict[str, str], dict[str, tuple[str, ...]]]:
    owners = report.get("toolOwners")
    found = {str(k): str(v) for k, v in owners.items()} if isinstance(owners, dict) else {}
    contested = {}
    for row in _list(report, "tools"):
        if isinstance(row.get("name"), str):
            found.setdefault(row["name"], str(row.get("owner")))
            shadowed = row.get("shadowed")
            contested[row["name"]] = tuple(str(s) for s in shadowed) if isinstance(shadowed, list) else ()
    return found, contested


def _tools(old: dict[str, Any], new: dict[str, Any]) -> list[ToolChange]:
    (was, was_contested), (now, contested) = _owners(old), _owners(new)
    if "toolOwners" not in old or "toolOwners" not in new:  # only contested names are known on one side
        names = was_contested.keys() | contested.keys()
    else:
        names = was.keys() | now.keys()
    out = []
    for name in sorted(names):
        a, b = was.get(name), now.get(name)
        if a == b and (name in was_contested) == (name in contested):
            continue
        out.append(ToolChange(name, a, b, name in contested, name in was_contested, contested.get(name, ())))
    return out


def _key(row: dict[str, Any]) -> str:
    return str(row.get("name") or row.get("source"))


def _refusals(old: dict[str, Any], new: dict[str, Any]) -> tuple[list[Refusal], list[str]]:
    refused_before = {_key(r) for r in _list(old, "packages") if r.get("status") == "refused"}
    loaded_before = {_key(r) for r in _list(old, "packages") if r.get("status") != "refused"}
    out = []
    for row in _list(new, "packages"):
        if row.get("status") != "refused" or _key(row) in refused_before:
            continue
        first = next((d for d in _list(row, "diagnostics") if d.get("severity") == "error"), {})
        out.append(
            Refusal(_key(row), row.get("version"), str(row.get("source")), first.get("code"), first.get("message"))
        )
    # refused before (and not also loaded under that name), loaded now: a fix the reviewer sees too
    admitted = {_key(r) for r in _list(new, "packages") if r.get("status") != "refused" and _key(r) in refused_before}
    return out, sorted(admitted - loaded_before)


def _scripts(old: dict[str, Any], new: dict[str, Any]) -> list[ScriptChange]:
    before = {(str(r.get("name")), str(r.get("version"))): r for r in _list(old, "scripts")}
    out = []
    for row in _list(new, "scripts"):
        key = (str(row.get("name")), str(row.get("version")))
        load = row.get("load") if isinstance(row.get("load"), dict) else None
        was_row = before.get(key)
        was = was_row.get("load") if was_row is not None and isinstance(was_row.get("load"), dict) else None
        if was_row is not None and (load is None or was is None or load.get("status") == was.get("status")):
            continue  # the same package with the same verdict (or a report that had none): nothing to review
        scripts = row.get("scripts")
        out.append(
            ScriptChange(
                key[0],
                key[1],
                str(row.get("path")),
                {str(k): str(v) for k, v in scripts.items()} if isinstance(scripts, dict) else {},
                load,
                was,
            )
        )
    return out


def _shifts(old: dict[str, Any], new: dict[str, Any], key: str) -> list[Shift]:
    before, after = _by_name(old, key), _by_name(new, key)
    return [
        Shift(name, tuple(sorted(before[name])), tuple(sorted(after[name])))
        for name in sorted(before.keys() & after.keys())
        if before[name] != after[name]
    ]


def _conflicts(old: dict[str, Any], new: dict[str, Any]) -> list[dict[str, Any]]:
    seen = {(c.get("kind"), c.get("message")) for c in _list(old, "conflicts")}
    return [c for c in _list(new, "conflicts") if (c.get("kind"), c.get("message")) not in seen]


def _sizes(report: dict[str, Any]) -> dict[str, int]:
    out: dict[str, int] = {}
    for row in _list(report, "closure"):
        size = row.get("size")
        if isinstance(size, dict) and isinstance(size.get("bytes"), int) and isinstance(row.get("name"), str):
            out[row["name"]] = out.get(row["name"], 0) + size["bytes"]
    return out


def _size(old: dict[str, Any], new: dict[str, Any]) -> SizeChange:
    def total(report: dict[str, Any]) -> dict[str, int] | None:
        size = report.get("size")
        if not isinstance(size, dict):
            return None
        return {k: v for k, v in size.items() if isinstance(k, str) and isinstance(v, int)}

    before, after = _sizes(old), _sizes(new)
    moved = [(n, before.get(n, 0), after.get(n, 0)) for n in before.keys() | after.keys()]
    movers = sorted((m for m in moved if m[1] != m[2]), key=lambda m: (-abs(m[2] - m[1]), m[0]))[:10]
    return SizeChange(total(old), total(new), tuple(movers))


def diff_reports(old: dict[str, Any], new: dict[str, Any], old_name: str = "old", new_name: str = "new") -> ImageDiff:
    """Everything that changed from the image report ``old`` to ``new``."""
    refusals, admitted = _refusals(old, new)
    return ImageDiff(
        old=old_name,
        new=new_name,
        packages=_packages(old, new),
        tools=_tools(old, new),
        refusals=refusals,
        admitted=admitted,
        scripts=_scripts(old, new),
        trust=_shifts(old, new, "trust"),
        licenses=_shifts(old, new, "license"),
        conflicts=_conflicts(old, new),
        size=_size(old, new),
    )


def diff_images(old: Path, new: Path) -> ImageDiff:
    """Read two reports (or image folders) and compare them."""
    return diff_reports(read_report(old), read_report(new), str(old), str(new))
