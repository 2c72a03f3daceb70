"""Lilliputian Leaf-Climbers results in words: what one confirmed entry did, read from the
change of state, most important first (the game kit's ``events``; :func:`companion.games.results`
says the end of the game before them).

>>> from companion.games.leaf_climbers import LeafClimbers
>>> game = LeafClimbers()
>>> s = game.start(("Ann", "Bob"), {})
>>> lines = [Line("table", "drop", ("2",)), Line("table", "leaf", ("1", "1")), Line("table", "leaf", ("6", "6"))]
>>> after = s
>>> for line in lines:
...     after = game.apply(after, line)
>>> events(s, after, lines)
('d20 2', 'leaves on c1 r1, c6 r6', 'Ann, Bob under a leaf')
"""

from __future__ import annotations

from collections.abc import Sequence

from companion.games.base import Line
from companion.games.leaf_climbers import Square, State, square_name

SHOWN_LEAVES = 3  # beyond this many, leaves are counted rather than named


def events(before: State, after: State, lines: Sequence[Line]) -> tuple[str, ...]:
    """The entry's results: crushes and landings first, then what the line did."""
    said = crushes(before, after)
    line = lines[0]
    names = before.players
    if line.verb in ("drop", "leaf"):
        said += dropping(before, after, lines)
    elif line.verb == "roll":
        # The points the roll gives are the next question's ("Ann: move up to 3").
        said.append(f"{line.actor} rolled {line.args[0]}")
    else:
        seat = names.index(line.actor)
        was, now = before.positions[seat], after.positions[seat]
        target = now if now is not None else was
        assert target is not None
        if line.verb == "stay" or target == was:
            said.append(f"{line.actor} stays on {square_name(target)}")
        else:
            said.append(f"{line.actor} to {square_name(target)}")
    if before.round == after.round and before.phase != "drop" and after.phase in ("drop", "over"):
        said.append(landed(before, after))
    return tuple(said)


def crushes(before: State, after: State) -> list[str]:
    """``Cat crushed at c4 r6`` for each meeple the landing leaves crushed."""
    out = []
    for seat in after.out[len(before.out):]:
        at = before.positions[seat]
        assert at is not None
        out.append(f"{after.players[seat]} crushed at {square_name(at)}")
    return out


def landed(before: State, after: State) -> str:
    """The leaves of the round land: how many squares rose."""
    rose = sum(1 for x, y in zip(before.elevation, after.elevation) if y > x)
    return f"leaves land: {rose} square{'s rise' if rose != 1 else ' rises'}" if rose else "no leaves land"


def dropping(before: State, after: State, lines: Sequence[Line]) -> list[str]:
    """The d20 and the leaves it let fall (in this entry), and whom they threaten."""
    said = []
    if lines[0].verb == "drop":
        drop = lines[0].args[0]
        falling = len(lines) - 1 + after.falling
        said.append(f"d20 {drop}: {falling} lea{'f' if falling == 1 else 'ves'}"
                    if falling != int(drop) else f"d20 {drop}")
    leaves = [(int(line.args[0]), int(line.args[1])) for line in lines if line.verb == "leaf"]
    in_air = after.leaves if after.phase != "drop" else before.leaves + tuple(leaves)
    if leaves:
        said.append(leaf_words(leaves))
    under = threatened(before, in_air)
    if under:
        said.append(f"{under} under a leaf")
    return said


def threatened(state: State, leaves: Sequence[Square]) -> str:
    """The players standing under a leaf in the air, in seat order."""
    hit = set(leaves)
    return ", ".join(state.players[seat] for seat in state.living() if state.positions[seat] in hit)


def leaf_words(leaves: Sequence[Square]) -> str:
    """``leaves on c1 r1, c6 r6``; many leaves are counted. (How many are still to fall
    the next question says, "Leaf 3 of 5: where?", and the panel.)"""
    if len(leaves) <= SHOWN_LEAVES:
        return f"lea{'f' if len(leaves) == 1 else 'ves'} on {', '.join(square_name(s) for s in leaves)}"
    return f"{len(leaves)} leaves fall"
