"""Penguin Panic: fish, abilities, bribes, dice, placements, escapes and scores.

The yard's igloo layout stays on the table: players say how big the linked group of a
placed penguin is and which circles filled up; the engine does the arithmetic and keeps
the counts of every penguin (RULES.md section 2, records.md ``penguin-panic``).
Penguins are anonymous except escapees, whose colour is logged when they escape.

>>> game = PenguinPanic()
>>> s = game.start(("Ann", "Bob"), game.option_values({}))
>>> s = game.apply(s, Line("table", "line"))
>>> s = game.apply(s, Line("Ann", "ability", ("7",)))
>>> s = game.apply(s, Line("Bob", "ability", ("4",)))
>>> game.details(s)["order"], game.details(s)["fish"]
(['Bob', 'Ann'], {'Ann': 5, 'Bob': 1})
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from enum import StrEnum
from typing import Any, ClassVar, Literal, TypedDict

from companion.games.base import (
    RESERVED_NAMES,
    TABLE,
    TABLE_ONLY,
    BadArguments,
    Choice,
    Field,
    Form,
    Game,
    IllegalLine,
    Line,
    NameList,
    NotYourTurn,
    OptionSpec,
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

COLOURS = ("red", "yellow", "green", "blue", "purple")
#: Names a table whose penguins come in other colours is likely to give them.
OTHER_COLOURS = ("white", "black", "grey", "orange", "pink", "brown")
PER_COLOUR = 10  # house default: the text gives 50 penguins in 5 colours
TOTAL = PER_COLOUR * len(COLOURS)
SEEDED = 10
LINE = 12  # penguins drawn for a round's line
CIRCLES = 5
IGLOOS = 7  # per circle: so a full circle's majority is 2-7 penguins
SPACES = 7
START_FISH = 5
MAX_FISH = 10
DEAD = 6  # the die face that names no circle
MAX_DICE = 4
EXTEND_MAX = 5
#: Fish lost from every gain this round, by ability space.
PENALTY = {1: 4, 2: 3, 3: 2, 4: 1, 5: 2, 6: 1, 7: 1}
#: Short names of the abilities, for the bribe screen.
ABILITY = {1: "6s wild", 2: "pick any", 3: "ends", 4: "swap two", 5: "add 0-5",
           6: "3 dice", 7: "die for 2"}
SWAP, EXTEND, WILD_SIXES, THREE_DICE, CHEAP_DIE = 4, 5, 1, 6, 7
#: The bribe phase's lines: their argument's highest value and its name.
CLAIMS = {"ability": (SPACES, "an ability space"), "bribe": (CIRCLES, "a circle")}
#: Points of a set of escapees of different colours, by its size.
SET_POINTS = {1: 1, 2: 3, 3: 6, 4: 10, 5: 15}
NAME = re.compile(r"[A-Za-z0-9_-]{1,12}")


#: Where a round stands: before the first line of the game, choosing abilities, bribing,
#: the turns.
Stage = Literal["draw", "ability", "bribe", "turns"]


class Termination(StrEnum):
    """How a game of Penguin Panic ends: escapees are scored, and someone always wins."""

    BAG_SHORT = "the bag cannot fill a line"


class Details(TypedDict):
    """The summary keys of records.md, then extra ones for the screens."""

    round: int
    fish: dict[str, int]
    abilities: dict[str, int]
    order: list[str]
    bribes: dict[str, list[int]]
    bag: int
    line: int
    board: int
    gone: int
    escaped: dict[str, dict[str, int]]
    scores: dict[str, int]
    #: The round's stage, ``over`` once the game is.
    stage: Stage | Literal["over"]
    colours: list[str]
    #: What each ability space costs the player choosing now; ``None`` when taken.
    costs: list[int | None]
    #: The faces of the roll being placed, and the circles they allow.
    dice: list[int]
    circles: list[int]
    escapees: dict[str, int]
    #: The short name of each claimed ability, by player.
    powers: dict[str, str]


class PenguinSummary(Summary, Details):
    """A Penguin Panic summary, as the screens read it."""


class OutOfStep(IllegalLine):
    """A line that belongs to another step of the round (a roll during the bribes)."""


class TooFewFish(IllegalLine):
    """A payment (ability space or extra die) above the player's fish."""


class SpaceTaken(IllegalLine):
    """An ability space another player already claimed this round."""


class BearTaken(IllegalLine):
    """A bear that already holds a bribery disk this round."""


class AlreadyBought(IllegalLine):
    """A second extra die in one turn."""


class TooLateToBuy(IllegalLine):
    """An extra die bought after the turn's first roll."""


class WrongDice(BadArguments):
    """A roll with another number of dice than the player rolls."""


class AlreadyRolled(IllegalLine):
    """A roll when the dice already name a circle (or after placing)."""


class NotRolled(IllegalLine):
    """A placement before the dice are rolled."""


class RerollNeeded(IllegalLine):
    """A placement after all sixes without ability 1: no die names a circle, so the dice
    are rolled again."""


class CircleNotRolled(IllegalLine):
    """A placement in a circle no usable die names."""


class BadGroup(BadArguments):
    """A linked group that cannot be: more coloured igloos than penguins, or more
    penguins than the board holds."""


class AlreadyPlaced(IllegalLine):
    """A second placement (or a roll or buy) after the turn's penguin is placed."""


class NotPlaced(IllegalLine):
    """A completed circle logged before the turn's penguin is placed."""


class CircleDone(IllegalLine):
    """A circle logged as completed twice in one turn."""


class OutOfOrder(IllegalLine):
    """A full circle logged after one that the rule text checks later: it was already full
    when that one was resolved (removals only empty igloos), so it came first."""


class TooManyRemoved(IllegalLine):
    """More penguins removed from a circle than the board holds."""


class NoSuchColour(BadArguments):
    """A colour that is not one of the game's five."""


class NotYourAbility(IllegalLine):
    """A swap or extend by a player who did not claim that ability this round."""


class AbilityUsed(IllegalLine):
    """A second swap or extend in one round."""


class LineEmpty(IllegalLine):
    """A swap or extend when the line holds no penguin."""


class BagShort(IllegalLine):
    """An extend of more penguins than the bag holds."""


def parse_colours(value: str) -> tuple[str, ...]:
    """The ``colours`` option: five distinct names, comma-separated."""
    names = tuple(value.split(","))
    if len(names) != len(COLOURS):
        raise ValueError(f"give {len(COLOURS)} colour names separated by commas")
    for name in names:
        if not NAME.fullmatch(name) or name in RESERVED_NAMES:
            raise ValueError(f"{name!r} is not a valid colour name: 1-12 letters, digits, - or _")
    if len(set(names)) != len(names):
        raise ValueError("the colour names must all differ")
    return names


def set_score(counts: tuple[int, ...]) -> int:
    """Points of one player's escapees (counts by colour), largest sets first.

    >>> set_score((1, 0, 2, 0, 0))  # one red and two green: a pair and a single
    4
    """
    points = 0
    left = list(counts)
    while any(left):
        points += SET_POINTS[sum(1 for c in left if c)]
        left = [max(0, c - 1) for c in left]
    return points


def ability_label(space: int) -> str:
    """An ability as the screens name it: ``4 swap two -1`` (space, power, penalty)."""
    return f"{space} {ABILITY[space]} -{PENALTY[space]}"


def put(values: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    """The tuple with one item replaced."""
    return values[:index] + (value,) + values[index + 1:]


@valueclass
class Turn:
    """The turn in progress: whose it is and what they have done so far."""

    seat: int
    bought: bool = False
    dice: tuple[int, ...] = ()  # the latest roll's faces; () before the first roll
    placed: int = 0  # circle of the placement; 0 before it
    completed: tuple[int, ...] = ()  # circles logged as completed this turn

    @property
    def all_sixes(self) -> bool:
        """The latest roll shows a 6 on every die (which may be rolled again)."""
        return bool(self.dice) and all(face == DEAD for face in self.dice)


@valueclass
class State:
    """A game in progress. Players are seat numbers; per-seat values are tuples."""

    players: tuple[str, ...]
    colours: tuple[str, ...]
    fish: tuple[int, ...]
    order: tuple[int, ...]  # seats in turn order
    escaped: tuple[tuple[int, ...], ...]  # per seat, counts by colour index
    spaces: tuple[int, ...]  # per seat, the ability space claimed this round; 0 = none
    bribes: tuple[tuple[int, ...], ...]  # per seat, circles bribed this round, in order
    rounds: int = 0  # `table line` lines so far
    stage: Stage = "draw"
    bag: int = TOTAL - SEEDED
    line: int = 0
    board: int = SEEDED
    gone: int = 0
    turn_index: int = 0  # position in ``order`` of the turn in progress
    turn: Turn | None = None
    swapped: bool = False  # ability 4 used this round
    extended: bool = False  # ability 5 used this round

    @property
    def round_done(self) -> bool:
        """The line is empty: the round is over (its last player may still log circles)."""
        return self.stage == "turns" and self.line == 0

    @property
    def ended(self) -> bool:
        """The round is over and the bag cannot fill another line."""
        return self.round_done and self.bag < LINE

    @property
    def claimed(self) -> int:
        """Ability spaces claimed this round."""
        return sum(1 for s in self.spaces if s)

    @property
    def bribed(self) -> tuple[int, ...]:
        """Bears holding a bribery disk this round."""
        return tuple(k for circles in self.bribes for k in circles)


class PenguinPanic(Game[State, PenguinSummary]):
    """Penguins escape a prison yard; the companion keeps fish, bribes and escapees."""

    id: ClassVar[str] = "penguin-panic"
    title: ClassVar[str] = "Penguin Panic"
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 5
    random_seats: ClassVar[bool] = True
    verbs: ClassVar[Mapping[str, Verb]] = {
        "line": Verb(by=TABLE_ONLY),
        "ability": Verb(("S",)),
        "bribe": Verb(("K",)),
        "buy": Verb(),
        "roll": Verb(("F F [F [F]]",)),
        "place": Verb(("K L G",)),
        "complete": Verb(("K COLOUR N",)),
        "swap": Verb(),
        "extend": Verb(("N",)),
    }
    options: ClassVar[Mapping[str, OptionSpec]] = {
        "colours": OptionSpec(",".join(COLOURS), parse_colours,
                              "names of the 5 penguin colours (house default)",
                              ask=NameList(len(COLOURS), "colour", COLOURS + OTHER_COLOURS)),
    }
    pages: ClassVar[Mapping[str, str]] = {
        "": "Free your penguins from the yard. Each round 12 penguins queue up; you buy "
            "abilities, bribe polar bears, then roll dice to place penguins and earn fish. "
            "A full circle loses its biggest colour, and the bear's briber keeps one as an "
            "escapee. When the bag cannot fill a line, escapees score in sets of different "
            "colours. The yard stays on the table: you tell the companion group sizes and "
            "full circles. 50 penguins, 10 of each colour (house default); colour names "
            "red, yellow, green, blue, purple (house default, option).",
        "line": "A round starts by drawing 12 penguins from the bag into the line, in "
                "order. If the bag holds fewer than 12 the game is over (house default: "
                "\"not enough\" means fewer than 12).",
        "bribe": "In turn order take an empty ability space 1-7. The highest empty space "
                 "is free; each empty space above yours costs 1 fish (2 with two players). "
                 "You cannot pay more fish than you have (house default). The new turn "
                 "order follows the spaces, lowest first. Then in that order put a "
                 "bribery disk on a bear nobody bribed; with two players, twice each.",
        "abilities": "Penalty on every fish gain this round: 1 (-4) a 6 names any circle; "
                     "2 (-3) take any penguin of the line; 3 (-2) front or back one; "
                     "4 (-1) swap two penguins, once a round; 5 (-2) add 0-5 penguins "
                     "from the bag to the line, once a round; 6 (-1) roll 3 dice; "
                     "7 (-1) the extra die costs 2 fish.",
        "roll": "Before your first roll you may pay 3 fish (2 with ability 7) for one "
                "extra die. Roll 2 dice (3 with ability 6). A 6 names no circle; with "
                "ability 1 it names any circle. All sixes: roll them all again, as no die "
                "names a circle. With ability 1, choose: place in any circle, or roll all "
                "again.",
        "place": "Put the penguin in an empty igloo of a circle a die names. Then tell "
                 "the box \"linked\": the same-colour penguins linked to it, itself "
                 "included; and \"coloured\": how many of those sit on coloured centre "
                 "igloos. A group links from igloo to neighbouring igloo, across circles "
                 "too; never through the unused space in the middle of the yard, only "
                 "round it. The bears block no link. Fish = linked - coloured - ability "
                 "penalty; never below 0, at most 10 in all. The box shows the sum "
                 "before it counts.",
        "complete": "A circle with no empty igloo loses all its penguins of the biggest "
                    "colour (a tie: the briber picks, or the placer if nobody bribed "
                    "the bear). The briber keeps one as an escapee, the rest go back in "
                    "the bag; with no briber one leaves the game. Log each full circle "
                    "once a turn with its + full circle line: the colour removed and how "
                    "many (several at once: see Circles). After the last placement of the game "
                    "this is still possible from the end screen; if it puts 12 back in the "
                    "bag, play goes on.",
        "circles": "Several circles full at once: they are checked in the turn order of "
                   "the players who bribed their bears, earliest first. A circle nobody "
                   "bribed counts as the placer's (house default). One player's circles go "
                   "in the order that player likes (house default). Look again before each: "
                   "one that an earlier removal opened is left alone. Log them in that "
                   "order: the box lists them so, and marks a circle too late once one that "
                   "comes after it is logged.",
        "score": "Escapees score in sets of different colours: 5 colours 15, 4 colours "
                 "10, 3 colours 6, 2 colours 3, a single 1. Tie: most escapees, then "
                 "the turn order track: the earlier place in the last turn order wins "
                 "(house default).",
    }

    # --- the contract ---

    def start(self, players: tuple[str, ...], options: Mapping[str, Any]) -> State:
        count = len(players)
        return State(
            players=tuple(players),
            colours=tuple(options["colours"]),
            fish=(START_FISH,) * count,
            order=tuple(range(count)),
            escaped=((0,) * len(COLOURS),) * count,
            spaces=(0,) * count,
            bribes=((),) * count,
        )

    def outcome(self, state: State) -> Outcome | None:
        if not state.ended:
            return None
        best = max(state.order, key=lambda seat: (
            set_score(state.escaped[seat]), sum(state.escaped[seat]), -state.order.index(seat)))
        return Outcome(Termination.BAG_SHORT, (state.players[best],))

    def details(self, state: State) -> Details:
        names = state.players
        seats = range(len(names))
        placing = self._placing(state)
        return {
            "round": max(1, state.rounds),
            "fish": {names[i]: state.fish[i] for i in seats},
            "abilities": {names[i]: state.spaces[i] for i in seats if state.spaces[i]},
            "order": [names[i] for i in state.order],
            "bribes": {names[i]: list(state.bribes[i]) for i in seats},
            "bag": state.bag,
            "line": state.line,
            "board": state.board,
            "gone": state.gone,
            "escaped": {names[i]: {state.colours[c]: n for c, n in enumerate(state.escaped[i]) if n}
                        for i in seats},
            "scores": {names[i]: set_score(state.escaped[i]) for i in seats},
            # Extra keys, for the screens: records.md welcomes them.
            "stage": "over" if state.ended else state.stage,
            "colours": list(state.colours),
            "costs": self._costs(state),
            "dice": list(placing.dice) if placing else [],
            "circles": list(self._circles(state, placing)) if placing else [],
            "escapees": {names[i]: sum(state.escaped[i]) for i in seats},
            "powers": {names[i]: ability_label(state.spaces[i]) for i in seats if state.spaces[i]},
        }

    def seats(self, state: State) -> tuple[str, ...]:
        return state.players

    def after_end(self, state: State, line: Line) -> bool:
        return self._last_circles(state, line)

    def play(self, state: State, line: Line) -> State:
        handler: Callable[[State, int, Line], State] = {
            "line": self._draw,
            "ability": self._ability,
            "bribe": self._bribe,
            "buy": self._buy,
            "roll": self._roll,
            "place": self._place,
            "complete": self._complete,
            "swap": self._swap,
            "extend": self._extend,
        }[line.verb]
        seat = -1 if line.actor == TABLE else state.players.index(line.actor)
        return handler(state, seat, line)

    def prompt(self, state: State) -> Prompt | None:
        if state.ended:  # only the last player's full circles are still accepted
            extras = self._complete_extras(state)
            return Prompt(extras[0].actor, "Game over", (), extras, "score") if extras else None
        names = state.players
        if state.stage == "draw" or state.round_done:
            draw = Choice(f"draw {LINE}", Line(TABLE, "line"), f"leaves {state.bag - LINE}")
            return Prompt(TABLE, "Draw the line", (draw,), self._complete_extras(state), "line")
        if state.stage == "ability":
            seat = state.order[state.claimed]
            answers = tuple(  # the free space first; only the spaces apply's test lets through
                Choice(ability_label(space),
                       Line(names[seat], "ability", (str(space),)),
                       f"{cost} fish" if (cost := self._space_cost(state, space)) else "free")
                for space in range(SPACES, 0, -1) if self._space_refusal(state, seat, space) is None
            )
            question = f"{names[seat]}: ability? {state.fish[seat]} fish"
            return Prompt(names[seat], question, answers, (), "bribe")
        if state.stage == "bribe":
            seat = self._briber(state)
            answers = tuple(Choice(f"bear {k}", Line(names[seat], "bribe", (str(k),)))
                            for k in range(1, CIRCLES + 1) if self._bear_refusal(state, k) is None)
            return Prompt(names[seat], f"{names[seat]}: bribe a bear", answers, (), "bribe")
        turn = state.turn
        assert turn is not None
        if turn.placed:  # the placer may still use an ability and log full circles
            upcoming = Turn(state.order[(state.turn_index + 1) % len(state.order)])
            ask = self._roll_prompt(state, upcoming, self._ability_extras(state, turn.seat))
            # Once a full circle is logged, the step at hand may be the next one, in order.
            return replace(ask, topic="circles") if turn.completed else ask
        if self._must_roll(state, turn):
            return self._roll_prompt(state, turn, ())
        name = names[turn.seat]
        linked = Field("linked", 1, min(PER_COLOUR, state.board + 1))
        coloured = Field("coloured", 0, min(CIRCLES, state.board + 1))
        places = tuple(Form(f"circle {k}", name, "place", (linked, coloured), (str(k),))
                       for k in self._circles(state, turn))
        abilities = self._ability_extras(state, turn.seat)
        if turn.all_sixes:  # ability 1: any circle, or all the dice again (the player's choice)
            again = replace(self._dice(state, turn), by_device="Roll all again", chance="")
            return Prompt(name, f"{name}: 6s, place or roll", (again, *places), abilities, "roll",
                          likely=1)
        return Prompt(name, f"{name}: place in", places, abilities, "place")

    def preview(self, state: State, line: Line) -> str:
        """The fish sum of a placement, where a full circle's penguins go, and what a
        paid ability space or an extra die costs: shown for the player to confirm before
        logging."""
        if line.verb == "buy":
            return self._die_price(state, line)
        if line.verb == "place":
            return self._gain_sum(state, line)
        if line.verb == "complete":
            return self._escape_story(state, line)
        if line.verb == "ability":
            return self._space_price(state, line)
        return ""

    # --- helpers that read the state ---

    @staticmethod
    def _last_circles(state: State, line: Line) -> bool:
        """A full circle of the game's last placement: it still resolves after the end
        (records.md), and may even reopen the game by refilling the bag."""
        last = state.turn
        return line.verb == "complete" and last is not None and line.actor == state.players[last.seat]

    def _space_cost(self, state: State, space: int) -> int:
        """Fish to claim ``space``: each empty space above it, doubled with two players."""
        skipped = sum(1 for s in range(space + 1, SPACES + 1) if s not in state.spaces)
        return skipped * (2 if len(state.players) == 2 else 1)

    def _briber(self, state: State) -> int:
        """Whose bribery disk comes next: the new turn order, once per disk each."""
        return state.order[len(state.bribed) % len(state.order)]

    def _disks(self, state: State) -> int:
        """Bribery disks placed in all: two each with two players."""
        return len(state.players) * (2 if len(state.players) == 2 else 1)

    def _buy_cost(self, state: State, seat: int) -> int:
        return 2 if state.spaces[seat] == CHEAP_DIE else 3

    def _dice_count(self, state: State, turn: Turn) -> int:
        return 2 + (state.spaces[turn.seat] == THREE_DICE) + turn.bought

    def _must_roll(self, state: State, turn: Turn) -> bool:
        """No roll yet, or all sixes without ability 1: no die names a circle, so the only
        way on is to roll them all again (with ability 1 that is the player's choice)."""
        return not turn.dice or (turn.all_sixes and state.spaces[turn.seat] != WILD_SIXES)

    @staticmethod
    def _owner(state: State, turn: Turn, circle: int) -> int:
        """Whose a full circle is in the checking order: the seat whose bribery disk is on
        its bear; an unbribed one the current player's (house default)."""
        return next((seat for seat, circles in enumerate(state.bribes) if circle in circles), turn.seat)

    def _check_order(self, state: State, turn: Turn) -> list[int]:
        """The circles not yet logged this turn, in the order the rule text checks full
        circles: by their owners' turn order, earlier first; one player's in the order they
        like, listed with the circle just placed in first."""
        return sorted((k for k in range(1, CIRCLES + 1) if k not in turn.completed),
                      key=lambda k: (state.order.index(self._owner(state, turn, k)), k != turn.placed, k))

    def _order_refusal(self, state: State, turn: Turn, circle: int) -> OutOfOrder | None:
        """Why ``circle`` may no longer be logged full this turn, ``None`` when it may: a
        circle logged before it comes later in the checking order, and ``circle`` was already
        full when that one was resolved (removals only empty igloos)."""
        rank = state.order.index(self._owner(state, turn, circle))
        later = next((k for k in turn.completed if state.order.index(self._owner(state, turn, k)) > rank), None)
        if later is None:
            return None
        return OutOfOrder(f"circle {circle} is checked before circle {later}")

    def _circles(self, state: State, turn: Turn) -> tuple[int, ...]:
        """Circles the turn's dice allow, in order."""
        if DEAD in turn.dice and state.spaces[turn.seat] == WILD_SIXES:
            return tuple(range(1, CIRCLES + 1))
        return tuple(sorted({face for face in turn.dice if face != DEAD}))

    def _dice(self, state: State, turn: Turn) -> Roll:
        """The roll the turn's player makes now."""
        count = self._dice_count(state, turn)
        wild = state.spaces[turn.seat] == WILD_SIXES
        name = state.players[turn.seat]
        return Roll(name, "roll", (6,) * count, tuple(f"die {i}" for i in range(1, count + 1)),
                    label=name, chance="6s wild" if wild else "6 dead")

    def _ability_extras(self, state: State, seat: int) -> tuple[Form | Choice, ...]:
        """Swap and extend, while ``seat`` holds that ability unused and the line is not empty."""
        name = state.players[seat]
        if state.line == 0:
            return ()
        if state.spaces[seat] == SWAP and not state.swapped:
            return (Choice("swap two", Line(name, "swap"), "once/round"),)
        if state.spaces[seat] == EXTEND and not state.extended:
            return (Form("add to line", name, "extend", (Field("penguins", 0, min(EXTEND_MAX, state.bag)),)),)
        return ()

    def _roll_prompt(self, state: State, turn: Turn, before: tuple[Form | Choice, ...]) -> Prompt:
        """``turn``'s roll; before the first one, "buy a die?" when the player can pay.

        The extra die is optional, but it is asked first because it can only be bought
        before rolling: skipping the question is one press, rolling at once. The last
        placer's full circles are the likeliest extras, in the order they are checked; then
        the abilities (``before``: the placer's).
        """
        name = state.players[turn.seat]
        roll = self._dice(state, turn)
        extras = self._complete_extras(state) + before + self._ability_extras(state, turn.seat)
        cost = self._buy_cost(state, turn.seat)
        if turn.dice:
            return Prompt(name, f"{name}: all 6, roll again", (roll,), extras, "roll")
        if turn.bought or cost > state.fish[turn.seat]:
            return Prompt(name, f"{name}: roll {len(roll.sides)} dice", (roll,), extras, "roll")
        buy = Choice("Buy a die", Line(name, "buy"), f"{cost} fish")
        return Prompt(name, f"{name}: buy a die?", (buy, roll), extras, "roll")

    def _complete_extras(self, state: State) -> tuple[Form, ...]:
        """The placer's "full circle" forms, one a circle not yet logged this turn, in the
        order the rule text checks them (the placed circle first of its player's): the colour
        removed by name, and how many. A circle that may no longer come is still listed,
        marked, with the reason."""
        turn = state.turn
        if turn is None or not turn.placed or state.board < 2:
            return ()
        fields = (Field("colour", 1, len(state.colours), names=state.colours),
                  Field("out", 2, min(IGLOOS, state.board)))
        name = state.players[turn.seat]
        forms = []
        for circle in self._check_order(state, turn):
            refusal = self._order_refusal(state, turn, circle)
            forms.append(Form(f"full circle {circle}", name, "complete", fields, (str(circle),),
                              str(refusal) if refusal else "", "late" if refusal else ""))
        return tuple(forms)

    def _costs(self, state: State) -> list[int | None]:
        """In the bribe phase, what each space 1-7 costs the player choosing (None: taken)."""
        if state.stage != "ability":
            return []
        return [None if space in state.spaces else self._space_cost(state, space)
                for space in range(1, SPACES + 1)]

    def _placing(self, state: State) -> Turn | None:
        """The turn whose player has rolled and is about to place, if any."""
        turn = state.turn
        return None if turn is None or turn.placed or self._must_roll(state, turn) else turn

    @staticmethod
    def _gain_sum(state: State, line: Line) -> str:
        """``6 linked - 1 coloured`` / ``- 4 ability = 1 fish``, with the floor and the cap;
        the line break is where a small screen reads it best."""
        seat = state.players.index(line.actor)
        linked, coloured = int(line.args[1]), int(line.args[2])
        penalty = PENALTY[state.spaces[seat]]
        raw = linked - coloured - penalty
        told = f"{linked} linked - {coloured} coloured\n- {penalty} ability"
        if raw < 0:
            return f"{told} = {raw}: no fish"
        room = MAX_FISH - state.fish[seat]
        if raw > room:
            return f"{told} = {raw} fish\n{MAX_FISH} is the most: +{room}"
        return f"{told} = {raw} fish"

    @staticmethod
    def _escape_story(state: State, line: Line) -> str:
        """Where a full circle's penguins go: one to the briber, or out of the game."""
        circle, colour, count = int(line.args[0]), line.args[1], int(line.args[2])
        briber = next((state.players[s] for s, circles in enumerate(state.bribes) if circle in circles),
                      None)
        back = f"{count - 1} back to the bag."
        if briber is None:
            return f"No bribe: 1 {colour}\nleaves the game.\n{back}"
        return f"1 {colour} escapes\nto {briber}.\n{back}"

    def _die_price(self, state: State, line: Line) -> str:
        """An extra die's price, and what the player keeps (every fish cost is checked)."""
        seat = state.players.index(line.actor)
        cost = self._buy_cost(state, seat)
        return f"An extra die: pay {cost} fish, keep {state.fish[seat] - cost}."

    def _space_price(self, state: State, line: Line) -> str:
        """A paid ability space: its price and what the player keeps; "" when free."""
        space = int(line.args[0])
        cost = self._space_cost(state, space)
        if not cost:
            return ""
        fish = state.fish[state.players.index(line.actor)]
        return (f"Space {space}, {ABILITY[space]}: pay {cost} fish, keep {fish - cost}. "
                f"-{PENALTY[space]} on every gain.")

    # --- line handlers: each returns the new state, or raises ---

    def _draw(self, state: State, seat: int, line: Line) -> State:
        if not (state.stage == "draw" or state.round_done):
            raise OutOfStep("a line is drawn only when the last one is empty")
        count = len(state.players)
        return replace(state, rounds=state.rounds + 1, stage="ability", bag=state.bag - LINE,
                       line=LINE, spaces=(0,) * count, bribes=((),) * count, turn=None,
                       turn_index=0, swapped=False, extended=False)

    def _claim(self, state: State, seat: int, line: Line) -> int:
        """Checks shared by the bribe phase's two lines: the step, whose claim it is,
        and the one number (a space or a circle)."""
        if state.stage != line.verb:
            raise OutOfStep("ability spaces are claimed after the line is drawn, then "
                            "bears are bribed")
        expected = state.order[state.claimed] if line.verb == "ability" else self._briber(state)
        if seat != expected:
            raise NotYourTurn(f"it is {state.players[expected]}'s {line.verb} now")
        high, what = CLAIMS[line.verb]
        return number(line.args[0], 1, high, what)

    def _space_refusal(self, state: State, seat: int, space: int) -> IllegalLine | None:
        """Why ``seat`` may not claim ability ``space`` now; ``None`` when they may. The one
        test: apply raises it, and the prompt offers the spaces it lets through."""
        if space in state.spaces:
            return SpaceTaken(f"space {space} is already taken")
        cost = self._space_cost(state, space)
        if cost > state.fish[seat]:
            return TooFewFish(f"space {space} costs {cost} fish; "
                              f"{state.players[seat]} has {state.fish[seat]}")
        return None

    @staticmethod
    def _bear_refusal(state: State, circle: int) -> IllegalLine | None:
        """Why the bear of ``circle`` may not be bribed now; ``None`` when it may."""
        return BearTaken(f"the bear of circle {circle} is already bribed") if circle in state.bribed else None

    def _ability(self, state: State, seat: int, line: Line) -> State:
        space = self._claim(state, seat, line)
        refusal = self._space_refusal(state, seat, space)
        if refusal is not None:
            raise refusal
        cost = self._space_cost(state, space)
        state = replace(state, spaces=put(state.spaces, seat, space),
                        fish=put(state.fish, seat, state.fish[seat] - cost))
        if state.claimed < len(state.players):
            return state
        order = tuple(sorted(state.order, key=lambda s: state.spaces[s]))
        return replace(state, order=order, stage="bribe")

    def _bribe(self, state: State, seat: int, line: Line) -> State:
        circle = self._claim(state, seat, line)
        refusal = self._bear_refusal(state, circle)
        if refusal is not None:
            raise refusal
        state = replace(state, bribes=put(state.bribes, seat, state.bribes[seat] + (circle,)))
        if len(state.bribed) < self._disks(state):
            return state
        return replace(state, stage="turns", turn_index=0, turn=Turn(state.order[0]))

    def _own_turn(self, state: State, seat: int) -> State:
        """The state with ``seat``'s turn in progress, starting it if the previous
        player has placed; refuse a line from anyone else."""
        if state.stage != "turns":
            raise OutOfStep("that line belongs to the turns, after the bribes")
        turn = state.turn
        assert turn is not None
        if seat == turn.seat:
            return state
        if state.round_done:
            raise NotYourTurn("the line is empty: the table draws a new one")
        index = (state.turn_index + 1) % len(state.order)
        if turn.placed and seat == state.order[index]:
            return replace(state, turn_index=index, turn=Turn(seat))
        waiting = state.order[index] if turn.placed else turn.seat
        raise NotYourTurn(f"it is {state.players[waiting]}'s turn")

    def _before_placing(self, state: State, seat: int) -> tuple[State, Turn]:
        """``seat``'s turn in progress (see :meth:`_own_turn`), refused once they placed."""
        state = self._own_turn(state, seat)
        turn = state.turn
        assert turn is not None
        if turn.placed:
            raise AlreadyPlaced(f"{state.players[seat]} has already placed this turn")
        return state, turn

    def _buy(self, state: State, seat: int, line: Line) -> State:
        state, turn = self._before_placing(state, seat)
        if turn.bought:
            raise AlreadyBought("only one extra die a turn")
        if turn.dice:
            raise TooLateToBuy("the extra die is bought before the first roll")
        cost = self._buy_cost(state, seat)
        if cost > state.fish[seat]:
            raise TooFewFish(f"the extra die costs {cost} fish; {line.actor} has {state.fish[seat]}")
        return replace(state, turn=replace(turn, bought=True),
                       fish=put(state.fish, seat, state.fish[seat] - cost))

    def _roll(self, state: State, seat: int, line: Line) -> State:
        state, turn = self._before_placing(state, seat)
        if turn.dice and not turn.all_sixes:
            raise AlreadyRolled(f"{line.actor} has rolled: place the penguin")
        count = self._dice_count(state, turn)
        if len(line.args) != count:
            raise WrongDice(f"{line.actor} rolls {count} dice: write {count} faces")
        faces = tuple(number(arg, 1, 6, "a die face") for arg in line.args)
        return replace(state, turn=replace(turn, dice=faces))

    def _place(self, state: State, seat: int, line: Line) -> State:
        state, turn = self._before_placing(state, seat)
        if not turn.dice:
            raise NotRolled(f"{line.actor} must roll before placing")
        if self._must_roll(state, turn):
            raise RerollNeeded("all sixes name no circle without ability 1: roll them all again")
        circle = number(line.args[0], 1, CIRCLES, "a circle")
        linked = number(line.args[1], 1, PER_COLOUR, "the linked group")
        coloured = number(line.args[2], 0, CIRCLES, "the coloured igloos")
        if circle not in self._circles(state, turn):
            raise CircleNotRolled(f"no usable die names circle {circle}")
        if coloured > linked:
            raise BadGroup(f"a group of {linked} cannot hold {coloured} on coloured igloos")
        if linked > state.board + 1:
            raise BadGroup(f"the board holds only {counted(state.board + 1, 'penguin')} with this one")
        gain = max(0, linked - coloured - PENALTY[state.spaces[seat]])
        return replace(state, turn=replace(turn, placed=circle), line=state.line - 1,
                       board=state.board + 1,
                       fish=put(state.fish, seat, min(MAX_FISH, state.fish[seat] + gain)))

    def _complete(self, state: State, seat: int, line: Line) -> State:
        turn = state.turn
        if state.stage != "turns" or turn is None or seat != turn.seat:
            raise NotPlaced("a full circle is logged by the player who just placed")
        if not turn.placed:
            raise NotPlaced(f"{line.actor} must place before logging a full circle")
        circle = number(line.args[0], 1, CIRCLES, "a circle")
        if line.args[1] not in state.colours:
            raise NoSuchColour(f"{line.args[1]!r} is not a colour: {', '.join(state.colours)}")
        colour = state.colours.index(line.args[1])
        removed = number(line.args[2], 2, IGLOOS, "the penguins removed")
        if circle in turn.completed:
            raise CircleDone(f"circle {circle} was already logged this turn")
        refusal = self._order_refusal(state, turn, circle)
        if refusal is not None:
            raise refusal
        if removed > state.board:
            raise TooManyRemoved(f"the board holds only {counted(state.board, 'penguin')}")
        state = replace(state, turn=replace(turn, completed=turn.completed + (circle,)),
                        board=state.board - removed, bag=state.bag + removed - 1)
        briber = next((s for s, circles in enumerate(state.bribes) if circle in circles), None)
        if briber is None:  # nobody bribed that bear: the one penguin is lost, not freed
            return replace(state, gone=state.gone + 1)
        counts = state.escaped[briber]
        return replace(state, escaped=put(state.escaped, briber, put(counts, colour, counts[colour] + 1)))

    def _use_ability(self, state: State, seat: int, space: int) -> State:
        """Checks shared by swap and extend; the state with ``seat``'s turn in progress."""
        if state.round_done:
            raise LineEmpty("the line is empty")
        state = self._own_turn(state, seat)
        name = state.players[seat]
        if state.spaces[seat] != space:
            raise NotYourAbility(f"{name} does not hold ability {space} this round")
        if state.swapped if space == SWAP else state.extended:
            raise AbilityUsed(f"ability {space} is used once a round")
        return state

    def _swap(self, state: State, seat: int, line: Line) -> State:
        state = self._use_ability(state, seat, SWAP)
        return replace(state, swapped=True)

    def _extend(self, state: State, seat: int, line: Line) -> State:
        state = self._use_ability(state, seat, EXTEND)
        count = number(line.args[0], 0, EXTEND_MAX, "the penguins added")
        if count > state.bag:
            raise BagShort(f"the bag holds only {counted(state.bag, 'penguin')}")
        return replace(state, extended=True, bag=state.bag - count, line=state.line + count)
