"""Frozen, typed value classes, like ``@dataclass(frozen=True)`` but free to define: ``ui``'s start-up defines many.

``dataclasses`` writes each class's ``__init__``, ``__repr__``, ``__eq__``, ``__hash__`` and
``__setattr__`` as source text and compiles it when the class is defined (about 2 ms a class on the
2-core development machine; ``typing.NamedTuple`` 0.4 ms and an import of ``typing``), and importing
it loads ``inspect`` (about 25 ms more). The plain ``neuralis-build ui`` build defined 28 such classes
before it could start esbuild, so its start-up cost more than the bundling of a small package. Only
the classes that build loads use it (docs/spec-decisions.md, "Start-up of ui"). ``@frozen`` gives a class the same
behaviour with methods every class shares, so defining one costs what a plain class costs:
construction by position or keyword with defaults and ``field(default_factory=...)``, no assignment
afterwards, equality and hashing by value (``eq=False``: by identity), and a repr that shows the
fields. Type checkers read it as a frozen dataclass (PEP 681, ``dataclass_transform``). What it
leaves out (``order``, ``__post_init__``, inheritance between two frozen classes, ``InitVar``) no
class of the toolchain uses; it refuses a frozen base rather than guess.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up); mypy knows the name
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar, dataclass_transform

    T = TypeVar("T")
else:

    def dataclass_transform(**_options):  # typing's marker only informs type checkers
        return lambda decorator: decorator


class FrozenInstanceError(AttributeError):
    """An attribute of a frozen instance was assigned or deleted (dataclasses' error of the same name)."""


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()
"""No default: the argument is required."""


class Field:
    """What ``field()`` declares for one attribute: its default (or a factory of it) and whether repr shows it."""

    __slots__ = ("default", "factory", "repr")

    def __init__(self, default: Any, factory: Callable[[], Any] | None, repr: bool) -> None:
        self.default, self.factory, self.repr = default, factory, repr


def field(*, default: Any = MISSING, default_factory: Callable[[], Any] | None = None, repr: bool = True) -> Any:
    """A field with a default factory (a fresh list for each instance) or hidden from repr."""
    return Field(default, default_factory, repr)


_FIELDS = "__frozen_fields__"


@dataclass_transform(frozen_default=True, field_specifiers=(field,))
def frozen(cls: type[T] | None = None, /, *, eq: bool = True) -> Any:
    """Make ``cls`` a frozen value class of its annotated attributes (``@frozen`` or ``@frozen(eq=False)``)."""

    def wrap(cls: type[T]) -> type[T]:
        if any(hasattr(base, _FIELDS) for base in cls.__mro__[1:]):
            raise TypeError(f"{cls.__name__}: a frozen class cannot extend another one")
        fields: list[tuple[str, Field]] = []
        for name, annotation in cls.__dict__.get("__annotations__", {}).items():  # noqa: RUF063 (inspect: start-up)
            if str(annotation).startswith(("ClassVar", "typing.ClassVar")):
                continue
            value = cls.__dict__.get(name, MISSING)
            spec = value if isinstance(value, Field) else Field(value, None, True)
            if spec.default is MISSING and spec.factory is None and fields and _has_default(fields[-1][1]):
                raise TypeError(f"{cls.__name__}: the field {name} without a default follows one with a default")
            if isinstance(value, Field):  # the class keeps a plain default, like dataclasses; a factory it drops
                if spec.default is MISSING:
                    delattr(cls, name)
                else:
                    setattr(cls, name, spec.default)
            fields.append((name, spec))
        setattr(cls, _FIELDS, tuple(fields))
        cls.__init__ = _init  # type: ignore[method-assign]
        cls.__repr__ = _repr  # type: ignore[method-assign]
        cls.__setattr__ = _setattr  # type: ignore[method-assign]
        cls.__delattr__ = _delattr  # type: ignore[method-assign]
        if eq:
            cls.__eq__ = _eq  # type: ignore[method-assign]
            cls.__hash__ = _hash  # type: ignore[method-assign]
        return cls

    return wrap if cls is None else wrap(cls)


def _has_default(spec: Field) -> bool:
    return spec.default is not MISSING or spec.factory is not None


def _init(self: Any, *args: Any, **kwargs: Any) -> None:
    fields: tuple[tuple[str, Field], ...] = getattr(self, _FIELDS)
    kind = type(self).__name__
    if len(args) > len(fields):
        raise TypeError(f"{kind}() takes {len(fields)} arguments but {len(args)} were given")
    values = self.__dict__  # written directly: __setattr__ refuses every assignment
    for (name, _), value in zip(fields, args, strict=False):
        if name in kwargs:
            raise TypeError(f"{kind}() got multiple values for argument {name!r}")
        values[name] = value
    for name, spec in fields[len(args) :]:
        if name in kwargs:
            values[name] = kwargs.pop(name)
        elif spec.factory is not None:
            values[name] = spec.factory()
        elif spec.default is not MISSING:
            values[name] = spec.default
        else:
            raise TypeError(f"{kind}() missing required argument {name!r}")
    if kwargs:
        raise TypeError(f"{kind}() got an unexpected keyword argument {next(iter(kwargs))!r}")


def _values(self: Any) -> tuple[Any, ...]:
    return tuple(self.__dict__[name] for name, _ in getattr(self, _FIELDS))


def _repr(self: Any) -> str:
    shown = ", ".join(f"{name}={self.__dict__[name]!r}" for name, spec in getattr(self, _FIELDS) if spec.repr)
    return f"{type(self).__qualname__}({shown})"


def _eq(self: Any, other: object) -> bool:
    if other.__class__ is not self.__class__:
        return NotImplemented  # type: ignore[no-any-return]
    same: bool = _values(self) == _values(other)
    return same


def _hash(self: Any) -> int:
    return hash(_values(self))


def _setattr(self: Any, name: str, value: Any) -> None:
    raise FrozenInstanceError(f"cannot assign to field {name!r} of a frozen {type(self).__name__}")


def _delattr(self: Any, name: str) -> None:
    raise FrozenInstanceError(f"cannot delete field {name!r} of a frozen {type(self).__name__}")


def replace(obj: T, /, **changes: Any) -> T:
    """A copy of the frozen ``obj`` with ``changes`` (``dataclasses.replace`` for ``@frozen`` classes)."""
    values = {name: obj.__dict__[name] for name, _ in getattr(obj, _FIELDS)}
    unknown = set(changes) - set(values)
    if unknown:
        raise TypeError(f"{type(obj).__name__} has no field {sorted(unknown)[0]!r}")
    values.update(changes)
    return type(obj)(**values)
