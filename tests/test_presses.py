"""Fewer presses per entry (issue 13 §8): the benchmark session typed through the screens,
press by press, stays under each game's figure, and the cursor starts where the rules or
the table make the answer likely."""

from __future__ import annotations

import pathlib
import random

from companion.bench import play_session, session_records
from companion.config import Config
from companion.games import game_by_id
from companion.games.base import Line
from companion.intents import Intent
from companion.record import Header
from companion.session import Session
from companion.store import Store
from companion.ui.app import App
from companion.ui.play import PlayScreen

#: Presses per record line, set-up and leaving included, through the real loop. Before
#: issue 13: 6.43, 6.30, 3.01, 5.58, 5.00. Microbot's menus gained the switch and puddle lines
#: (issue 18) and the undone-roll choices (issue 13 section 1): 2.91 with them.
MOST = {"gleebs-and-grues": 5.25, "leaf-climbers": 5.15, "microbot-racers": 2.95,
        "penguin-panic": 4.5, "quick-lemmings": 4.95}


def test_each_game_of_the_benchmark_session_takes_fewer_presses_a_line(tmp_path: pathlib.Path) -> None:
    found = play_session(session_records(), False, tmp_path)
    assert found.skipped == []
    for game, (presses, lines) in found.games.items():
        assert presses / lines <= MOST[game], game


def test_dice_start_on_roll_for_me_and_then_on_the_way_the_table_rolls(tmp_path: pathlib.Path) -> None:
    store = Store(str(tmp_path / "games.sqlite"))
    game = game_by_id("penguin-panic")
    assert game is not None
    session = Session.new(store, Header(game, ("Ann", "Bob")))
    for text in ("table line", "Ann ability 7", "Bob ability 6", "Bob bribe 1", "Ann bribe 2",
                 "Bob bribe 3", "Ann bribe 4"):
        session.play([Line.parse(text)])
    app = App(store, Config(), rng=random.Random(3))
    app.open(session.gid)
    play = app.top
    assert isinstance(play, PlayScreen)
    assert play.items()[play.cursor].label == "Roll for me"  # not "Buy a die"
    for kind in ("down", "select", "up", "select", "select", "select"):  # faces 2 2 2:
        app.handle(Intent(kind))  # each die starts at the one before
    assert Session(store, session.gid).state.turn.dice == (2, 2, 2)
    app.handle(Intent("select"))  # circle 2
    for kind in ("select", "select", "select"):  # 1 linked, 0 coloured, yes
        app.handle(Intent(kind))
    assert play.items()[play.cursor].label == "Enter faces"  # this table types its dice
    store.close()
