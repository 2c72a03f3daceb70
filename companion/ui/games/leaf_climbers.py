"""Lilliputian Leaf-Climbers on screen: the board picture, the key figures, the falling leaves.

Everything is drawn from the summary (records.md keys plus the engine's ``leaves``,
``drop`` and ``roll``), read as the engine's ``LeafSummary``; of the engine this module
takes only that type and the board's constants, never its state.

A square is 14 x 10 pixels: a one-pixel gap on its left and top, then 13 x 9 of content
with the elevation digit on the left and the meeple on the right, both in a 5x7 pixel font
that stays sharp on a 1-bit panel. A square that a leaf will land on this round is white;
a meeple is its player's letter in a box; the cursor rings its square (a white square is a leaf's).
"""

from __future__ import annotations

from functools import cache

from PIL import Image, ImageDraw

from companion.games.base import Grid, counted
from companion.games.leaf_climbers import SIZE, TOP, LeafSummary
from companion.ui.board import BoardView, cell_box
from companion.ui.draw import BLACK, WHITE, length, text
from companion.ui.figures import Box
from companion.ui.games import Screens
from companion.ui.reveal import RollView

CELL_WIDTH = 14  # pixels per column: a digit and a meeple side by side
CELL_HEIGHT = 10
SIDE = SIZE * CELL_WIDTH + 3  # where the text beside the board starts
GRID = Grid("", "", "", SIZE, SIZE, ())  # the board's shape, for pictures drawn outside a prompt

Square = tuple[int, int]

#: A 5x7 pixel font: one string of seven rows per character, "1" lit.
FONT = {
    ".": "00000 00000 00000 00100 00000 00000 00000",  # elevation 0: bare ground
    "0": "01110 10001 10011 10101 11001 10001 01110",
    "1": "00100 01100 00100 00100 00100 00100 01110",
    "2": "01110 10001 00001 00010 00100 01000 11111",
    "3": "11111 00010 00100 00010 00001 10001 01110",
    "4": "00010 00110 01010 10010 11111 00010 00010",
    "5": "11111 10000 11110 00001 00001 10001 01110",
    "6": "00110 01000 10000 11110 10001 10001 01110",
    "7": "11111 00001 00010 00100 01000 01000 01000",
    "8": "01110 10001 10001 01110 10001 10001 01110",
    "9": "01110 10001 10001 01111 00001 00010 01100",
    "A": "01110 10001 10001 11111 10001 10001 10001",
    "B": "11110 10001 10001 11110 10001 10001 11110",
    "C": "01110 10001 10000 10000 10000 10001 01110",
    "D": "11110 10001 10001 10001 10001 10001 11110",
    "E": "11111 10000 10000 11110 10000 10000 11111",
    "F": "11111 10000 10000 11110 10000 10000 10000",
    "G": "01110 10001 10000 10111 10001 10001 01111",
    "H": "10001 10001 10001 11111 10001 10001 10001",
    "I": "01110 00100 00100 00100 00100 00100 01110",
    "J": "00111 00010 00010 00010 00010 10010 01100",
    "K": "10001 10010 10100 11000 10100 10010 10001",
    "L": "10000 10000 10000 10000 10000 10000 11111",
    "M": "10001 11011 10101 10101 10001 10001 10001",
    "N": "10001 10001 11001 10101 10011 10001 10001",
    "O": "01110 10001 10001 10001 10001 10001 01110",
    "P": "11110 10001 10001 11110 10000 10000 10000",
    "Q": "01110 10001 10001 10001 10101 10010 01101",
    "R": "11110 10001 10001 11110 10100 10010 10001",
    "S": "01111 10000 10000 01110 00001 00001 11110",
    "T": "11111 00100 00100 00100 00100 00100 00100",
    "U": "10001 10001 10001 10001 10001 10001 01110",
    "V": "10001 10001 10001 10001 10001 01010 00100",
    "W": "10001 10001 10001 10101 10101 10101 01010",
    "X": "10001 10001 01010 00100 01010 10001 10001",
    "Y": "10001 10001 01010 00100 00100 00100 00100",
    "Z": "11111 00001 00010 00100 01000 10000 11111",
}


@cache
def mask(char: str) -> Image.Image:
    """One character of the pixel font as a 1-bit mask."""
    rows = FONT[char].split()
    image = Image.new("1", (len(rows[0]), len(rows)), 0)
    image.putdata([int(bit) for row in rows for bit in row])
    return image


def glyph(draw: ImageDraw.ImageDraw, x: int, y: int, char: str, ink: int) -> None:
    """One character of the pixel font with its top left at ``(x, y)``."""
    draw.bitmap((x, y), mask(char), fill=ink)


def boxed(draw: ImageDraw.ImageDraw, x: int, y: int, char: str) -> None:
    """A character inverted in a 7x9 box with its top left at ``(x, y)``."""
    draw.rectangle((x, y, x + 6, y + 8), fill=WHITE)
    glyph(draw, x + 1, y + 1, char, BLACK)


def labels(players: list[str]) -> dict[str, str]:
    """Each player's mark on the board: the initial, or the seat number if initials clash.

    >>> labels(["Ann", "bob"]), labels(["Ann", "Amy", "Bob"])
    ({'Ann': 'A', 'bob': 'B'}, {'Ann': '1', 'Amy': '2', 'Bob': '3'})
    """
    initials = [name[0].upper() for name in players]
    if len(set(initials)) == len(initials) and all(i in FONT for i in initials):
        return dict(zip(players, initials))
    return {name: str(seat) for seat, name in enumerate(players, start=1)}


def meeples(summary: LeafSummary) -> dict[Square, list[str]]:
    """The living players on each occupied square, in seat order."""
    found: dict[Square, list[str]] = {}
    for name in summary["players"]:
        at = summary["positions"].get(name)
        if at is not None:
            found.setdefault((at[0], at[1]), []).append(name)
    return found


def height(summary: LeafSummary, square: Square) -> int:
    """A square's elevation from the summary (``elevation[r-1][c-1]``)."""
    return int(summary["elevation"][square[1] - 1][square[0] - 1])


def paint_square(draw: ImageDraw.ImageDraw, box: Box, elevation: int, leaves: int,
                 marks: list[str], reachable: bool, cursor: bool = False) -> None:
    """One square: under a leaf all inverted (a notch for a second leaf); the digit; the
    meeple's letter in a box (two meeples: both letters, in place of the digit, whose
    elevation the cursor's note gives); or a dot when the mover can end there. The cursor
    rings the square in the gap round it (and parts a leaf's white from the ring with a
    dark line): a white square is a leaf's, never the cursor's."""
    x, y = box[0], box[1]
    paper, ink = BLACK, WHITE
    if leaves:
        draw.rectangle((x + 1, y + 1, x + 13, y + 9), fill=ink)
        paper, ink = ink, paper
        if leaves > 1:
            draw.line((x + 6, y + 1, x + 8, y + 1), fill=ink)
    if cursor:
        draw.rectangle((x, y, x + CELL_WIDTH, y + CELL_HEIGHT), outline=WHITE)
        if leaves:  # the ring would make the leaf's white one larger block: notch it
            draw.point([(x + 1, y + 1), (x + 13, y + 1), (x + 1, y + 9), (x + 13, y + 9)], fill=BLACK)
    # Glyphs need a margin of the other colour: on a dark square not ringed, the left glyph
    # may use the square's first column and a meeple has a box; elsewhere neither.
    snug = ink == WHITE and not cursor
    left = x + 1 if snug else x + 2
    if len(marks) == 2:
        glyph(draw, left, y + 2, marks[0], ink)
        glyph(draw, x + 8, y + 2, marks[1], ink)
        return
    glyph(draw, left, y + 2, str(elevation) if elevation else ".", ink)
    if marks and snug:
        draw.rectangle((x + 7, y + 1, x + 13, y + 9), fill=ink)
        glyph(draw, x + 8, y + 2, marks[0], paper)
    elif marks:
        glyph(draw, x + 8, y + 2, marks[0], ink)
    elif reachable:
        draw.rectangle((x + 9, y + 4, x + 11, y + 6), fill=ink)


def landing(summary: LeafSummary) -> list[Square]:
    """This round's leaves, in the order they fell (a square twice for two leaves)."""
    return [(c, r) for c, r in summary.get("leaves", [])]


def paint(draw: ImageDraw.ImageDraw, view: BoardView[LeafSummary], grid: Grid) -> None:
    """The board: elevations, this round's leaves, meeples, reachable squares, the cursor."""
    summary = view.summary
    leaves = landing(summary)
    standing = meeples(summary)
    marks = labels(summary["players"])
    for col in range(1, grid.cols + 1):
        for row in range(1, grid.rows + 1):
            square = (col, row)
            paint_square(draw, cell_box(view, grid, square), height(summary, square),
                         leaves.count(square), [marks[n] for n in standing.get(square, [])],
                         square in view.marked, square == view.cursor)


def panel(draw: ImageDraw.ImageDraw, summary: LeafSummary, box: Box) -> None:
    """Each player's board letter and name, struck through once crushed; under them the
    leaves of this round and how many squares are blue (all 36: the end)."""
    x0, y0, x1, _ = box
    players = summary["players"]
    marks = labels(players)
    width = (x1 - x0 + 1) // len(players)
    for seat, name in enumerate(players):
        x = x0 + seat * width
        if name in summary["out"]:  # crushed: the letter's box crossed out
            draw.rectangle((x, y0, x + 6, y0 + 8), outline=WHITE)
            draw.line((x, y0, x + 6, y0 + 8), fill=WHITE)
            draw.line((x, y0 + 8, x + 6, y0), fill=WHITE)
        else:
            boxed(draw, x, y0, marks[name])
        text(draw, (x + 9, y0 + 8), name, 10, width=width - 11)
    blue = sum(1 for row in summary["elevation"] for h in row if h >= TOP)
    right = f"{blue}/{SIZE * SIZE} blue"
    text(draw, (x1, y0 + 18), right, 10, anchor="rs")
    down, falling = len(summary.get("leaves", [])), summary.get("falling", 0)
    if not down:
        left = "no leaf yet"
    elif falling:
        left = f"leaf {down} of {down + falling}"
    else:
        left = counted(down, "leaf", "leaves")
    text(draw, (x0 + 1, y0 + 18), left, 10, width=x1 - x0 - int(length(right, 10)) - 6)


def roll_picture(draw: ImageDraw.ImageDraw, view: RollView[LeafSummary]) -> None:
    """The leaves of one device roll on the board; shown one by one, the newest is framed
    and named, else the d20 and how many leaves fall."""
    summary = view.shown[-1].summary
    leaves = landing(summary)
    newest = leaves[-1] if view.each and leaves else (0, 0)
    board = BoardView(summary, (0, 0, SIZE * CELL_WIDTH - 1, SIZE * CELL_HEIGHT - 1), newest,
                      frozenset(), ())
    paint(draw, board, GRID)
    count = len(leaves) + summary.get("falling", 0)
    if newest in leaves:
        headline, body = ["Leaf", f"c{newest[0]} r{newest[1]}"], [f"{len(leaves)} of {count}"]
    else:
        drop = summary.get("drop") or 0
        headline, body = ["d20", str(drop)], [] if count == drop else [f"only {count}", "fit"]
    body.append("next >" if len(view.shown) < view.total else "go on >")
    # The same places as the board cursor's side: two lines of 12 px, then 10 px.
    for row, line in enumerate(headline):
        text(draw, (SIDE, 10 + 13 * row), line, 12)
    for row, line in enumerate(body):
        text(draw, (SIDE, 36 + 11 * row), line, 10)


def corner(summary: LeafSummary) -> str:
    """The round of the question: a round's d20 is asked before the round begins (the
    summary counts rounds begun), so after the first round it is the next one's."""
    asks_next = summary["phase"] == "drop" and summary["drop"] is not None and not summary["over"]
    return f"R{summary['round'] + asks_next}"


def summary_lines(summary: LeafSummary) -> list[str]:
    """The summary page, a short fact a line: where each climber stands and how high, who
    is out, the round and the leaves still falling."""
    lines = []
    for name in summary["players"]:
        at = summary["positions"].get(name)
        square = (at[0], at[1]) if at else None
        lines.append(f"{name}: out" if square is None
                     else f"{name}: {GRID.name(square)}, up {height(summary, square)}")
    lines.append(f"Round {summary['round']}")
    lines.append(f"Highest square: {max(map(max, summary['elevation']))}")
    if summary["falling"]:
        lines.append(f"Leaves to drop: {summary['falling']}")
    return lines


#: What this game draws its own way (the rest is generic).
SCREENS: Screens[LeafSummary] = Screens(panel=panel, corner=corner, paint=paint, cell_width=CELL_WIDTH,
                                        roll_picture=roll_picture, summary_lines=summary_lines,
                                        short_title="Leaf-Climbers")
