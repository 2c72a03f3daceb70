"""The registry of games, by record game ID: one :class:`Kit` per game, one line each.

A kit names where a game's parts live, as ``"module:name"`` strings, and each part is
imported the first time it is needed: the rules engine and the words for what an entry did
here (:func:`results`), the screens by :func:`companion.ui.games.screens_of`, the advisor
by :func:`companion.ai.advisor`. So `companion replay` and the daemon's start path load
only the engine of the game in hand, and nothing outside the screens ever loads a picture.
The title is the engine's own.

The arrows go one way: a part imports the engine it is about (the words read its states),
the engine imports none of its parts, and only this registry names them all.

>>> GAMES["microbot-racers"].max_players
2
>>> title("leaf-climbers")
'Lilliputian Leaf-Climbers'
>>> KITS["gleebs-and-grues"].advisor
'companion.ai.gleebs:advise'
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from functools import cache, cached_property
from importlib import import_module
from typing import Any, TypeVar

from companion.games.base import Game, Line, valueclass

S = TypeVar("S")

#: A record game ID: lower-case words joined by hyphens (records.md ``game ID``).
GAME_ID = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")
#: Where a part lives: ``package.module:name``.
WHERE = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_]\w*")


@cache
def import_part(where: str) -> Any:
    """Resolve ``"module:name"`` once: the import on first use, a dictionary lookup after.
    (``pkgutil.resolve_name`` does the same, but loading ``pkgutil`` costs replay: a start-up
    trick, docs/startup.md.)

    >>> import_part("companion.games.base:TABLE")
    'table'
    """
    module, _, name = where.partition(":")
    return getattr(import_module(module), name)


#: A game's words for what one entry (``lines``, taking ``before`` to ``after``) did: a
#: few words each for the table, most important first ("Cat crushed at c4 r6" before "Ann
#: to c2 r1"). Pure, like the rules. The end of the game is not theirs to say: see
#: :func:`results`.
Events = Callable[[Any, Any, Sequence[Line]], tuple[str, ...]]


@valueclass
class Kit:
    """One game: its record ID and where its parts live.

    ``engine`` is the rules class (a :class:`~companion.games.base.Game`); ``events`` the
    function that says what an entry did (:data:`Events`), "" to show the lines themselves;
    ``screens`` the :class:`companion.ui.games.Screens` the box draws it with, "" for the
    generic ones; ``advisor`` the function that suggests a move (:mod:`companion.ai`), ""
    for none; ``bgg`` the game's BoardGameGeek id, which BG Stats matches plays by (0: none
    known, and BG Stats matches by name).
    """

    id: str
    engine: str
    events: str = ""
    screens: str = ""
    advisor: str = ""
    bgg: int = 0

    def __post_init__(self) -> None:
        if not GAME_ID.fullmatch(self.id):
            raise ValueError(f"{self.id!r} is not a game ID: lower-case words joined by '-'")
        for part in ("engine", "events", "screens", "advisor"):
            where = getattr(self, part)
            if (where or part == "engine") and not WHERE.fullmatch(where):
                raise ValueError(f"{part} {where!r} must be written 'package.module:name'")
        if self.bgg < 0:
            raise ValueError(f"a BoardGameGeek id is a positive number (0: none), not {self.bgg}")

    @cached_property
    def game(self) -> Game[Any, Any]:
        """The rules engine, imported on first use."""
        engine = import_part(self.engine)()
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
             events="companion.games.microbot_racers_events:events",
             screens="companion.ui.games.microbot_racers:SCREENS"))
register(Kit("leaf-climbers", "companion.games.leaf_climbers:LeafClimbers",
             events="companion.games.leaf_climbers_events:events",
             screens="companion.ui.games.leaf_climbers:SCREENS"))
register(Kit("penguin-panic", "companion.games.penguin_panic:PenguinPanic",
             events="companion.games.penguin_panic_events:events",
             screens="companion.ui.games.penguin_panic:SCREENS"))
register(Kit("gleebs-and-grues", "companion.games.gleebs_and_grues:GleebsAndGrues",
             events="companion.games.gleebs_and_grues_events:events",
             screens="companion.ui.games.gleebs_and_grues:SCREENS", advisor="companion.ai.gleebs:advise"))
register(Kit("quick-lemmings", "companion.games.quick_lemmings:QuickLemmings",
             events="companion.games.quick_lemmings_events:events",
             screens="companion.ui.games.quick_lemmings:SCREENS", bgg=153004))  # Amigo's Lemminge


class Registry(Mapping[str, Game[Any, Any]]):
    """Game ID -> rules engine, over :data:`KITS`, each imported on first use."""

    def __getitem__(self, game_id: str) -> Game[Any, Any]:
        return KITS[game_id].game

    def __contains__(self, game_id: object) -> bool:
        return game_id in KITS

    def __iter__(self) -> Iterator[str]:
        return iter(KITS)

    def __len__(self) -> int:
        return len(KITS)


GAMES = Registry()


def game_by_id(game_id: str) -> Game[Any, Any] | None:
    """The game with this record ID, or ``None``."""
    kit = KITS.get(game_id)
    return kit.game if kit else None


def title(game_id: str) -> str:
    """A game's title, from its engine; the ID itself for a game not known here (a stored
    game of a kit since removed)."""
    kit = KITS.get(game_id)
    return kit.game.title if kit else game_id


def said_after(shown: str, event: str) -> str:
    """``event`` said after ``shown`` (an entry's earlier results): a new sentence after
    one that ends ("Bob wins!"), else after a semicolon; the first starts with a capital.

    >>> said_after(said_after("", "cat crushed at c4 r6"), "Ann to c2 r1")
    'Cat crushed at c4 r6; Ann to c2 r1'
    >>> said_after("Bob wins!", "cat crushed at c4 r6")
    'Bob wins! Cat crushed at c4 r6'
    """
    if not shown:
        return event[:1].upper() + event[1:]
    if shown.endswith(("!", ".", "?")):
        return f"{shown} {event[:1].upper()}{event[1:]}"
    return f"{shown}; {event}"


def results(game: Game[S, Any], before: S, after: S, lines: Sequence[Line]) -> tuple[str, ...]:
    """What one confirmed entry did, for the table, most important first: the end of the
    game when this entry ended it (:meth:`~companion.games.base.Outcome.headline`, the end
    screen's words), then the game's own words (its kit's ``events``; the lines themselves
    for a game without). The play screen shows them for a moment after the entry is
    logged; the Log shows them beside it.

    >>> game = GAMES["quick-lemmings"]
    >>> s = game.start(("Ann", "Bob"), game.option_values({"lemmings": "1"}))
    >>> line = Line("Ann", "finish")
    >>> results(game, s, game.apply(s, line), [line])
    ('Ann wins!', "Ann's lemming home: 1/1")
    """
    kit = KITS.get(game.id)
    words: Events | None = import_part(kit.events) if kit is not None and kit.events else None
    said = words(before, after, lines) if words is not None else tuple(str(line) for line in lines)
    outcome = game.outcome(after)
    if outcome is None or game.over(before):
        return said
    return (outcome.headline(), *said)
