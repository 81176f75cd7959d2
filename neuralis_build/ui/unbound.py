"""Named imports and re-exports of a name the target does not export (NB1925): refused, never dropped.

In a JavaScript file esbuild refuses such an import ("No matching export"). In a TypeScript file it
cannot tell a type from a value, so a name that a TypeScript file re-exports (``export { X } from
"./a"``, or an imported ``X`` exported again) and that the target does not export is taken for a type
and dropped: the bundle then reads an unbound ``X``, and the module throws "X is not defined" where it
uses it (svgr's ``ReactComponent`` of an SVG, a renamed function behind a barrel file). TypeScript's
own erasure is not the problem: an import used only as a type is gone before esbuild links anything.

The check hands the same sources to esbuild as JavaScript, so that esbuild's own export resolution
(CommonJS exports read at run time, ``export *``, re-export chains, JSON keys, CSS-module classes,
externals never judged) names every missing name:

1. each of the package's own scripts (not node_modules) is transformed by esbuild, types erased as in
   the build, and each of its imports is pointed at the very file the build resolved it to (the
   metafile's record, keyed by the specifier as written);
2. the copies are bundled, installed packages external but for the files a re-export names: esbuild
   reports each missing name where the copy names it;
3. a missing name may still be a type (in a ``.d.ts``) that every importer uses in type positions
   only: each is taken out of its copy, an import's local name bound to a marker call that tree
   shaking keeps only when the name is used as a value, and the copies bundled again, rooted at the
   module's real exports. Whoever imported a name taken out is now reported in turn (a barrel of a
   barrel; a type-only import was erased and is not), until esbuild links them all; the markers it
   kept, and the names it says a namespace reads, are the uses as a value.

A missing name used as a value is refused at its file, line and column; so is one the entry exports
as the install function, or from a file that cannot hold a type (an asset, a stylesheet, JSON). Only
a package with a TypeScript file that may re-export (an ``export {``) pays for the check; when esbuild
stops for another reason (a source the copies cannot resolve), it finds nothing rather than guess.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from neuralis_build.util.diagnostics import Diagnostic, code

if TYPE_CHECKING:
    from typing import Any

    from neuralis_build.esbuild.runner import EsbuildRunner, Message
    from neuralis_build.ui.env import Mode

NB1925 = code("NB1925", "ui-missing-export", "an import or re-export names a binding its target does not export")

SCRIPTS = (".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")
TYPESCRIPT = (".ts", ".tsx", ".mts", ".cts")
STYLESHEETS = (".css", ".scss", ".sass", ".less")
# A trigger, never a verdict: a TypeScript file without "export {" cannot re-export a name by itself.
_MAY_REEXPORT = re.compile(r"\bexport\s*(?:type\s*)?\{")
_MARKER = "__neuralis_live_"
_IDENT = re.compile(r"[A-Za-z_$][\w$]*")


@dataclass(frozen=True, slots=True)
class Copy:
    """One of the package's scripts transformed to JavaScript for the check: where, and from which input."""

    source: str  # the input as the build's metafile names it (package-relative)
    path: Path  # the copy in the check's folder


@dataclass(frozen=True, slots=True)
class Missing:
    """An import or re-export esbuild found missing: where the copy names it (1-based, stable: the check's edits
    blank text, never move it), the name, the input it was looked up in, and the names the copy exports it as."""

    copy: Copy
    line: int
    column: int
    name: str
    target: str  # the input (package-relative when inside), a copy standing for its source
    exported: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Unbound:
    """What the check found: each missing name, the ones the module uses as a value, and what each stood for."""

    missing: tuple[Missing, ...]
    used: frozenset[int]  # indices into ``missing``
    parents: dict[int, tuple[int, ...]]  # a name missing only because another one is: its sources


def candidates(root: Path, meta: Mapping[str, Any]) -> list[str]:
    """The package's own TypeScript inputs that may re-export a name (the check runs only when there is one)."""
    found = []
    for source in own_scripts(meta):
        if source.endswith(TYPESCRIPT):
            try:
                text = (root / source).read_text("utf-8", errors="replace")
            except OSError:
                continue
            if _MAY_REEXPORT.search(text):
                found.append(source)
    return found


def own_scripts(meta: Mapping[str, Any]) -> list[str]:
    """The package's own scripts among the build's inputs: the files a TypeScript re-export can be in."""
    return sorted(
        p
        for p in meta.get("inputs", {})
        if p.endswith(SCRIPTS) and not p.endswith(".d.ts") and "node_modules/" not in p and ":" not in p
    )


def unbound_imports(
    root: Path,
    meta: Mapping[str, Any],
    entry: str,
    exports: Sequence[str],
    esbuild: EsbuildRunner,
    *,
    mode: Mode,
    minify: bool,
) -> list[Diagnostic]:
    """NB1925 for each name a TypeScript re-export leaves unbound and the module uses as a value."""
    mayreexport = candidates(root, meta)
    if not mayreexport:
        return []
    from neuralis_build.util import outdir as folders

    folder = folders.staging_dir(root / folders.DIST, folders.UI_STAGING)
    try:
        check = _Check(root, meta, entry, esbuild, folder, mode, minify)
        copies = check.transform()
        if copies is None or entry not in copies:
            return []
        check.point_imports(copies, set(mayreexport))
        found = check.judge(copies, exports)
        refused = [] if found is None else [_diagnostic(root, found, i) for i in _refused(found, entry)]
        return sorted(refused, key=lambda d: (d.file, d.line or 0, d.column or 0))
    finally:
        folders.remove(folder)  # after the diagnostics: each is located through its copy's map


class _Check:
    """The check's esbuild runs, in a staged folder beside the build's."""

    def __init__(
        self,
        root: Path,
        meta: Mapping[str, Any],
        entry: str,
        esbuild: EsbuildRunner,
        folder: Path,
        mode: Mode,
        minify: bool,
    ) -> None:
        self.root, self.meta, self.entry, self.esbuild = root, meta, entry, esbuild
        self.mode, self.minify = mode, minify
        self.folder = folder.resolve()  # esbuild prints resolved paths: the copies are found by them
        self.installed: dict[Path, dict[str, str]] = {}  # copy → installed file it imports → the specifier

    def run(self, args: Sequence[str]) -> tuple[int, list[Message]]:
        from neuralis_build.esbuild.runner import parse_messages
        from neuralis_build.ui.driver import LOG_FLAGS

        done = self.esbuild.run([*args, *LOG_FLAGS], self.root)
        return done.returncode, parse_messages(done.stderr)

    def transform(self) -> dict[str, Copy] | None:
        """Every own script transformed (types erased, JSX compiled, with its map), or None when esbuild cannot."""
        from neuralis_build.ui.driver import write_tsconfig

        sources = own_scripts(self.meta)
        tsconfig = write_tsconfig(self.root, self.folder, self.entry)
        here = self.root.resolve()
        named = [f"m{i}={os.path.normpath(here / s)}" for i, s in enumerate(sources)]
        args = [*named, f"--outdir={self.folder}", "--sourcemap=external", "--jsx=automatic", f"--tsconfig={tsconfig}"]
        returncode, _ = self.run(args)
        if returncode != 0:
            return None
        return {s: Copy(s, self.folder / f"m{i}.js") for i, s in enumerate(sources)}

    def point_imports(self, copies: Mapping[str, Copy], mayreexport: set[str]) -> None:
        """Point each copy's imports at the file the build resolved them to: a copy, or the input itself.

        A package import of a copy that cannot re-export stays as written, left external: only what a
        re-export names needs esbuild to read its exports. A specifier is replaced where esbuild printed
        it, as a double-quoted string; the same string elsewhere in the copy only changes a value no one
        runs.
        """
        inputs: Mapping[str, Any] = self.meta.get("inputs", {})
        here = self.root.resolve()
        for source, copy in copies.items():
            table: dict[str, str] = {}
            for record in inputs.get(source, {}).get("imports", []):
                original, path = record.get("original"), record.get("path")
                if not original or not path or record.get("external") or ":" in path:
                    continue
                bare = not original.startswith((".", "/"))
                if path in copies:
                    table[original] = str(copies[path].path)
                elif "node_modules/" not in path or not bare:
                    table[original] = os.path.normpath(here / path)
                elif source in mayreexport:  # read in the first bundle only: what the re-exports name
                    table[original] = os.path.normpath(here / path)
                    self.installed.setdefault(copy.path, {})[table[original]] = original
            if table:
                text = copy.path.read_text("utf-8")
                copy.path.write_text(_replace_specifiers(text, table), "utf-8")

    def bundle_args(self, entry: Path, out: str) -> list[str]:
        from neuralis_build.ui.assets import loader_args
        from neuralis_build.ui.env import define_args

        # stylesheets are never judged but CSS modules (esbuild's own loader gives their classes)
        styles = [f"--loader:{ext}=empty" for ext in STYLESHEETS]
        return [
            str(entry),
            "--bundle",
            "--format=esm",
            "--platform=browser",
            "--packages=external",
            f"--outdir={self.folder / out}",
            *loader_args(),
            *styles,
            "--loader:.module.css=local-css",
            *define_args(self.mode),
            *(["--minify-syntax"] if self.minify else []),  # tree shaking as the build's
        ]

    def judge(self, copies: Mapping[str, Copy], exports: Sequence[str]) -> Unbound | None:
        """Bundle the copies until esbuild links them, taking out each missing name it reports, then read which
        names the module uses as a value; None when esbuild stops for another reason (no verdict, no guess).

        A name taken out of a copy goes missing for whoever imports it from there: esbuild then reports that
        import (its parent is the first), unless it was an import used only as a type, which TypeScript erased.
        An import taken out is bound to a marker call, which tree shaking keeps only when the name is used as a
        value; a namespace's property read of a name taken out is one too (esbuild warns it is undefined).
        """
        from neuralis_build.ui.driver import NO_EXPORT

        by_path = {str(c.path.resolve()): c for c in copies.values()}
        entry = copies[self.entry]
        roots = self.folder / "roots.js"  # what the host can reach: the module's exports that esbuild kept
        unreached: set[str] = set()  # exports the metafile lists and esbuild dropped (as types)
        missing: list[Missing] = []
        seen: set[tuple[str, int, int]] = set()
        reads: set[tuple[str, str]] = set()  # (target, name) read off a namespace
        for attempt in range(MAX_ROUNDS):
            unreached |= {e for m in missing if m.copy == entry for e in m.exported}
            known = len(unreached)
            roots.write_text(_roots(entry.path, [e for e in exports if e not in unreached]), "utf-8")
            returncode, messages = self.run(self.bundle_args(roots, f"round{attempt}"))
            reads |= _namespace_reads(messages, by_path, self.original)
            if returncode == 0:
                return self._found(missing, reads, attempt)
            new: list[Missing] = []
            for m in (m for m in messages if m.severity == "error"):
                hit = re.match(NO_EXPORT, m.text)
                if hit is not None and m.file and Path(m.file).resolve() == roots.resolve():
                    unreached.add(hit["name"])  # an export the entry's copy lacks altogether: never reached
                    continue
                copy = by_path.get(str(Path(m.file).resolve())) if m.file else None
                if hit is None or copy is None or m.line is None or m.column is None:
                    return None
                if (copy.source, m.line, m.column) not in seen:
                    seen.add((copy.source, m.line, m.column))
                    new.append(Missing(copy, m.line, m.column, hit["name"], self.original(hit["file"], by_path)))
            if not new and len(unreached) == known:
                return None
            if not new:
                continue
            taken = self._take_out(new, len(missing))
            if taken is None:
                return None
            missing += taken
            self._leave_packages_out()
        return None

    def _leave_packages_out(self) -> None:
        """After the first bundle, installed packages are external again: what their re-exports name is known,
        and the next bundles only follow the copies (a barrel of recharts names costs recharts' files once)."""
        for path, table in self.installed.items():
            path.write_text(_replace_specifiers(path.read_text("utf-8"), table), "utf-8")
        self.installed = {}

    def _take_out(self, new: Sequence[Missing], first: int) -> list[Missing] | None:
        """Blank each new missing name in its copy (an import's local name bound to marker ``first + i``)."""
        by_copy: dict[Path, list[tuple[int, Missing]]] = {}
        for i, m in enumerate(new):
            by_copy.setdefault(m.copy.path, []).append((first + i, m))
        taken: dict[int, Missing] = {}
        for path, found in by_copy.items():
            result = _take_out(path.read_text("utf-8"), found)
            if result is None:
                return None
            text, exported = result
            path.write_text(text, "utf-8")
            for k, m in found:
                taken[k] = Missing(m.copy, m.line, m.column, m.name, m.target, exported.get(k, ()))
        return [taken[first + i] for i in range(len(new))]

    def _found(self, missing: Sequence[Missing], reads: set[tuple[str, str]], rounds: int) -> Unbound:
        out = self.folder / f"round{rounds}" / "roots.js"
        kept = {int(n) for n in re.findall(rf"{_MARKER}(\d+)\(", out.read_text("utf-8"))} if out.is_file() else set()
        exported_by: dict[tuple[str, str], list[int]] = {}
        for i, m in enumerate(missing):
            for e in m.exported:
                exported_by.setdefault((m.copy.source, e), []).append(i)
        parents = {i: tuple(exported_by.get((m.target, m.name), ())) for i, m in enumerate(missing)}
        used = set(kept)
        used |= {i for key in reads for i in exported_by.get(key, ())}
        for i in sorted(used):  # a use of a name missing because another is: a use of that one too
            stack = [i]
            while stack:
                for p in parents.get(stack.pop(), ()):
                    if p not in used:
                        used.add(p)
                        stack.append(p)
        return Unbound(tuple(missing), frozenset(used), {i: p for i, p in parents.items() if p})

    def original(self, printed: str, by_path: Mapping[str, Copy]) -> str:
        """The input esbuild printed a path of (a copy stands for its source), package-relative when inside."""
        from neuralis_build.ui.driver import relative

        path = Path(self.root, printed).resolve()
        copy = by_path.get(str(path))
        return copy.source if copy is not None else relative(str(path), self.root)


MAX_ROUNDS = 20
"""Bundles of the copies at most: one, and one more for each barrel a missing name passes through."""

_UNDEFINED = (
    r'^Import "(?P<name>[^"]+)" will always be undefined because there is no matching export in "(?P<file>[^"]+)"'
)


def _namespace_reads(
    messages: Sequence[Message], by_path: Mapping[str, Copy], original: Callable[[str, Mapping[str, Copy]], str]
) -> set[tuple[str, str]]:
    """(target, name) of each property read of a missing name off a namespace, in a copy: a value use."""
    found = set()
    for m in messages:
        hit = re.match(_UNDEFINED, m.text) if m.severity == "warning" and m.file else None
        if hit is not None and str(Path(m.file or "").resolve()) in by_path:
            found.add((original(hit["file"], by_path), hit["name"]))
    return found


def _replace_specifiers(text: str, table: Mapping[str, str]) -> str:
    quoted = {json.dumps(old): json.dumps(new) for old, new in table.items()}
    pattern = re.compile("|".join(re.escape(q) for q in sorted(quoted, key=len, reverse=True)))
    return pattern.sub(lambda m: quoted[m.group(0)], text)


def _take_out(text: str, found: Sequence[tuple[int, Missing]]) -> tuple[str, dict[int, tuple[str, ...]]] | None:
    """``text`` with each missing name blanked out of its clause, and the names the copy exported each as.

    esbuild's transform prints an import as ``import D, { a, b as c } from "x"`` and a re-export as
    ``export { a, b as c } from "x"`` or as an import and an ``export { … };`` clause, and reports the
    imported name's position; None when the text there is not such a name. An import's local name is
    taken out of the export clauses too and bound to a marker call. Blanking (spaces for the text, its
    line breaks kept) leaves every other position where esbuild and the copy's map have it.
    """
    from neuralis_build.ui.sourcemap import line_starts

    starts = line_starts(text)
    spans: list[tuple[int, int]] = []
    markers = []
    exported: dict[int, tuple[str, ...]] = {}
    for k, m in found:
        item = _clause_item(text, starts[m.line - 1] + m.column - 1)
        if item is None:
            return None
        start, end, local, reexport = item
        spans.append((start, end))
        if reexport:  # "export { a as b } from": the copy stops exporting b
            exported[k] = (local.strip('"'),)
            continue
        clause = _export_clause_items(text, local)
        spans += [(s, e) for s, e, _ in clause]
        exported[k] = tuple(name for _, _, name in clause)
        markers.append(f"var {local} = /* @__PURE__ */ {_MARKER}{k}();")
    for start, end in spans:
        text = text[:start] + re.sub(r"[^\n]", " ", text[start:end]) + text[end:]
    return text + "\n" + "\n".join(markers) + "\n", exported


def _clause_item(text: str, at: int) -> tuple[int, int, str, bool] | None:
    """The span to blank for the clause item at ``at`` (its name, ``as`` and the comma after), its local name
    (for ``export { … } from``, the name exported), and whether the clause is such a re-export."""
    name = _name_at(text, at)
    if name is None:
        return None
    end = at + len(name)
    before = text[:at].rstrip()
    if before.endswith("import"):  # a default import: "import D from" or "import D, {"
        rest = re.compile(r"\s*,\s*|\s+from\b").match(text, end)
        if rest is None:
            return None
        return at, rest.end(), name, False  # "import D from" blanked to "import" before the string: "import "x""
    if not before.endswith(("{", ",")):
        return None
    alias = re.compile(r"\s+as\s+([A-Za-z_$][\w$]*|\"[^\"]*\")").match(text, end)
    local = alias[1] if alias else name
    end = alias.end() if alias else end
    reexport = text[: text.rfind("{", 0, at)].rstrip().endswith("export")
    comma = re.compile(r"\s*,\s*").match(text, end)  # a comma left before "}" is valid: "{ a, }"
    return at, comma.end() if comma else end, local, reexport


def _export_clause_items(text: str, local: str) -> list[tuple[int, int, str]]:
    """The items of esbuild's ``export { … };`` clauses that export ``local``: (start, end, name exported)."""
    found = []
    for clause in re.finditer(r"(?m)^export\s*\{([^}]*)\}\s*;", text):
        for item in re.finditer(r'([A-Za-z_$][\w$]*)(?:\s+as\s+([A-Za-z_$][\w$]*|"[^"]*"))?\s*,?', clause[1]):
            if item[1] == local:
                name = (item[2] or item[1]).strip('"')
                found.append((clause.start(1) + item.start(), clause.start(1) + item.end(), name))
    return found


def _name_at(text: str, at: int) -> str | None:
    if text.startswith('"', at):
        close = text.find('"', at + 1)
        return text[at : close + 1] if close > at else None
    ident = _IDENT.match(text, at)
    return ident[0] if ident else None


def _roots(entry: Path, exports: Sequence[str]) -> str:
    """A module re-exporting the given exports of the entry's copy: what the host can reach, and nothing else."""
    if not exports:
        return f"import {json.dumps(str(entry))};\n"
    names = ", ".join(e if _IDENT.fullmatch(e) else json.dumps(e) for e in exports)
    return f"export {{ {names} }} from {json.dumps(str(entry))};\n"


def _refused(found: Unbound, entry: str) -> list[int]:
    """The missing names to refuse: each first cause (not missing only because another is) that is used as a
    value; or that the entry exports as the install function the host calls, or from a file that cannot hold
    a type (an asset, a stylesheet, JSON): the module would lack the export, and no type explains it."""
    from neuralis_build.record.verdict import INSTALL_EXPORT

    def exported_by_entry(m: Missing) -> bool:
        return m.copy.source == entry and bool(m.exported)

    def no_type_can_explain(m: Missing) -> bool:
        return not m.target.endswith(SCRIPTS) or any(INSTALL_EXPORT.match(e) for e in m.exported)

    return [
        i
        for i, m in enumerate(found.missing)
        if i not in found.parents and (i in found.used or (exported_by_entry(m) and no_type_can_explain(m)))
    ]


def _diagnostic(root: Path, found: Unbound, i: int) -> Diagnostic:
    m = found.missing[i]
    line, column = _located(root, m)
    effect = "throw a ReferenceError where it uses it" if i in found.used else "not export it"
    at = m.target.find("node_modules/")
    shown = m.target[at:] if at > 0 else m.target  # an installed file, as the package's folder shows it
    message = (
        f'{shown} does not export "{m.name}": esbuild takes a name a TypeScript file re-exports and cannot '
        f"find for a type, and drops it, so the module would {effect}"
    )
    hint = missing_export_hint(m.target, m.name, root)
    return Diagnostic("error", NB1925.id, m.copy.source, "", message, hint, line, column)


def _located(root: Path, m: Missing) -> tuple[int | None, int | None]:
    """The position in the author's file: the copy's map gives the line; the name itself gives the column."""
    from neuralis_build.ui.sourcemap import SourceMap

    map_path = m.copy.path.with_name(m.copy.path.name + ".map")
    try:
        origin = SourceMap(json.loads(map_path.read_text("utf-8"))).origin(m.line - 1, m.column - 1)
        lines = (root / m.copy.source).read_text("utf-8").splitlines()
    except (OSError, ValueError):
        return None, None
    if origin is None or origin.line >= len(lines):
        return None, None
    text = lines[origin.line]
    name = m.name if _IDENT.fullmatch(m.name) else json.dumps(m.name)
    hits = [h.start() for h in re.finditer(rf"(?<![\w$]){re.escape(name)}(?![\w$])", text)]
    column = min(hits, key=lambda h: abs(h - origin.column)) if hits else origin.column
    return origin.line + 1, column + 1


def missing_export_hint(file: str, name: str, root: Path) -> str:
    """What to do about an import of a name ``file`` does not export (its kind says why it has none)."""
    from neuralis_build.ui.assets import MIME_TYPES

    ext = os.path.splitext(file)[1].lower()
    if ext == ".svg":
        return (
            'this build gives an SVG one export, the default: its URL (import logo from "./logo.svg", then '
            "<img src={logo} />); it does not run SVGR, so there is no ReactComponent: write the SVG as a React "
            "component in a .tsx file to render it inline"
        )
    if ext in MIME_TYPES:
        return f"{file} is an asset: its one export is the default, its URL (import url from it, by default)"
    if file.endswith(".module.css"):
        return (
            f'{file} has no class "{name}": a CSS module exports each class under its name as written '
            '(case-sensitive, and a dashed one as styles["my-class"])'
        )
    if ext == ".json":
        return f'{file} has no top-level key "{name}": import the default to read the whole value'
    return _script_hint(file, name, root)


def _script_hint(file: str, name: str, root: Path) -> str:
    """A script's missing export: a name to check, or a library's API that changed with its version."""
    from neuralis_build.npm.packagejson import read_package_json
    from neuralis_build.ui.graph import package_of

    what = "no default export" if name == "default" else f'no export named "{name}"'
    package = package_of(file)
    if package is None:
        return f"{file} has {what}: check the name (exports are case-sensitive), or export it from that file"
    installed_at = root / (file[: file.rfind("node_modules/")] + "node_modules/" + package)
    version = read_package_json(installed_at).npm.version  # the version really installed
    installed = f"{package}@{version}" if version is not None else package
    return (
        f"the installed {installed} has {what}: check the import against that version's API (a new major "
        f"version may rename or remove it), or install the version the code was written for "
        f"(npm install {package}@<version>)"
    )
