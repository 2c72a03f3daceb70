"""Advisors: a strong line for the player to move, for the games that have a search.

An advisor reads a game's state and answers with :class:`Advice`: the line to log, a short
label for the table ("b1>b3") and what it does ("onto G3"). The play screen uses it for
hints and for seats the companion plays; it never knows which game it is asking about.
Advisors are pure apart from reading the clock for their time budget.

Which seats the companion plays is stored with the game as a comment line of its header
(``# companion plays Bob``): replay and export ignore it, and it moves with the game.

>>> seats_of(["game gleebs-and-grues", "players Ann Bob", seat_line("Bob")])
('Bob',)
>>> advisor("no-such-game") is None
True
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from companion.games import KITS, import_part
from companion.games.base import Line

#: Seconds an advisor may think. The search stops within a few milliseconds of it, so a
#: Pi Zero 2 W answers in under 2 s (``companion/ai/bench.py`` measures it).
THINK = 1.5
SEAT_MARK = "# companion plays "


@dataclass(frozen=True)
class Advice:
    """A line to log and how to tell the table about it."""

    line: Line
    label: str  # what to do, short: "b1>b3", "Y3 on c2"
    note: str = ""  # what it does or how it stands: "onto G3", "wins"


Advisor = Callable[[Any, float], "Advice | None"]


def advisor(game_id: str) -> Advisor | None:
    """The advisor a game's kit names (:mod:`companion.games`), imported on first use:
    ``advise(state, seconds)`` -> :class:`Advice` or ``None`` (a step it does not advise on,
    such as a table's random set-up). ``None`` for a game without one."""
    kit = KITS.get(game_id)
    if kit is None or not kit.advisor:
        return None
    found: Advisor = import_part(kit.advisor)
    return found


def seat_line(name: str) -> str:
    """The header comment that hands ``name``'s seat to the companion."""
    return SEAT_MARK + name


def seats_of(header: Iterable[str]) -> tuple[str, ...]:
    """The seats the companion plays, from a stored header."""
    return tuple(line[len(SEAT_MARK):].strip() for line in header if line.startswith(SEAT_MARK))


def seat_lines(header: Iterable[str]) -> list[str]:
    """A stored header's seat lines, as a record carries them (after its header lines), so
    that an exported game says who the companion played and ``companion import`` keeps it.

    >>> seat_lines(["game gleebs-and-grues", "players Ann Bob", seat_line("Bob")])
    ['# companion plays Bob']
    """
    return [seat_line(name) for name in seats_of(header)]
