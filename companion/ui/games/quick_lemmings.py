"""Quick Lemmings on screen: the last play's points and tile in large type, and pages to flip to.

The panel under the header shows what the most recent play gave (its movement points
large, and the tile to lay), since that is what the player moving a lemming needs; after a
refill it shows the hand, the draw pile and the lemmings home. The pages (from the game
menu): the piles, with what a card of each value would give on each of them right now (the
decision every turn); the cards of each pile; the players' hands and lemmings home; the
tiles left and the draw pile.

Everything is drawn from the summary (records.md keys plus the engine's ``played``,
``gains`` and ``lemmings``), read as the engine's ``LemmingsSummary``; of the engine this
module takes only that type and the terrain names, never its state.
"""

from __future__ import annotations

from PIL import ImageDraw

from companion.games.base import Grid
from companion.games.quick_lemmings import MEADOW, TERRAINS, Gain, LemmingsSummary
from companion.ui.board import BoardView
from companion.ui.draw import BLACK, WHITE, length, text
from companion.ui.figures import Box, View
from companion.ui.games import Screens

SHORT = {"forest": "For", "water": "Wat", "mountain": "Mtn", "swamp": "Swp", "desert": "Des",
         MEADOW: "Mdw"}
VALUES_SHOWN = 5  # card-value rows that fit under the pile names
NAME_ROW = 9  # the pile names across the top of a page
GAIN_ROW = 8  # pixels per card-value row (or per card of a pile)
VALUE_WIDTH = 12  # the card values down the left of the piles page
PILE_WIDTH = 23  # pixels per pile on the piles page
TILE_TOP = 10  # the tile's lit box, from this row of the panel: a clear row above it
PLAYER_ROW = 10  # pixels per player: five fit under the header
HAND_RIGHT = 74  # where the hand sizes end on the players page
PLAYER_NAME = 36  # pixels for a name on the players page
CARD_LABEL = 6  # the card values down the left of the cards to pick from: a digit, lit round
CARD_WIDTH = 13  # pixels per pile there: the values' column and five piles
MARKED_CELL = 9  # rows a narrow cell needs for a mark over its points, a row between them
CARD_ROW = 9  # pixels a row of the cards needs for its points, lit round (else a dot a card)


# --- the panel: the last play, or the hand and the draw pile ---


def panel(draw: ImageDraw.ImageDraw, summary: LemmingsSummary, box: Box) -> None:
    """The most recent play's points and tile, large; else the figures for the turn."""
    if summary["played"] is not None:
        last_play(draw, summary, box)
    else:
        turn_figures(draw, summary, box)


def last_play(draw: ImageDraw.ImageDraw, summary: LemmingsSummary, box: Box) -> None:
    """``7 pts`` in 20 px type; who played what; the tile to lay, inverted, in 12 px."""
    x0, y0, x1, y1 = box
    played = summary["played"]
    assert played is not None  # the panel shows this only after a play
    points = str(summary["points"])
    text(draw, (x0 + 1, y1), points, 20)
    right = x0 + 3 + int(length(points, 20))
    text(draw, (right, y1), "pts", 10)
    left = right + int(length("pts", 10)) + 5
    text(draw, (left, y0 + 8), f"{played['player']}: {played['terrain']} {played['value']}", 9,
         width=x1 - left)
    tile = summary["tile"]
    if tile is None:  # the tile line fills the rest of the panel
        started = len(summary["piles"][played["terrain"]]) == 1
        text(draw, (left, y1 - 1), "no tile left" if started else "no tile", 10, width=x1 - left)
        return
    draw.rectangle((left, y0 + TILE_TOP, x1, y1), fill=WHITE)
    text(draw, (left + 2, y1 - 1), f"lay {tile}", 10, BLACK, x1 - left - 3)


def turn_figures(draw: ImageDraw.ImageDraw, summary: LemmingsSummary, box: Box) -> None:
    """The hand of the player to act and the draw pile; the lemmings already home."""
    x0, y0, x1, _ = box
    who = summary["next"]
    hand = f"{who}: hand {summary['hands'][who]}, " if who else ""
    text(draw, (x0 + 1, y0 + 8), f"{hand}draw {summary['draw']}", 10, width=x1 - x0)
    home = [f"{name} {done}" for name, done in summary["finished"].items() if done]
    line = "home: " + ", ".join(home) if home else f"discards {summary['discards']}"
    text(draw, (x0 + 1, y0 + 18), line, 10, width=x1 - x0)


# --- the pages ---


def piles_page(draw: ImageDraw.ImageDraw, summary: LemmingsSummary, box: Box) -> None:
    """The five piles side by side, and down each one what a card of each value would give
    on it now: the points, inverted where the card starts a new pile (so the edge of the
    inverted part is the pile's lowest card)."""
    x0, y0, _x1, _ = box
    gains = summary["gains"]
    values = sorted({g["value"] for kind in TERRAINS for g in gains[kind]})[:VALUES_SHOWN]
    for row, value in enumerate(values):
        text(draw, (x0 + 1, y0 + NAME_ROW + (row + 1) * GAIN_ROW - 1), str(value), 9)
    for column, kind in enumerate(TERRAINS):
        left = x0 + VALUE_WIDTH + column * PILE_WIDTH
        text(draw, (left + PILE_WIDTH // 2, y0 + NAME_ROW - 2), SHORT[kind], 10, anchor="ms")
        by_value = {g["value"]: g for g in gains[kind]}
        for row, value in enumerate(values):
            top = y0 + NAME_ROW + row * GAIN_ROW
            gain_cell(draw, by_value.get(value), (left + 1, top, left + PILE_WIDTH - 2, top + GAIN_ROW - 1))


def cards_page(draw: ImageDraw.ImageDraw, summary: LemmingsSummary, box: Box) -> None:
    """The five piles side by side with their cards, oldest at the top and the lowest (the
    newest) inverted at the bottom; ``+N`` when older cards do not fit."""
    x0, y0, x1, y1 = box
    width = (x1 - x0 + 1) // len(TERRAINS)
    rows = (y1 - y0 + 1 - NAME_ROW) // GAIN_ROW
    for column, kind in enumerate(TERRAINS):
        left = x0 + column * width
        centre = left + width // 2
        text(draw, (centre, y0 + NAME_ROW - 2), SHORT[kind], 10, anchor="ms")
        pile = summary["piles"][kind]
        shown = pile if len(pile) <= rows else pile[-(rows - 1):]
        lines = ([f"+{len(pile) - len(shown)}"] if len(shown) < len(pile) else []) + [str(c) for c in shown]
        for row, words in enumerate(lines):
            top = y0 + NAME_ROW + row * GAIN_ROW
            ink = WHITE
            if row == len(lines) - 1:
                draw.rectangle((left + 4, top, left + width - 5, top + GAIN_ROW - 1), fill=WHITE)
                ink = BLACK
            text(draw, (centre, top + GAIN_ROW - 1), words, 9, ink, anchor="ms")


def gain_cell(draw: ImageDraw.ImageDraw, gain: Gain | None, box: Box, narrow: bool = False) -> None:
    """One card's gain: points; a new pile inverted, ``m`` when it lays a meadow, outlined
    when no tile is left; a dot when no such card can be in a hand. In a ``narrow`` cell
    (the table of the cards) two digits take the whole width, and a letter or an outline's
    sides beside them would cut them or run into them: the marks go above the points
    instead, a meadow's as the inverted cell's top edge cut like grass, no tile left's as a
    bar. A narrow cell too short for a mark and a row under it (a deck of six values) shows
    every new pile inverted; the note beside the table names the cursor's card."""
    x0, y0, x1, y1 = box
    centre = (x0 + x1 + 1) // 2
    if gain is None:
        draw.point((centre, (y0 + y1) // 2), fill=WHITE)
        return
    words = str(gain["points"])
    ink = WHITE
    above = narrow and y1 - y0 + 1 >= MARKED_CELL
    if gain["new_pile"] and gain["tile"] is None and not narrow:
        draw.rectangle(box, outline=WHITE)
    elif gain["new_pile"] and gain["tile"] is None and above:
        draw.line((x0, y0, x1, y0), fill=WHITE)
    elif gain["new_pile"]:
        draw.rectangle(box, fill=WHITE)
        ink = BLACK
        if gain["tile"] == MEADOW and above:
            for x in range(x0, x1 + 1, 2):
                draw.point((x, y0), fill=BLACK)
        elif gain["tile"] == MEADOW and not narrow:
            words += "m"
    # The box's width in pixels; under a mark the points keep a row clear of it.
    text(draw, (centre, y1), words, 9, ink, x1 - x0 + 1, anchor="ms",
         box=(x0, y0 + 2, x1, y1 - 1) if above else None)


def card_table(draw: ImageDraw.ImageDraw, view: BoardView[LemmingsSummary], grid: Grid) -> None:
    """The cards to pick from, laid out as the piles page: the piles across (each one's
    initial over it), the card values down the left (the lowest at the top), and in each
    cell what the card gives now (a dot: no such card can be in a hand). The cursor's cell
    is framed and drawn plain, its points white on black whatever its kind (the card's
    note beside the table says what it does), so that the frame stands apart from a white
    or outlined cell; its pile's initial and its value are inverted. The table keeps off
    the glass's first row and column (the burn-in shift takes them away)."""
    x0, y0, x1, y1 = view.box
    x0, y0 = x0 + 1, y0 + 1
    width = (x1 - x0 + 1 - CARD_LABEL) // grid.cols
    height = (y1 - y0 + 1 - NAME_ROW) // grid.rows
    gains = view.summary["gains"]
    cursor_col, cursor_row = view.cursor
    for row, value in enumerate(grid.row_words, 1):
        top = y0 + NAME_ROW + (grid.rows - row) * height
        if height >= CARD_ROW:
            label(draw, (x0, top, x0 + CARD_LABEL - 1, top + height - 2), value, row == cursor_row)
    for column, kind in enumerate(grid.columns, 1):
        left = x0 + CARD_LABEL + (column - 1) * width
        label(draw, (left + 1, y0, left + width - 1, y0 + NAME_ROW - 2), kind[0].upper(), column == cursor_col)
        by_value = {str(g["value"]): g for g in gains[kind]}
        for row, value in enumerate(grid.row_words, 1):
            top = y0 + NAME_ROW + (grid.rows - row) * height
            cell = (left + 1, top, left + width - 1, top + height - 2)
            gain = by_value.get(value)
            framed = (column, row) == view.cursor
            if height >= CARD_ROW:
                gain_cell(draw, plain(gain) if framed else gain, cell, narrow=True)
            elif gain is not None:  # too many values for their points: a dot for each card
                draw.point(((cell[0] + cell[2]) // 2, (cell[1] + cell[3]) // 2), fill=WHITE)
            if framed:
                draw.rectangle((left, top - 1, left + width, top + height - 1), outline=WHITE)


def plain(gain: Gain | None) -> Gain | None:
    """A gain drawn as its points alone, white on black (no fill, outline or meadow mark)."""
    return None if gain is None else Gain(value=gain["value"], points=gain["points"], new_pile=False,
                                          tile=None)


def label(draw: ImageDraw.ImageDraw, box: Box, words: str, lit: bool) -> None:
    """A row's or a column's label, inverted where the cursor is."""
    ink = WHITE
    if lit:
        draw.rectangle(box, fill=WHITE)
        ink = BLACK
    text(draw, ((box[0] + box[2] + 1) // 2, box[3]), words, 9, ink, anchor="ms")


def players_page(draw: ImageDraw.ImageDraw, summary: LemmingsSummary, box: Box) -> None:
    """Per player: the cards in hand and the lemmings home, the player to act inverted."""
    x0, y0, x1, _ = box
    lemmings = summary["lemmings"]
    for row, name in enumerate(summary["players"]):
        top = y0 + row * PLAYER_ROW
        baseline = top + PLAYER_ROW - 2
        ink = WHITE
        if name == summary["next"]:
            draw.rectangle((x0, top, x1, top + PLAYER_ROW - 1), fill=WHITE)
            ink = BLACK
        text(draw, (x0 + 2, baseline), name, 10, ink, PLAYER_NAME)
        text(draw, (HAND_RIGHT, baseline), f"hand {summary['hands'][name]}", 10, ink, anchor="rs")
        text(draw, (x1 - 1, baseline), f"home {summary['finished'][name]}/{lemmings}", 10, ink,
             anchor="rs")


def tiles_page(draw: ImageDraw.ImageDraw, summary: LemmingsSummary, box: Box) -> None:
    """The tiles left of each terrain and the meadows, then the draw and discard piles."""
    x0, y0, x1, y1 = box
    kinds = (*TERRAINS, MEADOW)
    width = (x1 - x0 + 1) // len(kinds)
    text(draw, (x0 + 1, y0 + 8), "tiles left", 9)
    for i, kind in enumerate(kinds):
        centre = x0 + i * width + width // 2
        text(draw, (centre, y0 + 18), SHORT[kind], 9, anchor="ms")
        text(draw, (centre, y0 + 31), str(summary["tiles"][kind]), 12, anchor="ms")
    text(draw, (x0 + 1, y1 - 1), f"draw {summary['draw']}", 12)
    text(draw, (x1 - 1, y1 - 1), f"discards {summary['discards']}", 12, anchor="rs")


VIEWS: tuple[View[LemmingsSummary], ...] = (("Piles", piles_page), ("Cards", cards_page),
                                             ("Players", players_page), ("Tiles", tiles_page))


def summary_lines(summary: LemmingsSummary) -> list[str]:
    """The summary page, a short fact a line: lemmings home and cards in hand by player,
    each pile's top card, the draw pile."""
    lemmings = summary["lemmings"]
    lines = [f"{name}: home {summary['finished'][name]}/{lemmings}" for name in summary["players"]]
    lines.append("Cards: " + ", ".join(f"{name} {summary['hands'][name]}" for name in summary["players"]))
    tops = [f"{kind} {pile[-1]}" for kind, pile in summary["piles"].items() if pile]
    lines.append("Piles: " + (", ".join(tops) if tops else "none yet"))
    lines.append(f"Draw {summary['draw']}, discards {summary['discards']}")
    return lines


#: What this game draws its own way (the rest is generic).
SCREENS: Screens[LemmingsSummary] = Screens(panel=panel, paint=card_table, cell_width=CARD_WIDTH,
                                            summary_lines=summary_lines, views=VIEWS)
