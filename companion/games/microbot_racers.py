"""Microbot Racers: health, laps, first player, action picks, execution and checks.

The track stays on the table; the engine keeps everything that changes tracked state
(RULES.md section 3, records.md ``microbot-racers``).

>>> game = MicrobotRacers()
>>> s = game.start(("Ann", "Bob"), game.option_values({}))
>>> s = game.apply(s, Line("table", "roll", ("3", "2")))
>>> game.details(s)["p1"], game.next_actor(s)
('Bob', 'Bob')
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from enum import StrEnum
from typing import Any, ClassVar, Literal, TypedDict

from companion.games.base import (
    EITHER,
    TABLE,
    BadArguments,
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
    expect_args,
    number,
    valueclass,
)
from companion.games.frozen import replace

EASY = ("move-1", "move-2", "move-3", "drift-left", "drift-right", "turn-left", "turn-right", "repair")
HARD = EASY + ("jump-2", "jump-3")
#: The action card's two sides (the ``side`` option), and the actions on each.
Side = Literal["easy", "hard"]
SIDES: Mapping[Side, tuple[str, ...]] = {"easy": EASY, "hard": HARD}
PICK_ORDER = (0, 1, 1, 0, 0, 1)  # 0 = P1, 1 = P2
FULL_HEALTH = 6
#: The kind of each action on the card (:func:`kind`), looked up on every action line.
KIND = {action: action.partition("-")[0] for action in HARD}
#: The actions that only some earlier action allows (jumps and drifts, :func:`can_do`).
AFTER = frozenset(action for action in HARD if KIND[action] in ("jump", "drift"))
MOVE_LENGTH = {"move-1": 1, "move-2": 2, "move-3": 3}  # none may be longer than the health
MOVING = ("move", "drift", "jump")  # kinds of action that travel (and so can hit things)
DURING = ("hazard", "impact", "lap", "switch")  # lines that belong to the action in progress
#: Where a turn stands: deciding P1, picking, doing the picks, the turn done, the race over.
Phase = Literal["first", "pick", "do", "done", "over"]
#: A pending roll: ``hazard`` or ``jump`` for the acting robot, ``puddle`` for the other one
#: (a switch left it on a puddle); "" for none.
Check = Literal["hazard", "jump", "puddle", ""]
#: The last switch of the action in progress: ``open`` until the other robot logs its puddle
#: for it, then ``logged``; "" with no switch in this action.
Switch = Literal["open", "logged", ""]
#: The handler of each verb outside an action in progress, by name.
HANDLERS = {"roll": "_first_roll", "first": "_claim_first", "pick": "_pick", "pass": "_pick",
            "do": "_do"}


class Termination(StrEnum):
    """How a race ends (at once, in the middle of an action)."""

    LAPS = "laps done"
    WRECKED = "the other robot wrecked"
    BOTH_WRECKED = "both robots wrecked"


class Loss(StrEnum):
    """Why a picked action was forfeited this turn, as a refusal says it."""

    NO_MOVE_YET = "no run-up before a first move"
    AFTER_TURN = "no run-up since the turn"
    AFTER_DRIFT = "no run-up since the drift"
    AFTER_JUMP = "no run-up since the jump"
    DRIFT_AGAIN = "no forward move since the drift"
    BLOCK = "the robot hit a block"
    ROBOT = "the robot ran into the other robot"
    MISSED = "the jump failed"


#: What broke a jump's run-up, by the kind of the robot's last movement (a move keeps it).
NO_RUN_UP = {"": Loss.NO_MOVE_YET, "turn": Loss.AFTER_TURN, "drift": Loss.AFTER_DRIFT,
             "jump": Loss.AFTER_JUMP}
DRIFT_AGAIN = Loss.DRIFT_AGAIN  # (an enum member looked up once: a class attribute is slow)


class Details(TypedDict):
    """The summary keys of records.md, then extra ones for the screens."""

    turn: int
    health: dict[str, int]
    laps: dict[str, int]
    privilege: dict[str, bool]
    p1: str | None
    phase: Phase
    #: Each player's picked actions not yet carried out this turn.
    picked: dict[str, list[str]]
    laps_to_win: int


class RaceSummary(Summary, Details):
    """A Microbot Racers summary, as the screens read it."""


class NoRunUp(IllegalLine):
    """A jump whose robot made no forward move since its last turn, drift or jump."""


class DriftTooSoon(IllegalLine):
    """A drift with no forward move since the robot's last drift."""


class SpaceTaken(IllegalLine):
    """An action space that already holds a marker this turn."""


class TooFast(IllegalLine):
    """A move-N picked with N above the robot's health."""


class CheckPending(IllegalLine):
    """A line other than the roll that a hazard or jump is waiting for."""


class WrongRoller(CheckPending):
    """A roll by the robot whose check is not the pending one."""


class NotActing(IllegalLine):
    """A hazard, impact, lap or switch for a robot that is not carrying out an action."""


class NotTravelling(NotActing):
    """A hazard, impact, lap or switch during a turn or a repair, which do not travel."""


class NoSwitch(NotActing):
    """A puddle for the robot that is not acting, with no switch in the action to cause it."""


class PuddleLogged(IllegalLine):
    """A second puddle check for the robot that is not acting after the same switch."""


class Forfeited(IllegalLine):
    """An action picked this turn but lost: it could no longer be carried out when its robot's
    turn to act came, or the robot stopped (an impact, a failed jump)."""


class PrivilegeSpent(IllegalLine):
    """A second use of the once-per-race privilege, or one that comes too late."""


def kind(action: str) -> str:
    """``move-2`` -> ``move``; ``drift-left`` -> ``drift``; ``repair`` -> ``repair``."""
    return action.partition("-")[0]


def parse_laps(value: str) -> int:
    """The ``laps`` option: 1-9."""
    return number(value, 1, 9, "laps")


def parse_side(value: str) -> Side:
    """The ``side`` option: easy or hard."""
    for side in SIDES:
        if value == side:
            return side
    raise ValueError(f"side must be easy or hard, not {value!r}")


def fastest_move(answers: Sequence[Choice]) -> int:
    """Where a pick starts: on the longest move still free that the robot's health allows
    (a race is won by moving; the engine already leaves out moves longer than the health).

    >>> fastest_move([Choice(a, Line("Ann", "pick", (a,))) for a in ("move-1", "move-2", "turn-left")])
    1
    """
    moves = [i for i, a in enumerate(answers) if a.line.args and kind(a.line.args[0]) == "move"]
    return max(moves, key=lambda i: int(answers[i].line.args[0].rsplit("-", 1)[1]), default=0)


def chance(successes: int) -> str:
    """Percentage of a d6 roll succeeding, as players say it."""
    return f"{round(100 * max(0, successes) / 6)}%"


@valueclass
class Robot:
    """One robot's tracked state."""

    health: int = FULL_HEALTH
    laps: int = 0
    privilege: bool = True
    #: Kind of the robot's last action that moved or turned it (``move``, ``drift``,
    #: ``jump``, ``turn``; "" before any), across turns: a jump needs a ``move`` there. A
    #: repair moves nothing and leaves it (RULES.md: it keeps the run-up).
    last_move: str = ""
    #: False from a drift until the next forward move.
    may_drift: bool = True
    #: Picked actions not yet carried out this turn.
    left: tuple[str, ...] = ()


@valueclass
class State:
    """A race in progress. Seats are 0 and 1; ``p1`` is a seat."""

    players: tuple[str, str]
    laps: int
    side: Side
    robots: tuple[Robot, Robot] = (Robot(), Robot())
    turn: int = 1
    phase: Phase = "first"
    p1: int | None = None
    rolled: bool = False  # a first-player roll was made this turn (so no privilege now)
    claims: tuple[int, ...] = ()
    picks: tuple[tuple[int, str], ...] = ()  # (seat, action or "pass") this turn
    to_act: int = 1  # whose action comes next in the alternation
    acting: int | None = None  # seat of the action in progress (for hazard/impact/lap)
    action: str = ""
    halted: bool = False  # the action in progress was stopped by an impact or failed jump
    lapped: bool = False
    check: Check = ""
    switch: Switch = ""
    winner: int | None = None  # seat; None with phase over is a draw
    #: Picks lost this turn, in the order they were lost: (seat, action, why).
    lost: tuple[tuple[int, str, Loss], ...] = ()


def set_robot(robots: tuple[Robot, Robot], seat: int, robot: Robot) -> tuple[Robot, Robot]:
    """The pair with ``seat``'s robot replaced by ``robot``."""
    return (robot, robots[1]) if seat == 0 else (robots[0], robot)


def can_do(robot: Robot, action: str) -> bool:
    """Whether the robot may carry out this picked action now."""
    how = KIND.get(action) or kind(action)
    if how == "jump":
        return robot.last_move == "move"
    if how == "drift":
        return robot.may_drift
    return True


def loss(robot: Robot, action: str) -> Loss:
    """Why the robot cannot carry out this jump or drift now."""
    return NO_RUN_UP[robot.last_move] if KIND[action] == "jump" else DRIFT_AGAIN


def forfeits(robot: Robot, seat: int, why: Loss) -> tuple[tuple[int, str, Loss], ...]:
    """Every action the robot has left, lost for ``why`` (it stopped)."""
    return tuple([(seat, action, why) for action in robot.left])


def stuck_lost(before: tuple[Robot, Robot], after: tuple[Robot, Robot]) -> tuple[tuple[int, str, Loss], ...]:
    """The picks :meth:`MicrobotRacers._next_action` found can no longer be carried out:
    every robot it replaced lost what it had left, each for its reason. (Told apart by
    identity, so that the usual action, where nothing is lost, costs nothing more; and
    written plainly, as it comes in one turn of four of a long race.)"""
    lost: tuple[tuple[int, str, Loss], ...] = ()
    for seat in (0, 1):
        robot = before[seat]
        if after[seat] is not robot:
            lost += tuple([(seat, action, loss(robot, action)) for action in robot.left])
    return lost


def stuck(robot: Robot) -> bool:
    """Whether the robot has picks left and can carry out none of them now."""
    for action in robot.left:
        if action not in AFTER or can_do(robot, action):
            return False
    return bool(robot.left)


class MicrobotRacers(Game[State, RaceSummary]):
    """Two robots race; the companion keeps health, laps, picks and checks."""

    id: ClassVar[str] = "microbot-racers"
    title: ClassVar[str] = "Microbot Racers"
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 2
    verbs: ClassVar[Mapping[str, Verb]] = {
        # The table's first-player roll, or a player's roll for a pending check.
        "roll": Verb(("A B", "F"), EITHER),
        "first": Verb(),
        "pick": Verb(("ACTION",)),
        "pass": Verb(),
        "do": Verb(("ACTION", "repair pit")),
        "hazard": Verb(),
        "impact": Verb(("block|robot",)),
        "lap": Verb(),
        "switch": Verb(),
    }
    options: ClassVar[Mapping[str, OptionSpec]] = {
        "laps": OptionSpec("3", parse_laps, "Laps to win",
                           tuple(str(n) for n in range(1, 10))),
        "side": OptionSpec("easy", parse_side, "Action card side", ("easy", "hard")),
    }
    pages: ClassVar[Mapping[str, str]] = {
        "": "Race your robot round the track on the table. First to finish the agreed laps "
            "wins (house default: 3 laps), or be the last robot still working. "
            "Both robots wrecked at once: a draw (house default).",
        "first": "Both roll a die: the lower roll is P1 for this turn; a tie rolls again. "
                 "Once per race each player may take P1 without rolling. If both take it "
                 "in the same turn, both lose it and you roll (house default).",
        "pick": "Pick actions in the order P1, P2, P2, P1, P1, P2. Each space of the "
                "action card takes one marker a turn. You may pass. You may not pick a "
                "move longer than your health. The card's spaces are a house default: "
                "move-1 to 3, drift and turn left or right, repair; the hard side adds "
                "jump-2 and jump-3.",
        "do": "Carry out your picks one at a time, P2 first, then in turn, in any order. "
              "If none left can be done at your go, they are lost (house default).\n"
              "Jump: needs a run-up, a forward move as the robot's last movement, even "
              "last turn's. A repair keeps it. A turn, a drift or a jump breaks it (house "
              "default).\n"
              "Drift: a forward move between two drifts, even across turns (house "
              "default). Forward: a move, even one stopped at once, or a landed jump "
              "(house default).\n"
              "Repair: +1 health, up to 6 (house default); on a pit stop, full health.\n"
              "While a robot travels, log its hazards, hits, lap and switches.",
        "hazard": "A puddle or ramp: roll under your health or lose 1 health. A switch "
                  "that puts your own robot on a puddle is a hazard of that action "
                  "(house default).",
        "puddle": "A blue switch changes the track: the table makes the change and moves "
                  "the robots (the box keeps no positions). Left on a puddle, the other "
                  "robot checks: roll under its own health or lose 1. One check a switch, "
                  "even if the mover crashed after it (house default).",
        "jump": "A jump: roll under your health minus 1. A miss costs 1 health in all "
                "(house default): the robot stays put and loses its other actions this turn.",
        "impact": "Hitting a block or leaving the track: -1 health, stop, lose the rest of "
                  "your actions. Hitting the other robot: both -1, and only you stop.",
        "lap": "Log a lap when your robot crosses the start line going the right way "
               "(house default).",
    }

    # --- the contract ---

    def start(self, players: tuple[str, ...], options: Mapping[str, Any]) -> State:
        return State(players=(players[0], players[1]), laps=options["laps"], side=options["side"])

    def outcome(self, state: State) -> Outcome | None:
        if state.phase != "over":
            return None
        if state.winner is None:
            return Outcome(Termination.BOTH_WRECKED)
        # As _settle finds the end: a wreck before a lap.
        wrecked = any(robot.health == 0 for robot in state.robots)
        ending = Termination.WRECKED if wrecked else Termination.LAPS
        return Outcome(ending, (state.players[state.winner],))

    def details(self, state: State) -> Details:
        names = state.players
        return {
            "turn": state.turn,
            "health": {names[i]: r.health for i, r in enumerate(state.robots)},
            "laps": {names[i]: r.laps for i, r in enumerate(state.robots)},
            "privilege": {names[i]: r.privilege for i, r in enumerate(state.robots)},
            "p1": None if state.p1 is None else names[state.p1],
            "phase": state.phase,
            "picked": {names[i]: list(r.left) for i, r in enumerate(state.robots)},
            "laps_to_win": state.laps,
        }

    def seats(self, state: State) -> tuple[str, ...]:
        return state.players

    def play(self, state: State, line: Line) -> State:
        verb = line.verb
        seat = -1 if line.actor == TABLE else state.players.index(line.actor)
        if state.check:
            roller = self._roller(state)
            who = state.players[roller]
            if line.verb == "roll" and seat not in (-1, roller):
                raise WrongRoller(f"the {state.check} check is {who}'s: {who} rolls")
            if line.verb != "roll" or seat != roller:
                raise CheckPending(f"{who} must roll for the {state.check} first")
            return self._settle(self._roll_check(state, line))
        if verb in DURING:
            if state.acting is None:
                raise NotActing("no robot is carrying out an action")
            return self._settle(self._during_action(state, seat, line))
        if state.phase == "done" and verb in ("roll", "first"):
            state = self._new_turn(state)
        handler: Callable[[State, int, Line], State] = getattr(self, HANDLERS[verb])
        return handler(state, seat, line)  # each settles what it must

    def prompt(self, state: State) -> Prompt | None:
        if state.phase == "over":
            return None
        names = state.players
        if state.check:
            seat = self._roller(state)
            need = self._needed(state.robots[seat].health, state.check)
            what = state.check.capitalize()
            return Prompt(
                actor=names[seat],
                question=f"{what}: 1-{need - 1} is safe" if need > 1 else f"{what}: cannot succeed",
                answers=(Roll(names[seat], "roll", (6,), (names[seat],), label=what,
                              chance=chance(need - 1)),),
                topic=state.check,
            )
        extras = self._action_extras(state)
        if state.phase in ("first", "done"):
            claims = tuple(
                Choice(f"{names[s]} P1", Line(names[s], "first"), "once per race")
                for s in (0, 1)
                if self._may_claim(state, s)
            )
            roll = Roll(TABLE, "roll", (6, 6), names, label="Roll for P1", chance="P1: lower")
            # The lines of the action just carried out first: they are logged far more
            # often than the once-a-race privilege.
            return Prompt(TABLE, "Who is P1 this turn?", (roll,), extras + claims, "first")
        if state.phase == "pick":
            picker = self._picker(state)
            mine = sum(1 for s, _ in state.picks if s == picker) + 1
            answers = tuple(  # the actions apply's own test lets through
                Choice(a, Line(names[picker], "pick", (a,))) for a in SIDES[state.side]
                if self._pick_refusal(state, picker, a) is None
            ) + (Choice("pass", Line(names[picker], "pass")),)
            claims = tuple(
                Choice(f"{names[s]} P1", Line(names[s], "first"), "both lose it")
                for s in (0, 1) if self._may_claim(state, s)
            )
            return Prompt(names[picker], f"{names[picker]}: pick {mine} of 3", answers,
                          claims, "pick", fastest_move(answers))
        seat = state.to_act
        robot = state.robots[seat]
        doable: list[Choice] = []
        waiting: list[Choice] = []  # picked, but not yet possible: struck out, with the reason
        for action in dict.fromkeys(robot.left):
            line = Line(names[seat], "do", (action,))
            refusal = self._do_refusal(robot, names[seat], action)
            if refusal is not None:
                waiting.append(Choice(action, line, refusal=str(refusal)))
                continue
            hint = f"{chance(robot.health - 2)} to land" if kind(action) == "jump" else ""
            doable.append(Choice(action, line, hint))
            if action == "repair":
                doable.append(Choice("pit repair", Line(names[seat], "do", ("repair", "pit")),
                                     "to full"))
        return Prompt(names[seat], f"{names[seat]}: do an action", (*doable, *waiting), extras, "do")

    # --- helpers that read the state ---

    @staticmethod
    def _needed(health: int, check: Check) -> int:
        """A roll must be below this to succeed."""
        return health - 1 if check == "jump" else health

    @staticmethod
    def _roller(state: State) -> int:
        """The seat whose check is pending: the acting robot's, or the other's puddle."""
        assert state.acting is not None
        return 1 - state.acting if state.check == "puddle" else state.acting

    def _picker(self, state: State) -> int:
        order = PICK_ORDER[len(state.picks)]
        assert state.p1 is not None
        return state.p1 if order == 0 else 1 - state.p1

    def _may_claim(self, state: State, seat: int) -> bool:
        if not state.robots[seat].privilege:
            return False
        if state.phase == "done":
            return True
        if state.rolled or state.picks:
            return False
        return state.phase == "first" or (state.phase == "pick" and len(state.claims) == 1)

    def _action_extras(self, state: State) -> tuple[Choice, ...]:
        """Optional lines that belong to the action in progress."""
        seat = state.acting
        if seat is None or kind(state.action) not in MOVING:
            return ()
        out = []
        if state.switch == "open":  # first: a switch is most often logged for this
            other = state.players[1 - seat]
            out.append(Choice(f"{other} puddle", Line(other, "hazard"),
                              f"{chance(state.robots[1 - seat].health - 1)} safe"))
        if state.halted:  # an impact ends the action: nothing more is logged for it
            return tuple(out)
        name = state.players[seat]
        out += [
            Choice(f"{name} hazard", Line(name, "hazard"),
                   f"{chance(state.robots[seat].health - 1)} safe"),
            Choice(f"{name} crash", Line(name, "impact", ("block",)), "-1, stop"),
            Choice(f"{name} bump", Line(name, "impact", ("robot",)), "both -1"),
        ]
        if not state.lapped:
            lap = state.robots[seat].laps + 1
            out.append(Choice(f"{name} lap", Line(name, "lap"), f"lap {lap}/{state.laps}"))
        out.append(Choice(f"{name} switch", Line(name, "switch")))
        return tuple(out)

    def _pick_refusal(self, state: State, seat: int, action: str) -> IllegalLine | None:
        """Why ``seat`` may not pick ``action`` now; ``None`` when they may. The one test:
        apply raises it, and the pick prompt offers the actions it lets through."""
        if action not in SIDES[state.side]:
            return BadArguments(f"{action!r} is not on the {state.side} side of the action card")
        if (0, action) in state.picks or (1, action) in state.picks:  # either seat's marker
            return SpaceTaken(f"{action} already holds a marker this turn")
        robot = state.robots[seat]
        if MOVE_LENGTH.get(action, 0) > robot.health:
            return TooFast(f"{action} is longer than {state.players[seat]}'s health of {robot.health}")
        return None

    @staticmethod
    def _do_refusal(robot: Robot, name: str, action: str) -> IllegalLine | None:
        """Why the robot may not carry out ``action`` now; ``None`` when it may (apply
        raises it; the prompt offers the picked actions it lets through)."""
        if action not in robot.left:
            return IllegalLine(f"{name} has no {action} picked this turn")
        if can_do(robot, action):
            return None
        if kind(action) == "jump":
            # Short, as the screen says it under a struck-out action (two lines of the panel).
            return NoRunUp(f"{action}: {loss(robot, action)}")
        return DriftTooSoon(f"{action}: a forward move first")

    @staticmethod
    def _lost(state: State, seat: int, action: str) -> Forfeited | None:
        """The refusal of an action ``seat`` lost this turn: the reason it was lost, which
        comes before any other (whoever's go it is, even once the turn is over)."""
        why = next((why for s, lost, why in state.lost if s == seat and lost == action), None)
        return None if why is None else Forfeited(f"{state.players[seat]}'s {action} was forfeited: {why}")

    # --- line handlers: each returns the new state, or raises ---
    # The last pick ends the picks and a roll or an action's line may end the race or the
    # action, so those states go through _settle. A first-player roll or claim does none of
    # that, and a do works out who acts next itself (and cannot end the race).

    def _new_turn(self, state: State) -> State:
        return replace(state, turn=state.turn + 1, phase="first", p1=None, rolled=False,
                       claims=(), picks=(), acting=None, action="", halted=False, lapped=False,
                       switch="", lost=())

    def _first_roll(self, state: State, seat: int, line: Line) -> State:
        if seat != -1:
            raise NotYourTurn("the first-player roll is the table's: write 'table roll A B'")
        if state.phase != "first":
            raise IllegalLine("P1 is already decided this turn")
        expect_args(line, 2, "A B")
        a = number(line.args[0], 1, 6, "a die face")
        b = number(line.args[1], 1, 6, "a die face")
        if a == b:
            return replace(state, rolled=True)
        return replace(state, rolled=True, p1=0 if a < b else 1, phase="pick")

    def _claim_first(self, state: State, seat: int, line: Line) -> State:
        name = state.players[seat]
        if not state.robots[seat].privilege:
            raise PrivilegeSpent(f"{name} has already used the take-P1 privilege")
        if not self._may_claim(state, seat):
            raise PrivilegeSpent("the privilege is only for the start of a turn, before any roll or pick")
        robots = set_robot(state.robots, seat, replace(state.robots[seat], privilege=False))
        if state.claims:
            return replace(state, robots=robots, claims=state.claims + (seat,), p1=None, phase="first")
        return replace(state, robots=robots, claims=(seat,), p1=seat, phase="pick")

    def _pick(self, state: State, seat: int, line: Line) -> State:
        if state.phase != "pick":
            raise IllegalLine("picks come after P1 is decided and before any action")
        picker = self._picker(state)
        if seat != picker:
            raise NotYourTurn(f"it is {state.players[picker]}'s pick")
        if line.verb == "pass":
            state = replace(state, picks=state.picks + ((seat, "pass"),))
        else:
            action = line.args[0]
            refusal = self._pick_refusal(state, seat, action)
            if refusal is not None:
                raise refusal
            robot = state.robots[seat]
            robots = set_robot(state.robots, seat, replace(robot, left=robot.left + (action,)))
            state = replace(state, picks=state.picks + ((seat, action),), robots=robots)
        return self._settle(state) if len(state.picks) == len(PICK_ORDER) else state

    def _do(self, state: State, seat: int, line: Line) -> State:
        if len(line.args) == 2 and line.args == ("repair", "pit"):
            action, pit = "repair", True
        else:
            expect_args(line, 1, "ACTION")
            action, pit = line.args[0], False
        if state.phase != "do":
            raise self._lost(state, seat, action) or IllegalLine("actions are carried out after all six picks")
        if seat != state.to_act:
            raise self._lost(state, seat, action) or NotYourTurn(f"it is {state.players[state.to_act]}'s action")
        robot = state.robots[seat]
        refusal = self._do_refusal(robot, state.players[seat], action)
        if refusal is not None:
            raise self._lost(state, seat, action) or refusal
        how = KIND.get(action) or kind(action)
        left = list(robot.left)
        left.remove(action)
        changes: dict[str, Any] = {"left": tuple(left)}
        if how == "repair":
            changes["health"] = FULL_HEALTH if pit else min(FULL_HEALTH, robot.health + 1)
        else:  # a repair moves nothing: the run-up stays
            changes["last_move"] = how
        if how == "move":
            changes["may_drift"] = True
        elif how == "drift":
            changes["may_drift"] = False
        robots = set_robot(state.robots, seat, replace(robot, **changes))
        to_act, phase, lost = 1 - seat, "do", state.lost
        if how != "jump":  # (a jump's roll comes first) who acts next, in the same copy
            settled, to_act, phase = self._next_action(robots, to_act)
            if settled is not robots:
                lost += stuck_lost(robots, settled)
            robots = settled
        return replace(state, robots=robots, acting=seat, action=action, halted=False,
                       lapped=False, switch="", to_act=to_act, phase=phase, lost=lost,
                       check="jump" if how == "jump" else "")

    def _roll_check(self, state: State, line: Line) -> State:
        expect_args(line, 1, "F")
        face = number(line.args[0], 1, 6, "a die face")
        seat = self._roller(state)
        robot = state.robots[seat]
        if face < self._needed(robot.health, state.check):
            if state.check == "jump":
                robots = set_robot(state.robots, seat, replace(robot, may_drift=True))
                return replace(state, robots=robots, check="")
            return replace(state, check="")
        if state.check == "jump":  # a missed jump also loses the robot's other actions
            robots = set_robot(state.robots, seat, replace(robot, health=robot.health - 1, left=()))
            return replace(state, robots=robots, check="", acting=None, action="",
                           lost=state.lost + forfeits(robot, seat, Loss.MISSED))
        robots = set_robot(state.robots, seat, replace(robot, health=robot.health - 1))
        return replace(state, robots=robots, check="")

    def _during_action(self, state: State, seat: int, line: Line) -> State:
        acting = state.acting
        assert acting is not None
        if seat != acting:
            if line.verb == "hazard" and seat == 1 - acting:
                return self._puddle(state, seat, line)
            raise NotActing(f"only {state.players[acting]}'s robot is acting now")
        name = state.players[seat]
        if kind(state.action) not in MOVING:
            raise NotTravelling(f"{name}'s {state.action} does not travel: no hazard, impact, "
                                "lap or switch in it")
        if state.halted:  # records.md: after an impact nothing more is logged for that action
            raise NotActing(f"{name}'s robot has already stopped")
        if line.verb == "switch":
            return replace(state, switch="open")
        if line.verb == "lap":
            if state.lapped:
                raise IllegalLine(f"{name} already logged a lap in this action")
            laps = state.robots[seat].laps + 1
            robot = replace(state.robots[seat], laps=laps)
            return replace(state, robots=set_robot(state.robots, seat, robot), lapped=True)
        if line.verb == "hazard":
            return replace(state, check="hazard")
        what = line.args[0]
        if what not in ("block", "robot"):
            raise BadArguments("an impact is with a 'block' or the other 'robot'")
        robot = state.robots[seat]
        robots = set_robot(state.robots, seat, replace(robot, health=robot.health - 1, left=()))
        if what == "robot":
            other = robots[1 - seat]
            robots = set_robot(robots, 1 - seat, replace(other, health=other.health - 1))
        lost = forfeits(robot, seat, Loss.ROBOT if what == "robot" else Loss.BLOCK)
        return replace(state, robots=robots, halted=True, lost=state.lost + lost)

    def _puddle(self, state: State, seat: int, line: Line) -> State:
        """The other robot's puddle after a switch: once a switch, then its roll is pending.

        A switch logged before an impact still counts (house default): the track changed
        and the other robot sits on the puddle whatever happened to the acting one after.
        """
        name, actor = state.players[seat], state.players[1 - seat]
        if state.switch == "open":
            return replace(state, check="puddle", switch="logged")
        if state.switch == "logged":
            raise PuddleLogged(f"{name}'s puddle for {actor}'s last switch is already logged")
        raise NoSwitch(f"{actor} is the one acting: {name} checks a puddle only after "
                       f"{actor} logs a switch")

    def _settle(self, state: State) -> State:
        """Find the end of the race, forfeit picks that cannot be done, pass the turn."""
        robots = state.robots
        if robots[0].health == 0 or robots[1].health == 0:
            alive = [i for i, robot in enumerate(robots) if robot.health > 0]
            return replace(state, phase="over", winner=alive[0] if alive else None, check="")
        if robots[0].laps >= state.laps or robots[1].laps >= state.laps:
            return replace(state, phase="over", winner=0 if robots[0].laps >= state.laps else 1,
                           check="")
        to_act = state.to_act
        if state.phase == "pick":
            if len(state.picks) < len(PICK_ORDER):
                return state
            assert state.p1 is not None
            to_act = 1 - state.p1  # the six picks are made: P2 acts first
        elif state.phase != "do" or state.check:
            return state
        settled, to_act, phase = self._next_action(robots, to_act)
        if settled is robots and to_act == state.to_act and phase == state.phase:
            return state
        lost = state.lost + stuck_lost(robots, settled) if settled is not robots else state.lost
        return replace(state, robots=settled, to_act=to_act, phase=phase, lost=lost)

    @staticmethod
    def _next_action(robots: tuple[Robot, Robot], to_act: int) -> tuple[tuple[Robot, Robot], int, Phase]:
        """Who acts next in the do phase, ``to_act`` if it can: picks that can no longer be
        carried out are lost, a robot with no picks left is passed over, and with none left
        the turn is ``done``. The robots (changed only by lost picks, and then a new pair with
        a new robot for each that lost them), the seat and the phase."""
        if stuck(robots[0]) or stuck(robots[1]):
            first, second = (replace(robot, left=()) if stuck(robot) else robot for robot in robots)
            robots = (first, second)
        if not robots[to_act].left:
            if not robots[1 - to_act].left:
                return robots, to_act, "done"
            to_act = 1 - to_act
        return robots, to_act, "do"
