"""The registry of games, by record game ID: one :class:`Kit` per game, one line each.

A kit names where a game's parts live, as ``"module:name"`` strings, and each part is
imported the first time it is needed: the rules engine here, the screens by
:func:`companion.ui.games.screens_of`, the advisor by :func:`companion.ai.advisor`. So
`companion replay` and the daemon's start path load only the engine of the game in hand,
and nothing outside the screens ever loads a picture. The title is the engine's own.

>>> GAMES["microbot-racers"].max_players
2
>>> title("leaf-climbers")
'Lilliputian Leaf-Climbers'
>>> KITS["gleebs-and-grues"].advisor
'companion.ai.gleebs:advise'
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from functools import cache, cached_property
from importlib import import_module
from typing import Any

from companion.games.base import Game, valueclass

#: A record game ID: lower-case words joined by hyphens (records.md ``game ID``).
GAME_ID = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")
#: Where a part lives: ``package.module:name``.
WHERE = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_]\w*")


@cache
def load(where: str) -> Any:
    """Resolve ``"module:name"`` once: the import on first use, a dictionary lookup after.
    (``pkgutil.resolve_name`` does the same, but loading pkgutil costs a replay 1.5 ms.)

    >>> load("companion.games.base:TABLE")
    'table'
    """
    module, _, name = where.partition(":")
    return getattr(import_module(module), name)


@valueclass
class Kit:
    """One game: its record ID and where its parts live.

    ``engine`` is the rules class (a :class:`~companion.games.base.Game`); ``screens`` the
    :class:`companion.ui.games.Screens` the box draws it with, "" for the generic ones;
    ``advisor`` the function that suggests a move (:mod:`companion.ai`), "" for none;
    ``bgg`` the game's BoardGameGeek id, which BG Stats matches plays by (0: none known,
    and BG Stats matches by name).
    """

    id: str
    engine: str
    screens: str = ""
    advisor: str = ""
    bgg: int = 0

    def __post_init__(self) -> None:
        if not GAME_ID.fullmatch(self.id):
            raise ValueError(f"{self.id!r} is not a game ID: lower-case words joined by '-'")
        for part in ("engine", "screens", "advisor"):
            where = getattr(self, part)
            if (where or part == "engine") and not WHERE.fullmatch(where):
                raise ValueError(f"{part} {where!r} must be written 'package.module:name'")
        if self.bgg < 0:
            raise ValueError(f"a BoardGameGeek id is a positive number (0: none), not {self.bgg}")

    @cached_property
    def game(self) -> Game[Any]:
        """The rules engine, imported on first use."""
        engine = load(self.engine)()
        if not isinstance(engine, Game) or engine.id != self.id:
            raise TypeError(f"{self.engine} is not the rules of {self.id!r}")
        return engine


#: Every game the box knows, in the order the menus list them.
KITS: dict[str, Kit] = {}


def register(kit: Kit) -> Kit:
    """Add a game: its engine, screens and advisor become known under its ID.

    >>> register(KITS["quick-lemmings"])
    Traceback (most recent call last):
    ...
    ValueError: 'quick-lemmings' is registered already
    """
    if kit.id in KITS:
        raise ValueError(f"{kit.id!r} is registered already")
    KITS[kit.id] = kit
    return kit


# The games: one line each, and nothing else to touch but the game's own modules.
register(Kit("microbot-racers", "companion.games.microbot_racers:MicrobotRacers",
             screens="companion.ui.games.microbot_racers:SCREENS"))
register(Kit("leaf-climbers", "companion.games.leaf_climbers:LeafClimbers",
             screens="companion.ui.games.leaf_climbers:SCREENS"))
register(Kit("penguin-panic", "companion.games.penguin_panic:PenguinPanic",
             screens="companion.ui.games.penguin_panic:SCREENS"))
register(Kit("gleebs-and-grues", "companion.games.gleebs_and_grues:GleebsAndGrues",
             screens="companion.ui.games.gleebs_and_grues:SCREENS", advisor="companion.ai.gleebs:advise"))
register(Kit("quick-lemmings", "companion.games.quick_lemmings:QuickLemmings",
             screens="companion.ui.games.quick_lemmings:SCREENS", bgg=153004))  # Amigo's Lemminge


class Registry(Mapping[str, Game[Any]]):
    """Game ID -> rules engine, over :data:`KITS`, each imported on first use."""

    def __getitem__(self, game_id: str) -> Game[Any]:
        return KITS[game_id].game

    def __contains__(self, game_id: object) -> bool:
        return game_id in KITS

    def __iter__(self) -> Iterator[str]:
        return iter(KITS)

    def __len__(self) -> int:
        return len(KITS)


GAMES = Registry()


def game_by_id(game_id: str) -> Game[Any] | None:
    """The game with this record ID, or ``None``."""
    kit = KITS.get(game_id)
    return kit.game if kit else None


def title(game_id: str) -> str:
    """A game's title, from its engine; the ID itself for a game not known here (a stored
    game of a kit since removed)."""
    kit = KITS.get(game_id)
    return kit.game.title if kit else game_id
