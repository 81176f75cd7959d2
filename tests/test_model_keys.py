"""Every object of the manifest names the typed model that reads it, and that model reads exactly its keys.

No list of pairs to keep up to date: the shapes are walked from the ``neuralis`` block down, so a key
added to a shape without its model field (or the other way round), or a new object that names no
model, fails here.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

import pytest

from neuralis_build.manifest.block import NEURALIS
from neuralis_build.manifest.compound import RAW, Field, Obj
from neuralis_build.manifest.shape import Shape
from neuralis_build.model.reader import keys_of


def objects(shape: Any, seen: set[int] | None = None) -> Iterator[Obj]:
    """Every object shape reachable from ``shape``: through fields, items, values and alternatives."""
    seen = set() if seen is None else seen
    if id(shape) in seen:
        return
    seen.add(id(shape))
    if isinstance(shape, Obj):
        yield shape
    if isinstance(shape, Shape | Field) and dataclasses.is_dataclass(shape):
        for f in dataclasses.fields(shape):
            yield from _inside(getattr(shape, f.name), seen)


def _inside(value: Any, seen: set[int]) -> Iterator[Obj]:
    if isinstance(value, Shape | Field):
        yield from objects(value, seen)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _inside(item, seen)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _inside(item, seen)


ALL = list(objects(NEURALIS))


def by_model() -> dict[type, set[str]]:
    keys: dict[type, set[str]] = {}
    for shape in ALL:
        if isinstance(shape.model, type):
            keys.setdefault(shape.model, set()).update(set(shape.fields) - set(shape.unmodeled))
    return keys


def test_every_object_of_the_manifest_names_how_it_is_read() -> None:
    unnamed = [shape.what for shape in ALL if shape.model is None]
    assert unnamed == [], "name the model class that reads it (model=…), or model=RAW when it is kept as written"
    assert len(by_model()) >= 24  # the walk reaches the whole block


@pytest.mark.parametrize("cls", sorted(by_model(), key=lambda c: c.__name__), ids=lambda c: c.__name__)
def test_a_model_class_reads_the_keys_its_shapes_allow(cls: type) -> None:
    assert keys_of(cls) == by_model()[cls]


def test_objects_kept_as_written_are_the_free_form_ones() -> None:
    assert sorted(shape.what for shape in ALL if shape.model == RAW) == [
        "a uriPolicies default (exactly { read, write, exec })",
        "a uriPolicies entry (exactly { default, paths? })",
        "a uriPolicies path rule",
        "access",
    ]
