"""Each game's screens: its key-figure panel and, where it has a board, its board painter.

A game without an entry here gets the generic panel and the plain board grid.
"""

from __future__ import annotations

from companion.ui.board import Painter, plain_board
from companion.ui.figures import Panel, generic
from companion.ui.games import microbot_racers

PANELS: dict[str, Panel] = {"microbot-racers": microbot_racers.panel}
PAINTERS: dict[str, Painter] = {}


def panel(game_id: str) -> Panel:
    """The key-figure panel for a game."""
    return PANELS.get(game_id, generic)


def painter(game_id: str) -> Painter:
    """The board painter for a game."""
    return PAINTERS.get(game_id, plain_board)
