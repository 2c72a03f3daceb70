"""Records and positions that more than one test module uses, by game.

Test modules import shared helpers from modules like this one, never from each other.
"""

from __future__ import annotations

import random
from typing import Any

from companion.games.base import Line
from companion.games.gleebs_and_grues import INDEX, SQUARES, GleebsAndGrues, State

GLEEBS = GleebsAndGrues()


# --- Gleeb's and Grues ---

# The setup and placement of the records.md worked example.
SPEC_SETUP = [
    "table grues b2 c3 d4",
    "Ann place B1 a1", "Bob place G1 a2", "Ann place Y2 a3", "Bob place R2 a4",
    "Ann place B3 b1", "Bob place G3 b3", "Ann place Y1 b4", "Bob place R1 c1",
    "Ann place B2 c2", "Bob place G2 c4", "Ann place Y3 d1", "Bob place R3 d2",
]


def at(position: str, mover: int = 0, step: str = "move") -> State:
    """A hand-made position: ``"a1=Y1,B3 b2=K1"`` lists stacks bottom to top."""
    board: list[tuple[str, ...]] = [()] * 16
    for entry in position.split():
        where, pieces = entry.split("=")
        board[INDEX[where]] = tuple(pieces.split(","))
    return State(players=("Ann", "Bob"), first=0, board=tuple(board), step=step, mover=mover)


def random_lines(seed: int) -> tuple[str, list[Line]]:
    """One random game, played through ``legal_lines``: who is first, and its lines."""
    rng = random.Random(seed)
    first = rng.choice(("", "Bob"))
    position = GLEEBS.start(("Ann", "Bob"), {"first": first})
    lines = [Line("table", "grues", tuple(rng.sample(SQUARES, 3)))]
    position = GLEEBS.apply(position, lines[0])
    while not GLEEBS.over(position):
        lines.append(rng.choice(GLEEBS.legal_lines(position)))
        position = GLEEBS.apply(position, lines[-1])
        assert len(lines) < 100, "a game always ends: every turn pair stacks or feeds"
    return first, lines


def random_game(seed: int) -> list[State]:
    """Every state of one random game."""
    first, lines = random_lines(seed)
    states = [GLEEBS.start(("Ann", "Bob"), {"first": first})]
    for line in lines:
        states.append(GLEEBS.apply(states[-1], line))
    return states


# --- Microbot Racers ---

BOB_P1 = "table roll 2 1"


def picks(p1: str, mine: list[str], p2: str, theirs: list[str]) -> list[str]:
    """The six pick lines in the order P1, P2, P2, P1, P1, P2."""
    order = [(p1, mine[0]), (p2, theirs[0]), (p2, theirs[1]),
             (p1, mine[1]), (p1, mine[2]), (p2, theirs[2])]
    return [f"{who} pass" if what == "pass" else f"{who} pick {what}" for who, what in order]


BOB_FIRST_ANN_ACTS = [BOB_P1, *picks("Bob", ["move-2", "turn-right", "pass"], "Ann", ["move-1", "turn-left", "repair"]),
                      "Ann do move-1"]


# --- Penguin Panic ---

#: Round 1 of a two-player game: Ann takes 7, Bob 6 (both free); Bob then goes first.
ROUND_2P = ("table line", "Ann ability 7", "Bob ability 6",
            "Bob bribe 1", "Ann bribe 2", "Bob bribe 3", "Ann bribe 4")


#: Three players, Bob on ability 1 (skipping five spaces costs all his fish) and first.
WILD = ("table line", "Ann ability 7", "Bob ability 1", "Cat ability 6",
        "Bob bribe 1", "Cat bribe 2", "Ann bribe 3")


def placements(order: tuple[str, ...], count: int, dice: dict[str, int] | None = None) -> list[str]:
    """``count`` turns in ``order``, each placing a lone penguin (no fish) in circle 1."""
    lines = []
    for turn in range(count):
        name = order[turn % len(order)]
        faces = " ".join(["1", "2", "3", "4"][: (dice or {}).get(name, 2)])
        lines += [f"{name} roll {faces}", f"{name} place 1 1 0"]
    return lines


def whole_game() -> list[str]:
    """Three rounds of 12 lone penguins and no full circle: the bag ends at 4."""
    one = [*ROUND_2P, *placements(("Bob", "Ann"), 12, {"Bob": 3})]
    two = ["table line", "Bob ability 7", "Ann ability 6",
           "Ann bribe 1", "Bob bribe 2", "Ann bribe 3", "Bob bribe 4",
           *placements(("Ann", "Bob"), 12, {"Ann": 3})]
    return one + two + one[:]  # round 3 repeats round 1: Ann claims first again


def penguins(details: dict[str, Any]) -> int:
    """Every penguin, wherever it is."""
    escapees = sum(sum(by_colour.values()) for by_colour in details["escaped"].values())
    return details["bag"] + details["line"] + details["board"] + details["gone"] + escapees


# --- Quick Lemmings ---

def total(details: dict[str, Any]) -> int:
    """Cards in piles, hands, the draw pile and the discards."""
    piles = sum(len(p) for p in details["piles"].values())
    return piles + sum(details["hands"].values()) + details["draw"] + details["discards"]
