"""The UI controller: a stack of screens, the home menu and the new-game flow.

The app is driven by :class:`Intent` values and renders the top screen to a 1-bit image.
It owns no thread: the daemon's main loop calls :meth:`App.handle` and :meth:`App.frame`.
"""

from __future__ import annotations

import datetime
import logging
import random
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import partial
from typing import Any

from PIL import Image, ImageDraw

from companion.clock import UNSURE_MARK
from companion.config import ROLLS, C, Config, remembered_after
from companion.dice import FAIR
from companion.exc import RecordError, Unreadable, UnreadableRecord
from companion.gamelog import GameLog
from companion.games import GAMES
from companion.games.base import IllegalLine, counted
from companion.intents import Intent
from companion.phone import PhoneView
from companion.session import Session
from companion.store import GameRow, Store, primary
from companion.ui.draw import (
    BLACK,
    HEADER,
    WHITE,
    WIDTH,
    blank,
    length,
    naming,
    notice_fits,
    overdrawn,
    recording,
)
from companion.ui.games import screen_title
from companion.ui.keytest import KeyEdge, KeyTest, PatternTest
from companion.ui.log import LogScreen
from companion.ui.play import PlayScreen
from companion.ui.setup import NewGame
from companion.ui.widgets import Item, Menu, Numbers, Page, Screen, confirm

log = logging.getLogger(__name__)

DIM_CHOICES = (30.0, 60.0, 120.0, 300.0, 0.0)
BLANK_CHOICES = (300.0, 600.0, 1800.0, 0.0)
MARK = 7  # pixels: the side of a serial port's box in the top bar


def when(stamp: float, synced: bool, unsure: str = UNSURE_MARK) -> str:
    """A short local date for lists: ``22 Nov 14:05``, and ``unsure`` after it when the
    clock had not been synchronised as it was read (``22 Nov 14:05?``: it may be wrong)."""
    shown = datetime.datetime.fromtimestamp(stamp).strftime("%d %b %H:%M")
    return shown if synced else shown + unsure


def duration_words(value: float) -> str:
    """``60.0`` -> ``1 min``; 0 means never."""
    if not value:
        return "never"
    return f"{int(value)} s" if value < 60 else f"{int(value // 60)} min"


#: Keeps what the players change on the box (the wiring's; it may raise OSError).
SaveSettings = Callable[[Config], None]


class App:
    """Screens, the session being played, and the ways into and out of it.

    The screens touch no file and no device: what they need of either is handed in. ``save``
    keeps the screen settings a player changes and the names typed at New game (without it
    they last until the box restarts); ``inputs`` are what the wiring's inputs give the key
    test to try (keys by role, other inputs by name), for Settings > Test keys.
    """

    def __init__(self, store: Store, config: Config, *, rng: random.Random = FAIR,
                 phone: PhoneView | None = None, save: SaveSettings | None = None,
                 inputs: Sequence[str] = ()) -> None:
        self.store = store
        self.phone = phone
        self.config = config
        self.save = save
        self.inputs = tuple(inputs)
        self.rng = rng
        self.stack: list[Screen] = [Menu("Companion", self.home_items)]
        self.session: Session[Any, Any] | None = None
        #: Names typed while a game is set up, not yet in the roster: a frame may shorten them.
        self.typed_names: tuple[str, ...] = ()
        self.links: dict[str, bool] = {}  # serial ports by name: is their device connected
        self._seen = self.store_version()

    # --- the Host interface for widgets ---

    def push(self, screen: Screen) -> None:
        self.stack.append(screen)

    def pop(self) -> None:
        if len(self.stack) > 1:
            self.stack.pop()

    def toast(self, message: str) -> None:
        self.top.message = message
        self.page_long_message()

    def page_long_message(self) -> None:
        """A message longer than the screen on top has room for goes on a page of its own
        (select or back closes it), so that no word of it is lost."""
        top = self.top
        if top.message and not notice_fits(top.message, top.notice_area):
            message, top.message = top.message, ""
            self.push(Page("Message", message))

    @property
    def top(self) -> Screen:
        return self.stack[-1]

    # --- driving ---

    def handle(self, intent: Intent) -> None:
        """One press; a message on screen lasts until the next one."""
        self.top.message = ""
        if self.session is None and self.store_changed():
            # Another program stored games (``companion import``): the lists on screen may
            # be out of date, and this press was meant for what they showed. Home lists
            # them again; the press only shows that.
            del self.stack[1:]
            self.toast("Stored games changed")
            return
        if intent.kind in ("undo", "redo"):
            self.to_play_screen()  # from the game menu or a half-made entry: undo is undo
        try:
            self.top.on(intent, self)
        except sqlite3.Error as err:  # a full disk, a failing card: refused, nothing changed
            log.error("not saved: %s", err)
            full = primary(err) == sqlite3.SQLITE_FULL
            self.toast("Not saved: disk full" if full else "Not saved: disk error")
        self.page_long_message()

    def store_version(self) -> int:
        """SQLite's count of changes other connections committed to the store (``PRAGMA
        data_version``): a read of shared memory, no disk, so asked at every press outside
        a game (in a game, presses read nothing from the store)."""
        try:
            return int(self.store.db.execute("PRAGMA data_version").fetchone()[0])
        except sqlite3.Error:
            return getattr(self, "_seen", 0)

    def store_changed(self) -> bool:
        """Whether another program committed to the store since the last press."""
        now = self.store_version()
        changed, self._seen = now != self._seen, now
        return changed

    def take_edge(self, edge: KeyEdge) -> bool:
        """A key's raw edge, taken by the key test when it is on top (True); otherwise the
        key logic turns edges into intents (False)."""
        if not isinstance(self.top, KeyTest):
            return False
        self.top.message = ""
        self.top.edge(edge, self)
        return True

    def exact_pixels(self) -> bool:
        """Whether the screen on top must reach the glass unshifted (the test patterns)."""
        return isinstance(self.top, PatternTest)

    def frame(self) -> Image.Image:
        """The top screen, drawn afresh."""
        image = blank()
        with recording() as drawn, naming(self.names_in_view()):  # what it says, for a terminal too small
            self.top.draw(ImageDraw.Draw(image))
        overdrawn(image, drawn)  # (the tests' check: nothing in production)
        image.info["texts"] = tuple((d.words, d.box, d.fill) for d in drawn)
        if self.links:
            link_marks(image, [self.links[name] for name in sorted(self.links)])
        return image

    def names_in_view(self) -> tuple[str, ...]:
        """The players' names a frame may shorten where a line is too narrow for them: the
        game's, or outside a game every name a set-up can list."""
        if self.session is not None:
            return self.session.players
        return (*self.config.roster, *self.config.remembered, *self.typed_names)

    def tick(self, now: float) -> None:
        """The loop's clock after each step (the app owns none): what is shown for a while
        (an entry's result) goes when its time is up."""
        shown = self.play_in_view()
        if shown is not None:
            shown.expire(now)
        if self.top.busy:  # a screen working a slice at a time (counting the dice)
            self.top.work()

    def deadline(self) -> float | None:
        """When the screen next changes by itself (the loop wakes then), if ever: at once
        while the screen on top has work left."""
        if self.top.busy:
            return float("-inf")
        shown = self.play_in_view()
        return shown.result_until if shown is not None and shown.result else None

    def play_in_view(self) -> PlayScreen[Any, Any] | None:
        """The play screen on the glass: on top, or its top bar and panel under numbers
        being entered for it."""
        top = self.top
        if isinstance(top, Numbers) and top.backdrop is not None and len(self.stack) > 1:
            top = self.stack[-2]
        return top if isinstance(top, PlayScreen) else None

    def link(self, name: str, connected: bool) -> None:
        """A serial port's device came or went: its mark in the top bar changes, and a
        message says so (except for a device that is simply there from the start)."""
        known = name in self.links
        self.links[name] = connected
        if known or not connected:
            self.toast(f"{name}: {'connected' if connected else 'not connected'}")

    def to_play_screen(self) -> None:
        """Close whatever is open above the game being played, if one is."""
        for depth, screen in enumerate(self.stack):
            if isinstance(screen, PlayScreen):
                del self.stack[depth + 1:]
                return

    def remote(self, message: str = "") -> None:
        """The game changed from outside the screens (a serial line): its play screen comes
        to the top with its answers rebuilt and ``message`` shown. Screens above it go: a
        half-entered answer or an open menu was for the prompt that just changed."""
        for depth, screen in enumerate(self.stack):
            if isinstance(screen, PlayScreen):
                del self.stack[depth + 1:]
                screen.changed(message)
                self.page_long_message()
                return

    def resume_latest(self) -> bool:
        """Open the most recent unfinished game at its pending prompt, if there is one."""
        playing = self.store.games("playing", limit=1)
        return bool(playing) and self.open(playing[0].id)

    # --- home ---

    def home_items(self) -> list[Item]:
        items = [Item("New game", self.new_game)]
        playing = self.store.games("playing")
        if len(playing) == 1:
            items.insert(0, Item("Resume", lambda: self.open(playing[0].id), hint_title(playing[0])))
        elif playing:
            items.insert(0, Item("Resume", self.resume_menu, f"{len(playing)} games"))
        items += [Item("History", self.history), Item("Rules", self.rules),
                  Item("Settings", self.settings)]
        return items

    def resume_menu(self) -> None:
        self.push(Menu("Resume", [
            Item(title_of(row), partial(self.open, row.id), when(row.updated, row.updated_synced))
            for row in self.store.games("playing")
        ]))

    def open(self, gid: int) -> bool:
        """Show a stored game at its pending prompt (home stays beneath).

        A game whose stored lines no longer replay (a damaged byte SQLite cannot see) stays
        in the store untouched; the players are told, and everything else keeps working.
        """
        try:
            session: Session[Any, Any] = Session(self.store, gid)
        except (RecordError, UnreadableRecord, IllegalLine, KeyError, ValueError, Unreadable) as err:
            log.error("game %s cannot be replayed (%s); it stays in the store", gid, err)
            self.toast(f"Game {gid} cannot be replayed; kept")
            return False
        self.session = session
        del self.stack[1:]
        play = PlayScreen(self.session, self, self.rng, leave=self.leave_game,
                          one_by_one=lambda: self.config.screen.rolls == "one-by-one")
        self.push(play)
        play.resume_roll()
        return True

    def leave_game(self) -> None:
        self.session = None
        del self.stack[1:]

    def history(self) -> None:
        def details(row: GameRow) -> None:
            players = row.header[1].split()[1:] if len(row.header) > 1 else []
            body = (f"{title_of(row)}\n{when(row.created, row.created_synced)}\n"
                    f"Players: {', '.join(players)}.\n"
                    f"Winners: {', '.join(row.winners) or 'nobody'}.\n"
                    f"{counted(row.head, 'entry', 'entries')}.")
            self.push(Page("Finished game", body))

        def show(row: GameRow) -> None:
            self.push(Menu(title_of(row), [
                Item("Log", partial(self.show_log, row.id), counted(row.head, "entry", "entries")),
                Item("Details", partial(details, row))]))

        from companion.ui.stats import DiceCount, players_menu

        rows = self.store.games("over")
        items = [Item("Players", lambda: self.push(players_menu(self.store, self, when)), "who wins"),
                 Item("Dice", lambda: self.push(DiceCount(self.store, self)), "are they fair"),
                 *(Item(title_of(row), partial(show, row), ", ".join(row.winners) or "draw") for row in rows)]
        self.push(Menu("History", items))

    def show_log(self, gid: int) -> None:
        """A stored game's Log; a game whose header cannot be read is said so, and kept."""
        try:
            whole = GameLog(self.store, gid)
        except (RecordError, UnreadableRecord, KeyError, Unreadable) as err:
            log.error("game %s cannot be read (%s); it stays in the store", gid, err)
            self.toast(f"Game {gid} cannot be read; kept")
            return
        self.push(LogScreen(whole))

    def rules(self) -> None:
        def pages(game_id: str) -> None:
            game = GAMES[game_id]
            title = screen_title(game_id)
            self.push(Menu(title, [
                Item(topic.capitalize() or "Overview", partial(self.push, Page(title, body)))
                for topic, body in game.pages.items()
            ]))
        self.push(Menu("Rules", [Item(screen_title(game_id), partial(pages, game_id)) for game_id in GAMES]))

    def settings(self) -> None:
        def cycle(key: str, choices: tuple[float, ...]) -> Callable[[], None]:
            def run() -> None:
                now = getattr(self.config.screen, key)
                later = choices[(choices.index(now) + 1) % len(choices)] if now in choices else choices[0]
                self.save_screen(**{key: later})
            return run

        def items() -> list[Item]:
            screen = self.config.screen
            return [
                Item("Dim after", cycle("dim_after", DIM_CHOICES), duration_words(screen.dim_after)),
                Item("Blank after", cycle("blank_after", BLANK_CHOICES), duration_words(screen.blank_after)),
                Item("Shift image", lambda: self.save_screen(shift=not screen.shift),
                     "on" if screen.shift else "off"),
                Item("Rolls", lambda: self.save_screen(rolls=next_of(ROLLS, screen.rolls)),
                     screen.rolls.replace("-", " ")),
                Item("Test keys & screen", self.hardware_test),
                *self.phone_items(),
            ]
        self.push(Menu("Settings", items))

    def hardware_test(self) -> None:
        """Settings > Test keys & screen: the key test, or the display patterns."""
        self.push(Menu("Test", [Item("Keys", lambda: self.push(KeyTest(self.inputs)),
                                     "hold 2 s: out"),
                                Item("Screen patterns", lambda: self.push(PatternTest()))]))

    def phone_items(self) -> list[Item]:
        """Turn the phone view on or off, show its link, or make a new link."""
        phone = self.phone
        if phone is None:
            return []

        def turn() -> None:
            problem = phone.turn(not phone.enabled)
            if phone.failure or problem:
                self.toast(phone.failure or problem)

        def renew() -> None:
            self.toast(phone.renew() or "New link: open pages closed")

        def link() -> None:
            from companion.ui.phone import LinkScreen

            self.push(LinkScreen(phone.url))

        items = [Item("Phone view", turn, "on" if phone.enabled else "off")]
        if phone.server is not None:
            items += [Item("Show link", link, "QR code"),
                      Item("New link", lambda: self.push(confirm("Close open pages?", "Yes, new link",
                                                                 renew, self)))]
        return items

    def save_screen(self, **changes: Any) -> None:
        self.keep(replace(self.config, screen=replace(self.config.screen, **changes)))

    def remember(self, names: Sequence[str]) -> None:
        """Names typed at New game, offered again at the next (the most recent first)."""
        remembered = remembered_after(self.config.remembered, names, self.config.roster)
        if remembered != self.config.remembered:
            self.keep(replace(self.config, remembered=remembered))

    def keep(self, config: Config) -> None:
        """Use ``config`` from now on, and save what players change in it."""
        self.config = config
        if self.save is not None:
            try:
                self.save(config)
            except OSError as err:
                self.toast(f"settings not saved: {err.strerror}")

    # --- new game: the game, then the set-up's questions (companion.ui.setup) ---

    def new_game(self) -> None:
        def setup(game_id: str) -> None:
            NewGame(self, game_id).count()

        menu = Menu("New game", [Item(screen_title(game_id), partial(setup, game_id))
                                 for game_id in GAMES])
        last = self.store.games(limit=1)  # the table likely plays the same game again
        if last and last[0].game in GAMES:
            menu.cursor = list(GAMES).index(last[0].game)
        self.push(menu)


def next_of(choices: tuple[C, ...], now: C) -> C:
    """The setting after ``now``, round to the first.

    >>> next_of(("at-once", "one-by-one"), "one-by-one")
    'at-once'
    """
    return choices[(choices.index(now) + 1) % len(choices)]


def link_marks(image: Image.Image, links: list[bool]) -> None:
    """One small box per serial port in the top bar: solid while its device is connected,
    crossed out while it is not. The boxes go in the right-most gap between the bar's words
    (they never cover them); a bar with no room, or a screen without a bar, shows none."""
    need = len(links) * (MARK + 2) + 2
    rows = image.crop((0, 1, WIDTH, HEADER - 1)).convert("L").tobytes()
    run = 0
    for x in range(WIDTH - 1, -1, -1):
        run = run + 1 if all(rows[x::WIDTH]) else 0
        if run == need:
            break
    else:
        return
    draw = ImageDraw.Draw(image)
    top = (HEADER - MARK) // 2
    for left, connected in zip(range(x + 2, WIDTH, MARK + 2), links):
        box = (left, top, left + MARK - 1, top + MARK - 1)
        draw.rectangle(box, fill=BLACK if connected else WHITE, outline=BLACK)
        if not connected:
            draw.line(box, fill=BLACK)
            draw.line((box[0], box[3], box[2], box[1]), fill=BLACK)


def title_of(row: GameRow) -> str:
    """A stored game's title, as the screen writes it."""
    return screen_title(row.game)


#: Room for a hint beside a short menu line ("Resume"): 14 small letters.
HINT_ROOM = 70


def hint_title(row: GameRow) -> str:
    """A stored game's title as a menu line's hint: its first word where the whole title
    would crowd the line ("Microbot", "Gleeb's")."""
    title = title_of(row)
    return title if length(title, 10) <= HINT_ROOM else title.split()[0]
