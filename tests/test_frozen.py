"""@frozen (neuralis_build/frozen.py) behaves as @dataclass(frozen=True) does, for what the toolchain uses."""

from __future__ import annotations

import copy
import dataclasses
import pickle
from functools import cached_property

import pytest

from neuralis_build.frozen import FrozenInstanceError, field, frozen, replace


@frozen
class Point:
    x: int
    y: int = 0
    tags: list[str] = field(default_factory=list)
    note: str | None = field(default=None, repr=False)


@dataclasses.dataclass(frozen=True)
class DPoint:  # the same class as a frozen dataclass: the reference @frozen is compared against
    x: int
    y: int = 0
    tags: list[str] = dataclasses.field(default_factory=list)
    note: str | None = dataclasses.field(default=None, repr=False)


@frozen(eq=False)
class Folder:
    root: str

    @cached_property
    def listing(self) -> list[str]:
        return [self.root]


@frozen
class Pair:  # module level, so pickle can find it
    a: int
    b: tuple[int, ...] = ()


def test_construction_by_position_keyword_and_default_like_a_dataclass():
    calls = [((1,), {}), ((1, 2), {}), ((), {"x": 1, "y": 2}), ((1,), {"tags": ["a"]}), ((1, 2, ["t"], "n"), {})]
    for args, kwargs in calls:
        ours, theirs = Point(*args, **kwargs), DPoint(*args, **kwargs)
        assert (ours.x, ours.y, ours.tags, ours.note) == (theirs.x, theirs.y, theirs.tags, theirs.note)
        assert repr(ours) == repr(theirs).replace("DPoint", "Point")


def test_a_default_factory_gives_each_instance_its_own_value():
    a, b = Point(1), Point(1)
    assert a.tags == [] and a.tags is not b.tags


@pytest.mark.parametrize(
    ("args", "kwargs", "message"),
    [
        ((), {}, "Point() missing required argument 'x'"),
        ((1, 2, [], None, 5), {}, "Point() takes 4 arguments but 5 were given"),
        ((1,), {"x": 2}, "Point() got multiple values for argument 'x'"),
        ((1,), {"z": 2}, "Point() got an unexpected keyword argument 'z'"),
    ],
)
def test_wrong_arguments_are_type_errors(args, kwargs, message):
    with pytest.raises(TypeError) as ours:
        Point(*args, **kwargs)
    with pytest.raises(TypeError):
        DPoint(*args, **kwargs)
    assert str(ours.value) == message


def test_an_instance_cannot_be_changed():
    p = Point(1)
    with pytest.raises(FrozenInstanceError):
        p.x = 2  # type: ignore[misc]
    with pytest.raises(FrozenInstanceError):
        del p.x  # type: ignore[misc]
    with pytest.raises(AttributeError):  # like dataclasses' FrozenInstanceError, an AttributeError
        p.y = 3  # type: ignore[misc]
    assert (p.x, p.y) == (1, 0)


def test_equality_and_hash_are_by_value_and_class():
    assert Point(1, 2) == Point(1, 2) and Point(1, 2) != Point(2, 1)
    assert Point(1) != DPoint(1) and Point(1) != (1, 0, [], None)  # not a tuple, not another class
    assert hash(Pair(1, (2,))) == hash(Pair(1, (2,)))
    assert len({Pair(1), Pair(1), Pair(2)}) == 2
    with pytest.raises(TypeError):  # a list field makes the value unhashable, as with a dataclass
        hash(Point(1))
    with pytest.raises(TypeError):
        hash(DPoint(1))


def test_eq_false_keeps_identity_and_allows_cached_properties():
    a, b = Folder("x"), Folder("x")
    assert a != b and a == a and hash(a) != hash(b)
    assert a.listing is a.listing == ["x"]  # cached on the instance although assignment is refused


def test_replace_copies_with_changes_and_refuses_unknown_fields():
    p = Point(1, 2, ["t"])
    q = replace(p, y=5)
    assert (q.x, q.y, q.tags) == (1, 5, ["t"]) and (p.y, q.tags is p.tags) == (2, True)
    with pytest.raises(TypeError, match="Point has no field 'z'"):
        replace(p, z=1)


def test_copy_and_pickle_keep_the_value():
    p = Pair(1, (2, 3))
    assert copy.copy(p) == p and copy.deepcopy(p) == p and pickle.loads(pickle.dumps(p)) == p


def test_definitions_that_dataclasses_refuse_are_refused():
    with pytest.raises(TypeError, match="the field b without a default follows one with a default"):

        @frozen
        class Bad:
            a: int = 0
            b: int

    with pytest.raises(TypeError, match="a frozen class cannot extend another one"):

        @frozen
        class Sub(Pair):
            c: int = 0
