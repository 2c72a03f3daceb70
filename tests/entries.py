"""Golden games cut into entries as the box logs them (a roll and its chained rolls are one)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from companion.dice import chained
from companion.games.base import Line, Roll
from companion.record import Replayed


@dataclass(frozen=True)
class Entry:
    """One confirmed entry of a golden game: its lines, and the roll it answers (if any)."""

    lines: tuple[Line, ...]
    roll: Roll | None


def entries_of(replayed: Replayed) -> list[Entry]:
    """The golden game cut into entries as the box logs them: a roll and the rolls chained
    after it (all sixes, a round's leaves) are one entry, as one device roll would be."""
    game = replayed.header.game
    state = replayed.header.start()
    out: list[Entry] = []
    lines = list(replayed.actions)
    while lines:
        line = lines.pop(0)
        ask = game.prompt(state)
        roll = next((a for a in (ask.answers if ask else ()) if isinstance(a, Roll)
                     and (a.actor, a.verb) == (line.actor, line.verb)), None)
        state = game.apply(state, line)
        chunk = [line]
        while roll is not None and lines:
            more = chained(game, state, roll.actor)
            if more is None or (more.actor, more.verb) != (lines[0].actor, lines[0].verb):
                break
            chunk.append(lines.pop(0))
            state = game.apply(state, chunk[-1])
        out.append(Entry(tuple(chunk), roll))
    return out


def with_states(replayed: Replayed) -> Sequence[tuple[object, object, Entry]]:
    """Each entry with the states before and after it."""
    game = replayed.header.game
    state = replayed.header.start()
    out = []
    for entry in entries_of(replayed):
        after = state
        for line in entry.lines:
            after = game.apply(after, line)
        out.append((state, after, entry))
        state = after
    return out
