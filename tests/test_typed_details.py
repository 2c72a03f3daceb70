"""The typed contract between engines and screens: each game's details are exactly the keys of
its ``TypedDict`` (so mypy's check of a key on either side is a check of the real summary),
and how a game ended is an ``Outcome`` that the summary's ``over`` and ``winners`` follow."""

from __future__ import annotations

import importlib
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games import GAMES
from companion.record import summarise
from tests.playout import NAMES, playout


@pytest.mark.parametrize("game_id", sorted(GAMES))
@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), steps=st.integers(0, 400))
def test_details_have_exactly_the_keys_of_the_games_typeddict(game_id: str, seed: int, steps: int) -> None:
    game = GAMES[game_id]
    rules = importlib.import_module(type(game).__module__)
    players = NAMES[:game.min_players]
    state, _ = playout(game, players, random.Random(seed), steps=steps)
    assert set(game.details(state)) == rules.Details.__required_keys__
    summary = summarise(game, players, state)
    outcome = game.outcome(state)
    assert summary["over"] is (outcome is not None) is game.over(state)
    assert summary["winners"] == (list(outcome.winners) if outcome else [])
    if outcome is not None:
        assert isinstance(outcome.termination, rules.Termination)
        assert outcome.headline()  # the end screen always has words


def test_the_end_screen_says_how_a_game_nobody_won_ended() -> None:
    from companion.games.base import Outcome
    from companion.games.gleebs_and_grues import Termination as Gleebs
    from companion.games.leaf_climbers import Termination as Leaves

    assert Outcome(Gleebs.GRUES_WIN).headline() == "The grues win!"
    assert Outcome(Leaves.ALL_CRUSHED).headline() == "Everyone crushed!"
    assert Outcome(Leaves.ALL_BLUE, ("Ann", "Cat")).headline() == "Ann & Cat win!"
