"""Every game's prompts offer only legal lines (a game that is over, at most the lines its rules
still accept), and a played game replays to the same state."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games import GAMES
from companion.games.base import Choice, IllegalLine, usable
from companion.record import Header, format_record, replay_text
from tests.playout import playout

NAMES = ("Ann", "Bob", "Cat", "Dan", "Eve")


@pytest.mark.parametrize("game_id", sorted(GAMES))
@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), extra=st.integers(0, 3))
def test_prompt_answers_are_legal_and_replay_matches(game_id: str, seed: int, extra: int) -> None:
    game = GAMES[game_id]
    count = min(game.max_players, game.min_players + extra)
    players = NAMES[:count]
    state, lines = playout(game, players, random.Random(seed))
    replayed = replay_text(format_record(Header(game, players), lines))
    assert replayed.state == state
    ask = game.prompt(state)
    if game.over(state):  # at most lines still accepted after the end, never a required one
        assert ask is None or not ask.answers
        assert game.next_actor(state) is None
    else:
        assert ask is not None and usable(ask.answers), "a game that is not over must offer a way forward"
        assert ask.actor == game.next_actor(state)
    for listed in (ask.answers + ask.extras) if ask else ():  # listed to say why not: the rules agree
        if isinstance(listed, Choice) and listed.refusal:
            with pytest.raises(IllegalLine) as refused:
                game.apply(state, listed.line)
            assert str(refused.value) == listed.refusal
