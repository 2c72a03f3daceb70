"""Gleeb's and Grues results in words: what one confirmed entry did, read from the change of
state, most important first (the game kit's ``events``; :func:`companion.games.results`
says the end of the game before them).

>>> from companion.games.gleebs_and_grues import GleebsAndGrues
>>> game = GleebsAndGrues()
>>> s = game.start(("Ann", "Bob"), game.option_values({}))
>>> line = Line("table", "grues", ("b2", "c3", "d4"))
>>> events(s, game.apply(s, line), [line])
('K1 b2, K2 c3, K3 d4',)
"""

from __future__ import annotations

from collections.abc import Sequence

from companion.games.base import TABLE, Line
from companion.games.gleebs_and_grues import (
    GRUE_STEP,
    GRUES,
    MOVE,
    OVER,
    PLACE,
    State,
    can_move_gleeb,
    pip_score,
    square,
)


def events(before: State, after: State, lines: Sequence[Line]) -> tuple[str, ...]:
    """The entry's results: how the game ended, then what the line did, then skipped steps."""
    line = lines[-1]
    said = ending(before, after)
    if line.actor == TABLE:
        return (*said, ", ".join(f"{g} {at}" for g, at in zip(GRUES, line.args)))
    if line.verb == "place":
        said.append(f"{line.actor}: {line.args[0]} on {line.args[1]}")
    elif line.verb == "move":
        below = before.board[square(line.args[1])][-1]
        top = before.board[square(line.args[0])][-1]
        said.append(f"{line.actor}: {top} onto {below} at {line.args[1]}")
    else:
        said.append(grue_step_words(before, line))
    said += skipped(before, after, line)
    return tuple(said)


def grue_step_words(before: State, line: Line) -> str:
    """``K2 eats Y2 at b3``, ``K1 pins a2``, ``K3 to d1``."""
    grue = before.board[square(line.args[0])][0]
    target = before.board[square(line.args[1])]
    if len(target) == 1:
        return f"{grue} eats {target[0]} at {line.args[1]}"
    if target:
        return f"{grue} pins {len(target)} at {line.args[1]}"
    return f"{grue} to {line.args[1]}"


def ending(before: State, after: State) -> list[str]:
    """Why the game this entry ended went the way it did (who won comes before it:
    :func:`companion.games.results`): the scores, or who has no stack left."""
    if before.step == OVER or after.step != OVER:
        return []
    if not can_move_gleeb(after.board, 0) and not can_move_gleeb(after.board, 1):
        return [", ".join(f"{name} {pip_score(after.board, seat)}" for seat, name in enumerate(after.players))]
    assert after.winner is not None  # not scored: a player has no stack left
    return [f"{after.players[1 - after.winner]} has no stack"]


def skipped(before: State, after: State, line: Line) -> list[str]:
    """Steps that had no legal move (they write no line), and the start of the moves."""
    if after.step == OVER:
        return []
    seat = before.players.index(line.actor)
    if before.step == PLACE:
        if after.step == PLACE:
            return []
        natural = (MOVE, after.first)
        said = ["all placed: moves begin"]
    else:
        natural = (GRUE_STEP, seat) if before.step == MOVE else (MOVE, 1 - seat)
        said = []
    if (after.step, after.mover) != natural:
        said.append(f"no move: skip to {after.players[after.mover]}'s {after.step}")
    return said
