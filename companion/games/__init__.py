"""The registry of rules engines, by record game ID.

Each game lives in its own module and imports nothing of the companion but
:mod:`companion.games.base`. Modules are imported the first time their game is needed, so
the daemon's start path loads only the game being played.

>>> TITLES["microbot-racers"]
'Microbot Racers'
>>> GAMES["microbot-racers"].max_players
2
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from typing import Any

from companion.games.base import Game

#: id -> (module, class, title), in the order the menus list them.
ENGINES: dict[str, tuple[str, str, str]] = {
    "microbot-racers": ("microbot_racers", "MicrobotRacers", "Microbot Racers"),
    "leaf-climbers": ("leaf_climbers", "LeafClimbers", "Lilliputian Leaf-Climbers"),
    "penguin-panic": ("penguin_panic", "PenguinPanic", "Penguin Panic"),
    "gleebs-and-grues": ("gleebs_and_grues", "GleebsAndGrues", "Gleeb's and Grues"),
    "quick-lemmings": ("quick_lemmings", "QuickLemmings", "Quick Lemmings"),
}
TITLES: dict[str, str] = {game_id: title for game_id, (_, _, title) in ENGINES.items()}


class Registry(Mapping[str, Game[Any]]):
    """Game ID -> rules engine, importing each engine's module on first use."""

    def __init__(self) -> None:
        self._loaded: dict[str, Game[Any]] = {}

    def __getitem__(self, game_id: str) -> Game[Any]:
        if game_id not in self._loaded:
            module, name, _ = ENGINES[game_id]
            engine = getattr(importlib.import_module(f"companion.games.{module}"), name)()
            self._loaded[game_id] = engine
        return self._loaded[game_id]

    def __contains__(self, game_id: object) -> bool:
        return game_id in ENGINES

    def __iter__(self) -> Iterator[str]:
        return iter(ENGINES)

    def __len__(self) -> int:
        return len(ENGINES)


GAMES = Registry()


def game_by_id(game_id: str) -> Game[Any] | None:
    """The game with this record ID, or ``None``."""
    return GAMES[game_id] if game_id in ENGINES else None
