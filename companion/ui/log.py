"""The Log: a game's whole record on the box, newest first, each entry with its result in
words, and the device rolls that were undone where the dice audit keeps them.

Each row of :class:`~companion.gamelog.GameLog` is a block of text lines: the entry's number
and its record line (every line of a roll of several dice), then what it did, indented.
Up and down scroll three lines at a time within a block taller than the screen, else a
block at a time; left and right jump ten entries; select or back leave. Rows are read from
the store a page at a time, so a game of any length opens at once and memory stays flat.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from PIL import ImageDraw

from companion.gamelog import GameLog, Row
from companion.intents import Intent
from companion.ui.draw import HEADER, HEIGHT, WIDTH, arrows, header, text, wrap
from companion.ui.widgets import Host, Screen

SHOWN = 4  # text lines under the top bar, at 11 px
LINE = 12  # pixels from one baseline to the next
FIRST_BASELINE = HEADER + 11
LEFT, INDENT = 2, 10  # where a block's first line starts, and the lines after it
RIGHT = WIDTH - 10  # the arrows' column beyond it
JUMP = 10  # entries that left and right skip
LINE_SIZE, WORDS_SIZE = 12, 11  # record lines in bold, what they did in the plain face
WHAT = {"rolled": "(box rolled)", "again": "(box rolled again)"}  # the dice audit's marks


@lru_cache(maxsize=256)
def block(row: Row) -> tuple[tuple[int, str, int], ...]:
    """A row as text lines, each with its left edge and type size: the first line logged (or
    undone) in bold, what the entry did, then its other lines (a round's leaves), wrapped
    to the screen's width."""
    first = f"undone: {row.lines[0]}" if row.kind == "undone" else f"{row.place} {row.lines[0]}"
    pieces = wrap(first, LINE_SIZE, RIGHT - LEFT)
    if len(pieces) > 1:  # the lines after the first are indented: narrower
        pieces = pieces[:1] + wrap(" ".join(pieces[1:]), LINE_SIZE, RIGHT - INDENT)
    out = [(LEFT if at == 0 else INDENT, piece, LINE_SIZE) for at, piece in enumerate(pieces)]
    words = " ".join(filter(None, (row.words, WHAT.get(row.kind, ""))))
    out += [(INDENT, piece, WORDS_SIZE) for piece in wrap(words, WORDS_SIZE, RIGHT - INDENT) if piece]
    out += [(INDENT, piece, LINE_SIZE) for line in row.lines[1:] for piece in wrap(line, LINE_SIZE, RIGHT - INDENT)]
    return tuple(out)


@dataclass(frozen=True)
class At:
    """A place in the Log: the row (by place, and which of the rows there) and how many of
    its text lines are scrolled past."""

    place: int
    row: int = 0
    line: int = 0


class LogScreen(Screen):
    """A stored game's Log, from its newest row."""

    title = "Log"

    def __init__(self, log: GameLog) -> None:
        self.log = log
        self.at: At | None = At(log.newest) if log.newest else None

    # --- moving through the rows ---

    def lines_of(self, at: At) -> tuple[tuple[int, str, int], ...]:
        return block(self.log.rows_at(at.place)[at.row])

    def older(self, at: At) -> At | None:
        """The row after ``at`` (older), from its first line."""
        if at.row + 1 < len(self.log.rows_at(at.place)):
            return At(at.place, at.row + 1)
        place = at.place - 1
        return At(place) if place >= 1 else None

    def newer(self, at: At) -> At | None:
        """The row before ``at`` (newer), from its first line."""
        if at.row > 0:
            return At(at.place, at.row - 1)
        place = at.place + 1
        rows = self.log.rows_at(place)
        return At(place, len(rows) - 1) if rows else None

    def in_view(self) -> tuple[list[tuple[int, str, int]], bool]:
        """The text lines on screen, and whether more follow below them."""
        shown: list[tuple[int, str, int]] = []
        at = self.at
        skip = at.line if at else 0
        while at is not None and len(shown) < SHOWN:
            shown += self.lines_of(at)[skip:]
            skip = 0
            at = self.older(at)
        return shown[:SHOWN], len(shown) > SHOWN or at is not None

    def down(self) -> None:
        at = self.at
        if at is None:
            return
        lines = len(self.lines_of(at))
        if lines - at.line > SHOWN:  # this row goes on below the screen: scroll within it
            self.at = At(at.place, at.row, min(at.line + SHOWN - 1, lines - SHOWN))
            return
        older = self.older(at)
        if older is not None and self.in_view()[1]:
            self.at = older

    def up(self) -> None:
        at = self.at
        if at is None:
            return
        if at.line > 0:
            self.at = At(at.place, at.row, max(0, at.line - (SHOWN - 1)))
            return
        self.at = self.newer(at) or at

    def jump(self, entries: int) -> None:
        """Ten entries older (or newer), to the entry's own row."""
        if self.at is None:
            return
        place = min(max(1, self.at.place - entries), self.log.newest)
        self.at = At(place)

    # --- the screen ---

    def draw(self, draw: ImageDraw.ImageDraw) -> None:
        at = self.at
        # Rolls undone after the last entry sit at the place the next entry takes: counted
        # with the last entry, never as one more than there are.
        header(draw, self.title, f"{min(at.place, self.log.head)}/{self.log.head}" if at else "")
        if at is None:
            text(draw, (LEFT, FIRST_BASELINE), "Nothing logged yet.", 11)
            return
        shown, more = self.in_view()
        for number, (left, words, size) in enumerate(shown):
            text(draw, (left, FIRST_BASELINE + number * LINE), words, size, width=RIGHT - left)
        top = at.line > 0 or self.newer(at) is not None
        arrows(draw, WIDTH - 7, HEADER + 1, HEIGHT - 2, top, more)

    def on(self, intent: Intent, host: Host) -> None:
        if intent.kind == "down":
            self.down()
        elif intent.kind == "up":
            self.up()
        elif intent.kind == "right":
            self.jump(JUMP)
        elif intent.kind == "left":
            self.jump(-JUMP)
        elif intent.kind in ("back", "select", "context"):
            host.pop()
