"""How each game is drawn: the :class:`Screens` its screens module declares, and the lookup
the play screen and the menus use.

A game's kit (:mod:`companion.games`) names its ``Screens`` object; the module is imported
the first time the game is shown, so the daemon's start path loads none of them. What a
game does not declare is drawn the generic way: the generic panel, the plain board grid,
square squares, rolls written out in words, each summary key in words, no pages of
figures, the engine's full title.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, cast

from companion.games import KITS, import_part, title
from companion.games.base import Line, Prompt, Summary
from companion.ui.board import Painter, plain_board
from companion.ui.figures import Panel, SummaryT, View, corner, generic, generic_summary
from companion.ui.reveal import RollPicture


@dataclass(frozen=True)
class Screens(Generic[SummaryT]):
    """One game's screens: each one its own, or the generic default.

    ``panel`` draws the key figures always on the play screen; ``corner`` says the round
    or turn in the top bar's corner (the one the question belongs to); ``doubt`` is the
    box's own check of a line entered on its screens, given the game's lines so far (the
    reason to refuse it, "" to go on: what the record alone cannot refuse, such as more
    penguins in a circle than it has igloos); ``ask`` may reword the question the rules ask
    from what the lines tell (and put first the answer it asks about); ``paint`` the board where
    squares are picked, ``cell_width`` its squares' width in pixels (0: square);
    ``roll_picture`` shows a roll of many dice at once (None: the roll in words);
    ``summary_lines`` are the game menu's summary page, a fact a line; ``views`` the pages
    of figures a player flips to (scores, tracks); ``short_title`` the title where the
    engine's full one does not fit a line of 12 px type ("": the full one).

    Every one of them reads the game's own summary type: ``Screens[LeafSummary]`` is
    Leaf-Climbers', and mypy checks that its panel, painter, roll picture, summary page and
    views all take the ``LeafSummary`` the engine's details make.
    """

    panel: Panel[SummaryT] = generic
    corner: Callable[[SummaryT], str] = corner
    doubt: Callable[[Sequence[Line], Line], str] = lambda lines, line: ""
    ask: Callable[[Sequence[Line], Prompt], Prompt] = lambda lines, prompt: prompt
    paint: Painter[SummaryT] = plain_board
    cell_width: int = 0
    roll_picture: RollPicture[SummaryT] | None = None
    summary_lines: Callable[[SummaryT], list[str]] = generic_summary
    views: tuple[View[SummaryT], ...] = ()
    short_title: str = ""


GENERIC: Screens[Summary] = Screens()


def screens_of(game_id: str) -> Screens[Summary]:
    """The screens a game declares (imported on first use), or the generic ones.

    The one place where the game's id picks its screens, so the one place where a game's
    own summary type meets the session's plain :class:`Summary`. A game's screens read
    its own summary (``Screens[LeafSummary]``), which its callers cannot name: they hand
    them ``Session.summary()``, typed ``Summary``. The cast says what the id guarantees:
    the screens are the game's, and so is the summary, since the session's game has the
    same id and its details are the game's own TypedDict (``Game.details``).
    """
    kit = KITS.get(game_id)
    if kit is None or not kit.screens:
        return GENERIC
    found = import_part(kit.screens)
    if not isinstance(found, Screens):
        raise TypeError(f"{kit.screens} is not a Screens declaration")
    return cast("Screens[Summary]", found)


def screen_title(game_id: str) -> str:
    """A game's title on the screen: deliberately shortened where it would be cut."""
    return screens_of(game_id).short_title or title(game_id)
