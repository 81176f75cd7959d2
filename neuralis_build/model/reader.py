"""Read JSON into the model's frozen values, leniently: a value of the wrong type reads as absent.

Each model class is a frozen dataclass whose fields name their JSON keys (``snake_case`` for
``camelCase``, or ``key=`` in the field's metadata) and whose annotations say what a key holds: a
string, a boolean, a number, another model, a tuple of either, a ``Located`` scalar, or ``Json``
(free-form data such as a JSON Schema). Validation is the manifest rules' job; this reader only
takes what fits, so a consumer of a package with errors sees what the host would see of it, never
a crash. Values under a dropped pointer (a field honored at a higher trust) are left out.
"""

from __future__ import annotations

import copy
import types
import typing
from collections.abc import Callable, Collection
from dataclasses import MISSING, Field, fields
from functools import cache
from typing import Any, TypeVar, Union, cast, get_args, get_origin

from neuralis_build.model.located import At, Located
from neuralis_build.util.jsonpointer import join, split

M = TypeVar("M")
Json = Any
"""Free-form JSON (a schema, a default value): kept as written."""

Convert = Callable[[Any, At, Collection[str]], Any]


def json_key(f: Field[Any]) -> str:
    """The JSON key a model field reads: its ``key`` metadata, else its name in camelCase."""
    key = f.metadata.get("key")
    if isinstance(key, str):
        return key
    head, *rest = f.name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def _scalar(kind: type | tuple[type, ...]) -> Convert:
    def convert(value: Any, at: At, dropped: Collection[str]) -> Any:
        if isinstance(value, bool) and bool not in (kind if isinstance(kind, tuple) else (kind,)):
            return None
        return value if isinstance(value, kind) else None

    return convert


def _converter(hint: Any) -> tuple[Convert, Any]:
    """How to read a value of type ``hint``, and what an absent one reads as."""
    origin = get_origin(hint)
    if hint is Any:
        return (lambda value, at, dropped: value), None
    if origin in (Union, types.UnionType):
        inner = [a for a in get_args(hint) if a is not type(None)]
        if all(a in (int, float) for a in inner):
            return _scalar((int, float) if float in inner else int), None
        (one,) = inner
        convert, _ = _converter(one)
        return convert, None
    if origin is tuple:
        item, _ellipsis = get_args(hint)
        convert_item, _ = _converter(item)

        def many(value: Any, at: At, dropped: Collection[str]) -> tuple[Any, ...]:
            if not isinstance(value, list):
                return ()
            found = []
            for index, element in enumerate(value):
                place = at.child(index)
                if place.pointer in dropped:
                    continue
                converted = convert_item(element, place, dropped)
                if converted is not None:
                    found.append(converted)
            return tuple(found)

        return many, ()
    if origin is Located:
        (inner_hint,) = get_args(hint)
        convert_inner, _ = _converter(inner_hint)

        def located(value: Any, at: At, dropped: Collection[str]) -> Located[Any] | None:
            inner_value = convert_inner(value, at, dropped)
            return Located(inner_value, at) if inner_value is not None else None

        return located, None
    if hint in (str, bool, int, float):
        return _scalar(hint), None
    if isinstance(hint, type) and hasattr(hint, "__dataclass_fields__"):
        return (lambda value, at, dropped: read(hint, value, at, dropped)), None
    raise TypeError(f"the model reader cannot read {hint!r}")


@cache
def _plan(cls: Any) -> tuple[tuple[str, str, Convert, Any], ...]:
    hints = typing.get_type_hints(cls)
    plan = []
    for f in fields(cls):
        if f.name in ("at", "raw"):
            continue
        convert, empty = _converter(hints[f.name])
        default = f.default if f.default is not MISSING else empty
        plan.append((f.name, json_key(f), convert, default))
    return tuple(plan)


def read(cls: type[M], value: Any, at: At, dropped: Collection[str] = ()) -> M | None:
    """``value`` as a ``cls``; None when it is not a JSON object."""
    if not isinstance(value, dict):
        return None
    values: dict[str, Any] = {"at": at}
    for name, key, convert, default in _plan(cast(type, cls)):
        place = at.child(key)
        if key in value and place.pointer not in dropped:
            converted = convert(value[key], place, dropped)
            values[name] = default if converted is None else converted
        else:
            values[name] = default
    if "raw" in cls.__dataclass_fields__:  # type: ignore[attr-defined]
        values["raw"] = without_dropped(value, at.pointer, dropped)
    return cls(**values)


def without_dropped(value: Any, pointer: str, dropped: Collection[str]) -> Any:
    """A copy of the JSON ``value`` at ``pointer`` without the dropped values under it (arrays close up)."""
    above: set[str] = set()  # every strict ancestor of a dropped pointer: where the walk must descend
    for gone in dropped:
        if gone.startswith(pointer + "/"):
            tokens = split(gone)
            above.update(join("", *tokens[:n]) for n in range(1, len(tokens)))

    def walk(item: Any, at: str) -> Any:
        if at not in above:
            return copy.deepcopy(item)
        if isinstance(item, dict):
            return {k: walk(v, join(at, k)) for k, v in item.items() if join(at, k) not in dropped}
        if isinstance(item, list):
            return [walk(v, join(at, i)) for i, v in enumerate(item) if join(at, i) not in dropped]
        return copy.deepcopy(item)

    return walk(value, pointer)


def keys_of(cls: type) -> set[str]:
    """The JSON keys a model class reads (a test holds them to the shapes' keys)."""
    return {json_key(f) for f in fields(cls) if f.name not in ("at", "raw")}
