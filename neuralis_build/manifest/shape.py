"""Declarative shapes of the manifest: one description that both validates and emits JSON Schema.

A shape checks a JSON value at a pointer and reports located diagnostics; the same shape renders
itself as JSON Schema (draft 2020-12) for `neuralis-build schema`, so the two never drift apart.
This module holds the base class and the scalar shapes (strings, numbers, booleans, free-form
values); compound.py builds arrays, objects and tagged unions from them.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any

from neuralis_build.manifest.checker import Checker, quote_list, suggest
from neuralis_build.package import json_type
from neuralis_build.util.diagnostics import Code, code

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


def type_error(c: Checker, value: Any, pointer: str, expected: str, hint: str | None = None) -> bool:
    """Report that ``value`` at ``pointer`` is not of the ``expected`` JSON type; always False (it does not fit)."""
    c.error(NB0100, pointer, f"expected {expected}, found {article(json_type(value))}", hint)
    return False


def show_key(key: Hashable) -> str:
    """A key as a message shows it: a string quoted, anything else as it prints."""
    return f'"{key}"' if isinstance(key, str) else str(key)


def article(type_name: str) -> str:
    """``an object``, ``a string``: a JSON type name with its article."""
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
            return type_error(c, value, pointer, "a string")
        if self.enum is not None and value not in self.enum:
            near = suggest(value, self.enum)
            hint = f'did you mean "{near}"?' if near else f"use one of {quote_list(self.enum)}"
            c.error(self.enum_code, pointer, f'"{value}" is not one of {quote_list(self.enum)}', hint)
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
            return type_error(c, value, pointer, "an integer" if self.integer else "a number")
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
            return type_error(c, value, pointer, "true or false")
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
            return type_error(c, value, pointer, " or ".join(article(t) for t in self.types))
        return True

    def schema(self) -> JSONSchema:
        s: JSONSchema = {}
        if self.types is not None:
            s["type"] = list(self.types) if len(self.types) > 1 else self.types[0]
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
