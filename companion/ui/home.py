"""The home menu and what it opens: Resume, New game, History, Rules and Settings.

Each menu is built from the store and the settings as it is shown; choosing a game opens it
through the app, which holds the game being played (:mod:`companion.ui.app`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, Protocol

from companion.clock import shown_time
from companion.config import ROLLS, C, Config
from companion.exc import RecordError, Unreadable, UnreadableRecord
from companion.gamelog import GameLog
from companion.games import GAMES
from companion.games.base import counted
from companion.phone import PhoneView
from companion.store import GameRow, Store
from companion.ui.draw import length
from companion.ui.games import screen_title, title_of
from companion.ui.keytest import KeyTest, PatternTest
from companion.ui.log import LogScreen
from companion.ui.setup import NewGame, Opener
from companion.ui.widgets import Item, Menu, Page, confirm

log = logging.getLogger(__name__)

DIM_CHOICES = (30.0, 60.0, 120.0, 300.0, 0.0)
BLANK_CHOICES = (300.0, 600.0, 1800.0, 0.0)


class Homeland(Opener, Protocol):
    """What the home menus ask of the app: what setting up a game asks, the phone view and
    the inputs to try, and keeping a changed setting."""

    phone: PhoneView | None
    inputs: tuple[str, ...]

    def save_screen(self, **changes: Any) -> None: ...


class Home:
    """The home menu's lines, and the menus each opens."""

    def __init__(self, app: Homeland) -> None:
        self.app = app

    @property
    def store(self) -> Store:
        return self.app.store

    @property
    def config(self) -> Config:
        return self.app.config

    def items(self) -> list[Item]:
        """The home menu: Resume (when a game is unfinished), New game, History, Rules,
        Settings."""
        items = [Item("New game", self.new_game)]
        playing = self.playing()
        if len(playing) == 1:
            items.insert(0, Item("Resume", lambda: self.app.open(playing[0].id), hint_title(playing[0])))
        elif playing:
            items.insert(0, Item("Resume", self.resume_menu, f"{len(playing)} games"))
        items += [Item("History", self.history), Item("Rules", self.rules),
                  Item("Settings", self.settings)]
        return items

    def resume_menu(self) -> None:
        self.app.push(Menu("Resume", [
            Item(title_of(row), partial(self.app.open, row.id), shown_time(row.updated, row.updated_synced))
            for row in self.playing()
        ]))

    def playing(self) -> list[GameRow]:
        """The games in play that can be read: one that cannot (set aside at the next start)
        hides no other."""
        return self.store.readable_games("playing")[0]

    def history(self) -> None:
        def details(row: GameRow) -> None:
            players = row.header[1].split()[1:] if len(row.header) > 1 else []
            body = (f"{title_of(row)}\n{shown_time(row.created, row.created_synced)}\n"
                    f"Players: {', '.join(players)}.\n"
                    f"Winners: {', '.join(row.winners) or 'nobody'}.\n"
                    f"{counted(row.head, 'entry', 'entries')}.")
            self.app.push(Page("Finished game", body))

        def show(row: GameRow) -> None:
            self.app.push(Menu(title_of(row), [
                Item("Log", partial(self.show_log, row.id), counted(row.head, "entry", "entries")),
                Item("Details", partial(details, row))]))

        from companion.ui.stats import DiceCount, players_menu

        rows, unreadable = self.store.readable_games("over")  # one that cannot be read hides no other
        for problem in unreadable:
            log.error("%s; it stays in the store", problem)
        items = [Item("Players", lambda: self.app.push(players_menu(self.store, self.app, shown_time)), "who wins"),
                 Item("Dice", lambda: self.app.push(DiceCount(self.store, self.app)), "are they fair"),
                 *(Item(title_of(row), partial(show, row), ", ".join(row.winners) or "draw") for row in rows)]
        self.app.push(Menu("History", items))

    def show_log(self, gid: int) -> None:
        """A stored game's Log; a game whose header cannot be read is said so, and kept."""
        try:
            whole = GameLog(self.store, gid)
        except (RecordError, UnreadableRecord, KeyError, Unreadable) as err:
            log.error("game %s cannot be read (%s); it stays in the store", gid, err)
            self.app.toast(f"Game {gid} cannot be read; kept")
            return
        self.app.push(LogScreen(whole))

    def rules(self) -> None:
        def pages(game_id: str) -> None:
            game = GAMES[game_id]
            title = screen_title(game_id)
            self.app.push(Menu(title, [
                Item(topic.capitalize() or "Overview", partial(self.app.push, Page(title, body)))
                for topic, body in game.pages.items()
            ]))
        self.app.push(Menu("Rules", [Item(screen_title(game_id), partial(pages, game_id)) for game_id in GAMES]))

    def settings(self) -> None:
        def cycle(key: str, choices: tuple[float, ...]) -> Callable[[], None]:
            def run() -> None:
                now = getattr(self.config.screen, key)
                later = choices[(choices.index(now) + 1) % len(choices)] if now in choices else choices[0]
                self.app.save_screen(**{key: later})
            return run

        def items() -> list[Item]:
            screen = self.config.screen
            return [
                Item("Dim after", cycle("dim_after", DIM_CHOICES), duration_words(screen.dim_after)),
                Item("Blank after", cycle("blank_after", BLANK_CHOICES), duration_words(screen.blank_after)),
                Item("Shift image", lambda: self.app.save_screen(shift=not screen.shift),
                     "on" if screen.shift else "off"),
                Item("Rolls", lambda: self.app.save_screen(rolls=next_of(ROLLS, screen.rolls)),
                     screen.rolls.replace("-", " ")),
                Item("Test keys & screen", self.hardware_test),
                *self.phone_items(),
            ]
        self.app.push(Menu("Settings", items))

    def hardware_test(self) -> None:
        """Settings > Test keys & screen: the key test, or the display patterns."""
        self.app.push(Menu("Test", [Item("Keys", lambda: self.app.push(KeyTest(self.app.inputs)),
                                     "hold 2 s: out"),
                                Item("Screen patterns", lambda: self.app.push(PatternTest()))]))

    def phone_items(self) -> list[Item]:
        """Turn the phone view on or off, show its link, or make a new link."""
        phone = self.app.phone
        if phone is None:
            return []

        def turn() -> None:
            problem = phone.turn(not phone.enabled)
            if phone.failure or problem:
                self.app.toast(phone.failure or problem)

        def renew() -> None:
            self.app.toast(phone.renew() or "New link: open pages closed")

        def link() -> None:
            from companion.ui.phone import LinkScreen

            self.app.push(LinkScreen(phone.url))

        items = [Item("Phone view", turn, "on" if phone.enabled else "off")]
        if phone.server is not None:
            items += [Item("Show link", link, "QR code"),
                      Item("New link", lambda: self.app.push(confirm("Close open pages?", "Yes, new link",
                                                                 renew, self.app)))]
        return items

    def new_game(self) -> None:
        def setup(game_id: str) -> None:
            NewGame(self.app, game_id).count()

        menu = Menu("New game", [Item(screen_title(game_id), partial(setup, game_id))
                                 for game_id in GAMES])
        last = self.store.games(limit=1)  # the table likely plays the same game again
        if last and last[0].game in GAMES:
            menu.cursor = list(GAMES).index(last[0].game)
        self.app.push(menu)


def duration_words(value: float) -> str:
    """``60.0`` -> ``1 min``; 0 means never."""
    if not value:
        return "never"
    return f"{int(value)} s" if value < 60 else f"{int(value // 60)} min"


def next_of(choices: Sequence[C], now: C) -> C:
    """The setting after ``now``, round to the first.

    >>> next_of(("at-once", "one-by-one"), "one-by-one")
    'at-once'
    """
    return choices[(choices.index(now) + 1) % len(choices)]


#: Room for a hint beside a short menu line ("Resume"): 14 small letters.
HINT_ROOM = 70


def hint_title(row: GameRow) -> str:
    """A stored game's title as a menu line's hint: its first word where the whole title
    would crowd the line ("Microbot", "Gleeb's")."""
    title = title_of(row)
    return title if length(title, 10) <= HINT_ROOM else title.split()[0]

