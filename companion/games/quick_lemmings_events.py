"""Quick Lemmings results in words: what one confirmed entry did, read from the change of
state, most important first (the game kit's ``events``; :func:`companion.games.results`
says the end of the game before them).

>>> from companion.games.quick_lemmings import QuickLemmings
>>> game = QuickLemmings()
>>> s = game.start(("Ann", "Bob", "Cat"), game.option_values({}))
>>> line = Line("Ann", "play", ("swamp", "3"))
>>> events(s, game.apply(s, line), [line])
('Ann swamp 3: 3 points, new pile', 'lay a swamp tile')
"""

from __future__ import annotations

from collections.abc import Sequence

from companion.games.base import Line, counted
from companion.games.quick_lemmings import TERRAINS, State, joins


def events(before: State, after: State, lines: Sequence[Line]) -> tuple[str, ...]:
    """The entry's result: what the line did."""
    line = lines[-1]
    name = line.actor
    seat = before.players.index(name)
    if line.verb == "finish":
        return (f"{name}'s lemming home: {after.finished[seat]}/{after.lemmings}",)
    if line.verb == "refill":
        said = [f"{name} refills: {counted(after.hands[seat], 'card')}"]
        if after.discards < before.discards + int(line.args[0]):
            said.append("discards shuffled into the draw pile")
        return tuple(said)
    terrain, value = line.args
    new_pile = not joins(before.piles[TERRAINS.index(terrain)], int(value))
    said = [f"{name} {terrain} {value}: {counted(after.points, 'point')}" + (", new pile" if new_pile else "")]
    if after.tile is not None:
        said.append(f"lay a {after.tile} tile")
    elif new_pile:
        said.append("no tile left to lay")
    return tuple(said)
