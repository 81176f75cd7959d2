"""events[]: the moments a person should hear about (spec: "events — what a person should hear about").

Honored for first-party packages only. Each subject needs its source ``src/events/<subject>.ts``;
whether the compiled ``dist/src/events/<subject>.js`` exists is a build-output check (NB16).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass
from typing import Any

from neuralis_build.manifest.checker import Checker
from neuralis_build.manifest.compound import Arr, Field, Obj
from neuralis_build.manifest.engine import Section
from neuralis_build.manifest.jsonschemas import schema_problem
from neuralis_build.manifest.sections.requires import FEATURE_GATE, FEATURE_ID
from neuralis_build.manifest.sections.surfaces import declared
from neuralis_build.manifest.shape import JSONSchema, Shape, Str, type_error
from neuralis_build.model import block as model
from neuralis_build.util.diagnostics import Code, code
from neuralis_build.util.jsonpointer import join
from neuralis_build.util.trust import Trust

NB0701 = code("NB0701", "events-dropped", "events is declared by a package that is not first-party; it is dropped")
NB0702 = code("NB0702", "events-count", "more than 64 events are declared")
NB0703 = code("NB0703", "event-id-invalid", "an event id breaks the charset (dot-separated lowercase segments)")
NB0704 = code("NB0704", "event-id-duplicate", "two events share an id")
NB0705 = code("NB0705", "event-subject-invalid", "an event subject is not a lowercase file-name stem")
NB0706 = code("NB0706", "event-subject-source-missing", "src/events/<subject>.ts does not exist for a declared subject")
NB0707 = code("NB0707", "event-data-schema-invalid", "an event's dataSchema is not a valid JSON Schema (draft 2020-12)")
NB0708 = code("NB0708", "event-data-schema-not-object", 'an event\'s dataSchema does not declare "type": "object"')
NB0709 = code("NB0709", "event-data-key-shape", "dataSchema declares data.title or data.nav in the wrong shape")
NB0710 = code("NB0710", "event-notify-value", "notify.default or notify.tone is not one of its values")
NB0711 = code("NB0711", "event-dock-undeclared", "an event's dock does not name a dock surface the package declares")

MAX_EVENTS = 64
SUBJECT = r"^[a-z][a-z0-9_-]*$"
NOTIFY_DEFAULTS = ("on", "off")
TONES = ("info", "success", "warning", "error")
EVENTS_DIR = "src/events"
_PTR = "/neuralis/events"


def _schema_type(schema: Any) -> Any:
    """The JSON type a (sub)schema admits: its "type", or "string" for a string const or string enum."""
    if not isinstance(schema, dict):
        return None
    if "type" in schema:
        return schema["type"]
    if isinstance(schema.get("const"), str):
        return "string"
    enum = schema.get("enum")
    if isinstance(enum, list) and enum and all(isinstance(v, str) for v in enum):
        return "string"
    return None


def _data_key_problems(properties: dict[str, Any]) -> list[tuple[list[str], str]]:
    """(path under properties, problem) for a declared data.title or data.nav of the wrong shape."""
    problems: list[tuple[list[str], str]] = []
    if "title" in properties and _schema_type(properties["title"]) != "string":
        problems.append((["title"], 'data.title is shown as text: declare it { "type": "string" }'))
    if "nav" not in properties:
        return problems
    nav = properties["nav"]
    if _schema_type(nav) != "object":
        problems.append((["nav"], 'data.nav is { widgetType, initialState? }: declare it { "type": "object" }'))
        return problems
    nav_props = nav.get("properties", {})
    if _schema_type(nav_props.get("widgetType")) != "string":
        problems.append((["nav", "properties"], 'data.nav needs widgetType { "type": "string" }'))
    elif "widgetType" not in nav.get("required", []):
        problems.append((["nav"], 'data.nav must list "widgetType" in required'))
    for extra in sorted(set(nav_props) - {"widgetType", "initialState"}):
        problems.append((["nav", "properties", extra], f'data.nav has only widgetType and initialState, not "{extra}"'))
    if "initialState" in nav_props and _schema_type(nav_props["initialState"]) != "object":
        problems.append(
            (
                ["nav", "properties", "initialState"],
                'data.nav.initialState is the widget\'s state: { "type": "object" }',
            )
        )
    return problems


@dataclass
class DataSchema(Shape):
    """An event's dataSchema: a valid JSON Schema (draft 2020-12) of an object."""

    description: str | None = None

    def check(self, value: Any, pointer: str, c: Checker) -> bool:
        if not isinstance(value, dict):
            return type_error(c, value, pointer, "an object (a JSON Schema)")
        problem = schema_problem(value)
        if problem is not None:
            where, message = problem
            c.error(
                NB0707,
                join(pointer, *where),
                f"dataSchema is not a valid JSON Schema: {message}",
                "fix the schema (draft 2020-12); the platform validates every published event's data against it",
            )
            return False
        if value.get("type") != "object":
            c.error(
                NB0708,
                join(pointer, "type") if "type" in value else pointer,
                'dataSchema must describe an object: declare "type": "object"',
                "data holds ids and fixed codes as named properties",
            )
            return False
        key_problems = _data_key_problems(value.get("properties", {}))
        for path, text in key_problems:
            c.error(NB0709, join(pointer, "properties", *path), text, "the notification row reads this key")
        return not key_problems

    def schema(self) -> JSONSchema:
        return self._with_description({"type": "object"})


NOTIFY = Obj(
    fields={
        "default": Field(
            Str(enum=NOTIFY_DEFAULTS, enum_code=NB0710, description="Whether people are notified unless they opt out.")
        ),
        "tone": Field(Str(enum=TONES, enum_code=NB0710, description="How the notification row looks.")),
    },
    unknown="warning",
    what="notify",
    description='Notification defaults: { "default": "on"|"off", "tone": "info"|"success"|"warning"|"error" }.',
    model=model.Notify,
)

EVENT = Obj(
    fields={
        "id": Field(
            Str(
                pattern=FEATURE_ID,
                pattern_code=NB0703,
                pattern_message="is not an event id: dot-separated segments of lowercase letters, digits, _ and -",
                pattern_hint="such as report.failed",
                max_length=128,
                length_code=NB0703,
                description="Unique among the package's events, such as report.failed.",
            ),
            required=True,
        ),
        "title": Field(Str(min_length=1, description="The notification's title."), required=True),
        "subject": Field(
            Str(
                pattern=SUBJECT,
                pattern_code=NB0705,
                pattern_message="is not a subject: lowercase letters, digits, _ and -, starting with a letter",
                pattern_hint="the subject names its source file src/events/<subject>.ts",
                max_length=64,
                length_code=NB0705,
                description="What the event is about; src/events/<subject>.ts decides who may see it.",
            ),
            required=True,
        ),
        "dataSchema": Field(
            DataSchema(description="JSON Schema (draft 2020-12, type object) of the event's data."), required=True
        ),
        "requires": Field(FEATURE_GATE),
        "notify": Field(NOTIFY),
        "dock": Field(Str(min_length=1, description="The id of the package's dock surface the event belongs to.")),
    },
    unknown="warning",
    what="an events[] entry",
    description="A moment a person should be told about; the platform turns each publish into a notification.",
    model=model.Event,
)

EVENTS = Arr(
    EVENT,
    max_items=MAX_EVENTS,
    count_code=NB0702,
    what="events",
    unique=lambda event: event["id"],
    unique_code=NB0704,
    unique_what="event id",
    unique_pointer=lambda at: at + "/id",
    description="The moments a person should be told about (first-party packages only, at most 64).",
)


def _usable_values(block: dict[str, Any], c: Checker, key: str) -> list[tuple[str, str]]:
    """(pointer, value) of every event's well-formed string ``key``, judged field by field."""
    events = block.get("events")
    if not isinstance(events, list) or c.is_dropped(_PTR):
        return []
    found: list[tuple[str, str]] = []
    for index, event in enumerate(events):
        at = join(_PTR, index, key)
        if isinstance(event, dict) and isinstance(event.get(key), str) and c.usable(at):
            found.append((at, event[key]))
    return found


def missing_sources(subjects: Iterable[tuple[str, str]], sources: Collection[str]) -> list[tuple[Code, str, str, str]]:
    """(code, pointer, message, hint) for each (pointer, subject) without src/events/<subject>.ts (NB0706).

    The rule is check's; the UI build asks it too, before it compiles anything.
    """
    found = []
    reported: set[str] = set()
    for at, subject in subjects:
        if subject in sources or subject in reported:
            continue
        reported.add(subject)
        found.append(
            (
                NB0706,
                at,
                f'the subject "{subject}" has no source file {EVENTS_DIR}/{subject}.ts',
                f"create {EVENTS_DIR}/{subject}.ts exporting subject and visible(event, session, state); "
                "without the predicate every event is dropped",
            )
        )
    return found


def _subject_sources(block: dict[str, Any], c: Checker) -> None:
    subjects = _usable_values(block, c, "subject")
    if c.package is None or not subjects:
        return
    for found in missing_sources(subjects, c.package.contract.of("event")):
        c.error(*found)


def _dock_declared(block: dict[str, Any], c: Checker) -> None:
    wanted = _usable_values(block, c, "dock")
    docks = declared(block, c, "dock") if wanted else None
    if docks is None:
        return
    for at, dock in wanted:
        if dock not in docks:
            known = ", ".join(f'"{d}"' for d in docks) or "none"
            c.error(
                NB0711,
                at,
                f'the event belongs to the dock "{dock}", which this package does not declare',
                f"name one of the package's dock surfaces ({known}), or declare it in app.surfaces",
            )


SECTION = Section(
    name="events",
    fields={
        "events": Field(
            EVENTS,
            min_trust=Trust.FIRST_PARTY,
            drop_code=NB0701,
            drop_message='"events" is honored for first-party packages only; the host drops it at load',
        )
    },
    rules=(_subject_sources, _dock_declared),
)
