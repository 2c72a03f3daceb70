"""The app: the stack of screens, and the game being played.

The app is driven by :class:`Intent` values and renders the top screen to a 1-bit image.
It owns no thread: the daemon's main loop calls :meth:`App.handle` and :meth:`App.frame`.
The home menu and what it opens are :mod:`companion.ui.home`'s; setting a game up,
:mod:`companion.ui.setup`'s.
"""

from __future__ import annotations

import logging
import random
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from PIL import Image, ImageDraw

from companion.config import Config, remembered_after
from companion.dice import FAIR
from companion.exc import RecordError, Unreadable, UnreadableRecord
from companion.games.base import IllegalLine
from companion.intents import Intent
from companion.phone import PhoneView
from companion.session import Session
from companion.store import Store, primary
from companion.ui.draw import blank, naming, notice_fits, overdrawn, recording
from companion.ui.home import Home
from companion.ui.keytest import KeyEdge, KeyTest, PatternTest
from companion.ui.linkmarks import link_marks
from companion.ui.play import PlayScreen
from companion.ui.widgets import Menu, Numbers, Page, Screen

log = logging.getLogger(__name__)


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
        #: Whether the box has left and right keys: numbers are then entered two at a time
        #: (the wiring says so once it knows the build's keys).
        self.arrows = True
        self.rng = rng
        self.home = Home(self)
        self.stack: list[Screen] = [Menu("Companion", self.home.items)]
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
            return self.store.data_version()
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
                          one_by_one=lambda: self.config.screen.rolls == "one-by-one",
                          pairs=lambda: self.arrows)
        self.push(play)
        play.resume_roll()
        return True

    def leave_game(self) -> None:
        self.session = None
        del self.stack[1:]


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

