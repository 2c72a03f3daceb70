"""Each game's screens: its key-figure panel and, where it has a board, its board painter
(with the width of its squares, if wider than tall) and its picture of a roll of many dice;
and pages of figures to flip to where one panel is not enough.

A game without an entry here gets the generic panel, the plain board grid, square squares
and rolls written out in words.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

from companion.games import ENGINES, TITLES
from companion.ui.board import Painter, plain_board
from companion.ui.figures import Panel, View, generic, generic_summary
from companion.ui.reveal import RollPicture

#: Games with screens of their own: each screen module imports its engine (for its
#: constants and summary type), so it is imported the first time its game is shown and the
#: daemon's start path loads none of them.
OWN_SCREENS = ("microbot-racers", "leaf-climbers", "penguin-panic", "quick-lemmings",
               "gleebs-and-grues")


def screens(game_id: str) -> ModuleType | None:
    """A game's screen module (``panel``, and where it has them ``paint``, ``CELL_WIDTH``,
    ``roll_picture``, ``summary_lines`` and ``VIEWS``), or ``None``."""
    if game_id not in OWN_SCREENS:
        return None
    return importlib.import_module(f"companion.ui.games.{ENGINES[game_id][0]}")


def panel(game_id: str) -> Panel:
    """The key-figure panel for a game."""
    own: Panel = getattr(screens(game_id), "panel", generic)
    return own


def painter(game_id: str) -> Painter:
    """The board painter for a game."""
    own: Painter = getattr(screens(game_id), "paint", plain_board)
    return own


def cell_width(game_id: str) -> int:
    """How wide a game's board squares are drawn; 0 for square."""
    return int(getattr(screens(game_id), "CELL_WIDTH", 0))


def roll_picture(game_id: str) -> RollPicture | None:
    """A game's own picture of a roll of many dice, if it has one."""
    own: RollPicture | None = getattr(screens(game_id), "roll_picture", None)
    return own


def views(game_id: str) -> tuple[View, ...]:
    """A game's pages of figures (scores, tracks), in the order they flip; may be none."""
    own: tuple[View, ...] = getattr(screens(game_id), "VIEWS", ())
    return own


def summary_lines(game_id: str, summary: dict[str, Any]) -> list[str]:
    """The game menu's summary page, a line a fact, in words (never Python's notation)."""
    own = getattr(screens(game_id), "summary_lines", None)
    return list(own(summary)) if own else generic_summary(summary)


#: Titles as the screens write them, where the full one does not fit a line of 12 px type.
SHORT_TITLES = {"leaf-climbers": "Leaf-Climbers"}


def screen_title(game_id: str) -> str:
    """A game's title on the screen: deliberately shortened where it would be cut."""
    return SHORT_TITLES.get(game_id, TITLES.get(game_id, game_id))
