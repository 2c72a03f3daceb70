"""The engines' frozen values (``companion.games.frozen.valueclass``) behave as the frozen
dataclasses they replace: the same construction, ``==``, ``hash``, ``repr`` and refusal to
change, so that no record's summary, no checkpoint and no screen can tell them apart.

Each value is held against its dataclass twin: a frozen dataclass with the same name, fields
and defaults, built from the same field values.
"""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import pytest

from companion.games import GAMES, KITS, Kit
from companion.games.base import Line, Prompt, valueclass
from companion.games.frozen import replace
from tests.playout import players_for, playout


def twin(cls: type) -> type:
    """The frozen dataclass that ``cls`` would have been."""
    fields = [(name, Any, dataclasses.field(default=getattr(cls, name))) if hasattr(cls, name)
              else (name, Any) for name in cls.__value_fields__]  # type: ignore[attr-defined]
    return dataclasses.make_dataclass(cls.__name__, fields, frozen=True)


def as_twin(value: Any) -> Any:
    """``value`` rebuilt as dataclass twins all the way down (tuples of values too)."""
    if hasattr(type(value), "__value_fields__"):
        return twin(type(value))(**{name: as_twin(getattr(value, name)) for name in value.__value_fields__})
    if isinstance(value, tuple):
        return tuple(as_twin(item) for item in value)
    return value


def values_of_play(seed: int) -> list[Any]:
    """States, prompts and outcomes of a random game of each kind."""
    out: list[Any] = []
    rng = random.Random(seed)
    for game in GAMES.values():
        state, lines = playout(game, players_for(game, seed % 3), rng, steps=60)
        out += [state, game.prompt(state), game.outcome(state), *lines[:5]]
    return [value for value in out if value is not None]


@pytest.mark.parametrize("seed", range(4))
def test_a_value_prints_compares_and_hashes_as_its_dataclass_twin(seed: int) -> None:
    for value in values_of_play(seed):
        same = as_twin(value)
        assert repr(value) == repr(same)
        assert hash(value) == hash(same)
        assert value == replace(value)
        assert (value != replace(value)) is False
        assert hash(value) == hash(replace(value))


def test_values_of_different_classes_or_fields_differ() -> None:
    line = Line("Ann", "pick", ("move-2",))
    assert line == Line("Ann", "pick", ("move-2",))
    assert line != Line("Ann", "pick", ("move-3",))
    assert line != ("Ann", "pick", ("move-2",))
    assert line != twin(Line)("Ann", "pick", ("move-2",))  # another class, as dataclasses have it
    assert len({line, Line("Ann", "pick", ("move-2",)), Line("Bob", "pick")}) == 2


def test_construction_takes_fields_in_order_or_by_name_with_defaults() -> None:
    assert Line("Ann", "pass") == Line(verb="pass", actor="Ann") == Line("Ann", "pass", ())
    with pytest.raises(TypeError):
        Line("Ann")  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Line("Ann", "pass", (), "extra")  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Line("Ann", "pass", colour="red")  # type: ignore[call-arg]


def test_a_value_cannot_be_changed_in_place() -> None:
    ask = Prompt("Ann", "Pick", ())
    with pytest.raises(AttributeError):
        ask.actor = "Bob"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        del ask.question  # type: ignore[misc]
    assert ask.actor == "Ann"


def test_post_init_checks_what_it_is_given() -> None:
    with pytest.raises(ValueError, match="not a game ID"):
        Kit("Not An ID", "companion.games.microbot_racers:MicrobotRacers")
    assert Kit("x-1", "a.b:C").engine == "a.b:C"


def test_a_field_without_a_default_after_one_with_is_refused_as_dataclasses_do() -> None:
    with pytest.raises(TypeError):
        @valueclass
        class Bad:
            first: int = 0
            second: int


def test_subclasses_add_fields_after_their_bases_and_match_by_position() -> None:
    @valueclass
    class Point:
        x: int
        y: int = 0

    @valueclass
    class Labelled(Point):
        label: str = ""

    point = Labelled(1, 2, "a")
    assert repr(point).endswith(".<locals>.Labelled(x=1, y=2, label='a')")  # the qualified name
    match point:
        case Labelled(x, y, label):
            assert (x, y, label) == (1, 2, "a")
    assert replace(point, y=5) == Labelled(1, 5, "a")


def test_every_engine_value_class_is_a_value_class() -> None:
    """No dataclass is left among the values a replay builds (they would bring back the cost)."""
    for kit in KITS.values():
        module = __import__(kit.engine.partition(":")[0], fromlist=["_"])
        for value in vars(module).values():
            if isinstance(value, type) and value.__module__ == module.__name__:
                assert not dataclasses.is_dataclass(value), value
