"""Penguin Panic's yard, as far as the record can tell: bounds on how many penguins each
circle holds, for checks the box makes before it logs a line.

The igloos stay on the table and circles share some of them, so the record never says
where a penguin is. It still bounds each circle, whatever the igloos shared:

- a penguin placed in a circle is in it, until a full circle is emptied of a colour;
- a full circle holds all its igloos' worth, and after its colour goes, exactly the rest;
- a circle never holds more than its igloos, nor the yard more than all of them;
- a penguin placed elsewhere may sit in an igloo this circle shares, and one removed from
  another circle may have sat in one of its igloos: the bounds give way accordingly.

These are the box's own checks (issue 26), not the record's: records.md does not list them
among the lines `companion replay` refuses, so a record that breaks them still replays.
The box refuses such a line when it is entered on its screens, and asks whether a circle is
full when nothing else can be in it.
"""

from __future__ import annotations

from collections.abc import Iterable

from companion.games.base import Line, counted, valueclass
from companion.games.penguin_panic import CIRCLES, IGLOOS, SEEDED

#: The yard's igloos in all: five circles of seven, fewer where circles share igloos.
YARD = CIRCLES * IGLOOS


@valueclass
class Yard:
    """The fewest and the most penguins each circle (1-5) can hold, and the yard's count."""

    low: tuple[int, ...] = (0,) * CIRCLES
    high: tuple[int, ...] = (IGLOOS,) * CIRCLES
    board: int = SEEDED  # the seeded penguins sit somewhere: no circle is known to hold one

    def placed(self, circle: int) -> Yard:
        """A penguin placed in ``circle`` (which may share the igloo with another)."""
        at = circle - 1
        low = tuple(min(IGLOOS, n + 1) if c == at else n for c, n in enumerate(self.low))
        high = tuple(min(IGLOOS, n + 1) for n in self.high)
        return Yard(low, high, self.board + 1)

    def emptied(self, circle: int, removed: int) -> Yard:
        """``circle`` was full and lost ``removed`` penguins of one colour; those may have
        sat in igloos that other circles share."""
        at = circle - 1
        left = IGLOOS - removed
        low = tuple(left if c == at else max(0, n - removed) for c, n in enumerate(self.low))
        high = tuple(left if c == at else n for c, n in enumerate(self.high))
        return Yard(low, high, self.board - removed)

    def full(self) -> tuple[int, ...]:
        """The circles that cannot hold another penguin."""
        return tuple(c + 1 for c, n in enumerate(self.low) if n >= IGLOOS)


def yard_of(lines: Iterable[Line]) -> Yard:
    """The bounds after a game's lines (of any kind; only placements and full circles
    change them)."""
    yard = Yard()
    for line in lines:
        if line.verb == "place":
            yard = yard.placed(int(line.args[0]))
        elif line.verb == "complete":
            yard = yard.emptied(int(line.args[0]), int(line.args[2]))
    return yard


def doubt(yard: Yard, line: Line) -> str:
    """Why the yard cannot be as ``line`` says, "" when it can: a penguin placed in a
    circle that is full, or in a yard with no free igloo; a circle logged full that cannot
    hold its igloos' worth.

    >>> doubt(Yard(), Line("Ann", "complete", ("3", "red", "2")))
    ''
    >>> doubt(Yard().emptied(3, 5), Line("Ann", "complete", ("3", "red", "2")))
    'circle 3 holds at most 2 penguins now: it cannot be full'
    """
    if line.verb == "place":
        circle = int(line.args[0])
        if circle in yard.full():
            return f"circle {circle} is full: log it as a full circle first"
        if yard.board >= YARD:
            return f"the yard holds {YARD} penguins at most: log the full circles first"
    elif line.verb == "complete":
        circle = int(line.args[0])
        most = yard.high[circle - 1]
        if most < IGLOOS:
            return f"circle {circle} holds at most {counted(most, 'penguin')} now: it cannot be full"
    return ""
