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
from typing import Any, Generic, TypeVar

from companion.games import KITS, import_part, title
from companion.games.base import Game, Line, Prompt, Summary, SummaryT
from companion.store import GameRow
from companion.ui.board import Painter, plain_board
from companion.ui.figures import Panel, View, corner, generic, generic_summary
from companion.ui.reveal import RollPicture

#: The summary a game's screens read. Screens that read less read more too: the generic
#: ones, which read only the :class:`Summary` keys, serve every game (contravariance).
ReadT = TypeVar("ReadT", bound=Summary, contravariant=True)


@dataclass(frozen=True)
class Screens(Generic[ReadT]):
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

    panel: Panel[ReadT] = generic
    corner: Callable[[ReadT], str] = corner
    doubt: Callable[[Sequence[Line], Line], str] = lambda lines, line: ""
    ask: Callable[[Sequence[Line], Prompt], Prompt] = lambda lines, prompt: prompt
    paint: Painter[ReadT] = plain_board
    cell_width: int = 0
    roll_picture: RollPicture[ReadT] | None = None
    summary_lines: Callable[[ReadT], list[str]] = generic_summary
    views: tuple[View[ReadT], ...] = ()
    short_title: str = ""


GENERIC: Screens[Summary] = Screens()


def screens_of(game: Game[Any, SummaryT]) -> Screens[SummaryT]:
    """The screens a game's kit declares (imported on first use), or the generic ones.

    Typed by the game: ``screens_of(LeafClimbers())`` reads a ``LeafSummary``, which is
    what a ``Session`` of that game's ``summary()`` gives. The kit's ``"module:name"`` is
    checked when it is imported (a ``Screens``); that it is the game's own is the kit's
    word, as the registry line pairs them.
    """
    kit = KITS.get(game.id)
    if kit is None or not kit.screens:
        return GENERIC
    found = import_part(kit.screens)
    if not isinstance(found, Screens):
        raise TypeError(f"{kit.screens} is not a Screens declaration")
    return found


def title_of(row: GameRow) -> str:
    """A stored game's title, as the screen writes it."""
    return screen_title(row.game)


def screen_title(game_id: str) -> str:
    """A game's title on the screen: deliberately shortened where it would be cut (the id
    of a stored game whose kit is gone)."""
    kit = KITS.get(game_id)
    return (screens_of(kit.game).short_title or kit.game.title) if kit is not None else title(game_id)
