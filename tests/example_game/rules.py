"""Pig, the folk dice game: the rules engine of the example in docs/adding-a-game.md.

On your turn you roll one die as often as you like. Each face but a 1 adds to the points
of this turn; a 1 loses them and passes the turn. ``hold`` banks them and passes the turn.
Whoever's banked points and turn points reach the goal wins at once.

Record lines (after ``game pig``, ``players ...`` and ``option goal N``):

- ``NAME roll F``: NAME's die shows F (1-6);
- ``NAME hold``: NAME banks this turn's points (only after a roll that scored).

>>> game = Pig()
>>> s = game.start(("Ann", "Bob"), game.option_values({"goal": "20"}))
>>> for text in ("Ann roll 5", "Ann roll 6", "Ann hold", "Bob roll 1"):
...     s = game.apply(s, Line.parse(text))
>>> game.details(s)["scores"], game.next_actor(s)
({'Ann': 11, 'Bob': 0}, 'Ann')
>>> game.apply(s, Line.parse("Ann hold"))
Traceback (most recent call last):
...
tests.example_game.rules.NothingToHold: roll first: Ann has no points to bank
>>> for text in ("Ann roll 6", "Ann roll 4"):
...     s = game.apply(s, Line.parse(text))
>>> game.outcome(s)
Outcome(termination=<Termination.GOAL: 'goal reached'>, winners=('Ann',))
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import StrEnum
from typing import Any, ClassVar, TypedDict

from companion.games.base import (
    Choice,
    Game,
    IllegalLine,
    Line,
    NotYourTurn,
    OptionSpec,
    Outcome,
    Prompt,
    Roll,
    Summary,
    Verb,
    number,
    valueclass,
)
from companion.games.frozen import replace

SIDES = 6
PIG = 1  # the face that loses the turn's points
GOALS = ("20", "50", "100")


class Termination(StrEnum):
    """How a game of Pig ends: its value is the ending in a few words."""

    GOAL = "goal reached"


class Details(TypedDict):
    """The summary keys of Pig's record format (the docstring above)."""

    goal: int
    scores: dict[str, int]
    #: The points of the turn under way, not banked yet.
    turn_points: int


class PigSummary(Summary, Details):
    """A Pig summary, as the screens read it: the keys every game has, then Pig's."""


class NothingToHold(IllegalLine):
    """A ``hold`` before any roll of the turn has scored: there is nothing to bank."""


def parse_goal(value: str) -> int:
    """The ``goal`` option: the points that win, 10-1000."""
    return number(value, 10, 1000, "the goal")


@valueclass
class State:
    """A game in progress: a value, never changed in place (apply returns a new one)."""

    players: tuple[str, ...]
    goal: int
    banked: tuple[int, ...]  # per seat
    turn: int = 0  # the seat to play
    points: int = 0  # this turn's points, not banked yet
    winner: int | None = None


class Pig(Game[State, PigSummary]):
    """Two to four players race to the goal, one die each turn, as long as they dare."""

    id: ClassVar[str] = "pig"
    title: ClassVar[str] = "Pig"
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 4
    verbs: ClassVar[Mapping[str, Verb]] = {
        "roll": Verb(("F",)),
        "hold": Verb(),
    }
    options: ClassVar[Mapping[str, OptionSpec]] = {
        "goal": OptionSpec("50", parse_goal, "points to win", GOALS),
    }
    pages: ClassVar[Mapping[str, str]] = {
        "": "Be the first to reach the goal. Roll the die as often as you dare: every face "
            "but a 1 adds to this turn's points. A 1 loses them all and passes the die on.",
        "turn": "Roll, or hold to bank this turn's points and pass the die on. Reaching "
                "the goal, banked or not, wins at once.",
    }

    # --- the contract ---

    def start(self, players: tuple[str, ...], options: Mapping[str, Any]) -> State:
        return State(players=tuple(players), goal=options["goal"], banked=(0,) * len(players))

    def seats(self, state: State) -> tuple[str, ...]:
        return state.players

    def play(self, state: State, line: Line) -> State:
        # apply has checked the rest: the game goes on, the verb is Pig's, the actor plays,
        # and the count of words fits the verb.
        refusal = self._refusal(state, line)
        if refusal is not None:
            raise refusal
        if line.verb == "roll":
            return self._roll(state, number(line.args[0], 1, SIDES, "a die face"))
        return self._pass(replace(state, banked=self._banked(state)))

    def prompt(self, state: State) -> Prompt | None:
        if state.winner is not None:
            return None
        name = state.players[state.turn]
        risk = f"a 1 loses {state.points}" if state.points else ""
        answers: tuple[Choice | Roll, ...] = (Roll(name, "roll", (SIDES,), (name,), chance=risk),)
        hold = Line(name, "hold")
        if self._refusal(state, hold) is None:  # offered exactly when play takes it
            answers += (Choice("Hold", hold, f"bank {state.points}"),)
        return Prompt(name, f"{name}: roll or hold", answers, topic="turn")

    def outcome(self, state: State) -> Outcome | None:
        if state.winner is None:
            return None
        return Outcome(Termination.GOAL, (state.players[state.winner],))

    def details(self, state: State) -> Details:
        return {"goal": state.goal, "scores": dict(zip(state.players, state.banked)),
                "turn_points": state.points}

    # --- the one test of Pig's own rules ---

    @staticmethod
    def _refusal(state: State, line: Line) -> IllegalLine | None:
        """Why Pig's rules refuse ``line``, which passed apply's shared checks; ``None``
        when they take it. play raises it, and the prompt offers the lines it lets through."""
        name = state.players[state.turn]
        if line.actor != name:
            return NotYourTurn(f"it is {name}'s turn")
        if line.verb == "hold" and not state.points:
            return NothingToHold(f"roll first: {name} has no points to bank")
        return None

    # --- line handlers: each returns the new state ---

    def _roll(self, state: State, face: int) -> State:
        if face == PIG:
            return self._pass(state)
        state = replace(state, points=state.points + face)
        if state.banked[state.turn] + state.points >= state.goal:
            return replace(state, banked=self._banked(state), points=0, winner=state.turn)
        return state

    @staticmethod
    def _banked(state: State) -> tuple[int, ...]:
        """The seats' banked points with this turn's added to the player's own."""
        seat = state.turn
        return state.banked[:seat] + (state.banked[seat] + state.points,) + state.banked[seat + 1:]

    @staticmethod
    def _pass(state: State) -> State:
        return replace(state, turn=(state.turn + 1) % len(state.players), points=0)


def events(before: State, after: State, lines: Sequence[Line]) -> tuple[str, ...]:
    """What an entry did, in a few words (the kit's ``events``; who won is said before them)."""
    line = lines[-1]
    if line.verb == "hold":
        return (f"{line.actor} banks {before.points}: {after.banked[before.turn]}",)
    if after.turn != before.turn:
        return (f"{line.actor} rolls a 1: loses {before.points}",)
    if after.winner is not None:
        return (f"{line.actor} rolls {line.args[0]}: {after.banked[after.winner]}",)
    return (f"{line.actor} rolls {line.args[0]}: {after.points} this turn",)
