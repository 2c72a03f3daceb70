"""Gleeb's and Grues on screen: the 4x4 board as the pyramids stand, and both scores.

Each square holds a 12 px tile. A gleeb-topped stack shows its top's colour letter
(B Y G R) with one to three pips under it for its size, as the pyramids are notched; the
first seat's stacks (blue and yellow) are white tiles, the second seat's black ones, so
whose stack it is reads at a glance. A bar of ticks on the tile's right counts the pieces
of a stack taller than one. A free grue is a plain pyramid of its size; a pinned stack is
a smaller pyramid in a cage. The cursor rings its square, legal squares have
a dotted ring, and a square already picked has a ring with bold corners.
"""

from __future__ import annotations

from PIL import ImageDraw

from companion.games.base import Grid, counted
from companion.games.gleebs_and_grues import COLOURS, GLEEBS, GRUE, GleebsSummary
from companion.ui.board import BoardView, cell_box
from companion.ui.draw import BLACK, WHITE, text
from companion.ui.figures import Box
from companion.ui.games import Screens

SEAT_COLOURS = tuple("/".join(pair) for pair in COLOURS)  # "B/Y", "G/R"
TILE_INSET = 2  # gutter between a square's edge and its tile: room for the rings
GRUE_SIDES = {1: 5, 2: 8, 3: 11}  # a free grue's pyramid, by size
PINNED_SIDES = {1: 5, 2: 7, 3: 9}  # a caged grue's, smaller to fit its cage
MAX_TICKS = 6


def paint(draw: ImageDraw.ImageDraw, view: BoardView[GleebsSummary], grid: Grid) -> None:
    """Every square: its stack, then the cursor's, the legal and the picked rings."""
    board: dict[str, list[str]] = view.summary.get("board", {})
    for col in range(1, grid.cols + 1):
        for row in range(1, grid.rows + 1):
            box = cell_box(view, grid, (col, row))
            stack = board.get(grid.words((col, row))[0], [])
            tile(draw, box, stack)
            ring(draw, box, (col, row), view)


def tile(draw: ImageDraw.ImageDraw, box: Box, stack: list[str]) -> None:
    """One square's stack (or a dot for an empty square)."""
    x0, y0, x1, y1 = box
    inner = (x0 + TILE_INSET, y0 + TILE_INSET, x1 - TILE_INSET, y1 - TILE_INSET)
    if not stack:
        draw.rectangle((x0 + 7, y0 + 7, x0 + 8, y0 + 8), fill=WHITE)
        return
    top = stack[-1]
    if top[0] == GRUE:
        grue(draw, inner, stack)
        return
    ink = BLACK if top[0] in COLOURS[0] else WHITE
    draw.rectangle(inner, fill=WHITE if ink == BLACK else BLACK)
    left, top_y, _, bottom = inner
    text(draw, (left + 2, top_y + 9), top[0], 10, ink)  # clear of a picked square's corners
    for pip in range(int(top[1])):
        x = left + 1 + 3 * pip
        draw.rectangle((x, bottom - 1, x + 1, bottom), fill=ink)
    ticks(draw, inner, len(stack), ink)


def grue(draw: ImageDraw.ImageDraw, inner: Box, stack: list[str]) -> None:
    """A free grue as its pyramid; a pinned stack as a smaller pyramid in a cage."""
    left, _, right, bottom = inner
    pinned = len(stack) > 1
    side = (PINNED_SIDES if pinned else GRUE_SIDES)[int(stack[-1][1])]
    if pinned:
        draw.rectangle(inner, outline=WHITE)
        bottom -= 2
    middle = (left + right) // 2
    draw.polygon([(middle - side // 2, bottom), (middle + side // 2, bottom), (middle, bottom - side + 1)],
                 fill=WHITE)


def ticks(draw: ImageDraw.ImageDraw, inner: Box, count: int, ink: int) -> None:
    """One tick per piece, bottom up on the tile's right edge, for stacks of two or more."""
    if count < 2:
        return
    _, _, right, bottom = inner
    for piece in range(min(count, MAX_TICKS)):
        draw.line((right - 1, bottom - 2 * piece, right, bottom - 2 * piece), fill=ink)


def ring(draw: ImageDraw.ImageDraw, box: Box, square: tuple[int, int], view: BoardView[GleebsSummary]) -> None:
    """The cursor's solid ring, a picked square's bold corners, a legal square's dots."""
    x0, y0, x1, y1 = box
    if square == view.cursor or square in view.picked:
        draw.rectangle(box, outline=WHITE)
    if square in view.picked:
        for cx, cy in ((x0, y0), (x1 - 3, y0), (x0, y1 - 3), (x1 - 3, y1 - 3)):
            draw.rectangle((cx, cy, cx + 3, cy + 3), outline=WHITE)
    elif square in view.marked and square != view.cursor:
        for x in range(x0, x1 + 1, 2):
            draw.point((x, y0), fill=WHITE)
            draw.point((x, y1), fill=WHITE)
        for y in range(y0, y1 + 1, 2):
            draw.point((x0, y), fill=WHITE)
            draw.point((x1, y), fill=WHITE)


def panel(draw: ImageDraw.ImageDraw, summary: GleebsSummary, box: Box) -> None:
    """Each player's colours and score; then the gleebs still to place, or what the grues
    have eaten and pinned."""
    x0, y0, x1, _ = box
    half = (x1 - x0 + 1) // 2
    for seat, name in enumerate(summary["players"]):
        x = x0 + 1 + seat * half
        text(draw, (x, y0 + 9), f"{name} {SEAT_COLOURS[seat]}", 10, width=half - 18)
        text(draw, (x + half - 6, y0 + 10), str(summary["scores"][name]), 12, anchor="rs")
    if summary["phase"] == "placement":
        placed = sum(1 for stack in summary["board"].values() for piece in stack if piece[0] != GRUE)
        status = f"{counted(len(GLEEBS) - placed, 'gleeb')} to place"
    else:
        status = f"eaten {len(summary['eaten'])}  pinned {len(summary['pinned'])}"
    text(draw, (x0 + 1, y0 + 19), status, 10)


def summary_lines(summary: GleebsSummary) -> list[str]:
    """The summary page: the score, each player's colours, the gleebs eaten and caged."""
    lines = [" - ".join(f"{name} {summary['scores'][name]}" for name in summary["players"])]
    for seat, name in enumerate(summary["players"]):
        lines.append(f"{name} plays {SEAT_COLOURS[seat]}")
    lines.append("Eaten: " + (" ".join(summary["eaten"]) or "none"))
    if summary["pinned"]:
        lines.append("Grues caged on " + " ".join(summary["pinned"]))
    lines.append(f"On the board: {counted(len(summary['board']), 'stack')}")
    return lines


#: What this game draws its own way (the rest is generic).
SCREENS: Screens[GleebsSummary] = Screens(panel=panel, paint=paint, summary_lines=summary_lines)
