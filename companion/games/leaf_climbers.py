"""Lilliputian Leaf-Climbers: the leaf dropper, elevations, meeples and crushes.

Fully tracked (RULES.md section 1, records.md ``leaf-climbers``): the engine knows every
square's elevation, every meeple's square and who is crushed. Squares are ``(C, R)``:
column 1-6 left to right, row 1-6 bottom to top.

The worked examples of the rules: from elevation 0 to 3 costs 4, from 3 to 4 costs 2, and
any step down costs 2.

>>> step_cost(0, 3), step_cost(3, 4), step_cost(5, 1), step_cost(2, 2)
(4, 2, 2, 1)
>>> game = LeafClimbers()
>>> s = game.start(("Ann", "Bob"), {})
>>> for text in ("table drop 1", "table leaf 6 6", "Ann roll 2", "Ann move 2 2", "Bob roll 1"):
...     s = game.apply(s, Line.parse(text))
>>> game.next_actor(s), game.details(s)["positions"]
('Bob', {'Ann': [2, 2], 'Bob': [6, 6]})
>>> s = game.apply(s, Line.parse("Bob stay"))
>>> game.outcome(s), game.details(s)["out"]
(Outcome(termination=<Termination.LAST_STANDING: 'last one standing'>, winners=('Ann',)), ['Bob'])
"""

from __future__ import annotations

import functools
import heapq
import sys
from collections.abc import Mapping
from enum import StrEnum
from types import MappingProxyType
from typing import Any, ClassVar, Literal, TypedDict

from companion.games.base import (
    TABLE,
    TABLE_ONLY,
    Choice,
    Game,
    Grid,
    IllegalLine,
    Line,
    NotYourTurn,
    Outcome,
    Prompt,
    Roll,
    Summary,
    Verb,
    counted,
    number,
    valueclass,
)
from companion.games.frozen import replace

SIZE = 6
TOP = 6  # elevation of a blue square: it takes no more leaves
MAX_LEAVES = 2  # leaves one square may take in one round
MEEPLES_PER_SQUARE = 2
#: Starting corners in seat order [house default].
CORNERS = ((1, 1), (SIZE, SIZE), (1, SIZE), (SIZE, 1))

Square = tuple[int, int]
#: Where a round stands: the d20 to drop, leaves to place, the mover's d4 to roll, the
#: mover's move, or the game over.
Phase = Literal["drop", "leaf", "roll", "move", "over"]


class Termination(StrEnum):
    """How a game of Leaf-Climbers ends (checked when the leaves land)."""

    LAST_STANDING = "last one standing"
    ALL_BLUE = "every square is blue"
    ALL_CRUSHED = "everyone crushed"


class Details(TypedDict):
    """The summary keys of records.md, then extra ones for the screens."""

    round: int
    elevation: list[list[int]]
    positions: dict[str, list[int]]
    out: list[str]
    #: This round's leaves in the air, ``[C, R]`` each, in the order they fell.
    leaves: list[list[int]]
    drop: int | None
    falling: int
    roll: int | None
    phase: Phase


class LeafSummary(Summary, Details):
    """A Leaf-Climbers summary, as the screens read it."""


class LeafRefused(IllegalLine):
    """A leaf the rules make the table roll again: the square is full for this round."""


class Unreachable(IllegalLine):
    """A move that costs more points than the d4 gave."""


class SquareFull(IllegalLine):
    """A move that would end on a square already holding two meeples."""


class Crushed(NotYourTurn):
    """A line from a player who is out."""


def index(square: Square) -> int:
    """Position of a square in the flat elevation tuple (row by row, bottom first)."""
    column, row = square
    return (row - 1) * SIZE + (column - 1)


def square_name(square: Square) -> str:
    """``(3, 2)`` -> ``c3 r2``, as the screen writes a square."""
    return f"c{square[0]} r{square[1]}"


def capacity(elevation: int) -> int:
    """Leaves a square of this elevation may take in one round: min(2, 6 - elevation)."""
    return min(MAX_LEAVES, TOP - elevation)


def step_cost(here: int, there: int) -> int:
    """Points for one orthogonal step between squares of these elevations."""
    if there == here:
        return 1
    if there > here:
        return 1 + there - here
    return 2


def neighbours(square: Square) -> tuple[Square, ...]:
    """The up-to-four orthogonal neighbours on the board."""
    column, row = square
    steps = ((column + 1, row), (column - 1, row), (column, row + 1), (column, row - 1))
    return tuple((c, r) for c, r in steps if 1 <= c <= SIZE and 1 <= r <= SIZE)


#: Every square in index order, and each square's neighbours by index: worked out once,
#: so that a search over the board (after every roll, on the loop's thread) does no
#: arithmetic on squares.
SQUARES: tuple[Square, ...] = tuple((c, r) for r in range(1, SIZE + 1) for c in range(1, SIZE + 1))
ADJACENT: tuple[tuple[int, ...], ...] = tuple(tuple(index(n) for n in neighbours(square))
                                              for square in SQUARES)


# One press asks for the same position's costs several times: the move prompt does twice
# (what is reachable, and each square's note), the move's check once more. Worked out once,
# and read-only, so that no caller can change what the next one reads.
@functools.lru_cache(maxsize=8)
def move_costs(elevation: tuple[int, ...], start: Square) -> Mapping[Square, int]:
    """The cheapest cost from ``start`` to every square (Dijkstra; any square may be crossed).

    >>> flat = (0,) * 36
    >>> move_costs(flat, (1, 1))[(3, 2)]
    3
    """
    first = index(start)
    best = [sys.maxsize] * len(SQUARES)
    best[first] = 0
    queue = [(0, first)]
    while queue:
        cost, here = heapq.heappop(queue)
        if cost > best[here]:
            continue
        height = elevation[here]
        for step in ADJACENT[here]:
            total = cost + step_cost(height, elevation[step])
            if total < best[step]:
                best[step] = total
                heapq.heappush(queue, (total, step))
    return MappingProxyType(dict(zip(SQUARES, best, strict=True)))


@valueclass
class State:
    """A game in progress. Seats are indexes into ``players``; squares are ``(C, R)``."""

    players: tuple[str, ...]
    #: 36 elevations, ``elevation[index((c, r))]``.
    elevation: tuple[int, ...] = (0,) * (SIZE * SIZE)
    #: Each seat's square, ``None`` once crushed.
    positions: tuple[Square | None, ...] = ()
    #: Crushed seats, in the order they were crushed.
    out: tuple[int, ...] = ()
    #: Rounds begun (0 before the first ``drop``).
    round: int = 0
    phase: Phase = "drop"
    drop: int = 0  # this round's d20
    falling: int = 0  # leaf lines still to come this round
    leaves: tuple[Square, ...] = ()  # this round's leaves, in the air
    mover: int = 0  # seat rolling or moving
    roll: int = 0  # the mover's d4, once rolled
    winners: tuple[int, ...] = ()

    def living(self) -> tuple[int, ...]:
        """Seats still on the board, in seat (turn) order."""
        return tuple(seat for seat, at in enumerate(self.positions) if at is not None)

    def height(self, square: Square) -> int:
        """The elevation of one square."""
        return self.elevation[index(square)]


def total_capacity(elevation: tuple[int, ...]) -> int:
    """Leaves that can still fall in one round on the whole board."""
    return sum(capacity(e) for e in elevation)


def leaf_refusal(state: State, square: Square) -> str:
    """Why a leaf may not fall on ``square`` now ("" when it may)."""
    height = state.height(square)
    already = state.leaves.count(square)
    if height >= TOP:
        return f"{square_name(square)} is already blue: roll again"
    if already >= capacity(height):
        if height == TOP - 1:
            return f"{square_name(square)} is purple with a leaf: roll again"
        return f"{square_name(square)} already has {already} leaves: roll again"
    return ""


def leaves_text(count: int) -> str:
    """``1 leaf``, ``3 leaves``."""
    return counted(count, "leaf", "leaves")


class LeafClimbers(Game[State, LeafSummary]):
    """Meeples climb a growing pile of leaves; the companion drops the leaves."""

    id: ClassVar[str] = "leaf-climbers"
    title: ClassVar[str] = "Lilliputian Leaf-Climbers"
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 4
    usual_players: ClassVar[int] = 4  # the rules' table; 2 and 3 are house defaults
    random_seats: ClassVar[bool] = True
    verbs: ClassVar[Mapping[str, Verb]] = {
        "drop": Verb(("N",), TABLE_ONLY),
        "leaf": Verb(("C R",), TABLE_ONLY),
        "roll": Verb(("M",)),
        "move": Verb(("C R",)),
        "stay": Verb(),
    }
    pages: ClassVar[Mapping[str, str]] = {
        "": "Leaves fall on a 6x6 board and pile up. Climb the pile and dodge the leaves: "
            "a meeple under a landing leaf is crushed. Last one standing wins, or everyone "
            "left when every square is blue. 4 players; 2 or 3 also allowed (house default). "
            "Meeples start on the corners in seat order (house default). The last players "
            "crushed together: nobody wins (house default). Under the players the screen "
            "counts this round's leaves (leaf 3 of 12: three have fallen) and the blue "
            "squares, those at the top: when all 36 are blue, the game ends.",
        "drop": "Each round starts with the d20: that many leaves fall. If fewer squares can "
                "take a leaf, only that many fall (house default). Until then the screen says "
                "no leaf yet; then how many have fallen of how many.",
        "leaf": "Each leaf: green die = column, blue die = row. Roll again when the square "
                "is blue, is purple and has a leaf, or already has 2 leaves this round. "
                "Leaves block nothing until they land.",
        "roll": "Roll the d4: you may spend up to that many points moving. A step to the "
                "same height costs 1, up costs 1 plus the rise, down costs 2 however far. "
                "Unused points are lost, and you may stay (house default).",
        "move": "Step up, down, left or right. Same height: 1. Up: 1 plus the rise. "
                "Down: 2, however far. You may cross any square but not stop on one "
                "with 2 meeples. When the last player has moved, the leaves land. "
                "On the board picture a digit is a square's height (a dot: 0), a white "
                "square gets a leaf this round (a notch: two), a boxed letter is a meeple, "
                "and a small square marks where you can stop.",
        "land": "After everyone moves, every leaf becomes a square chip: +1 height. "
                "A meeple on a square that gets one is crushed and out.",
    }

    # --- the contract ---

    def start(self, players: tuple[str, ...], options: Mapping[str, Any]) -> State:
        return State(players=tuple(players), positions=CORNERS[: len(players)])

    def outcome(self, state: State) -> Outcome | None:
        if state.phase != "over":
            return None
        winners = tuple(state.players[seat] for seat in state.winners)
        if len(winners) > 1:
            return Outcome(Termination.ALL_BLUE, winners)
        return Outcome(Termination.LAST_STANDING if winners else Termination.ALL_CRUSHED, winners)

    def details(self, state: State) -> Details:
        names = state.players
        rows = [list(state.elevation[r * SIZE:(r + 1) * SIZE]) for r in range(SIZE)]
        return {
            "round": max(1, state.round),
            "elevation": rows,
            "positions": {names[seat]: list(at) for seat, at in enumerate(state.positions)
                          if at is not None},
            "out": [names[seat] for seat in state.out],
            "leaves": [list(leaf) for leaf in state.leaves],
            "drop": state.drop or None,
            "falling": state.falling,
            "roll": state.roll or None,
            "phase": state.phase,
        }

    def seats(self, state: State) -> tuple[str, ...]:
        return state.players

    def play(self, state: State, line: Line) -> State:
        self._check_turn(state, line)
        return {
            "drop": self._drop,
            "leaf": self._leaf,
            "roll": self._roll,
            "move": self._move,
            "stay": self._move,
        }[line.verb](state, line)

    def prompt(self, state: State) -> Prompt | None:
        if state.phase == "over":
            return None
        if state.phase == "drop":
            room = total_capacity(state.elevation)
            roll = Roll(TABLE, "drop", (20,), ("d20",), label="Drop leaves",
                        chance=f"room: {room}" if room < 20 else "")
            return Prompt(TABLE, "How many leaves fall?", (roll,), topic="drop")
        if state.phase == "leaf":
            done = len(state.leaves)
            count = done + state.falling
            # Typed in, a leaf is picked on the board: where it fell, among the squares that
            # may take it (one that may not is refused with the reason when picked).
            lands = tuple(Line(TABLE, "leaf", (str(c), str(r))) for c, r in SQUARES
                          if not leaf_refusal(state, (c, r)))
            board = Grid("Where it fell", TABLE, "leaf", SIZE, SIZE, lands,
                         start=state.leaves[-1] if state.leaves else (1, 1))
            leaf = Roll(TABLE, "leaf", (6, 6), ("column", "row"), label="Drop a leaf",
                        reroll_refused=True, board=board)
            return Prompt(TABLE, f"Leaf {done + 1} of {count}: where?", (leaf,),
                          topic="leaf")
        who = state.players[state.mover]
        if state.phase == "roll":
            roll = Roll(who, "roll", (4,), ("d4",), label="Roll to move")
            return Prompt(who, f"{who}: roll the d4", (roll,), topic="roll")
        return self._move_prompt(state, who)

    def _move_prompt(self, state: State, who: str) -> Prompt:
        """A square on the board (the reachable ones marked, each with a note), or stay."""
        at = state.positions[state.mover]
        assert at is not None
        costs = move_costs(state.elevation, at)
        # The squares apply accepts, found by apply's own test (the own square: same as stay).
        squares = [at, *sorted(square for square, cost in costs.items()
                               if square != at and self._move_refusal(state, at, square, cost) is None)]
        legal = tuple(Line(who, "move", (str(c), str(r))) for c, r in squares)
        notes = tuple((square, self._note(state, square, costs[square]))
                      for square in sorted(costs))
        board = Grid("Move", who, "move", SIZE, SIZE, legal, start=at, notes=notes)
        stay = Choice("Stay", Line(who, "stay"), self._danger(state, at) or f"on {square_name(at)}")
        return Prompt(who, f"{who}: move up to {state.roll}", (board, stay), topic="move")

    # --- helpers that read the state ---

    @staticmethod
    def _danger(state: State, square: Square) -> str:
        """The flag on a square that a leaf of this round will land on."""
        count = state.leaves.count(square)
        return "" if not count else "leaf lands here" if count == 1 else "2 leaves land here"

    def _note(self, state: State, square: Square, cost: int) -> str:
        """A few words beside the board on the square under the cursor, one thing a line
        (the side is narrow): what ending there costs, its height where two letters hide the
        digit, and a flag when a leaf will land there."""
        here = square == state.positions[state.mover]
        crowded = self._crowd(state, square) >= MEEPLES_PER_SQUARE
        if not here and cost > state.roll:
            return f"cost {cost}\ntoo far"
        if not here and crowded:
            return f"{state.height(square)} high\nfull"
        words = ["stay" if here else f"cost {cost}"]
        if crowded:
            words.append(f"{state.height(square)} high")
        leaves = state.leaves.count(square)
        if leaves:
            words.append("leaf!" if leaves == 1 else "leaf x2")
        return "\n".join(words)

    @staticmethod
    def _crowd(state: State, square: Square) -> int:
        return state.positions.count(square)

    def _move_refusal(self, state: State, at: Square, target: Square, cost: int) -> IllegalLine | None:
        """Why the mover on ``at`` may not end on ``target`` at ``cost``; ``None`` when they
        may. The one test of a move: apply raises it, and the move prompt's legal squares
        are those it lets through."""
        if target == at:
            return None
        if cost > state.roll:
            return Unreachable(f"{square_name(target)} costs {cost}, you have {state.roll}")
        if self._crowd(state, target) >= MEEPLES_PER_SQUARE:
            return SquareFull(f"{square_name(target)} already holds {MEEPLES_PER_SQUARE} meeples")
        return None

    def _check_turn(self, state: State, line: Line) -> None:
        """Refuse a line whose actor or verb is not the one the game is waiting for."""
        if line.actor != TABLE and state.positions[state.players.index(line.actor)] is None:
            raise Crushed(f"{line.actor} was crushed and is out of the game")
        wanted = self._waiting_for(state)
        if state.phase in ("drop", "leaf"):
            if line.actor != TABLE:
                raise NotYourTurn(wanted)
        elif line.actor != state.players[state.mover]:
            if line.verb == "leaf":
                raise IllegalLine(f"no more leaves fall this round; {wanted}")
            raise NotYourTurn(wanted)
        expected = {"drop": ("drop",), "leaf": ("leaf",), "roll": ("roll",),
                    "move": ("move", "stay")}[state.phase]
        if line.verb not in expected:
            raise IllegalLine(wanted)

    def _waiting_for(self, state: State) -> str:
        """The next required line, in words."""
        who = state.players[state.mover]
        if state.phase == "drop":
            return "the round starts with the d20: 'table drop N'"
        if state.phase == "leaf":
            return f"{leaves_text(state.falling)} still to fall: 'table leaf C R'"
        if state.phase == "roll":
            return f"it is {who}'s turn to roll the d4: '{who} roll M'"
        return f"it is {who}'s move, with {counted(state.roll, 'point')}: '{who} move C R' or '{who} stay'"

    # --- line handlers: each returns the new state, or raises ---

    def _drop(self, state: State, line: Line) -> State:
        drop = number(line.args[0], 1, 20, "the d20")
        falling = min(drop, total_capacity(state.elevation))
        return replace(state, round=state.round + 1, phase="leaf", drop=drop, falling=falling,
                       leaves=(), roll=0)

    def _leaf(self, state: State, line: Line) -> State:
        square = (number(line.args[0], 1, SIZE, "the column (green die)"),
                  number(line.args[1], 1, SIZE, "the row (blue die)"))
        refusal = leaf_refusal(state, square)
        if refusal:
            raise LeafRefused(refusal)
        falling = state.falling - 1
        state = replace(state, leaves=state.leaves + (square,), falling=falling)
        if falling:
            return state
        return self._next_mover(state, -1)

    def _roll(self, state: State, line: Line) -> State:
        return replace(state, phase="move", roll=number(line.args[0], 1, 4, "the d4"))

    def _move(self, state: State, line: Line) -> State:
        at = state.positions[state.mover]
        assert at is not None
        if line.verb == "stay":
            target = at
        else:
            target = (number(line.args[0], 1, SIZE, "the column"),
                      number(line.args[1], 1, SIZE, "the row"))
        if target != at:
            refusal = self._move_refusal(state, at, target, move_costs(state.elevation, at)[target])
            if refusal is not None:
                raise refusal
        positions = list(state.positions)
        positions[state.mover] = target
        return self._next_mover(replace(state, positions=tuple(positions)), state.mover)

    def _next_mover(self, state: State, after: int) -> State:
        """Hand the d4 to the next living seat after ``after``, or land the leaves."""
        later = [seat for seat in state.living() if seat > after]
        if later:
            return replace(state, phase="roll", mover=later[0], roll=0)
        return self._land(state)

    @staticmethod
    def _land(state: State) -> State:
        """Every leaf becomes a square chip; meeples under them are crushed; end check."""
        elevation = list(state.elevation)
        for leaf in state.leaves:
            elevation[index(leaf)] += 1
        hit = set(state.leaves)
        crushed = tuple(seat for seat in state.living() if state.positions[seat] in hit)
        positions = tuple(None if seat in crushed else at
                          for seat, at in enumerate(state.positions))
        state = replace(state, elevation=tuple(elevation), positions=positions,
                        out=state.out + crushed, leaves=(), roll=0, mover=0, phase="drop")
        living = state.living()
        if len(living) <= 1 or all(e >= TOP for e in elevation):
            return replace(state, phase="over", winners=living)
        return state
