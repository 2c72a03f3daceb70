"""Fewer presses per entry (issue 13 §8, issue 26 §7): games bench never saw, made from seeds
of their own (companion/benchgames.py), and the benchmark session, typed through the screens
press by press, stay under each game's figure; the cursor starts where the rules or the
table make the answer likely."""

from __future__ import annotations

import pathlib
import random

import pytest

from companion.bench import count_presses, session_records
from companion.benchgames import generated_session
from companion.config import Config
from companion.games import GAMES, game_by_id
from companion.games.base import Line
from companion.intents import Intent
from companion.record import Header
from companion.session import Session
from companion.store import Store
from companion.ui.app import App
from companion.ui.board import BoardScreen
from companion.ui.play import PlayScreen
from companion.ui.widgets import Menu
from tests.apps import opened, press

#: Presses per record line of the games bench makes, in every game (issue 26's bound).
MOST = 4.0
#: Seeds of the games made here: bench's are 1-10, these are others it never typed.
SEEDS = range(101, 107)
#: Presses per record line of the checked-in session, set-up and leaving apart. Before issue
#: 26 (set-up and leaving counted): 5.22, 4.97, 2.66, 4.43, 4.31; the games bench makes:
#: 5.21, 5.02, 2.52, 5.34, 4.87. Then issue 26 (section 7): the board's up and down stop on
#: the squares a pick can use, leaves and grues picked on the board, the same entry again
#: straight on, a card picked on a table of the cards, numbers two at a time and a lone one
#: by strides, a form's check over its numbers, right and left opening an entry: 3.87, 3.18,
#: 2.34, 3.00, 2.88; made: 3.64, 3.43, 2.40, 3.77, 3.49.
SESSION_MOST = {"gleebs-and-grues": 3.9, "leaf-climbers": 3.2, "microbot-racers": 2.35,
                "penguin-panic": 3.05, "quick-lemmings": 2.9}


@pytest.mark.parametrize("game", sorted(GAMES))
def test_games_bench_never_saw_take_at_most_four_presses_a_line(game: str) -> None:
    typed = count_presses(generated_session(SEEDS, (game,)))[game]
    assert typed.skipped == [] and typed.lines > 100
    assert typed.per_line() <= MOST, (game, typed.per_line())


def test_each_game_of_the_benchmark_session_takes_fewer_presses_a_line() -> None:
    found = count_presses(session_records())
    for game, typed in found.items():
        assert typed.skipped == []
        assert typed.per_line() <= SESSION_MOST[game], (game, typed.per_line())


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


def opened_at(tmp_path: pathlib.Path, game: str, players: tuple[str, ...], *lines: str) -> tuple[App, int]:
    """An app on the play screen of a stored game with these lines logged."""
    app, session = opened(Store(str(tmp_path / "games.sqlite")), game, players, *lines)
    return app, session.gid


def under_cursor(app: App) -> str:
    play = app.top
    assert isinstance(play, PlayScreen)
    return play.items()[play.cursor].label


def logged(app: App, gid: int) -> list[str]:
    return [line for entry in app.store.entries(gid) for line in entry.lines]


RACE = ("table roll 1 6", "Ann pick move-3", "Bob pick move-2", "Bob pick move-1",
        "Ann pick drift-right", "Ann pass", "Bob pick turn-left", "Bob do move-2", "Bob hazard")


def test_a_typed_die_lists_its_faces_from_the_middle_and_the_likeliest_extra_is_one_up(
        tmp_path: pathlib.Path) -> None:
    app, gid = opened_at(tmp_path, "microbot-racers", ("Ann", "Bob"), *RACE)
    assert under_cursor(app) == "Roll for me"  # this table has not typed a face yet
    press(app, "down", "select", "down", "select")  # Enter faces: 1 down to 6
    assert logged(app, gid)[-1] == "Bob roll 6"
    assert under_cursor(app) == "move-3"  # Ann's action; Bob's puddle is the first extra
    press(app, "up")
    assert under_cursor(app) == "+ Bob hazard"
    press(app, "select")
    play = app.top
    assert isinstance(play, PlayScreen)
    assert [item.label for item in play.items()] == [
        "Rolled 1", "Rolled 2", "Rolled 3", "Rolled 4", "Rolled 5", "Rolled 6", "Roll for me"]
    assert under_cursor(app) == "Rolled 3"  # no face is likelier: the middle one
    press(app, "up", "select")  # two presses for the line, no faces screen
    assert logged(app, gid)[-2:] == ["Bob hazard", "Bob roll 2"]
    app.store.close()


def test_a_pick_starts_on_the_fastest_move_still_free(tmp_path: pathlib.Path) -> None:
    app, gid = opened_at(tmp_path, "microbot-racers", ("Ann", "Bob"), "table roll 1 6")
    assert under_cursor(app) == "move-3"
    press(app, "select")
    assert under_cursor(app) == "move-2"  # Bob: move-3 is taken
    press(app, "select")
    assert under_cursor(app) == "move-1"  # Bob's second pick: the last move left
    assert logged(app, gid)[1:] == ["Ann pick move-3", "Bob pick move-2"]
    app.store.close()


def test_a_card_starts_on_the_card_worth_most(tmp_path: pathlib.Path) -> None:
    app, gid = opened_at(tmp_path, "quick-lemmings", ("Ann", "Bob"), "Ann play water 4", "Bob play water 4")
    assert under_cursor(app) == "Play a card"
    press(app, "select")
    table = app.top
    assert isinstance(table, BoardScreen) and table.grid.name(table.cursor) == "water 3"  # 11 points
    press(app, "select")
    assert logged(app, gid)[-1] == "Ann play water 3"
    app.store.close()


def test_an_option_menu_keeps_its_order_and_starts_on_the_default(tmp_path: pathlib.Path) -> None:
    app = App(Store(str(tmp_path / "games.sqlite")), Config(), rng=random.Random(3))
    app.home.new_game()
    menu = app.top
    assert isinstance(menu, Menu)
    press(app, *["down"] * [item.label for item in menu.items].index("Microbot Racers"), "select")
    press(app, "select", "select", "down", "select")  # Ann, Bob; Laps on the set-up list
    laps = app.top
    assert isinstance(laps, Menu) and laps.title == "Laps to win"
    assert [item.label for item in laps.items] == [str(n) for n in range(1, 10)]
    assert laps.items[laps.cursor].label == "3"  # the default
    press(app, "down", "select", "up", "select")  # one more lap; Start game
    assert app.session is not None and dict(app.session.header.options) == {"laps": "4"}
    app.store.close()
