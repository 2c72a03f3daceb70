"""Issue 26 §8: words and numbers that mean what they say, on the real screens."""

from __future__ import annotations

import random

import pytest
from PIL import Image, ImageDraw

from companion.config import Config
from companion.games import GAMES
from companion.games.base import usable
from companion.intents import Intent
from companion.record import summarise
from companion.store import Store
from companion.ui.app import App
from companion.ui.figures import corner
from companion.ui.games import screens_of
from companion.ui.games.leaf_climbers import paint_square
from companion.ui.widgets import Menu
from tests.playout import answer, players_for

GAME_IDS = sorted(GAMES)


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_the_round_in_the_corner_is_the_one_the_question_belongs_to(game_id: str) -> None:
    """A round (or turn) begins with its first line, and the summary counts rounds begun:
    while a round's first question is asked, the corner already says that round ("R1"
    while round 2's d20 was asked is what was seen). Whatever the question, the corner says
    what the counter will say once it is answered."""
    game = GAMES[game_id]
    screens = screens_of(game)
    rng = random.Random(3)
    for extra in range(3):
        players = players_for(game, extra)
        state = game.start(players, game.option_values({}))
        for _ in range(400):
            ask = game.prompt(state)
            if ask is None or not usable(ask.answers):
                break
            shown = screens.corner(summarise(game, players, state, ask))
            line = answer(game, state, ask.__class__(ask.actor, ask.question, ask.answers), rng)
            state = game.apply(state, line)
            assert shown == corner(summarise(game, players, state, game.prompt(state))), (shown, line)


def test_a_finished_race_lists_nothing_still_to_do() -> None:
    """"Ann to do: drift-left drift-right" was still listed once the race was over."""
    game = GAMES["microbot-racers"]
    screens = screens_of(game)
    rng = random.Random(5)
    players = ("Ann", "Bob")
    state = game.start(players, game.option_values({"laps": "1"}))
    while (ask := game.prompt(state)) is not None and ask.answers:
        state = game.apply(state, answer(game, state, ask, rng))
    summary = summarise(game, players, state, game.prompt(state))
    assert summary["over"] and any(summary["picked"].values())  # picks were left when it ended
    assert not [line for line in screens.summary_lines(summary) if "to do" in line]


def test_a_new_leaf_climbers_game_starts_on_the_rules_four_players() -> None:
    """The rules are written for 4 (2 and 3 are house defaults); the box offered 2 first."""
    app = App(Store(":memory:"), Config())
    app.handle(Intent("select"))  # New game
    menu = app.top
    assert isinstance(menu, Menu)
    games = [item.label for item in menu.items]
    for _ in range(games.index("Leaf-Climbers") - menu.cursor):
        app.handle(Intent("down"))
    app.handle(Intent("select"))
    count = app.top
    assert isinstance(count, Menu) and count.title == "How many players?"
    assert count.items[count.cursor].label == "4 players"
    assert count.items[count.cursor].hint == "rules"


def test_the_cursor_on_the_board_never_looks_like_a_leaf() -> None:
    """A leaf's square is white; the cursor used to fill its square white too. Now it rings
    the square, and a leaf's square under it still differs from one without."""
    def square(leaves: int, cursor: bool) -> Image.Image:
        image = Image.new("1", (20, 14), 0)
        paint_square(ImageDraw.Draw(image), (2, 2, 15, 11), 3, leaves, [], False, cursor)
        return image

    def inside(image: Image.Image) -> int:  # lit pixels within the square
        return sum(image.crop((3, 3, 16, 12)).convert("L").histogram()[255:])

    leaf, empty = square(1, False), square(0, False)
    assert inside(square(0, True)) < inside(leaf) // 2  # the cursor's square is not filled
    assert inside(square(0, True)) - inside(empty) < 5
    assert square(1, True).tobytes() != leaf.tobytes()
    ringed = square(0, True)
    assert all(ringed.getpixel((x, 2)) for x in range(2, 17))  # a ring in the gap above
