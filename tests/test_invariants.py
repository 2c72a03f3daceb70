"""Each game's conservation invariants hold at every point a session reaches: after plays,
after undos and redos, and after a restart (tests/test_session.py checks that the states
themselves match replay; this checks that none of them is an impossible one)."""

from __future__ import annotations

import random
import tempfile
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games import GAMES
from companion.record import Header
from tests.games.scenarios import penguins, total
from tests.playout import players_for, wander


def microbot(details: dict[str, Any], start: dict[str, Any]) -> None:
    assert all(0 <= h <= 6 for h in details["health"].values())
    assert all(0 <= n <= details["laps_to_win"] for n in details["laps"].values())
    # A spent take-P1 privilege never comes back.
    assert all(start["privilege"][p] or not used for p, used in details["privilege"].items())


def leaves(details: dict[str, Any], start: dict[str, Any]) -> None:
    assert all(0 <= h <= 6 for row in details["elevation"] for h in row)
    squares = [tuple(p) for p in details["positions"].values() if p is not None]
    assert all(squares.count(p) <= 2 for p in squares)
    assert set(details["out"]) <= set(start["positions"])  # only players fall out


def penguin(details: dict[str, Any], start: dict[str, Any]) -> None:
    assert penguins(details) == penguins(start) == 50  # bag + line + board + gone + escaped
    assert all(0 <= fish <= 10 for fish in details["fish"].values())


def lemmings(details: dict[str, Any], start: dict[str, Any]) -> None:
    assert total(details) == total(start)  # piles + hands + draw + discards
    assert all(n >= 0 for n in details["tiles"].values())


def gleebs(details: dict[str, Any], start: dict[str, Any]) -> None:
    pieces = [p for square in details["board"].values() for p in square] + details["eaten"]
    assert len(pieces) == len(set(pieces)), "a creature in two places"
    assert all(score >= 0 for score in details["scores"].values())


INVARIANTS: dict[str, Callable[[dict[str, Any], dict[str, Any]], None]] = {
    "microbot-racers": microbot, "leaf-climbers": leaves, "penguin-panic": penguin,
    "quick-lemmings": lemmings, "gleebs-and-grues": gleebs,
}


def test_every_game_has_its_invariants_checked() -> None:
    assert set(INVARIANTS) == set(GAMES)


@pytest.mark.parametrize("game_id", sorted(GAMES))
@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), extra=st.integers(0, 3),
       ops=st.lists(st.sampled_from("ppppuur!"), min_size=20, max_size=150))
def test_invariants_hold_through_plays_undos_redos_and_restarts(game_id: str, seed: int,
                                                               extra: int, ops: str) -> None:
    game = GAMES[game_id]
    check = INVARIANTS[game_id]
    with tempfile.TemporaryDirectory() as directory:
        header = Header(game, players_for(game, extra))
        start = game.details(game.start(header.players, game.option_values(dict(header.options))))
        for session in wander(f"{directory}/c.db", header, ops, random.Random(seed)):
            check(game.details(session.state), start)
