"""mypy --strict follows a game from its engine to its screens: ``make test`` type-checks this
file with the package (pyproject.toml), and pytest runs it.

A session is generic in its game's state and summary, so a Leaf-Climbers session's state,
summary and checked lines are Leaf-Climbers' own types, and so are the screens its play
screen draws with, with no cast on the way. The ``type: ignore`` lines are the proof the
other way round: mypy must refuse each (``warn_unused_ignores``, part of strict, fails the
check the day one of them passes).
"""

from __future__ import annotations

import random
from typing import assert_type

from companion.dice import rolled
from companion.games.base import Line, Roll
from companion.games.leaf_climbers import LeafClimbers, LeafSummary, State
from companion.games.microbot_racers import RaceSummary
from companion.record import Header
from companion.session import Session
from companion.store import Store
from companion.ui.games import Screens, screens_of
from companion.ui.play import PlayScreen
from companion.ui.widgets import Screen


class Stack:
    """The least a play screen needs of the app that shows it."""

    def push(self, screen: Screen) -> None: ...
    def pop(self) -> None: ...
    def toast(self, message: str) -> None: ...


def test_a_games_own_types_reach_its_session_and_its_screens() -> None:
    session = Session.new(Store(":memory:"), Header(LeafClimbers(), ("Ann", "Bob")))
    assert_type(session, Session[State, LeafSummary])
    assert_type(session.state, State)
    summary = session.summary()
    assert_type(summary, LeafSummary)
    assert summary["phase"] == "drop" and summary["round"] == 1  # keys of Leaf-Climbers' own
    ahead = session.after([Line("table", "drop", ("2",))])
    assert_type(ahead, State)
    assert ahead.phase == "leaf"
    ask = session.prompt()
    assert ask is not None and isinstance(ask.answers[0], Roll)
    lines, state = rolled(session.game, session.state, ask.answers[0], random.Random(1))
    assert lines[0].verb == "drop" and state.phase != "drop"  # the d20 and the leaves it lets fall
    assert_type(state, State)
    screens = screens_of(session.game)
    assert_type(screens, Screens[LeafSummary])
    play = PlayScreen(session, Stack())
    assert_type(play.screens, Screens[LeafSummary])
    assert_type(play.session.summary(), LeafSummary)


def test_the_types_refuse_another_games_parts() -> None:
    session = Session.new(Store(":memory:"), Header(LeafClimbers(), ("Ann", "Bob")))
    theirs: Screens[RaceSummary] = screens_of(session.game)  # type: ignore[arg-type]
    race: RaceSummary = session.summary()  # type: ignore[assignment]
    assert theirs is not None and race is not None
