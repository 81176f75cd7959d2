"""Which tsconfig governs the UI entry: the package's own, or, for a solution-style one, the referenced project.

Vite's templates write a root tsconfig.json with ``"files": []`` and ``references`` to
tsconfig.app.json (which holds ``paths`` and includes ``src``) and tsconfig.node.json. esbuild reads
only the root file, so the ``paths`` aliases would be lost; the build extends the referenced project
that includes the entry instead, as ``tsc -b`` would compile it.
"""

from __future__ import annotations

import fnmatch
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from neuralis_build.util.diagnostics import Diagnostic, code
from neuralis_build.util.errors import DiagnosedError

if TYPE_CHECKING:
    from typing import Any

NB1916 = code("NB1916", "ui-tsconfig", "the package's tsconfig cannot be read, or no project of it includes the entry")


def strip_jsonc(text: str) -> str:
    """JSON with comments and trailing commas (tsconfig's dialect) as plain JSON, positions kept."""
    out: list[str] = []
    i, n = 0, len(text)
    pending_comma = -1  # index in ``out`` of a comma that may turn out to be trailing
    while i < n:
        ch = text[i]
        if ch == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i : j + 1])
            i = j + 1
            pending_comma = -1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("".join(c if c == "\n" else " " for c in text[i:j]))
            i = j
        else:
            if ch in "}]" and pending_comma >= 0:
                out[pending_comma] = " "
            if ch == ",":
                pending_comma = len(out)
            elif not ch.isspace():
                pending_comma = -1
            out.append(ch)
            i += 1
    return "".join(out)


def read_tsconfig(path: Path) -> dict[str, Any]:
    from neuralis_build.util.limits import MAX_JSON_BYTES
    from neuralis_build.util.regularfile import TooLarge, read_regular
    from neuralis_build.util.strictjson import parse

    try:  # bounded: a tsconfig nested past Python's json recursion, or past the size cap, is refused
        data = parse(strip_jsonc(read_regular(path, limit=MAX_JSON_BYTES).decode("utf-8")))
    except TooLarge as exc:
        message, hint = f"{path.name} is {exc.strerror}; it was not read", "a tsconfig is a few KiB: fix the file"
        diagnostic = Diagnostic("error", NB1916.id, path.name, "", message, hint)
        raise DiagnosedError(f"{path.name} cannot be read", [diagnostic]) from None
    except (OSError, ValueError) as exc:
        raise DiagnosedError(
            f"{path.name} cannot be read",
            [Diagnostic("error", NB1916.id, path.name, "", f"{path.name} is not valid JSON: {exc}", "fix the file")],
        ) from None
    return data if isinstance(data, dict) else {}


def _includes(config_dir: Path, data: dict[str, Any], entry: Path) -> bool:
    """True when the project's ``files``/``include`` cover ``entry`` (TypeScript's default is everything)."""
    try:
        rel = entry.relative_to(config_dir).as_posix()
    except ValueError:
        return False
    files = data.get("files")
    include = data.get("include")
    if isinstance(files, list) and rel in {PurePosixPath(str(f)).as_posix().removeprefix("./") for f in files}:
        return True
    if include is None:
        return not isinstance(files, list)
    for pattern in include if isinstance(include, list) else []:
        p = str(pattern).removeprefix("./").rstrip("/")
        if not any(c in p for c in "*?") and (rel == p or rel.startswith(p + "/")):
            return True
        if fnmatch.fnmatch(rel, p) or fnmatch.fnmatch(rel, p.replace("**/", "")):
            return True
    return False


def governing_tsconfig(root: Path, entry_rel: str) -> Path | None:
    """The tsconfig that compiles ``entry_rel``: the package's, or the referenced project that includes it."""
    own = root / "tsconfig.json"
    if not own.is_file():
        return None
    data = read_tsconfig(own)
    refs = data.get("references")
    if not (data.get("files") == [] and isinstance(refs, list) and refs):
        return own
    entry = (root / entry_rel).resolve()
    tried = []
    for ref in refs:
        target = (root / str(ref.get("path", ""))) if isinstance(ref, dict) else None
        if target is None:
            continue
        config = target / "tsconfig.json" if target.is_dir() else target
        tried.append(config.relative_to(root).as_posix() if config.is_relative_to(root) else str(config))
        if config.is_file() and _includes(config.parent.resolve(), read_tsconfig(config), entry):
            return config
    shown = ", ".join(tried) or "none"
    first = tried[0] if tried else "tsconfig.app.json"
    raise DiagnosedError(
        "no project of the solution-style tsconfig.json includes the UI entry",
        [
            Diagnostic(
                "error",
                NB1916.id,
                "tsconfig.json",
                "/references",
                f'tsconfig.json has "files": [] and references {shown}, but none of them includes {entry_rel}',
                f'add "{PurePosixPath(entry_rel).parts[0]}" to "include" of {first}, or reference the project '
                "that compiles the UI",
            )
        ],
    )


def jsx_import_source(config: Path, _seen: frozenset[Path] = frozenset()) -> str | None:
    """The ``jsxImportSource`` a tsconfig sets, itself or through its ``extends`` chain (the last base that sets
    it, as TypeScript merges them); None when none does or a file in the chain cannot be read."""
    config = config.resolve()
    if config in _seen or len(_seen) > 16:
        return None
    try:
        data = read_tsconfig(config)
    except DiagnosedError:
        return None
    options = data.get("compilerOptions")
    own = options.get("jsxImportSource") if isinstance(options, dict) else None
    if isinstance(own, str) and own:
        return own
    bases = data.get("extends")
    found = None
    for base in [bases] if isinstance(bases, str) else bases if isinstance(bases, list) else []:
        path = _extended(config.parent, base) if isinstance(base, str) else None
        if path is not None:
            found = jsx_import_source(path, _seen | {config}) or found
    return found


def _extended(folder: Path, base: str) -> Path | None:
    """The file an ``extends`` entry names: a relative path, or a package's file under node_modules."""
    if base.startswith((".", "/")):
        candidate = (folder / base).resolve()
        options = [candidate, candidate.with_name(candidate.name + ".json")]
    else:
        options = []
        for parent in (folder, *folder.parents):
            target = parent / "node_modules" / base
            options += [target, target.with_name(target.name + ".json"), target / "tsconfig.json"]
    return next((o for o in options if o.is_file()), None)
