"""The checks every game shares are made once, by ``Game.apply``: the same refusal, of the same
kind, in every game, whatever step the game is at."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games import GAMES
from companion.games.base import (
    PLAYER,
    TABLE,
    TABLE_ONLY,
    BadArguments,
    Game,
    GameOver,
    Line,
    NotYourTurn,
    UnknownVerb,
)
from tests.playout import NAMES, playout


def position(game: Game[Any, Any], seed: int, steps: int) -> tuple[Any, tuple[str, ...]]:
    players = NAMES[:game.min_players]
    state, _ = playout(game, players, random.Random(seed), steps=steps)
    return state, players


def refused(game: Game[Any, Any], state: Any, line: Line) -> type[Exception]:
    with pytest.raises(Exception) as caught:
        game.apply(state, line)
    return caught.type


@pytest.mark.parametrize("game_id", sorted(GAMES))
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), steps=st.integers(0, 300), data=st.data())
def test_every_game_refuses_the_same_way(game_id: str, seed: int, steps: int, data: st.DataObject) -> None:
    game = GAMES[game_id]
    state, players = position(game, seed, steps)
    if game.over(state):
        verb = data.draw(st.sampled_from(sorted(game.verbs)))
        if not game.after_end(state, Line(players[0], verb)):
            assert refused(game, state, Line(players[0], verb)) is GameOver
        return
    verb = data.draw(st.sampled_from(sorted(game.verbs)))
    shape = game.verbs[verb]
    player = data.draw(st.sampled_from(players))
    assert refused(game, state, Line(player, "dance")) is UnknownVerb
    assert refused(game, state, Line("Zed", verb, ("1",) * min(shape.counts))) is NotYourTurn
    if shape.by == TABLE_ONLY:
        assert refused(game, state, Line(player, verb, ("1",) * min(shape.counts))) is NotYourTurn
    elif shape.by == PLAYER:
        assert refused(game, state, Line(TABLE, verb, ("1",) * min(shape.counts))) is NotYourTurn
    actor = TABLE if shape.by == TABLE_ONLY else player
    too_many = max(shape.counts) + 1
    assert refused(game, state, Line(actor, verb, ("1",) * too_many)) is BadArguments


def test_every_verb_a_prompt_offers_is_declared() -> None:
    """A verb missing from ``verbs`` would be refused as unknown: every line the playouts
    log uses a declared verb, with a declared number of arguments."""
    for game in (GAMES[game_id] for game_id in sorted(GAMES)):
        for seed in range(5):
            _, lines = playout(game, NAMES[:game.max_players], random.Random(seed), steps=300)
            for line in lines:
                assert len(line.args) in game.verbs[line.verb].counts, line
