"""The directory contract's files as diagnostics: symlinks that lead out, duplicates, strays, names.

Every discovered contract file must stay inside the package once its symlinks are resolved (no
symlink may lead out: docs/design.md, The directory contract); two files for one entry are an
error; a file that sits in a contract folder but is no entry of it is a warning.
``tools/<name>.json`` is read, since it is the tool's whole definition. Diagnostics name the file,
with the pointer ``""`` (or one into the JSON file).
"""

from __future__ import annotations

import errno
import os
from typing import TYPE_CHECKING

from neuralis_build.contract import Contract, ContractFile
from neuralis_build.manifest.checker import Checker
from neuralis_build.manifest.names import (
    ENTRY_NAME_RULE,
    NB1402,
    NB1414,
    TOOL_NAME_RULE,
    is_entry_name,
    is_tool_name,
)
from neuralis_build.manifest.paths import Containment
from neuralis_build.package import Package
from neuralis_build.util.diagnostics import Diagnostic, code
from neuralis_build.util.limits import MAX_JSON_BYTES
from neuralis_build.util.regularfile import TooLarge, read_regular
from neuralis_build.util.strictjson import JSONRefused, parse, position

if TYPE_CHECKING:
    from neuralis_build.contract import Kind

NB1411 = code("NB1411", "contract-symlink-outside", "a contract file is a symlink that leads out of the package")
NB1412 = code("NB1412", "contract-duplicate-file", "two contract files define the same entry (tools/x.ts and x.json)")
NB1413 = code("NB1413", "contract-stray", "a file sits in a contract folder but is no entry of it")
NB1415 = code("NB1415", "tool-file-invalid", "a tools/<name>.json file is not a JSON object")
NB1416 = code("NB1416", "tool-file-name-mismatch", "a tools/<name>.json names a tool other than its file stem")
NB1417 = code("NB1417", "tool-file-description", "a tools/<name>.json has no description")

NAMED_FILE_KINDS: tuple[Kind, ...] = ("command", "hook", "skill", "team", "tool", "workflow")


def check_contract_files(package: Package, inside: Containment, c: Checker) -> set[str]:
    """Judge every discovered contract file; return the paths that lead out of the package."""
    contract = package.contract
    outside = _outside(inside, contract, c)
    for path, first in contract.duplicates:
        c.diags.add(
            "error",
            NB1412,
            "",
            f"{first} already defines this entry; one name, one file",
            f"remove {path} or {first}, or rename one of them",
            file=path,
        )
    for path, reason in contract.strays:
        c.diags.add("warning", NB1413, "", f"{path} is ignored: {reason}", "move or rename it", file=path)
    _file_names(contract, outside, c)
    for f in contract.of("tool").values():
        if f.path.endswith(".json") and f.path not in outside:
            _tool_json(package, f, c)
    return outside


def _outside(inside: Containment, contract: Contract, c: Checker) -> set[str]:
    """Report every contract file that resolves outside the package; return their paths."""
    out: set[str] = set()
    for entries in contract.files.values():
        for f in entries.values():
            if inside.resolve(f.path) is None:
                out.add(f.path)
                how = "is a symlink loop" if _loops(inside, f.path) else "leads out of the package through a symlink"
                c.diags.add(
                    "error",
                    NB1411,
                    "",
                    f"{f.path} {how}",
                    "keep every contract file inside the package; replace the symlink by the file itself",
                    file=f.path,
                )
    return out


def _loops(inside: Containment, path: str) -> bool:
    try:
        os.stat(inside.real_root / path)
    except OSError as exc:
        return exc.errno == errno.ELOOP
    return False


def _file_names(contract: Contract, outside: set[str], c: Checker) -> None:
    for kind in NAMED_FILE_KINDS:
        for f in contract.of(kind).values():
            if f.path in outside:
                continue
            if kind == "tool" and not is_tool_name(f.name):
                c.diags.add(
                    "error",
                    NB1402,
                    "",
                    f'tool file name "{f.name}" is not a tool name: {TOOL_NAME_RULE}',
                    "rename the file; its stem is the tool name, such as tools/acme_release_status.ts",
                    file=f.path,
                )
            elif kind != "tool" and not is_entry_name(f.name):
                c.diags.add(
                    "error",
                    NB1414,
                    "",
                    f'"{f.name}" is not a plain {kind} name: {ENTRY_NAME_RULE}',
                    "rename the file; its stem is the entry's name",
                    file=f.path,
                )


def _tool_json(package: Package, f: ContractFile, c: Checker) -> None:
    """tools/<name>.json is the tool's whole definition: an object with a description, named by its stem."""
    try:  # a FIFO is refused, never waited on; a file past the cap, never read whole
        text = read_regular(package.root / f.path, limit=MAX_JSON_BYTES).decode("utf-8")
    except TooLarge as exc:
        c.diags.add(
            "error",
            NB1415,
            "",
            f"{f.path} is {exc.strerror}; it was not read",
            "a tool definition is a description and a schema, a few KiB: move large data into files the tool reads",
            file=f.path,
        )
        return
    except OSError as exc:
        c.diags.add(
            "error", NB1415, "", f"{f.path} cannot be read ({exc.strerror})", "make it a regular file", file=f.path
        )
        return
    except UnicodeDecodeError as exc:
        c.diags.add("error", NB1415, "", f"{f.path} is not UTF-8 text (byte {exc.start})", "save as UTF-8", file=f.path)
        return
    try:
        data = parse(text)
    except JSONRefused as exc:
        for problem in exc.problems:
            line, column = position(problem, text) or (None, None)
            message = f"{f.path} is not valid JSON: {problem.message}" if problem.kind == "syntax" else problem.message
            c.diags.items.append(
                Diagnostic("error", NB1415.id, f.path, problem.pointer or "", message, problem.hint, line, column)
            )
        return
    if not isinstance(data, dict):
        c.diags.add(
            "error", NB1415, "", f"{f.path} must hold one JSON object", '{"description": "...", ...}', file=f.path
        )
        return
    if "name" in data and data["name"] != f.name:
        c.diags.add(
            "error",
            NB1416,
            "/name",
            f'the file names the tool "{data["name"]}" but its stem is "{f.name}"; the stem is the tool name',
            f'remove "name", or rename the file to tools/{data["name"]}.json',
            file=f.path,
        )
    description = data.get("description")
    if not isinstance(description, str) or not description:
        c.diags.add(
            "error",
            NB1417,
            "/description" if "description" in data else "",
            f"{f.path} has no description; the model chooses tools by it",
            f'{"set" if "description" in data else "add"} "description": "<what the tool does>"',
            file=f.path,
        )
