"""Compound shapes of the manifest: arrays, objects (with trust-gated fields), maps and tagged unions.

Built from the scalar shapes of shape.py; each checks its value and renders itself as JSON Schema.
An object's field with a ``min_trust`` is where "honored for first-party only" lives: below that
tier the field is dropped with a warning (``Checker.drop``) and left out of the effective block.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from neuralis_build.manifest.checker import Checker, quote_list, suggest
from neuralis_build.manifest.shape import (
    NB0101,
    NB0102,
    NB0103,
    NB0106,
    NB0108,
    JSONSchema,
    Shape,
    Str,
    article,
    show_key,
    type_error,
)
from neuralis_build.package import json_type
from neuralis_build.util.diagnostics import Code
from neuralis_build.util.jsonpointer import join
from neuralis_build.util.trust import Trust, at_least


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
            return type_error(c, value, pointer, "an array")
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
                    f"duplicate {self.unique_what} {show_key(key)}; {join(pointer, seen[key])} declares it first",
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


RAW: Literal["raw"] = "raw"
"""An object's ``model`` when the typed block keeps it as written (free-form JSON the host applies itself)."""


@dataclass
class Obj(Shape):
    """An object with named fields; unknown keys are an error, a warning, or allowed.

    ``model`` names the class of the typed block (``neuralis_build.model.block``) that reads it, or
    ``RAW``: every object of the manifest says how it is read, and a test holds each model's fields to
    the keys of the shapes that name it, so a key is never added to one without the other.
    ``unmodeled`` are keys the model does not read because the host never reads them inline (routes).
    """

    fields: dict[str, Field]
    unknown: Unknown = "error"
    unknown_code: Code | None = None
    what: str = "this object"
    checks: Sequence[Check] = ()
    description: str | None = None
    model: type | Literal["raw"] | None = None
    unmodeled: tuple[str, ...] = ()

    def check(self, value: Any, pointer: str, c: Checker) -> bool:
        if not isinstance(value, dict):
            return type_error(c, value, pointer, "an object")
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
            hint = f"allowed keys: {quote_list(list(self.fields))}"
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
            return type_error(c, value, pointer, "an object")
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
            return type_error(c, value, pointer, " or ".join(article(t) for t in self.by_type))
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
            return type_error(c, value, pointer, "an object")
        tags = list(self.variants)
        if self.key not in value:
            c.error(
                NB0102,
                pointer,
                f'{self.what} is missing the required key "{self.key}"',
                f'set "{self.key}" to one of {quote_list(tags)}',
            )
            return False
        tag = value[self.key]
        at = join(pointer, self.key)
        if not isinstance(tag, str):
            return type_error(c, tag, at, "a string", f"use one of {quote_list(tags)}")
        variant = self.variants.get(tag)
        if variant is None:
            near = suggest(tag, tags)
            hint = f'did you mean "{near}"?' if near else f"use one of {quote_list(tags)}"
            c.error(self.tag_code, at, f'"{tag}" is not one of {quote_list(tags)}', hint)
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
