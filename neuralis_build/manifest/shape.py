"""Declarative shapes of the manifest: one description that both validates and emits JSON Schema.

A shape checks a JSON value at a pointer and reports located diagnostics; the same shape renders
itself as JSON Schema (draft 2020-12) for `neuralis-build schema`, so the two never drift apart.
"""

from __future__ import annotations

import difflib
import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from neuralis_build.diagnostics import Code, Diagnostics, code
from neuralis_build.jsonpointer import join
from neuralis_build.package import json_type
from neuralis_build.trust import Trust, at_least

NB0100 = code("NB0100", "wrong-type", "a value has the wrong JSON type")
NB0101 = code("NB0101", "unknown-key", "an object carries a key its shape does not allow")
NB0102 = code("NB0102", "missing-key", "a required key is missing")
NB0103 = code("NB0103", "value-not-allowed", "a value is not one of the allowed values")
NB0104 = code("NB0104", "pattern-mismatch", "a string does not match its required pattern")
NB0105 = code("NB0105", "string-length", "a string is too short or too long")
NB0106 = code("NB0106", "item-count", "an array has too few or too many items")
NB0107 = code("NB0107", "number-range", "a number is out of its allowed range")
NB0108 = code("NB0108", "unknown-key-ignored", "an open object carries a key the toolchain does not know")

JSONSchema = dict[str, Any]

if TYPE_CHECKING:
    from neuralis_build.hostprofile import HostProfile
    from neuralis_build.package import Package
    from neuralis_build.ui.buildrecord import BuildState
    from neuralis_build.ui.record import ModuleVerdict


@dataclass
class Checker:
    """State of one validation walk: the diagnostics sink, the trust tier, and what was marked."""

    diags: Diagnostics
    trust: Trust
    package: Package | None = None
    host: HostProfile | None = None
    invalid: set[str] = field(default_factory=set)
    dropped: set[str] = field(default_factory=set)
    # what the output rules found, handed on with the judged package so nothing judges it twice
    module_verdict: ModuleVerdict | None = None
    build: BuildState | None = None
    # every invalid pointer and each of its ancestors, so is_valid is one lookup however many errors there are
    _tainted: set[str] = field(default_factory=set, repr=False)

    def warning(self, code: Code, pointer: str, message: str, hint: str | None = None) -> None:
        self.diags.warning(code, pointer, message, hint)

    def note(self, code: Code, pointer: str, message: str, hint: str | None = None) -> None:
        self.diags.note(code, pointer, message, hint)

    def error(self, code: Code, pointer: str, message: str, hint: str | None = None) -> None:
        self.diags.error(code, pointer, message, hint)
        self.mark_invalid(pointer)

    def mark_invalid(self, pointer: str) -> None:
        """Record that the value at ``pointer`` broke a rule (an error reported elsewhere)."""
        if pointer in self.invalid:
            return
        self.invalid.add(pointer)
        probe = pointer
        while probe not in self._tainted:
            self._tainted.add(probe)
            if not probe:
                break
            probe = probe[: probe.rfind("/")]

    def drop(self, code: Code, pointer: str, message: str, hint: str | None = None) -> None:
        """Warn that the loader drops the value at ``pointer``, and leave it out of the effective manifest."""
        self.diags.warning(code, pointer, message, hint)
        self.dropped.add(pointer)

    def is_valid(self, pointer: str) -> bool:
        """True when no shape error was reported at or under ``pointer``."""
        return pointer not in self._tainted

    def is_dropped(self, pointer: str) -> bool:
        """True when ``pointer`` or one of its ancestors was dropped."""
        if not self.dropped:
            return False
        probe = pointer
        while True:
            if probe in self.dropped:
                return True
            if not probe:
                return False
            probe = probe[: probe.rfind("/")]

    def usable(self, pointer: str) -> bool:
        return self.is_valid(pointer) and not self.is_dropped(pointer)


def suggest(word: str, choices: Sequence[str]) -> str | None:
    """The closest of ``choices`` to ``word`` ("did you mean"), or None when nothing is close."""
    lowered = {c.lower(): c for c in choices}
    if word.lower() in lowered:
        return lowered[word.lower()]
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return close[0] if close else None


def _quote_list(items: Sequence[str]) -> str:
    return ", ".join(f'"{i}"' for i in items)


class Shape(ABC):
    """A JSON value's expected form."""

    description: str | None = None

    @abstractmethod
    def check(self, value: Any, pointer: str, c: Checker) -> bool:
        """Report every way ``value`` breaks this shape; True when it fits."""

    @abstractmethod
    def schema(self) -> JSONSchema:
        """This shape as JSON Schema (draft 2020-12)."""

    def _with_description(self, schema: JSONSchema) -> JSONSchema:
        if self.description:
            schema = {"description": self.description, **schema}
        return schema


def _type_error(c: Checker, value: Any, pointer: str, expected: str, hint: str | None = None) -> bool:
    c.error(NB0100, pointer, f"expected {expected}, found {_article(json_type(value))}", hint)
    return False


type_error = _type_error
"""Report that ``value`` at ``pointer`` is not of the ``expected`` JSON type (for shapes defined elsewhere)."""


def _show(key: Hashable) -> str:
    return f'"{key}"' if isinstance(key, str) else str(key)


def _article(type_name: str) -> str:
    return f"an {type_name}" if type_name[0] in "aeiou" else f"a {type_name}"


StrCheck = Callable[[str, str, Checker], None]
"""A semantic check on a string that fits its shape: ``check(value, pointer, checker)``."""


@dataclass
class Str(Shape):
    """A string, optionally with a pattern, a length range or a closed set of values."""

    pattern: str | None = None
    pattern_code: Code = NB0104
    pattern_message: str | None = None
    pattern_hint: str | None = None
    min_length: int | None = None
    max_length: int | None = None
    length_code: Code = NB0105
    enum: Sequence[str] | None = None
    enum_code: Code = NB0103
    checks: Sequence[StrCheck] = ()
    description: str | None = None

    def __post_init__(self) -> None:
        self._regex = re.compile(self.pattern) if self.pattern else None

    def check(self, value: Any, pointer: str, c: Checker) -> bool:
        if not isinstance(value, str):
            return _type_error(c, value, pointer, "a string")
        if self.enum is not None and value not in self.enum:
            near = suggest(value, self.enum)
            hint = f'did you mean "{near}"?' if near else f"use one of {_quote_list(self.enum)}"
            c.error(self.enum_code, pointer, f'"{value}" is not one of {_quote_list(self.enum)}', hint)
            return False
        if self.min_length is not None and len(value) < self.min_length:
            what = "must not be empty" if self.min_length == 1 else f"needs at least {self.min_length} characters"
            c.error(self.length_code, pointer, f'"{value}" {what}' if value else f"the value {what}")
            return False
        if self.max_length is not None and len(value) > self.max_length:
            c.error(
                self.length_code,
                pointer,
                f"the value has {len(value)} characters; at most {self.max_length} are allowed",
            )
            return False
        if self._regex is not None and not self._regex.search(value):
            message = self.pattern_message or f"must match {self.pattern}"
            c.error(self.pattern_code, pointer, f'"{value}" {message}', self.pattern_hint)
            return False
        if self.checks:
            before = len(c.invalid)
            for check in self.checks:
                check(value, pointer, c)
            return len(c.invalid) == before
        return True

    def schema(self) -> JSONSchema:
        s: JSONSchema = {"type": "string"}
        if self.enum is not None:
            s["enum"] = list(self.enum)
        if self.pattern:
            s["pattern"] = self.pattern
        if self.min_length is not None:
            s["minLength"] = self.min_length
        if self.max_length is not None:
            s["maxLength"] = self.max_length
        return self._with_description(s)


@dataclass
class Num(Shape):
    """A number (or an integer), with optional inclusive bounds."""

    integer: bool = False
    minimum: float | None = None
    maximum: float | None = None
    description: str | None = None

    def check(self, value: Any, pointer: str, c: Checker) -> bool:
        if isinstance(value, bool) or not isinstance(value, int | float):
            return _type_error(c, value, pointer, "an integer" if self.integer else "a number")
        if self.integer and not float(value).is_integer():
            c.error(NB0100, pointer, f"expected an integer, found {value}")
            return False
        if self.minimum is not None and value < self.minimum:
            c.error(NB0107, pointer, f"{value} is below the minimum {self.minimum:g}")
            return False
        if self.maximum is not None and value > self.maximum:
            c.error(NB0107, pointer, f"{value} is above the maximum {self.maximum:g}")
            return False
        return True

    def schema(self) -> JSONSchema:
        s: JSONSchema = {"type": "integer" if self.integer else "number"}
        if self.minimum is not None:
            s["minimum"] = self.minimum
        if self.maximum is not None:
            s["maximum"] = self.maximum
        return self._with_description(s)


@dataclass
class Bool(Shape):
    """A boolean; ``const`` pins it to one value (a floor rule's capabilities may only be false)."""

    const: bool | None = None
    const_code: Code = NB0103
    const_message: str | None = None
    description: str | None = None

    def check(self, value: Any, pointer: str, c: Checker) -> bool:
        if not isinstance(value, bool):
            return _type_error(c, value, pointer, "true or false")
        if self.const is not None and value is not self.const:
            c.error(self.const_code, pointer, self.const_message or f"must be {str(self.const).lower()}")
            return False
        return True

    def schema(self) -> JSONSchema:
        s: JSONSchema = {"type": "boolean"}
        if self.const is not None:
            s["const"] = self.const
        return self._with_description(s)


@dataclass
class Anything(Shape):
    """Any JSON value of the given types (free-form data such as a JSON Schema or a default)."""

    types: Sequence[str] | None = None
    description: str | None = None

    def check(self, value: Any, pointer: str, c: Checker) -> bool:
        if (
            self.types is not None
            and json_type(value) not in self.types
            and not ("integer" in self.types and isinstance(value, int) and not isinstance(value, bool))
        ):
            return _type_error(c, value, pointer, " or ".join(_article(t) for t in self.types))
        return True

    def schema(self) -> JSONSchema:
        s: JSONSchema = {}
        if self.types is not None:
            s["type"] = list(self.types) if len(self.types) > 1 else self.types[0]
        return self._with_description(s)


@dataclass
class Arr(Shape):
    """An array of items of one shape, with an optional item-count range."""

    item: Shape
    min_items: int | None = None
    max_items: int | None = None
    count_code: Code = NB0106
    what: str = "items"
    unique: Callable[[Any], Hashable | None] | None = None
    unique_code: Code | None = None
    unique_what: str = "entry"
    unique_pointer: Callable[[str], str] = lambda item_pointer: item_pointer
    description: str | None = None

    def check(self, value: Any, pointer: str, c: Checker) -> bool:
        if not isinstance(value, list):
            return _type_error(c, value, pointer, "an array")
        ok = True
        if self.max_items is not None and len(value) > self.max_items:
            c.error(
                self.count_code,
                pointer,
                f"{len(value)} {self.what} declared; at most {self.max_items} are allowed",
                f"remove {len(value) - self.max_items} of them",
            )
            ok = False
        if self.min_items is not None and len(value) < self.min_items:
            c.error(self.count_code, pointer, f"at least {self.min_items} {self.what} are required")
            ok = False
        seen: dict[Hashable, int] = {}
        for index, item in enumerate(value):
            at = join(pointer, index)
            if not self.item.check(item, at, c):
                ok = False
                continue
            key = self.unique(item) if self.unique is not None else None
            if key is None:
                continue
            if key in seen:
                assert self.unique_code is not None
                c.error(
                    self.unique_code,
                    self.unique_pointer(at),
                    f"duplicate {self.unique_what} {_show(key)}; {join(pointer, seen[key])} declares it first",
                    "each must be unique: remove or rename one of them",
                )
                ok = False
            else:
                seen[key] = index
        return ok

    def schema(self) -> JSONSchema:
        s: JSONSchema = {"type": "array", "items": self.item.schema()}
        if self.min_items is not None:
            s["minItems"] = self.min_items
        if self.max_items is not None:
            s["maxItems"] = self.max_items
        return self._with_description(s)


@dataclass
class Field:
    """One key of an object: its shape, whether it is required, and the lowest trust that may set it."""

    shape: Shape
    required: bool = False
    min_trust: Trust | None = None
    drop_code: Code | None = None
    drop_message: str | None = None


Unknown = Literal["error", "warning", "allow"]
Check = Callable[[dict[str, Any], str, Checker], None]
"""A semantic check on a well-shaped object: ``check(value, pointer, checker)``."""


@dataclass
class Obj(Shape):
    """An object with named fields; unknown keys are an error, a warning, or allowed."""

    fields: dict[str, Field]
    unknown: Unknown = "error"
    unknown_code: Code | None = None
    what: str = "this object"
    checks: Sequence[Check] = ()
    description: str | None = None

    def check(self, value: Any, pointer: str, c: Checker) -> bool:
        if not isinstance(value, dict):
            return _type_error(c, value, pointer, "an object")
        ok = True
        for name, f in self.fields.items():
            if f.required and name not in value:
                c.error(NB0102, pointer or "", f'{self.what} is missing the required key "{name}"')
                ok = False
        for key, item in value.items():
            at = join(pointer, key)
            maybe = self.fields.get(key)
            if maybe is None:
                ok = self._unknown(key, at, c) and ok
                continue
            f = maybe
            if f.min_trust is not None and not at_least(c.trust, f.min_trust):
                assert f.drop_code is not None, f"{at}: a trust-gated field needs a drop code"
                c.drop(
                    f.drop_code,
                    at,
                    f.drop_message or f'"{key}" is honored for {f.min_trust} packages only; it is dropped at load',
                    f"remove it, or install the package as {f.min_trust}",
                )
                continue
            ok = f.shape.check(item, at, c) and ok
        if ok:
            before = len(c.invalid)
            for check in self.checks:
                check(value, pointer, c)
            ok = len(c.invalid) == before
        return ok

    def _unknown(self, key: str, at: str, c: Checker) -> bool:
        if self.unknown == "allow":
            return True
        near = suggest(key, list(self.fields))
        if near:
            hint = f'did you mean "{near}"?'
        else:
            hint = f"allowed keys: {_quote_list(list(self.fields))}"
        if self.unknown == "error":
            c.error(self.unknown_code or NB0101, at, f'unknown key "{key}" in {self.what}', hint)
            return False
        c.diags.warning(
            self.unknown_code or NB0108, at, f'unknown key "{key}" in {self.what}; the host ignores it', hint
        )
        return True

    def schema(self) -> JSONSchema:
        s: JSONSchema = {
            "type": "object",
            "properties": {name: _field_schema(f) for name, f in self.fields.items()},
        }
        required = [name for name, f in self.fields.items() if f.required]
        if required:
            s["required"] = required
        if self.unknown == "error":  # a key check only warns about must not be an error in an editor
            s["additionalProperties"] = False
        return self._with_description(s)


def _field_schema(f: Field) -> JSONSchema:
    s = f.shape.schema()
    if f.min_trust is not None:
        note = f"Honored for {f.min_trust} packages only."
        s = {**s, "description": f"{s['description']} {note}" if "description" in s else note}
    return s


@dataclass
class MapOf(Shape):
    """An object used as a map: every key matches ``key`` (if given) and every value fits ``value``."""

    value: Shape
    key: Str | None = None
    description: str | None = None

    def check(self, value: Any, pointer: str, c: Checker) -> bool:
        if not isinstance(value, dict):
            return _type_error(c, value, pointer, "an object")
        ok = True
        for k, v in value.items():
            at = join(pointer, k)
            if self.key is not None and not self.key.check(k, at, c):
                ok = False
                continue
            ok = self.value.check(v, at, c) and ok
        return ok

    def schema(self) -> JSONSchema:
        s: JSONSchema = {"type": "object", "additionalProperties": self.value.schema()}
        if self.key is not None:
            s["propertyNames"] = self.key.schema()
        return self._with_description(s)


@dataclass
class OneOfType(Shape):
    """A value whose form depends on its JSON type (a feature entry: a string or an object)."""

    by_type: dict[str, Shape]
    description: str | None = None

    def check(self, value: Any, pointer: str, c: Checker) -> bool:
        shape = self.by_type.get(json_type(value))
        if shape is None:
            return _type_error(c, value, pointer, " or ".join(_article(t) for t in self.by_type))
        return shape.check(value, pointer, c)

    def schema(self) -> JSONSchema:
        return self._with_description({"oneOf": [s.schema() for s in self.by_type.values()]})


@dataclass
class Tagged(Shape):
    """An object whose form depends on the string value of one key (a surface's ``kind``).

    Every variant is an :class:`Obj` that declares the tag key itself, so its unknown-key rule and its
    checks see the whole object. The schema says the same with one ``if``/``then`` per tag value.
    """

    key: str
    variants: dict[str, Obj]
    tag_code: Code = NB0103
    what: str = "this object"
    description: str | None = None

    def __post_init__(self) -> None:
        for tag, variant in self.variants.items():
            if self.key not in variant.fields:
                raise ValueError(f'the "{tag}" variant does not declare the tag key "{self.key}"')

    def check(self, value: Any, pointer: str, c: Checker) -> bool:
        if not isinstance(value, dict):
            return _type_error(c, value, pointer, "an object")
        tags = list(self.variants)
        if self.key not in value:
            c.error(
                NB0102,
                pointer,
                f'{self.what} is missing the required key "{self.key}"',
                f'set "{self.key}" to one of {_quote_list(tags)}',
            )
            return False
        tag = value[self.key]
        at = join(pointer, self.key)
        if not isinstance(tag, str):
            return _type_error(c, tag, at, "a string", f"use one of {_quote_list(tags)}")
        variant = self.variants.get(tag)
        if variant is None:
            near = suggest(tag, tags)
            hint = f'did you mean "{near}"?' if near else f"use one of {_quote_list(tags)}"
            c.error(self.tag_code, at, f'"{tag}" is not one of {_quote_list(tags)}', hint)
            return False
        return variant.check(value, pointer, c)

    def schema(self) -> JSONSchema:
        s: JSONSchema = {
            "type": "object",
            "required": [self.key],
            "properties": {self.key: {"enum": list(self.variants)}},
            "allOf": [
                {"if": {"properties": {self.key: {"const": tag}}}, "then": variant.schema()}
                for tag, variant in self.variants.items()
            ],
        }
        return self._with_description(s)


@dataclass
class JudgedStr(Str):
    """A string that also passes a judge: a function naming what is wrong with it (or None when nothing is).

    The judge runs after the plain string checks and gives a precise message ("has a .. segment")
    where a pattern could only say "must match". ``schema_pattern`` is for the JSON Schema alone.
    """

    judge: Callable[[str], str | None] | None = None
    judge_code: Code = NB0104
    judge_hint: str | None = None
    schema_pattern: str | None = None

    def check(self, value: Any, pointer: str, c: Checker) -> bool:
        if not super().check(value, pointer, c):
            return False
        problem = self.judge(value) if self.judge is not None else None
        if problem:
            c.error(self.judge_code, pointer, f'"{value}" {problem}', self.judge_hint)
            return False
        return True

    def schema(self) -> JSONSchema:
        s = super().schema()
        if self.schema_pattern and "pattern" not in s:
            s["pattern"] = self.schema_pattern
        return s
