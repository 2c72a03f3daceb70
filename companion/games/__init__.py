"""The registry of rules engines, by record game ID.

Each game lives in its own module and imports nothing of the companion but
:mod:`companion.games.base`.
"""

from __future__ import annotations

from typing import Any

from companion.games.base import Game
from companion.games.gleebs_and_grues import GleebsAndGrues
from companion.games.leaf_climbers import LeafClimbers
from companion.games.microbot_racers import MicrobotRacers
from companion.games.penguin_panic import PenguinPanic
from companion.games.quick_lemmings import QuickLemmings

GAMES: dict[str, Game[Any]] = {
    game.id: game
    for game in (MicrobotRacers(), LeafClimbers(), PenguinPanic(), GleebsAndGrues(), QuickLemmings())
}


def game_by_id(game_id: str) -> Game[Any] | None:
    """The game with this record ID, or ``None``."""
    return GAMES.get(game_id)
