"""How each game is drawn: the :class:`Screens` its screens module declares, and the lookup
the play screen and the menus use.

A game's kit (:mod:`companion.games`) names its ``Screens`` object; the module is imported
the first time the game is shown, so the daemon's start path loads none of them. What a
game does not declare is drawn the generic way: the generic panel, the plain board grid,
square squares, rolls written out in words, each summary key in words, no pages of
figures, the engine's full title.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from companion.games import KITS, load, title
from companion.ui.board import Painter, plain_board
from companion.ui.figures import Panel, View, generic, generic_summary
from companion.ui.reveal import RollPicture


@dataclass(frozen=True)
class Screens:
    """One game's screens: each one its own, or the generic default.

    ``panel`` draws the key figures always on the play screen; ``paint`` the board where
    squares are picked, ``cell_width`` its squares' width in pixels (0: square);
    ``roll_picture`` shows a roll of many dice at once (None: the roll in words);
    ``summary_lines`` are the game menu's summary page, a fact a line; ``views`` the pages
    of figures a player flips to (scores, tracks); ``short_title`` the title where the
    engine's full one does not fit a line of 12 px type ("": the full one).
    """

    panel: Panel = generic
    paint: Painter = plain_board
    cell_width: int = 0
    roll_picture: RollPicture | None = None
    #: Takes the game's own summary type (a TypedDict): the session hands each game its own.
    summary_lines: Callable[[Any], list[str]] = generic_summary
    views: tuple[View, ...] = ()
    short_title: str = ""


GENERIC = Screens()


def screens_of(game_id: str) -> Screens:
    """The screens a game declares (imported on first use), or the generic ones."""
    kit = KITS.get(game_id)
    if kit is None or not kit.screens:
        return GENERIC
    found = load(kit.screens)
    if not isinstance(found, Screens):
        raise TypeError(f"{kit.screens} is not a Screens declaration")
    return found


def screen_title(game_id: str) -> str:
    """A game's title on the screen: deliberately shortened where it would be cut."""
    return screens_of(game_id).short_title or title(game_id)
