"""Publish a test event through the package's event subject and ask its ``visible`` predicate.

What the platform would do with ``publish({event, subjectId, projectId, data})``: validate ``data``
against the declaration's ``dataSchema`` (a publish that breaks it throws) and its 4 KiB cap, then
ask the subject's compiled ``visible(event, session, state)`` whether a sample session may see it.
A subject whose module exports no ``visible`` drops every event (deny-by-default). The predicate
runs in the real Node, from ``dist/src/events/<subject>.js`` as the build compiled it.

The sample ``session`` and ``state`` are JSON values handed to ``visible`` as they are: the only
code that runs is the author's own compiled module, never anything the request carries. A state
whose rules are methods (``state.canRead(userId, reportId)``) is written with ``{"$returns": value}``
where a method goes: a function that returns ``value`` whatever it is called with. It is data, not
code: the runner makes the function itself.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from neuralis_build.manifest.sections.events import SUBJECT
from neuralis_build.util.errors import SubprocessError, ToolMissingError
from neuralis_build.util.process import run

if TYPE_CHECKING:
    from neuralis_build.model.block import Block, Event

MAX_DATA_BYTES = 4096
VISIBLE_TIMEOUT = 60.0
"""Seconds a test event's visible() may take before node is stopped."""
DEFAULT_SESSION: dict[str, Any] = {"userId": "dev-user", "projectIds": ["dev-project"]}
DEFAULT_STATE: dict[str, Any] = {}

_RUNNER = """\
import { pathToFileURL } from "node:url";
let input = "";
for await (const chunk of process.stdin) input += chunk;
// {"$returns": value} stands for a method of the sample state: a function that returns value.
const revive = (v) => {
  if (Array.isArray(v)) return v.map(revive);
  if (v === null || typeof v !== "object") return v;
  const keys = Object.keys(v);
  if (keys.length === 1 && keys[0] === "$returns") {
    const value = revive(v.$returns);
    return () => value;
  }
  return Object.fromEntries(keys.map((k) => [k, revive(v[k])]));
};
const req = JSON.parse(input);
req.state = revive(req.state);
const out = (value) => process.stdout.write(JSON.stringify(value));
try {
  const mod = await import(pathToFileURL(req.file).href);
  if (typeof mod.visible !== "function") {
    out({ predicate: false, exports: Object.keys(mod).sort() });
  } else {
    const result = await mod.visible(req.event, req.session, req.state);
    out({ predicate: true, result: result === true, returned: typeof result === "boolean" ? result : String(result) });
  }
} catch (error) {
  out({ error: String((error && error.stack) || error) });
}
"""


@dataclass(frozen=True)
class PublishResult:
    """The verdict on one test event: refused (``error``), or admitted or denied, and why."""

    ok: bool
    admitted: bool = False
    reason: str = ""
    error: str | None = None
    notification: Mapping[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "admitted": self.admitted,
            "reason": self.reason,
            "error": self.error,
            "notification": dict(self.notification) if self.notification else None,
        }


def _declaration(block: Block | None, event_id: str) -> Event | None:
    for event in block.events if block is not None else ():
        if event.id == event_id:
            return event
    return None


def _schema_error(schema: Any, data: Any) -> str | None:
    import jsonschema

    if not isinstance(schema, Mapping):
        return None
    errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(data), key=lambda e: list(e.path))
    if not errors:
        return None
    first = errors[0]
    where = "/".join(str(p) for p in first.absolute_path)
    return f"data{'/' + where if where else ''}: {first.message}"


def test_envelope(event_id: str, request: Mapping[str, Any], data: Any, source: str) -> dict[str, Any]:
    """The event ``visible`` receives: the CloudEvents 1.0 attributes of the delivered envelope, and the
    fields the producer published (event, subjectId, projectId), since predicates read either."""
    import datetime
    import uuid

    subject_id = request.get("subjectId")
    return {
        "id": str(uuid.uuid4()),
        "type": event_id,
        "source": source,
        "subject": subject_id,
        "time": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
        "data": data,
        "event": event_id,
        "subjectId": subject_id,
        "projectId": request.get("projectId"),
    }


def publish_test_event(
    root: Path, block: Block | None, request: Mapping[str, Any], trust: str, source: str = ""
) -> PublishResult:
    """Judge one test event ``{event, subjectId, projectId, data, session?, state?}`` of the package at ``root``.

    ``session`` and ``state`` are JSON values (a sample user and project by default, and ``{}``).
    """
    event_id = request.get("event")
    declaration = _declaration(block, str(event_id))
    if declaration is None:
        if trust != "first-party":
            return PublishResult(False, error=f"events are honored for first-party packages only; this one is {trust}")
        return PublishResult(False, error=f'the package declares no event "{event_id}"')
    data = request.get("data")
    size = len(json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode())
    if size > MAX_DATA_BYTES:
        return PublishResult(False, error=f"data is {size} bytes; an event's data is capped at 4 KiB")
    problem = _schema_error(declaration.data_schema, data)
    if problem is not None:
        return PublishResult(False, error=f"publish throws: {problem} (dataSchema of {event_id})")
    subject = str(declaration.subject)
    if not re.match(SUBJECT, subject):  # a subject names a file of src/events/, nothing elsewhere
        return PublishResult(False, error=f"the subject {json.dumps(subject)} of {event_id} is not a valid subject")
    source_file = root / "src" / "events" / f"{subject}.ts"
    compiled = root / "dist" / "src" / "events" / f"{subject}.js"
    notification = _notification(declaration, data)
    if not compiled.is_file():
        why = "has no source file" if not source_file.is_file() else "is not built yet (the build failed)"
        return PublishResult(True, False, f"denied by default: the subject {subject} {why}", None, notification)
    event = test_envelope(str(event_id), request, data, source)
    verdict = _run_visible(root, compiled, event, request)
    if "error" in verdict:
        error = f"visible() threw: {verdict['error']}"
        if "is not a function" in error:
            error += ' (the sample state is JSON: where visible() calls a method of state, write {"$returns": value})'
        return PublishResult(False, error=error, notification=notification)
    if not verdict.get("predicate"):
        return PublishResult(
            True,
            False,
            f"denied by default: src/events/{subject}.ts exports no visible predicate, so every event is dropped",
            None,
            notification,
        )
    if verdict.get("result"):
        return PublishResult(True, True, "visible(event, session, state) returned true", None, notification)
    returned = verdict.get("returned")
    shown = json.dumps(returned) if isinstance(returned, bool) else str(returned)
    return PublishResult(True, False, f"visible(event, session, state) returned {shown}", None, notification)


def _notification(declaration: Event, data: Any) -> dict[str, Any]:
    title = str(declaration.title or declaration.id)
    extra = data.get("title") if isinstance(data, Mapping) else None  # the test event's data, not the manifest
    nav = data.get("nav") if isinstance(data, Mapping) else None
    notify = declaration.notify
    tone = notify.tone if notify is not None and notify.tone is not None else "info"
    return {
        "title": f"{extra} · {title}" if isinstance(extra, str) else title,
        "tone": tone,
        "nav": nav if isinstance(nav, Mapping) else None,
        "dock": declaration.dock,
    }


def _run_visible(root: Path, compiled: Path, event: Mapping[str, Any], request: Mapping[str, Any]) -> dict[str, Any]:
    node = shutil.which("node")
    if node is None:
        return {"error": "node is not on PATH (install Node.js 20 or newer)"}
    payload = {
        "file": str(compiled),
        "event": event,
        "session": request.get("session", DEFAULT_SESSION),
        "state": request.get("state", DEFAULT_STATE),
    }
    cmd = [node, "--no-warnings", "--input-type=module", "-e", _RUNNER]
    try:
        done = run(cmd, input=json.dumps(payload), cwd=root, timeout=VISIBLE_TIMEOUT)
    except SubprocessError:  # stopped at the timeout, with whatever it started
        return {"error": f"visible() did not return within {VISIBLE_TIMEOUT:g} seconds"}
    except ToolMissingError as exc:
        return {"error": exc.message}
    try:
        verdict: dict[str, Any] = json.loads(done.stdout)
    except ValueError:
        return {"error": (done.stderr or done.stdout).strip() or f"node exited with {done.returncode}"}
    return verdict
