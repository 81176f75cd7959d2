"""Test events: the data is checked as publish() checks it, then the subject's visible() runs in node."""

from __future__ import annotations

from pathlib import Path

import pytest

from neuralis_build.dev.publish import publish_test_event
from neuralis_build.model.block import read_block
from tests.conftest import requires_node
from tests.ui.ui_helpers import build_file_tree

EVENT = {
    "id": "report.failed",
    "title": "Report failed",
    "subject": "report",
    "dataSchema": {
        "type": "object",
        "additionalProperties": False,
        "properties": {"reportId": {"type": "string"}, "title": {"type": "string"}},
    },
    "notify": {"default": "on", "tone": "error"},
}
BLOCK = {"events": [EVENT]}
VISIBLE = """\
export const subject = "report";
export function visible(event, session, state) {
  return event.type === "report.failed" && event.subject === event.subjectId && event.data.reportId === "r-1"
    && session.userId === state.owner;
}
"""


def pkg(tmp_path: Path, module: str | None) -> Path:
    tree = {"src/events/report.ts": "// source\n"}
    if module is not None:
        tree["dist/src/events/report.js"] = module
    return build_file_tree(tmp_path / "pkg", tree)


def ask(
    root: Path, data: object, state: object = {"owner": "dev-user"}, block: dict = BLOCK, trust: str = "first-party"
):
    request = {"event": "report.failed", "subjectId": "r-1", "projectId": "p", "data": data, "state": state}
    return publish_test_event(root, read_block(block), request, trust, "acme-reports").to_json()


@requires_node
def test_visible_admits_or_denies_the_sample_session(tmp_path: Path) -> None:
    root = pkg(tmp_path, VISIBLE)
    assert ask(root, {"reportId": "r-1", "title": "Nightly"}) == {
        "ok": True,
        "admitted": True,
        "reason": "visible(event, session, state) returned true",
        "error": None,
        "notification": {"title": "Nightly · Report failed", "tone": "error", "nav": None, "dock": None},
    }
    denied = ask(root, {"reportId": "r-1"}, state={"owner": "someone"})
    assert (denied["admitted"], denied["reason"]) == (False, "visible(event, session, state) returned false")
    thrown = ask(root, {"reportId": "r-1"}, state=None)
    assert thrown["ok"] is False
    assert thrown["error"].startswith("visible() threw: TypeError: Cannot read properties of null")


@requires_node
def test_a_subject_without_a_predicate_denies_by_default(tmp_path: Path) -> None:
    root = pkg(tmp_path, 'export const subject = "report";\n')
    result = ask(root, {"reportId": "r-1"})
    assert (result["ok"], result["admitted"], result["reason"]) == (
        True,
        False,
        "denied by default: src/events/report.ts exports no visible predicate, so every event is dropped",
    )
    unbuilt = ask(pkg(tmp_path / "b", None), {"reportId": "r-1"})
    assert unbuilt["reason"] == "denied by default: the subject report is not built yet (the build failed)"


@pytest.mark.parametrize(
    ("data", "error"),
    [
        ({"reportId": 5}, "publish throws: data/reportId: 5 is not of type 'string' (dataSchema of report.failed)"),
        (
            {"reportId": "r", "extra": 1},
            "publish throws: data: Additional properties are not allowed ('extra' was unexpected) "
            "(dataSchema of report.failed)",
        ),
        ({"reportId": "x" * 5000}, "data is 5015 bytes; an event's data is capped at 4 KiB"),
    ],
)
def test_data_that_breaks_the_schema_or_the_cap_throws(tmp_path: Path, data: object, error: str) -> None:
    assert ask(pkg(tmp_path, VISIBLE), data)["error"] == error


def test_events_below_first_party_are_dropped(tmp_path: Path) -> None:
    result = ask(pkg(tmp_path, VISIBLE), {"reportId": "r-1"}, block={}, trust="trusted")
    assert result["error"] == "events are honored for first-party packages only; this one is trusted"


ECHO = """\
export const subject = "report";
export function visible(event, session, state) {
  globalThis.seen = { session, state };
  return typeof session === "string" && typeof state === "string" && session.startsWith("require(");
}
"""


@requires_node
def test_session_and_state_are_json_values_never_code(tmp_path: Path) -> None:
    root = pkg(tmp_path, ECHO)
    marker = tmp_path / "ran"
    attack = f"require('child_process').execSync('touch {marker}')"
    request = {"event": "report.failed", "subjectId": "r-1", "projectId": "p", "data": {"reportId": "r-1"}}
    result = publish_test_event(
        root, read_block(BLOCK), {**request, "session": attack, "state": attack}, "first-party", "x"
    )
    # visible() got the two strings as they were sent, and nothing else ran
    assert (result.ok, result.admitted) == (True, True)
    assert not marker.exists()


CAN_READ = """\
export const subject = "report";
export function visible(event, session, state) {
  return state.rules.canRead(session.userId, event.data.reportId);
}
"""


@requires_node
def test_a_method_of_the_sample_state_is_written_as_the_value_it_returns(tmp_path: Path) -> None:
    root = pkg(tmp_path, CAN_READ)
    for answer in (True, False):
        result = ask(root, {"reportId": "r-1"}, state={"rules": {"canRead": {"$returns": answer}}})
        assert (result["ok"], result["admitted"]) == (True, answer), result
    # the returned value is revived too, and a key beside $returns makes a plain object
    nested = ask(root, {"reportId": "r-1"}, state={"rules": {"canRead": {"$returns": {"$returns": 1}}}})
    assert nested["reason"] == "visible(event, session, state) returned () => value"
    plain = ask(root, {"reportId": "r-1"}, state={"rules": {"canRead": {"$returns": True, "why": "x"}}})
    assert plain["ok"] is False and "state.rules.canRead is not a function" in plain["error"]
    assert plain["error"].endswith('write {"$returns": value})')


@requires_node
def test_a_subject_that_names_a_path_is_refused_before_node_runs(tmp_path: Path) -> None:
    root = pkg(tmp_path, VISIBLE)
    block = {"events": [{**EVENT, "subject": "../../../tmp/x"}]}
    result = ask(root, {"reportId": "r-1"}, block=block)
    assert result["error"] == 'the subject "../../../tmp/x" of report.failed is not a valid subject'
