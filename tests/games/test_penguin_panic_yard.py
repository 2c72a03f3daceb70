"""Penguin Panic's yard bounds (companion/games/penguin_panic_yard.py): the box's own checks.

The bounds must hold for every yard the rules allow, whichever igloos its circles share:
a model yard with shared igloos is played at random, and what it really holds always lies
within the bounds worked out from its lines, and no line it makes is refused."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from companion.games.base import Line
from companion.games.penguin_panic import CIRCLES, IGLOOS, SEEDED
from companion.games.penguin_panic_yard import YARD, Yard, doubt, yard_of
from companion.record import replay_text

COLOURS = ("red", "yellow", "green", "blue", "purple")


def place(circle: int) -> Line:
    return Line("Ann", "place", (str(circle), "1", "0"))


def complete(circle: int, removed: int) -> Line:
    return Line("Ann", "complete", (str(circle), "red", str(removed)))


def test_a_circle_filled_by_placements_is_full_and_takes_no_more() -> None:
    yard = yard_of([place(1)] * IGLOOS)
    assert yard.full() == (1,)
    assert doubt(yard, place(1)) == "circle 1 is full: log it as a full circle first"
    assert doubt(yard, place(2)) == ""
    assert doubt(yard, complete(1, 3)) == ""


def test_a_circle_just_emptied_cannot_be_full_again_so_soon() -> None:
    """A full circle that lost 5 of a colour holds exactly 2: a penguin more makes 3."""
    yard = yard_of([place(1)] * IGLOOS + [complete(1, 5), place(1)])
    assert yard.low[0] == yard.high[0] == 3
    assert doubt(yard, complete(1, 2)) == "circle 1 holds at most 3 penguins now: it cannot be full"
    assert doubt(yard_of([complete(1, 5), place(1)]), complete(1, 2)) != ""  # "a circle completed that holds 2"


def test_the_yard_never_holds_more_than_its_igloos() -> None:
    yard = yard_of([place(1 + n % CIRCLES) for n in range(YARD - SEEDED)])
    assert yard.board == YARD
    assert doubt(yard, place(3)).startswith(f"the yard holds {YARD} penguins at most")


def test_a_record_that_breaks_the_bounds_still_replays() -> None:
    """The bounds are the box's: records.md does not list them among the refusals of
    `companion replay`, so a record with 14 placements in one circle still replays."""
    rounds = ["table line", "Ann ability 7", "Bob ability 6", "Bob bribe 1", "Ann bribe 2",
              "Bob bribe 3", "Ann bribe 4"]
    turns = []
    for turn in range(12):
        who = ("Bob", "Ann")[turn % 2]
        turns += [f"{who} roll 1 1" + (" 1" if who == "Bob" else ""), f"{who} place 1 1 0"]
    replayed = replay_text("game penguin-panic\nplayers Ann Bob\n" + "\n".join(rounds + turns) + "\n")
    assert replayed.state.board == SEEDED + 12
    assert yard_of(replayed.actions).full() == (1,)


class ModelYard:
    """A yard whose circles share igloos (each with the next, as on the board), played as
    the table would: placements in circles with room, each full circle emptied of its
    biggest colour (the order of several is the table's)."""

    def __init__(self, rng: random.Random, shared: int) -> None:
        self.rng = rng
        # Igloo numbers per circle: circle c shares its last ``shared`` igloos with c + 1.
        self.circles: list[list[int]] = []
        next_igloo = 0
        for c in range(CIRCLES):
            own = list(self.circles[c - 1][-shared:]) if c and shared else []
            while len(own) < IGLOOS:
                own.append(next_igloo)
                next_igloo += 1
            self.circles.append(own)
        self.igloos = {i: "" for circle in self.circles for i in circle}
        for igloo in rng.sample(sorted(self.igloos), SEEDED):
            self.igloos[igloo] = rng.choice(COLOURS)

    def count(self, circle: int) -> int:
        return sum(1 for i in self.circles[circle] if self.igloos[i])

    def turn(self) -> list[Line]:
        open_circles = [c for c in range(CIRCLES) if self.count(c) < IGLOOS]
        if not open_circles:
            return []
        circle = self.rng.choice(open_circles)
        igloo = self.rng.choice([i for i in self.circles[circle] if not self.igloos[i]])
        self.igloos[igloo] = self.rng.choice(COLOURS)
        lines = [place(circle + 1)]
        while full := [c for c in range(CIRCLES) if self.count(c) == IGLOOS]:
            c = self.rng.choice(full)
            colours = Counter(self.igloos[i] for i in self.circles[c])
            colour, removed = colours.most_common(1)[0]
            for i in self.circles[c]:
                if self.igloos[i] == colour:
                    self.igloos[i] = ""
            lines.append(complete(c + 1, removed))
        return lines


@pytest.mark.parametrize("shared", [0, 1, 2])
def test_the_bounds_hold_whatever_igloos_the_circles_share(shared: int) -> None:
    for seed in range(12):
        rng = random.Random(seed)
        model = ModelYard(rng, shared)
        lines: list[Line] = []
        for _ in range(60):
            for line in model.turn():
                assert doubt(yard_of(lines), line) == "", (shared, seed, line)
                lines.append(line)
            yard = yard_of(lines)
            for c in range(CIRCLES):
                assert yard.low[c] <= model.count(c) <= yard.high[c], (shared, seed, c)
            assert yard.board == sum(1 for v in model.igloos.values() if v)
            assert set(yard.full()) <= {c + 1 for c in range(CIRCLES) if model.count(c) == IGLOOS}


def test_no_bound_starts_tighter_than_the_seeding_allows() -> None:
    assert Yard().low == (0,) * CIRCLES and Yard().high == (IGLOOS,) * CIRCLES
