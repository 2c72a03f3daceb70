"""Each game's screens: its key-figure panel and, where it has a board, its board painter
(with the width of its squares, if wider than tall) and its picture of a roll of many dice;
and pages of figures to flip to where one panel is not enough.

A game without an entry here gets the generic panel, the plain board grid, square squares
and rolls written out in words.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from companion.games import TITLES
from companion.ui.board import Painter, plain_board
from companion.ui.figures import Panel, View, generic, generic_summary
from companion.ui.games import gleebs_and_grues, leaf_climbers, microbot_racers, penguin_panic, quick_lemmings
from companion.ui.reveal import RollPicture

PANELS: dict[str, Panel] = {"microbot-racers": microbot_racers.panel,
                             "leaf-climbers": leaf_climbers.panel,
                             "penguin-panic": penguin_panic.panel,
                             "quick-lemmings": quick_lemmings.panel,
                             "gleebs-and-grues": gleebs_and_grues.panel}
PAINTERS: dict[str, Painter] = {"leaf-climbers": leaf_climbers.paint,
                                "gleebs-and-grues": gleebs_and_grues.paint}
CELL_WIDTHS: dict[str, int] = {"leaf-climbers": leaf_climbers.CELL_WIDTH}
ROLL_PICTURES: dict[str, RollPicture] = {"leaf-climbers": leaf_climbers.roll_picture}
SUMMARIES: dict[str, Callable[[dict[str, Any]], list[str]]] = {
    "microbot-racers": microbot_racers.summary_lines, "leaf-climbers": leaf_climbers.summary_lines,
    "penguin-panic": penguin_panic.summary_lines, "quick-lemmings": quick_lemmings.summary_lines,
    "gleebs-and-grues": gleebs_and_grues.summary_lines}
VIEWS: dict[str, tuple[View, ...]] = {"penguin-panic": penguin_panic.VIEWS,
                                      "quick-lemmings": quick_lemmings.VIEWS}


def panel(game_id: str) -> Panel:
    """The key-figure panel for a game."""
    return PANELS.get(game_id, generic)


def painter(game_id: str) -> Painter:
    """The board painter for a game."""
    return PAINTERS.get(game_id, plain_board)


def cell_width(game_id: str) -> int:
    """How wide a game's board squares are drawn; 0 for square."""
    return CELL_WIDTHS.get(game_id, 0)


def roll_picture(game_id: str) -> RollPicture | None:
    """A game's own picture of a roll of many dice, if it has one."""
    return ROLL_PICTURES.get(game_id)


def views(game_id: str) -> tuple[View, ...]:
    """A game's pages of figures (scores, tracks), in the order they flip; may be none."""
    return VIEWS.get(game_id, ())


def summary_lines(game_id: str, summary: dict[str, Any]) -> list[str]:
    """The game menu's summary page, a line a fact, in words (never Python's notation)."""
    own = SUMMARIES.get(game_id)
    return own(summary) if own else generic_summary(summary)


#: Titles as the screens write them, where the full one does not fit a line of 12 px type.
SHORT_TITLES = {"leaf-climbers": "Leaf-Climbers"}


def screen_title(game_id: str) -> str:
    """A game's title on the screen: deliberately shortened where it would be cut."""
    return SHORT_TITLES.get(game_id, TITLES.get(game_id, game_id))
