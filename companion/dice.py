"""Device dice: fair faces from the operating system's generator, logged as record lines.

The rules engines never roll; this module does, and only the faces reach the record.
A device roll answers a :class:`~companion.games.base.Roll` prompt and goes on rolling while
the game asks the same actor for more dice (the twenty leaves of a round, a tie for first
player, all sixes): that is one confirmation, so one undo step.
"""

from __future__ import annotations

import random
from typing import Any

from companion.exc import RollRefused
from companion.games.base import Game, IllegalLine, Line, Prompt, Roll, S

FAIR = random.SystemRandom()
MAX_ROLLS = 500  # a chained roll that never settles is a bug, not a reason to hang


def roll_faces(ask: Roll, rng: random.Random = FAIR) -> tuple[int, ...]:
    """One face for each die of the prompt.

    >>> roll_faces(Roll("table", "roll", (6, 6), ("Ann", "Bob")), random.Random(1))
    (2, 5)
    """
    return tuple(rng.randint(1, sides) for sides in ask.sides)


def device_roll(game: Game[S, Any], state: S, ask: Roll, rng: random.Random = FAIR) -> list[Line]:
    """Roll for ``ask`` and for every chained roll after it; the lines, in order.

    Faces the rules refuse raise their :class:`IllegalLine`, unless the prompt rolls again
    then; :class:`RollRefused` when no faces fit after many tries (no rule was broken).
    """
    return rolled(game, state, ask, rng)[0]


def rolled(game: Game[S, Any], state: S, ask: Roll, rng: random.Random = FAIR) -> tuple[list[Line], S]:
    """The lines of :func:`device_roll`, and the state they lead to."""
    lines: list[Line] = []
    current: Roll | None = ask
    while current is not None:
        line, state = _one_roll(game, state, current, rng)
        lines.append(line)
        if len(lines) >= MAX_ROLLS:
            raise RollRefused("the dice never settled")
        current = chained(game, state, ask.actor)
    return lines, state


def chained(game: Game[S, Any], state: S, actor: str) -> Roll | None:
    """The next roll to make in the same press: the same actor asked only for dice."""
    return chained_roll(game.prompt(state), actor)


def chained_roll(ask: Prompt | None, actor: str) -> Roll | None:
    """:func:`chained` for a state whose prompt is ``ask``."""
    if ask is None or len(ask.answers) != 1:
        return None
    (only,) = ask.answers
    return only if isinstance(only, Roll) and only.actor == actor else None


def _one_roll(game: Game[S, Any], state: S, ask: Roll, rng: random.Random) -> tuple[Line, S]:
    for _ in range(MAX_ROLLS):
        line = ask.line(roll_faces(ask, rng))
        try:
            return line, game.apply(state, line)
        except IllegalLine:
            if not ask.reroll_refused:
                raise
    raise RollRefused("no faces fit: the rules refused every roll")


def rolled_faces(ask: Roll, line: Line) -> str:
    """``Ann 5, Bob 1``: each face beside its die's label, as the table would say it."""
    faces = line.args[len(ask.prefix):]
    if len(faces) != len(ask.labels):
        return " ".join(faces)
    return ", ".join(f"{label} {face}" for label, face in zip(ask.labels, faces))
