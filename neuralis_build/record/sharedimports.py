"""The shared-imports record beside a built UI module (dist/app/shared-imports.json): its shape, read and written.

The build writes it (the host API version, the React major, the shared ids the bundle reads); the
host's verdict on a module reads it (record/verdict.py).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

RECORD_NAME = "shared-imports.json"


@dataclass(frozen=True, slots=True)
class SharedImportsRecord:
    """What the build records beside the bundle: host API version, React major and shared ids read."""

    host_api_version: str
    react_major: int | None
    shared_imports: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "hostApiVersion": self.host_api_version,
            "reactMajor": self.react_major,
            "sharedImports": list(self.shared_imports),
        }

    def dumps(self) -> str:
        """The record's bytes as the build writes them (stable: same record, same text)."""
        return json.dumps(self.to_json(), indent=2, ensure_ascii=False) + "\n"

    @property
    def reads_react(self) -> bool:
        return any(reads_react(i) for i in self.shared_imports)


def reads_react(module_id: str) -> bool:
    """True for ``react``, ``react-dom`` and their subpaths."""
    return module_id in ("react", "react-dom") or module_id.startswith(("react/", "react-dom/"))


@dataclass(frozen=True, slots=True)
class RecordProblem:
    """One way a record file is malformed, at a JSON pointer into the record."""

    pointer: str
    message: str


_KEYS = ("hostApiVersion", "reactMajor", "sharedImports")


def parse_record(data: Any) -> tuple[SharedImportsRecord | None, list[RecordProblem]]:
    """Validate the record's JSON value; a record comes back only when there is no problem."""
    if not isinstance(data, dict):
        return None, [RecordProblem("", "the record is not a JSON object")]
    problems = [RecordProblem(f"/{k}", f'unknown key "{k}"') for k in sorted(set(data) - set(_KEYS))]
    problems += [RecordProblem("", f'the key "{k}" is missing') for k in _KEYS if k not in data]
    api = data.get("hostApiVersion")
    if "hostApiVersion" in data and (not isinstance(api, str) or not api):
        problems.append(RecordProblem("/hostApiVersion", 'hostApiVersion must be a non-empty string such as "1"'))
    major = data.get("reactMajor")
    if major is not None and (not isinstance(major, int) or isinstance(major, bool) or major < 0):
        problems.append(RecordProblem("/reactMajor", "reactMajor must be a whole number or null"))
    ids = data.get("sharedImports")
    if "sharedImports" in data:
        if not isinstance(ids, list):
            problems.append(RecordProblem("/sharedImports", "sharedImports must be an array of module ids"))
        else:
            for i, item in enumerate(ids):
                if not isinstance(item, str) or not item:
                    problems.append(RecordProblem(f"/sharedImports/{i}", "a shared import is a non-empty string"))
            if all(isinstance(x, str) for x in ids) and ids != sorted(set(ids)):
                problems.append(RecordProblem("/sharedImports", "sharedImports must be sorted and without duplicates"))
    if problems:
        return None, problems
    assert isinstance(api, str) and isinstance(ids, list)
    return SharedImportsRecord(api, major, tuple(ids)), []


def read_record(path: Path) -> tuple[SharedImportsRecord | None, list[RecordProblem]]:
    """Read and validate a record file; a missing file raises FileNotFoundError."""
    from neuralis_build.util.limits import MAX_JSON_BYTES
    from neuralis_build.util.regularfile import read_regular
    from neuralis_build.util.strictjson import JSONRefused, parse

    # a FIFO is refused (NotRegularFile), never waited on; a file past the cap (TooLarge), never read whole
    raw = read_regular(path, limit=MAX_JSON_BYTES)
    try:
        data = parse(raw.decode("utf-8"))
    except JSONRefused as exc:
        return None, [RecordProblem(exc.problems[0].pointer or "", f"not valid JSON: {exc.problems[0].message}")]
    except UnicodeDecodeError as exc:
        return None, [RecordProblem("", f"not valid JSON: {exc}")]
    return parse_record(data)
