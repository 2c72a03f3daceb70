"""Frozen value classes for the rules engines, and a quick :func:`replace` for them.

**Value classes.** ``@valueclass`` makes a class of frozen values as
``@dataclass(frozen=True)`` does: the same ``__init__`` (fields in order, defaults), ``==``,
``hash``, ``repr`` and refusal to assign, and type checkers read it as a frozen dataclass.
It exists for start-up: every ``companion replay`` and every start of the box loads the
shared types and an engine, and there ``dataclasses`` cost more than the rules themselves.
Importing it pulls in ``inspect`` (``ast``, ``dis``, ``tokenize``: about 10 ms here), and it
compiles five methods for each class (about 1 ms a class). ``@valueclass`` compiles only
``__init__`` and shares the rest. On a Pi every millisecond is about ten.

**Copies.** Every record line makes a new state value from the last, so the cost of that copy
is the cost of a replay. ``dataclasses.replace`` calls the class's ``__init__`` and sets
each of the twenty-odd fields on its own. Giving a bare instance a merged copy of the
instance dictionary makes the same value in a tenth of that.

>>> @valueclass
... class Point:
...     x: int
...     y: int = 0
>>> Point(1, 2), Point(1) == Point(1, 0), replace(Point(1, 2), y=5)
(Point(x=1, y=2), True, Point(x=1, y=5))
>>> replace(Point(1), z=3)
Traceback (most recent call last):
...
TypeError: Point has no field 'z'
>>> Point(1).x = 2
Traceback (most recent call last):
...
AttributeError: cannot assign to field 'x'
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from operator import attrgetter
from typing import Any, TypeVar, dataclass_transform

T = TypeVar("T")
#: The classes :func:`replace` has found plain (a set is quicker to ask than a cache).
PLAIN: set[type] = set()
#: Held here, for :func:`replace`: looking them up is a tenth of a copy.
_new, _set = object.__new__, object.__setattr__


@dataclass_transform(frozen_default=True)
def valueclass(cls: type[T]) -> type[T]:
    """Make ``cls`` a frozen value class from its annotated fields (``ClassVar`` left out).

    A class may define ``__post_init__``, which ``__init__`` calls last, and properties and
    cached properties of its own; fields are read from the class and its value bases.
    """
    own = cls.__dict__.get("__annotations__", {})  # noqa: RUF063 (inspect is what this avoids)
    names = tuple(getattr(cls, "__value_fields__", ())) + tuple(
        name for name, kind in own.items() if "ClassVar" not in str(kind))
    defaults = {name: getattr(cls, name) for name in names if hasattr(cls, name)}
    params, seen_default = [], False
    for name in names:
        if name in defaults:
            params.append(f"{name}=_defaults[{name!r}]")
            seen_default = True
        elif seen_default:
            raise TypeError(f"{cls.__name__}: field {name!r} without a default follows one with")
        else:
            params.append(name)
    body = f"_set(self, '__dict__', {{{', '.join(f'{n!r}: {n}' for n in names)}}})"
    if hasattr(cls, "__post_init__"):
        body += "\n    self.__post_init__()"
    namespace = {"_set": _set, "_defaults": defaults}
    exec(f"def __init__(self, {', '.join(params)}) -> None:\n    {body}\n", namespace)
    key = _key(names)
    own_methods: dict[str, Any] = {"__init__": namespace["__init__"], "__eq__": _eq(key),
                                   "__hash__": _hash(key), "__repr__": _repr(names)}
    for name, method in own_methods.items():
        method.__qualname__ = f"{cls.__qualname__}.{name}"
    attributes = {**own_methods, "__setattr__": _refuse_set, "__delattr__": _refuse_delete,
                  "__value_fields__": names, "__match_args__": names}
    for name, attribute in attributes.items():
        setattr(cls, name, attribute)
    return cls


def _key(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """The fields of a value as a tuple, in order: what ``==`` and ``hash`` compare, as a
    dataclass's do."""
    if len(names) > 1:
        return attrgetter(*names)
    return lambda self: tuple(getattr(self, name) for name in names)


def _eq(key: Callable[[Any], tuple[Any, ...]]) -> Callable[[Any, object], Any]:
    def __eq__(self: Any, other: object) -> Any:
        if other.__class__ is self.__class__:
            return key(self) == key(other)
        return NotImplemented
    return __eq__


def _hash(key: Callable[[Any], tuple[Any, ...]]) -> Callable[[Any], int]:
    def __hash__(self: Any) -> int:
        return hash(key(self))
    return __hash__


def _repr(names: tuple[str, ...]) -> Callable[[Any], str]:
    def __repr__(self: Any) -> str:
        fields = self.__dict__
        return f"{type(self).__qualname__}({', '.join(f'{n}={fields[n]!r}' for n in names)})"
    return __repr__


def _refuse_set(self: Any, name: str, _: Any) -> None:
    raise AttributeError(f"cannot assign to field {name!r}")


def _refuse_delete(self: Any, name: str) -> None:
    raise AttributeError(f"cannot delete field {name!r}")


@cache
def field_names(cls: type) -> frozenset[str]:
    """The fields of a value class or dataclass, which ``replace`` may change; TypeError for
    a class whose values a copy of the dictionary would not make."""
    if hasattr(cls, "__post_init__") or hasattr(cls, "__slots__"):
        raise TypeError(f"{cls.__name__} computes fields or has slots: use its constructor")
    names = getattr(cls, "__value_fields__", None)
    if names is None:
        import dataclasses  # a dataclass (a game from elsewhere, a test's): its own fields

        names = [f.name for f in dataclasses.fields(cls)]
    return frozenset(names)


def replace(value: T, /, **changes: Any) -> T:
    """A copy of a frozen value with ``changes``, like ``dataclasses.replace``.

    Only for plain value classes and frozen dataclasses, as the engines' states are: no
    ``__post_init__``, no ``__slots__``, no ``InitVar`` (their ``__init__`` computes nothing
    that a copy would miss).
    """
    cls: type = type(value)
    if cls not in PLAIN:
        field_names(cls)  # TypeError for a class whose dictionary's copy is no value
        PLAIN.add(cls)
    fields = value.__dict__
    merged = fields | changes
    if len(merged) != len(fields):  # a name that is no field added a key
        unknown = min(changes.keys() - field_names(cls))
        raise TypeError(f"{cls.__name__} has no field {unknown!r}")
    copy: T = _new(cls)
    _set(copy, "__dict__", merged)  # a frozen class refuses plain assignment
    return copy
