"""Walk every screen a player reaches in the golden games and the benchmark session, and
hand each frame over with the strings drawn on it (``companion.ui.draw.recording``) and
what the drawing layer's check found wrong with them (``companion.ui.draw.checking``).

Each record is typed in through the screens by the driver, press by press; every few lines
(and at the end) the game menu is opened and each of its pages looked at: the summary, the
game's pages of figures, the rules page of the step, a hint, scrolled down. After an entry,
the frame is taken again once its result has gone (it covers the game's panel for a while). The new-game
screens, the home screen and a digit the die cannot show are on the way.
"""

from __future__ import annotations

import pathlib
import random
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

from PIL import Image

from companion.bench import session_records
from companion.config import Config
from companion.intents import Intent
from companion.record import Replayed, replay_text
from companion.store import Store
from companion.ui.app import App
from companion.ui.draw import Drawn, Fault, checking, recording
from companion.ui.driver import Driver
from companion.ui.play import RESULT_SECONDS, PlayScreen

GOLDEN = pathlib.Path(__file__).parent / "golden"
EVERY = 8  # lines between two looks through the game menu's pages
SKIP = ("Back to the game", "Undo", "Redo", "Leave game", "Abandon game")  # the game menu's lines that act


@dataclass(frozen=True)
class Shot:
    """One frame: where it was taken, the picture, the strings drawn on it and their faults."""

    where: str
    image: Image.Image
    drawn: tuple[Drawn, ...]
    faults: tuple[Fault, ...]


@cache
def records() -> tuple[tuple[str, Replayed], ...]:
    """The golden games, then the benchmark session."""
    golden = [(f"{p.parent.name}/{p.stem}", replay_text(p.read_text()))
              for p in sorted(GOLDEN.glob("*/*.record")) if p.with_suffix(".json").exists()]
    bench = [(f"bench/{r.header.game.id}", r) for r in session_records()]
    return tuple(golden + bench)


class Walker:
    """An app driven by intents; every press leaves a shot."""

    def __init__(self, directory: pathlib.Path, name: str) -> None:
        self.store = Store(str(directory / f"{name.replace('/', '-')}.sqlite"))
        self.app = App(self.store, Config(), rng=random.Random(5))
        self.name = name
        self.shots: list[Shot] = []
        self.shoot("start")

    def shoot(self, where: str) -> None:
        with recording() as drawn, checking() as faults:
            image = self.app.frame()
        self.shots.append(Shot(f"{self.name} {where}", image, tuple(drawn), tuple(faults)))

    def press(self, intent: Intent) -> None:
        self.app.handle(intent)
        where = f"{intent.kind}{intent.value or ''} on {type(self.app.top).__name__}"
        self.shoot(where)
        # The result of an entry covers the panel for two seconds; then the panel shows.
        shown = self.app.play_in_view()
        if shown is not None and shown.result:
            self.app.tick(0.0)
            self.app.tick(RESULT_SECONDS)
            self.shoot(f"{where}, its result gone")

    def look_around(self) -> None:
        """From the play screen: each page of the game menu worth a look, scrolled."""
        play = self.app.top
        if not isinstance(play, PlayScreen):
            return
        labels = [item.label for item in play.context_menu().items]
        for index, label in enumerate(labels):
            if label.startswith(SKIP):
                continue
            self.press(Intent("context"))
            for _ in range(index):
                self.press(Intent("down"))
            self.press(Intent("select"))
            for _ in range(3):
                self.press(Intent("down"))
            while self.app.top is not play and len(self.app.stack) > 1:
                self.press(Intent("back"))

    def close(self) -> None:
        self.store.close()


@cache
def shots(name: str, replayed: Replayed) -> tuple[Shot, ...]:
    """:func:`walk`, once per record for the whole test run (the walk is the slow part)."""
    with tempfile.TemporaryDirectory() as directory:
        return tuple(walk(pathlib.Path(directory), name, replayed))


def walk(directory: pathlib.Path, name: str, replayed: Replayed) -> Iterator[Shot]:
    """Every frame of one record typed in, with looks through the game menu."""
    walker = Walker(directory, name)
    driver = Driver(walker.app, walker.press)
    driver.new_game(replayed.header)
    for count, line in enumerate(replayed.actions):
        if count % EVERY == 0:
            walker.look_around()
        driver.line(line)
    walker.look_around()
    if isinstance(walker.app.top, PlayScreen) and walker.app.top.session.prompt() is not None:
        walker.press(Intent("digit", 9))  # a face too big for most dice: the reason shows
        walker.press(Intent("back"))
    driver.leave_game()
    walker.press(Intent("down"))
    walker.close()
    yield from walker.shots
