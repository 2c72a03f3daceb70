"""Penguin Panic results in words: what one confirmed entry did, read from the change of
state, most important first (the game kit's ``events``; :func:`companion.games.results`
says the end of the game before them).

>>> from companion.games.penguin_panic import PenguinPanic
>>> game = PenguinPanic()
>>> s = game.start(("Ann", "Bob"), game.option_values({}))
>>> after = game.apply(s, Line("table", "line"))
>>> events(s, after, [Line("table", "line")])
('round 1: 12 in line, bag 28',)
"""

from __future__ import annotations

from collections.abc import Sequence

from companion.games.base import TABLE, Line
from companion.games.penguin_panic import ABILITY, PenguinPanic, State

RULES = PenguinPanic()


def events(before: State, after: State, lines: Sequence[Line]) -> tuple[str, ...]:
    """The entry's results: a game that goes on again first, then what the line did."""
    said = ["bag refilled: the game goes on"] if RULES.over(before) and not RULES.over(after) else []
    line = lines[-1]
    if line.actor == TABLE:
        return (*said, f"round {after.rounds}: {after.line} in line, bag {after.bag}")
    seat = before.players.index(line.actor)
    name = line.actor
    fish = after.fish[seat]
    paid = before.fish[seat] - fish
    if line.verb == "ability":
        space = int(line.args[0])
        said.append(f"{name}: space {space}, -{paid} fish ({fish})" if paid
                    else f"{name}: space {space}, {ABILITY[space]}")
        if before.stage == "ability" and after.stage == "bribe":
            said.append("order " + ", ".join(after.players[s] for s in after.order))
    elif line.verb == "bribe":
        said.append(f"{name} bribes bear {line.args[0]}")
    elif line.verb == "buy":
        said.append(f"{name} buys a die: -{paid} fish ({fish})")
    elif line.verb == "roll":
        said.append(roll_words(before, after, lines))
    elif line.verb == "place":
        gain = fish - before.fish[seat]
        if chose_sixes(before):  # ability 1: placing, not rolling again
            said.append(f"{name} placed on the 6s: circle {line.args[0]}")
        said.append(f"{name} +{gain} fish ({fish})" if gain else f"{name}: no fish ({fish})")
        if after.round_done and not RULES.over(after):
            said.append("line empty: new round")
    elif line.verb == "complete":
        said.append(completed(before, after, line))
    elif line.verb == "swap":
        said.append(f"{name} swaps two penguins")
    else:
        said.append(f"{name} adds {line.args[0]} to the line")
    return tuple(said)


def chose_sixes(before: State) -> bool:
    """The entry answers all sixes that name a circle (ability 1): place, or roll again."""
    turn = before.turn
    return turn is not None and not turn.placed and turn.all_sixes and bool(RULES.details(before)["circles"])


def roll_words(before: State, after: State, lines: Sequence[Line]) -> str:
    """``Ann 5 5 1``; all sixes rolled again in the same press are told too, and a roll of
    all the dice again that a player chose over placing on all sixes (ability 1)."""
    name = lines[-1].actor
    rolls = [" ".join(line.args) for line in lines]
    told = f"{name} {', then '.join(rolls)}"
    if chose_sixes(before):
        told = f"{name} rolls all again: {', then '.join(rolls)}"
    turn = after.turn
    if turn is None or not turn.all_sixes:
        return told
    return told + (": place or roll" if chose_sixes(after) else ": all sixes, again")


def completed(before: State, after: State, line: Line) -> str:
    """``circle 2: red escapes to Bob`` or ``circle 4: a blue leaves the game``."""
    circle, colour = line.args[0], line.args[1]
    for seat, (was, now) in enumerate(zip(before.escaped, after.escaped)):
        if was != now:
            return f"circle {circle}: {colour} escapes to {after.players[seat]}"
    return f"circle {circle}: a {colour} is out"
