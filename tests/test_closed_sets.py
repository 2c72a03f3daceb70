"""Closed sets are types: every field a rules engine types as a ``Literal`` (a phase, a
stage, a pending check) holds one of its values in every state random games reach, and so
does every such key of the summary. mypy checks the code that writes them; this checks
that the types say the truth about what the engines do (a value left out of a type would
pass mypy wherever it is only compared).
"""

from __future__ import annotations

import random
import sys
import types
import typing
from collections.abc import Iterator
from typing import Any, Literal, get_args, get_origin, get_type_hints

import pytest

from companion.games import GAMES
from companion.games.base import Game, Grid, Prompt, Verb
from companion.intents import KINDS, ROLES, Kind, Role
from companion.record import summarise
from tests.playout import answer, players_for

SEEDS = 6
STEPS = 300


def allowed(hint: Any) -> frozenset[object] | None:
    """The values a hint allows when it is a closed set (a ``Literal``, or a union of them
    with ``None``); None for any other hint."""
    if get_origin(hint) is Literal:
        return frozenset(get_args(hint))
    if get_origin(hint) in (typing.Union, types.UnionType):
        parts = [allowed(arg) if arg is not type(None) else frozenset({None}) for arg in get_args(hint)]
        if all(part is not None for part in parts) and any(part != {None} for part in parts):
            return frozenset().union(*(part for part in parts if part is not None))
    return None


def closed_fields(cls: type) -> dict[str, frozenset[object]]:
    """A class's fields (or a TypedDict's keys) typed as closed sets, with their values."""
    hints = get_type_hints(cls, vars(sys.modules[cls.__module__]))
    return {name: values for name, hint in hints.items() if (values := allowed(hint)) is not None}


def states(game: Game[Any, Any]) -> Iterator[tuple[Any, Prompt | None]]:
    """Every state of a few random games, with its prompt."""
    for seed in range(SEEDS):
        rng = random.Random(seed)
        options = {key: rng.choice(spec.choices) for key, spec in game.options.items() if spec.choices}
        state = game.start(players_for(game, seed % 2), game.option_values(options))
        for _ in range(STEPS):
            ask = game.prompt(state)
            yield state, ask
            if ask is None or not ask.answers:
                break
            state = game.apply(state, answer(game, state, ask, rng))


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_every_closed_field_of_a_state_and_a_summary_holds_one_of_its_values(game_id: str) -> None:
    game = GAMES[game_id]
    module = sys.modules[type(game).__module__]
    state_fields = closed_fields(module.State)
    summary_keys = closed_fields(module.Details)
    seen: dict[str, set[object]] = {}
    for state, ask in states(game):
        for name, values in state_fields.items():
            assert getattr(state, name) in values, (name, getattr(state, name))
            seen.setdefault(name, set()).add(getattr(state, name))
        summary = summarise(game, game.seats(state), state, ask)
        for key, values in summary_keys.items():
            assert summary[key] in values, (key, summary[key])  # type: ignore[literal-required]
        for grid in (a for a in (ask.answers + ask.extras if ask else ()) if isinstance(a, Grid)):
            assert grid.spell in get_args(get_type_hints(Grid)["spell"])
    # The random games reach more than one value of each (else this test proves little).
    assert all(len(values) > 1 for values in seen.values()), seen


def test_every_game_types_its_phase() -> None:
    """Each engine's state says where the game stands with a field typed as a closed set."""
    for game in GAMES.values():
        module = sys.modules[type(game).__module__]
        assert closed_fields(module.State), type(game).__name__


def test_every_verb_says_who_writes_it_with_one_of_the_three_ways() -> None:
    ways = get_args(get_type_hints(Verb)["by"])
    assert ways == ("player", "table", "either")
    for game in GAMES.values():
        assert all(verb.by in ways for verb in game.verbs.values())


def test_the_intents_and_the_key_roles_are_the_types_values() -> None:
    assert frozenset(get_args(Kind)) == KINDS and get_args(Role) == ROLES
    assert set(ROLES) < KINDS and KINDS - set(ROLES) == {"undo", "redo", "digit"}


def test_the_finder_tells_closed_sets_from_others() -> None:
    assert allowed(Literal["a", "b"]) == {"a", "b"}
    assert allowed(Literal["a"] | None) == {"a", None}
    assert allowed(str) is None and allowed(str | None) is None and allowed(int | Literal["a"]) is None
