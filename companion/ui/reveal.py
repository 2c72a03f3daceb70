"""A device roll of many dice, shown one line at a time or all at once (a player's setting).

One press of "Roll for me" may log many lines (a round's d20 and every leaf). They are
stored before anything is shown; this screen only shows them: one at a time, select for
the next, so that the table can follow (and place the pieces) as the dice "fall"; or all
at once, in one picture. A game draws the roll as a picture of its own (its board), else
each line is written out in words.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic

from PIL import ImageDraw

from companion.dice import rolled_faces
from companion.games.base import Game, Line, Roll, S, SummaryT
from companion.intents import Intent
from companion.record import summarise
from companion.ui.draw import header, text, wrap
from companion.ui.widgets import Host, Screen


@dataclass(frozen=True)
class Shown(Generic[SummaryT]):
    """One rolled line: its faces as the table says them, and where the game stood after it."""

    words: str
    #: The game's summary, of its own type (``Shown[LeafSummary]``: Leaf-Climbers').
    summary: SummaryT


@dataclass(frozen=True)
class RollView(Generic[SummaryT]):
    """What a roll picture draws: the lines up to the one on screen, of how many in all.

    ``each`` is true when they are shown one at a time: the newest line is the one to point at.
    """

    shown: tuple[Shown[SummaryT], ...]
    total: int
    each: bool


RollPicture = Callable[[ImageDraw.ImageDraw, RollView[SummaryT]], None]


def shown_lines(game: Game[S, SummaryT], players: tuple[str, ...], state: S,
                lines: Sequence[Line]) -> list[Shown[SummaryT]]:
    """Each rolled line in words, with the summary after it, replayed from ``state``."""
    out: list[Shown[SummaryT]] = []
    for line in lines:
        ask = game.prompt(state)
        roll = next((a for a in (ask.answers if ask else ()) if isinstance(a, Roll)
                     and (a.actor, a.verb) == (line.actor, line.verb)), None)
        state = game.apply(state, line)
        words = rolled_faces(roll, line) if roll else " ".join(line.args)
        out.append(Shown(words, summarise(game, players, state)))
    return out


def plain_picture(draw: ImageDraw.ImageDraw, view: RollView[SummaryT]) -> None:
    """A roll in words: the newest line (one at a time), or every line (all at once)."""
    count = len(view.shown)
    if view.each:
        header(draw, "Rolled", f"{count}/{view.total}")
        body = view.shown[-1].words
    else:
        header(draw, "Rolled")
        body = "; ".join(shown.words for shown in view.shown)
    for row, line in enumerate(wrap(body, 12)[:3]):
        text(draw, (2, 28 + row * 13), line, 12)
    text(draw, (2, 62), "select: next" if count < view.total else "select: go on", 10)


class Reveal(Screen, Generic[SummaryT]):
    """The lines of one device roll: down or select for the next, up for the one before;
    back (or the long press) skips to the end. The roll is already stored: nothing here
    changes the game. ``seen`` hears how many lines the table has seen, as that grows
    (all of them once the screen goes), so that a game left part-way comes back here."""

    def __init__(self, lines: Sequence[Shown[SummaryT]], picture: RollPicture[SummaryT], each: bool,
                 seen: Callable[[int], None] = lambda count: None, at: int = 0) -> None:
        self.lines = tuple(lines)
        self.picture = picture
        self.each = each
        self.seen = seen
        self.at = at if each else len(self.lines) - 1
        self.most = self.at + 1  # lines seen

    def draw(self, draw: ImageDraw.ImageDraw) -> None:
        self.picture(draw, RollView(self.lines[:self.at + 1], len(self.lines), self.each))

    def on(self, intent: Intent, host: Host) -> None:
        if intent.kind in ("select", "right", "down"):
            if self.at < len(self.lines) - 1:
                self.at += 1
                if self.at + 1 > self.most:
                    self.most = self.at + 1
                    self.seen(self.most)
            elif intent.kind == "select":  # right moves within the roll, never out of it
                self.done(host)
        elif intent.kind in ("up", "left"):
            self.at = max(0, self.at - 1) if self.each else self.at
        elif intent.kind in ("back", "context"):
            self.done(host)

    def done(self, host: Host) -> None:
        """The table has seen the roll (or skipped the rest): back to the game."""
        host.pop()
        if self.most < len(self.lines):
            self.seen(len(self.lines))
