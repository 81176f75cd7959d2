"""The list of files ``npm pack`` puts in a package's tarball (npm-packlist 10 over @npmcli/package-json)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from neuralis_build.pack.collate import sort_packlist
from neuralis_build.pack.fields import files_diagnostics, files_rules, js_string, js_truthy, normalize_bin
from neuralis_build.pack.rules import parse_rules
from neuralis_build.pack.walker import (
    DEFAULT,
    IGNORE_FILES,
    PACKAGE,
    STRICT,
    STRICT_DEFAULTS,
    Walker,
    WalkError,
    WalkTooDeep,
)
from neuralis_build.util.diagnostics import Diagnostic, code
from neuralis_build.util.errors import DiagnosedError
from neuralis_build.util.outdir import BUILD_LEFTOVERS

NB1716 = code("NB1716", "walk-failed", "a file npm would read while listing the package cannot be read")
NB1717 = code(
    "NB1717", "path-too-deep", "a file to pack sits deeper than 64 path segments or has a path or name too long"
)

ALWAYS = (
    "!/package.json",
    "!/readme{,.*[^~$]}",
    "!/copying{,.*[^~$]}",
    "!/license{,.*[^~$]}",
    "!/licence{,.*[^~$]}",
    "/.git",
    "/node_modules",
    ".npmrc",
    "/package-lock.json",
    "/yarn.lock",
    "/pnpm-lock.yaml",
    "/bun.lockb",
)

# Unlike npm, pack never ships what a killed `neuralis-build ui` left (util/outdir.py's BUILD_LEFTOVERS,
# the one list of its staging names), whatever ``files`` says: a strict rule, so nothing re-includes them.


def _process_package(root: Path, manifest: dict[str, Any]) -> Callable[[Walker], None]:
    """The root's reading of package.json: the ``files`` rule set and the strict set."""

    def process(walker: Walker) -> None:
        strict = [*STRICT_DEFAULTS, *ALWAYS, *BUILD_LEFTOVERS]
        files: Any = manifest.get("files")
        if js_truthy(files):
            problems = files_diagnostics(manifest)
            if problems:
                raise DiagnosedError("package.json files cannot be read as npm reads it", problems)
            package_rules, strict_files, required = files_rules(root, list(files))
            strict = strict_files + strict
            walker.required.extend(required)
            walker.rules[PACKAGE] = parse_rules("\n".join(package_rules))
        for key in ("browser", "main"):
            if js_truthy(manifest.get(key)):
                strict.append("!/" + js_string(manifest[key]))
        strict.extend("!/" + target for target in normalize_bin(manifest, root).values())
        walker.rules[STRICT] = parse_rules("\n".join(strict))

    return process


def walk_package(root: Path, manifest: dict[str, Any], outside: Sequence[str] = ()) -> set[str]:
    """Every file npm would pack, unsorted, as package-relative POSIX paths; ``outside`` are the ignore files
    npm reads above a workspace member (pack/workspace.py), applied as default rules."""
    walker = Walker(
        path=str(root),
        rel="",
        ignore_files=(DEFAULT, PACKAGE, *IGNORE_FILES, STRICT),
        on_package=_process_package(root, manifest),
        outside=outside,
    )
    result: set[str] = set()
    try:
        walker.walk(result)
    except WalkTooDeep as exc:
        d = Diagnostic(
            "error",
            NB1717.id,
            exc.path,
            "",
            f"{exc.path} {exc.reason}; the image refuses a tarball that holds it",
            "flatten the folders or shorten the names, or leave them out of the package (files, .npmignore)",
        )
        raise DiagnosedError(f"cannot list {exc.path}", [d]) from None
    except WalkError as exc:
        d = Diagnostic(
            "error",
            NB1716.id,
            exc.path,
            "",
            f"{exc.path}: {exc.reason}; {exc.npm}",
            "rename or remove the file, or exclude its folder",
        )
        raise DiagnosedError(f"cannot list {exc.path}", [d]) from None
    return result


def packlist_exact(root: Path, manifest: dict[str, Any], *, as_npm_pack: bool = False) -> tuple[list[str], bool]:
    """``packlist`` plus whether the order is exactly npm's (False only for non-ASCII names without node).

    ``as_npm_pack``: the list ``npm pack`` run in ``root`` gives, which reads a workspace root's ignore files
    when ``root`` is one of its workspaces (pack/workspace.py); the image lists staged tarballs without.
    """
    outside: Sequence[str] = ()
    if as_npm_pack:
        from neuralis_build.pack.workspace import outside_ignore_texts

        outside = outside_ignore_texts(Path(root))
    files = walk_package(Path(root), manifest, outside)
    # ignore-walk hands names that start with "@" to the sort as "./@…"
    mapped = {f"./{p}" if p.startswith("@") else p: p for p in files}
    order, exact = sort_packlist(mapped)
    return [mapped[p] for p in order], exact


def packlist(root: Path, manifest: dict[str, Any]) -> list[str]:
    """Package-relative POSIX paths in npm's tar order."""
    return packlist_exact(root, manifest)[0]
