"""The board cursor: pick squares on a picture of the board to answer a Grid prompt.

The left of the screen is the board, drawn by the game's painter (or a plain grid); the
right says whose turn it is, names the square under the cursor and carries the message.
Left and right move the cursor one square along its row. Up and down go to the next square
the pick can use (a marked one), up the column and on to the next column at the edge, and
back the other way: so a few presses reach any square a line can take, a three-button
build reaches every one of them, and the marks on the board say where each press stops.
Nothing else moves the cursor but a pick.

A line of several squares (a stack and where it goes) is picked square by square, and what
a press of select does on a square is always the one thing the rules make of it: a square
no line starts on is refused at once, with the rules' reason; once a square is picked, a
square it can go to makes the line, another square a line starts on takes the pick over,
and the picked square itself is let go. A refused line keeps its first squares picked. The
move being made is named beside the board in large type ("a1→a3"), so that the cursor
going by itself to the only square the pick can go to is in plain view. (A line drawn on
the board from one square to the other was tried: on 16-pixel squares it crossed out the
very pieces it joined.)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic

from PIL import ImageDraw

from companion.games.base import TABLE, Grid, Line, SummaryT
from companion.intents import Arrow, Intent
from companion.ui.draw import (
    BLACK,
    HEIGHT,
    WHITE,
    WIDTH,
    Area,
    cover,
    length,
    notice,
    notice_top,
    recording,
    report,
    text,
    wrap,
)
from companion.ui.widgets import Host, Screen

Square = tuple[int, int]
SIDE_LINES = 3  # small lines beside the board, under whose turn and the square's name


@dataclass(frozen=True)
class BoardView(Generic[SummaryT]):
    """What a painter needs: the summary, where to draw, and the cursor's marks."""

    #: The game's summary, of its own type (``BoardView[LeafSummary]``: Leaf-Climbers').
    summary: SummaryT
    box: tuple[int, int, int, int]
    cursor: Square
    marked: frozenset[Square]
    picked: tuple[Square, ...]


Painter = Callable[[ImageDraw.ImageDraw, BoardView[SummaryT], Grid], None]


def cell_box(view: BoardView[SummaryT], grid: Grid, square: Square) -> tuple[int, int, int, int]:
    """The pixel box of a square (row 1 at the bottom); cells may be wider than tall."""
    x0, y0, x1, y1 = view.box
    width, height = (x1 - x0 + 1) // grid.cols, (y1 - y0 + 1) // grid.rows
    col, row = square
    left = x0 + (col - 1) * width
    top = y0 + (grid.rows - row) * height
    return left, top, left + width - 1, top + height - 1


def plain_board(draw: ImageDraw.ImageDraw, view: BoardView[SummaryT], grid: Grid) -> None:
    """A grid of squares: marked ones dotted, picked ones crossed, the cursor inverted."""
    for col in range(1, grid.cols + 1):
        for row in range(1, grid.rows + 1):
            box = cell_box(view, grid, (col, row))
            here = (col, row) == view.cursor
            draw.rectangle(box, outline=WHITE, fill=WHITE if here else BLACK)
            ink = BLACK if here else WHITE
            cx, cy = (box[0] + box[2]) // 2, (box[1] + box[3]) // 2
            if (col, row) in view.picked:
                draw.line((box[0] + 2, box[1] + 2, box[2] - 2, box[3] - 2), fill=ink)
                draw.line((box[0] + 2, box[3] - 2, box[2] - 2, box[1] + 2), fill=ink)
            elif (col, row) in view.marked:
                draw.rectangle((cx - 1, cy - 1, cx + 1, cy + 1), fill=ink)


class BoardScreen(Screen, Generic[SummaryT]):
    """Pick ``grid.steps`` squares, then hand the line over to be played."""

    notice_area: Area = (0, HEIGHT - 1)  # a refusal may cover the whole board till the next press

    def __init__(self, grid: Grid, painter: Painter[SummaryT], summary: Callable[[], SummaryT],
                 done: Callable[[Line], str], question: str, cell_width: int = 0,
                 menu: Callable[[], None] | None = None, then: Callable[[], None] | None = None,
                 answer: object = None) -> None:
        """``done`` plays the line and answers "" or the rules' reason for refusing it.

        ``cell_width`` widens the squares beyond their height, for a painter that writes
        more than one mark in a square; 0 keeps them square. ``menu`` opens the game menu
        (the context key), as it does from the play screen. ``then`` runs once the line is
        logged and the board has closed (it may open the next one). ``answer``: the prompt's
        answer the squares enter (the grid, or dice whose faces are squares), as
        :attr:`~companion.ui.widgets.Item.answer` names it, for a driver.
        """
        self.menu = menu
        self.then = then
        self.answer = answer or grid
        self.grid = grid
        self.cell_width = cell_width
        self.painter = painter
        self.summary = summary
        self.done = done
        self.question = question
        self.picked: tuple[Square, ...] = ()
        self._marks: dict[tuple[Square, ...], frozenset[Square]] = {}
        self.cursor: Square = self._only() or grid.start

    def draw(self, draw: ImageDraw.ImageDraw) -> None:
        size = min(HEIGHT // self.grid.rows, 64 // self.grid.cols)
        box = (0, 0, (self.cell_width or size) * self.grid.cols - 1, size * self.grid.rows - 1)
        view = BoardView(self.summary(), box, self.cursor, self.marked(self.picked), self.picked)
        with recording() as painted:
            self.painter(draw, view, self.grid)
        # A refusal goes across the foot of the board (the side is too narrow), over whole
        # rows of squares, and over the whole of any string the painter wrote across that
        # line (a table's rows need not be the squares'): none is left cut in two.
        hidden = HEIGHT  # the first row under the notice
        if self.message:
            top = notice_top(self.message, self.notice_area)
            hidden = top - top % size
            while crossed := [d.box[1] for d in painted if d.box[1] < hidden <= d.box[3]]:
                hidden = min(crossed)  # (a string just above the band would touch it)
        left = box[2] + 3
        width = WIDTH - left
        side = [(10, "Table" if self.grid.actor == TABLE else self.grid.actor, 12), (23, self.where(width), 12)]
        body = self.grid.note(self.cursor) or self.question
        side += [(36 + row * 11, line, 10) for row, line in enumerate(wrap(body, 10, width - 1))]
        if len(side) > 2 + SIDE_LINES:
            report(body, f"{len(side) - 2 - SIDE_LINES} lines left out")
        for baseline, words, type_size in side[:2 + SIDE_LINES]:
            if baseline + 2 < hidden:
                text(draw, (left, baseline), words, type_size, width=width)
        if self.message:
            cover(draw, (0, hidden, WIDTH - 1, HEIGHT - 1))
            notice(draw, self.notice_area, self.message)

    def marked(self, picked: tuple[Square, ...]) -> frozenset[Square]:
        """The squares that can come next after ``picked`` (the grid's, worked out once for
        each pick: a press asks several times, and the grues' board has 3,360 legal lines)."""
        if picked not in self._marks:
            self._marks[picked] = self.grid.marked(picked)
        return self._marks[picked]

    def where(self, width: int) -> str:
        """The square under the cursor; with a square picked, the move: "a1→a3" (or "→a3"
        where both names do not fit beside the board); for a line of more squares than a
        move (three grues), the squares picked so far and this one: "b2 c3 d4"."""
        here = self.grid.name(self.cursor)
        if not self.picked or self.cursor == self.picked[-1]:
            return here
        if self.grid.steps > 2:
            squares = " ".join(self.grid.name(square) for square in (*self.picked, self.cursor))
            return squares if length(squares, 12) <= width else here
        move = f"{self.grid.name(self.picked[-1])}→{here}"
        return move if length(move, 12) <= width else f"→{here}"

    def on(self, intent: Intent, host: Host) -> None:
        kind = intent.kind
        if kind in ("up", "down", "left", "right"):
            self.cursor = self.moved(self.cursor, kind)
        elif kind == "select":
            self.select(host)
        elif kind == "context" and self.menu is not None:
            self.menu()
        elif kind in ("back", "context"):
            if self.picked:
                self.picked = self.picked[:-1]
            else:
                host.pop()

    def select(self, host: Host) -> None:
        """Select on the square under the cursor: what the rules make of it there."""
        square = self.cursor
        if square in self.picked:  # picked by mistake: let it go
            self.picked = self.picked[:self.picked.index(square)]
            return
        if self.picked and square not in self.marked(self.picked) and square in self.marked(()):
            self.picked = ()  # another square a line starts on (a stack of one's own): pick it instead
        if len(self.picked) + 1 < self.grid.steps:
            refusal = self.grid.refusal(square) if not self.picked else ""
            if refusal:  # now, not after a destination: nothing is picked
                self.message = refusal
                return
            self.picked += (square,)
            self.cursor = self._only() or square
            return
        refusal = self.done(self.grid.line(self.picked + (square,)))
        if refusal:  # the square is refused, the pick stays
            self.message = refusal
            return
        host.pop()
        if self.then is not None:
            self.then()

    def _only(self) -> Square | None:
        """The one square the rules allow next, if there is just one: the cursor goes
        there, so the only legal answer is one press."""
        marked = self.marked(self.picked)
        return next(iter(marked)) if len(marked) == 1 else None

    def moved(self, square: Square, kind: Arrow) -> Square:
        """Where a press of ``kind`` takes the cursor from ``square``: left and right one
        square along the row; up and down to the next marked square up the column and on
        to the next column at the edge, or back the other way (every square, when the
        rules mark none)."""
        cols, rows = self.grid.cols, self.grid.rows
        col, row = square
        if kind == "left":
            return (cols if col == 1 else col - 1, row)
        if kind == "right":
            return (1 if col == cols else col + 1, row)
        marked = self.marked(self.picked)
        index, step = (col - 1) * rows + (row - 1), 1 if kind == "up" else -1
        for _ in range(cols * rows):
            index = (index + step) % (cols * rows)
            there = (index // rows + 1, index % rows + 1)
            if not marked or there in marked:
                return there
        return square
