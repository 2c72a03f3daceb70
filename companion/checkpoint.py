"""State checkpoints: an engine's state as text, so that resuming replays only what follows.

A checkpoint is a cache, never the truth: the store keeps one every :data:`EVERY` entries,
beside a digest of the record lines it follows (see :mod:`companion.store`), and a session
uses it only when the digest still matches the record and the code that wrote it is the code
that reads it (:func:`engine_tag`). Anything else (a record changed by undo or salvage, a
different version, a damaged value) is dropped, and the session replays the record instead.

Engine states are frozen value classes (or dataclasses) of tuples, numbers, strings and
``None``; the encoding is JSON with the other kinds tagged, and reading it back builds only
value classes, dataclasses and enums that the engine's own module names (no pickle: nothing
read from a file picks what code runs).

>>> from companion.games import GAMES
>>> from companion.games.base import Line
>>> game = GAMES["microbot-racers"]
>>> state = game.apply(game.start(("Ann", "Bob"), {"laps": 2, "side": "easy"}),
...                    Line("table", "roll", ("3", "2")))
>>> decode(game, encode(state), like=state) == state
True
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import json
import pathlib
import sys
import zlib
from typing import Any

from companion import __version__
from companion.exc import Incompatible
from companion.games.base import Game, S

#: Entries between two checkpoints. Resuming replays fewer entries than this (at most 10 ms
#: of CPU on a PC, for the slowest engine); a press that reaches a multiple of it also writes
#: the state (0.2-0.5 KB of JSON) and sums up the entries since the last checkpoint, in the
#: entry's own transaction: 0.2-0.4 ms more CPU on a PC. At 256 those presses stay out of the
#: slowest 1% (64 put 1.6% of presses there), and a long race's store grows by 7% (a third
#: at 64), while resuming stays a small part of the start.
EVERY = 256
#: The encoding's own version: a change to :func:`encode` changes it, and every checkpoint
#: written before is then ignored.
FORMAT = 1


@functools.cache
def engine_tag(game: Game[Any, Any]) -> str:
    """What wrote a checkpoint: the encoding, the program's version and the engine's code.

    The engine's source is hashed as well as the version, so that a checkpoint from a
    changed engine of the same version number (a development build, a patched install) is
    not trusted either. Computed once per process and game.
    """
    crc = 0  # zlib, not hashlib: loading OpenSSL would cost 3.5 MB resident
    for name in sorted({type(game).__module__, Game.__module__}):
        source = getattr(sys.modules.get(name), "__file__", None)
        try:
            crc = zlib.crc32(pathlib.Path(source).read_bytes() if source else name.encode(), crc)
        except OSError:  # no source beside the code: the version alone says what wrote it
            crc = zlib.crc32(name.encode(), crc)
    return f"{FORMAT} {__version__} {game.id} {crc:08x}"


def encode(state: Any) -> str:
    """The state as compact JSON text; tuples are arrays, other kinds are tagged objects."""
    return json.dumps(_plain(state), separators=(",", ":"), allow_nan=False)


def _plain(value: Any) -> Any:
    if value is None or (isinstance(value, (bool, int, float, str)) and not isinstance(value, enum.Enum)):
        return value
    if isinstance(value, tuple) and not hasattr(value, "_fields"):
        return [_plain(v) for v in value]
    if _is_value_class(type(value)):
        return {"class": type(value).__name__,
                "fields": {name: _plain(getattr(value, name)) for name in _field_names(type(value))}}
    if isinstance(value, enum.Enum):
        return {"enum": type(value).__name__, "value": _plain(value.value)}
    if isinstance(value, frozenset):
        items = [_plain(v) for v in value]
        return {"frozenset": sorted(items, key=lambda v: json.dumps(v, sort_keys=True))}
    if isinstance(value, list):
        return {"list": [_plain(v) for v in value]}
    if isinstance(value, dict):
        return {"dict": [[_plain(k), _plain(v)] for k, v in value.items()]}
    raise TypeError(f"a state holds a {type(value).__name__}, which checkpoints cannot keep")


def decode(game: Game[S, Any], text: str, like: S) -> S:
    """The state that :func:`encode` wrote for ``game``, of the class of ``like`` (a state of
    the game: its start); Incompatible when it cannot be."""
    try:
        state = _value(_kinds(game), json.loads(text))
    except (ValueError, TypeError, KeyError, AttributeError, RecursionError) as err:
        raise Incompatible(f"a checkpoint cannot be read back: {err}") from None
    if not isinstance(state, type(like)):
        raise Incompatible(f"a checkpoint holds a {type(state).__name__}, not a {type(like).__name__}")
    return state


@functools.cache
def _kinds(game: Game[Any, Any]) -> dict[str, type]:
    """The dataclasses and enums a state of ``game`` may hold: those its module names."""
    kinds: dict[str, type] = {}
    for name in (Game.__module__, type(game).__module__):
        for key, value in vars(sys.modules[name]).items():
            if isinstance(value, type) and (_is_value_class(value) or issubclass(value, enum.Enum)):
                kinds[key] = value
    return kinds


def _is_value_class(cls: type) -> bool:
    """A class of the engines' frozen values (:func:`companion.games.base.valueclass`), or a
    dataclass (a game written elsewhere may use those)."""
    return hasattr(cls, "__value_fields__") or dataclasses.is_dataclass(cls)


def _field_names(cls: type) -> tuple[str, ...]:
    names: tuple[str, ...] | None = getattr(cls, "__value_fields__", None)
    if names is None:
        return tuple(f.name for f in dataclasses.fields(cls))
    return names


def _computed_fields(cls: type) -> tuple[str, ...]:
    """A dataclass's fields that its ``__init__`` does not take."""
    if hasattr(cls, "__value_fields__"):
        return ()
    return tuple(f.name for f in dataclasses.fields(cls) if not f.init)


def _value(kinds: dict[str, type], plain: Any) -> Any:
    if isinstance(plain, list):
        return tuple(_value(kinds, v) for v in plain)
    if not isinstance(plain, dict):
        return plain
    if "class" in plain:
        cls = kinds[plain["class"]]
        if not _is_value_class(cls):
            raise TypeError(f"{plain['class']} is not a value class")
        given = {k: _value(kinds, v) for k, v in plain["fields"].items()}
        if set(given) != set(_field_names(cls)):
            raise ValueError(f"{cls.__name__} has other fields now")
        computed = _computed_fields(cls)
        made = cls(**{name: given[name] for name in given if name not in computed})
        for name in computed:  # computed in __post_init__ when written: restored as written
            object.__setattr__(made, name, given[name])
        return made
    if "enum" in plain:
        cls = kinds[plain["enum"]]
        if not issubclass(cls, enum.Enum):
            raise TypeError(f"{plain['enum']} is not an enum")
        return cls(_value(kinds, plain["value"]))
    if "frozenset" in plain:
        return frozenset(_value(kinds, v) for v in plain["frozenset"])
    if "list" in plain:
        return [_value(kinds, v) for v in plain["list"]]
    if "dict" in plain:
        return {_value(kinds, k): _value(kinds, v) for k, v in plain["dict"]}
    raise ValueError(f"unknown kind of value: {sorted(plain)}")
