"""Every menu line reachable from Home is drawn whole with the cursor on it (issue 26 §1), on
a box that has played every game at its widest: the most seats, names as wide as names get,
finished and unfinished games, dice rolled by the box and typed in. The play screens have
their own walks (tests/screens.py); this walks what is around them: Resume, History with
Players, Dice and each game's Log and details, Rules and Settings. A chosen line's hint
belongs to what it says: the drawing layer counts one left out as a fault.
"""

from __future__ import annotations

import random

from companion.config import Config
from companion.dice import device_roll
from companion.games import GAMES
from companion.games.base import Roll, usable
from companion.intents import Intent
from companion.record import Header
from companion.session import Session
from companion.store import Store
from companion.ui.app import App
from companion.ui.draw import checking
from companion.ui.widgets import Menu
from tests.playout import answer
from tests.texts import widest_names, widest_options

#: Lines that act: start, leave, end, delete or change a game (Resume's games open, and are looked at).
ACTS = ("New game", "Abandon", "Delete", "Undo", "Leave", "New link", "Yes", "Keys", "Screen patterns")
DEPTH = 4  # menus within menus: Home > History > Dice > a game > a die
LINES = 60  # lines of each game played


def played(store: Store, rng: random.Random) -> None:
    """Each game at its most seats and widest, to its end (or ``LINES``) and a few lines in,
    each roll rolled by the box or typed in, at random."""
    for game in GAMES.values():
        names = widest_names(game.max_players)
        for steps in (LINES, 4):
            session = Session.new(store, Header(game, names, tuple(widest_options(game, names).items())))
            for _ in range(steps):
                ask = session.prompt()
                if ask is None or not ask.answers or not usable(ask.answers):
                    break
                rolls = [option for option in ask.answers if isinstance(option, Roll)]
                if rolls and rng.random() < 0.6:
                    session.play(device_roll(game, session.state, rng.choice(rolls), rng), rolled=True)
                else:
                    session.play([answer(game, session.state, ask, rng)])


def test_every_line_of_every_menu_from_home_is_drawn_whole_with_the_cursor_on_it() -> None:
    rng = random.Random(26)
    store = Store(":memory:")
    played(store, rng)
    app = App(store, Config(roster=widest_names(5)), rng=rng)
    found: dict[str, str] = {}

    def look(where: str) -> None:
        with checking() as faults:
            app.frame()
        for fault in faults:
            found.setdefault(str(fault), where)

    def press(kind: str) -> None:
        app.handle(Intent(kind))
        while app.top.busy:  # Dice counts a slice at a time
            app.tick(0.0)

    def walk(where: str, depth: int) -> None:
        menu = app.top
        if not isinstance(menu, Menu):
            for _ in range(3):  # a page or a chart: scrolled
                press("down")
                look(f"{where}, down")
            return
        for index, item in enumerate(menu.items):
            menu.cursor = index
            look(f"{where} > {item.label}")
            if depth == 0 or item.label.startswith(ACTS):
                continue
            count = len(app.stack)
            press("select")
            if len(app.stack) > count:
                walk(f"{where} > {item.label}", depth - 1)
            del app.stack[count:]

    walk("Home", DEPTH)
    store.close()
    assert not found, "\n".join(f"{fault} ({where})" for fault, where in list(found.items())[:10])
