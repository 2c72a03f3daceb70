"""A quick :func:`dataclasses.replace` for the engines' frozen state values.

Every record line makes a new state value from the last, so the cost of that copy is the
cost of a replay. ``dataclasses.replace`` calls the class's ``__init__``, which sets each of
the twenty-odd fields on its own (a frozen class cannot assign them). Giving a bare instance
a merged copy of the instance dictionary makes the same value for a fraction of that: a
start-up trick, docs/startup.md has what it buys. It copies the engines' value classes
(:func:`companion.games.base.valueclass`) and plain frozen dataclasses alike.

>>> from dataclasses import dataclass
>>> @dataclass(frozen=True)
... class Point:
...     x: int
...     y: int = 0
>>> replace(Point(1, 2), y=5)
Point(x=1, y=5)
>>> replace(Point(1), z=3)
Traceback (most recent call last):
...
TypeError: Point has no field 'z'
"""

from __future__ import annotations

from functools import cache
from typing import Any, TypeVar

T = TypeVar("T")
#: The classes :func:`replace` has found plain (a set is quicker to ask than a cache).
PLAIN: set[type] = set()
#: Held here: looking them up is a tenth of a copy.
_new, _set = object.__new__, object.__setattr__


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
