"""Gleeb's and Grues: grue setup, placement, gleeb and grue steps, pins, meals and scores.

Everything sits on a 4x4 board in plain sight, so the engine tracks the whole game
(RULES.md section 4, records.md ``gleebs-and-grues``).

Squares are named ``a1``..``d4`` (column letter, row number). Inside the engine a square is
an index 0..15 in reading order by rows: ``a1`` = 0, ``b1`` = 1, ... ``d4`` = 15. A stack is
a tuple of pieces, bottom to top; a pinned stack is one whose top is a grue (``K1``..``K3``)
with gleebs under it, and a free grue is a stack of just that grue.

>>> game = GleebsAndGrues()
>>> s = game.start(("Ann", "Bob"), game.option_values({}))
>>> s = game.apply(s, Line("table", "grues", ("b2", "c3", "d4")))
>>> s = game.apply(s, Line("Ann", "place", ("B1", "a1")))
>>> game.next_actor(s), game.details(s)["scores"]
('Bob', {'Ann': 1, 'Bob': 0})
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from enum import StrEnum
from itertools import permutations
from typing import Any, ClassVar, Final, Literal, TypedDict

from companion.games.base import (
    RESERVED_NAMES,
    TABLE,
    TABLE_ONLY,
    BadArguments,
    Game,
    Grid,
    IllegalLine,
    Line,
    NotYourTurn,
    OptionSpec,
    Outcome,
    Prompt,
    Roll,
    Summary,
    UnknownVerb,
    Verb,
    valueclass,
)
from companion.games.frozen import replace

SIZE = 4
SQUARES: tuple[str, ...] = tuple(f"{'abcd'[i % SIZE]}{i // SIZE + 1}" for i in range(SIZE * SIZE))
INDEX: Mapping[str, int] = {name: i for i, name in enumerate(SQUARES)}
ALL_SQUARES = range(SIZE * SIZE)
#: The squares a piece on each square can reach: its row and column, any distance, over
#: anything (so the only thing that matters is where it lands).
REACH: tuple[tuple[int, ...], ...] = tuple(
    tuple(j for j in range(SIZE * SIZE)
          if j != i and (j % SIZE == i % SIZE or j // SIZE == i // SIZE))
    for i in range(SIZE * SIZE)
)
#: Colour letters by seat: the first seat is blue and yellow, the second green and red,
#: whoever moves first.
COLOURS: tuple[tuple[str, str], tuple[str, str]] = (("B", "Y"), ("G", "R"))
OWNER: Mapping[str, int] = {c: seat for seat, pair in enumerate(COLOURS) for c in pair}
COLOUR_NAMES: Mapping[str, str] = {"B": "blue", "Y": "yellow", "G": "green", "R": "red"}
GRUE = "K"
GRUES: tuple[str, str, str] = ("K1", "K2", "K3")
GLEEBS: tuple[str, ...] = tuple(f"{c}{n}" for pair in COLOURS for c in pair for n in (1, 2, 3))

Stack = tuple[str, ...]
Board = tuple[Stack, ...]
EMPTY_BOARD: Board = ((),) * (SIZE * SIZE)

#: The pending step, named after the verb that answers it (plus the end).
Step = Literal["grues", "place", "move", "grue", "over"]
GRUES_STEP: Final = "grues"
PLACE: Final = "place"
MOVE: Final = "move"
GRUE_STEP: Final = "grue"
OVER: Final = "over"
#: The summary's phase (records.md).
SummaryPhase = Literal["placement", "movement", "over"]
WHAT: Mapping[Step, str] = {
    GRUES_STEP: "put the grues on the board",
    PLACE: "place a gleeb",
    MOVE: "move a gleeb",
    GRUE_STEP: "move a grue",
}
#: The summary's phase of each step: setting the grues belongs to the placement phase.
PHASES: Mapping[Step, SummaryPhase] = {GRUES_STEP: "placement", PLACE: "placement", MOVE: "movement",
                             GRUE_STEP: "movement", OVER: OVER}
NAME = re.compile(r"[A-Za-z0-9_-]{1,12}")


class WrongStep(UnknownVerb):
    """A known verb at the wrong moment: a ``place`` in the movement phase, a ``grue``
    line while the gleeb step is pending."""


class NotPlaying(IllegalLine):
    """The ``first`` option names someone who is not in the game."""


class NotYourPiece(IllegalLine):
    """A placement of the other player's gleeb, or of a grue."""


class AlreadyPlaced(IllegalLine):
    """A placement of a gleeb that is already on the board."""


class SquareTaken(IllegalLine):
    """A placement (or a grue set up) on a square that is not empty."""


class NoStackOfYours(IllegalLine):
    """A gleeb step from a square that holds no stack topped by the player's colours."""


class NotInLine(IllegalLine):
    """A step that does not go straight along a row or a column."""


class BadLanding(IllegalLine):
    """A gleeb step ending on an empty square, a same-colour gleeb, a grue or a pin."""


class NotAFreeGrue(IllegalLine):
    """A grue step from a square without a free grue (empty, a gleeb, or a pinned stack)."""


class GrueLanding(IllegalLine):
    """A grue step ending on a grue, a pinned stack or a gleeb of another size."""


class CaptureRequired(IllegalLine):
    """A grue step to an empty square while some grue could land on a gleeb."""


# --- reading pieces and stacks ---


def size(piece: str) -> int:
    """The pips of a piece: ``Y3`` -> 3."""
    return int(piece[1])


def is_gleeb(piece: str) -> bool:
    """Whether a piece is a gleeb (not a grue)."""
    return piece[0] != GRUE


def is_free_grue(stack: Stack) -> bool:
    """A grue standing alone; it may still move."""
    return len(stack) == 1 and stack[0][0] == GRUE


def is_pinned(stack: Stack) -> bool:
    """A stack of gleebs under a grue: it never moves again and counts as a grue."""
    return len(stack) > 1 and stack[-1][0] == GRUE


def controller(stack: Stack) -> int | None:
    """The seat whose colour tops an unpinned stack, or ``None`` (empty, grue, pinned)."""
    if not stack or not is_gleeb(stack[-1]):
        return None
    return OWNER[stack[-1][0]]


def square(token: str) -> int:
    """A square name as an index, or :class:`BadArguments`."""
    if token not in INDEX:
        raise BadArguments(f"{token!r} is not a square (a1-d4)")
    return INDEX[token]


# --- what can move where (pure functions of the board, shared by apply, prompt and AI) ---


def gleeb_lands(mover: str, target: Stack) -> bool:
    """Whether a stack topped by ``mover`` may land on ``target``."""
    return bool(target) and is_gleeb(target[-1]) and target[-1][0] != mover[0]


def grue_lands(grue: str, target: Stack) -> bool:
    """Whether ``grue`` may land on ``target`` (empty, or topped by a gleeb of its size)."""
    return not target or (is_gleeb(target[-1]) and size(target[-1]) == size(grue))


def gleeb_moves(board: Board, seat: int, froms: Iterable[int] = ALL_SQUARES) -> Iterator[tuple[int, int]]:
    """Every (from, to) gleeb step open to ``seat`` (from the squares ``froms`` only)."""
    for a in froms:
        stack = board[a]
        if controller(stack) == seat:
            for b in REACH[a]:
                if gleeb_lands(stack[-1], board[b]):
                    yield a, b


def can_move_gleeb(board: Board, seat: int) -> bool:
    """Whether ``seat`` has any gleeb step (the end check asks this of both players)."""
    return next(gleeb_moves(board, seat), None) is not None


def grue_moves(board: Board) -> tuple[tuple[int, int], ...]:
    """Every legal (from, to) grue step: only landings on gleebs when there are any."""
    landings: list[tuple[int, int]] = []
    walks: list[tuple[int, int]] = []
    for a, stack in enumerate(board):
        if is_free_grue(stack):
            for b in REACH[a]:
                if grue_lands(stack[0], board[b]):
                    (landings if board[b] else walks).append((a, b))
    return tuple(landings or walks)


def pip_score(board: Board, seat: int) -> int:
    """The score ``seat`` would get now: every pip in the unpinned stacks it tops."""
    return sum(size(p) for stack in board if controller(stack) == seat for p in stack)


def controls_a_stack(board: Board, seat: int) -> bool:
    """Whether ``seat`` still tops some unpinned stack."""
    return any(controller(stack) == seat for stack in board)


def unplaced(board: Board, seat: int) -> tuple[str, ...]:
    """``seat``'s gleebs not yet on the board (nothing is eaten while they are placed)."""
    on_board = {piece for stack in board for piece in stack}
    return tuple(p for p in GLEEBS if OWNER[p[0]] == seat and p not in on_board)


# --- what a legal step does (shared by apply and the computer player's search) ---

#: A few words about some squares of the board picture (column, row from 1).
Notes = tuple[tuple[tuple[int, int], str], ...]
#: Where a game stands after a step: the pending step, its seat, and with ``over`` the
#: winner (``None``: the grues win).
Phase = tuple[Step, int, int | None]


def moved(board: Board, a: int, b: int, landed: Stack) -> Board:
    """The board with square ``a`` emptied and ``b`` holding ``landed``."""
    out = list(board)
    out[a], out[b] = (), landed
    return tuple(out)


def place_step(board: Board, mover: int, piece: str, where: int) -> tuple[Board, Phase]:
    """The board and phase after ``mover`` legally puts ``piece`` on the square ``where``."""
    board = board[:where] + ((piece,),) + board[where + 1:]
    if sum(map(len, board)) < len(GLEEBS) + len(GRUES):
        return board, (PLACE, 1 - mover, None)
    # Twelve placements alternate, so the first player is on move again.
    return board, settle(board, MOVE, 1 - mover)


def gleeb_step(board: Board, mover: int, a: int, b: int) -> tuple[Board, Phase]:
    """The board and phase after ``mover``'s legal gleeb step: the whole stack lands on top."""
    board = moved(board, a, b, board[b] + board[a])
    return board, settle(board, GRUE_STEP, mover)


def grue_step(board: Board, mover: int, a: int, b: int) -> tuple[Board, Phase, Stack]:
    """The board and phase after ``mover``'s legal grue step, and the gleeb eaten, if any."""
    grue, target = board[a][0], board[b]
    meal: Stack = ()
    if len(target) == 1:  # a lone gleeb: eaten, the grue stands there and stays free
        board, meal = moved(board, a, b, (grue,)), target
    else:  # a walk, or a stack pinned for good
        board = moved(board, a, b, target + (grue,))
    phase = end_of_turn(board, mover)
    if phase[0] != OVER:
        phase = settle(board, phase[0], phase[1])
    return board, phase, meal


def end_of_turn(board: Board, mover: int) -> Phase:
    """The end check of a movement turn; otherwise the other player's turn."""
    if not can_move_gleeb(board, 0) and not can_move_gleeb(board, 1):
        scores = (pip_score(board, 0), pip_score(board, 1))
        return OVER, mover, None if scores[0] == scores[1] else scores.index(max(scores))
    losing = [seat for seat in (0, 1) if not controls_a_stack(board, seat)]
    if len(losing) == 1:
        return OVER, mover, 1 - losing[0]
    return MOVE, 1 - mover, None


def settle(board: Board, step: Step, mover: int) -> Phase:
    """Skip steps that have no legal move (they write no line), ending turns as they go.

    This always stops: skipping changes nothing on the board, and a game that is not
    over leaves some player a gleeb step, so within two turns someone must move.
    """
    while True:
        if step == MOVE and not can_move_gleeb(board, mover):
            step = GRUE_STEP
        elif step == GRUE_STEP and not grue_moves(board):
            step, mover, winner = end_of_turn(board, mover)
            if step == OVER:
                return step, mover, winner
        else:
            return step, mover, None


def board_pick(label: str, actor: str, verb: str, legal: tuple[Line, ...],
               prefix: tuple[str, ...] = (), notes: Notes = (), refusals: Notes = ()) -> Grid:
    """Squares picked on the board picture: one for a placement (after the piece named in
    ``prefix``), two for a step (from, to), with ``refusals`` for the squares no step
    starts on. The cursor starts on a legal first square."""
    first = legal[0].args[len(prefix)] if legal else "a1"
    return Grid(label, actor, verb, SIZE, SIZE, legal, steps=1 if prefix else 2, spell="alg",
                prefix=prefix, start=("abcd".index(first[0]) + 1, int(first[1])), notes=notes,
                refusals=refusals)


def at_square(i: int) -> tuple[int, int]:
    """A square of the engine (0..15) as the board picture's (column, row)."""
    return i % SIZE + 1, i // SIZE + 1


class Termination(StrEnum):
    """How a game of Gleeb's and Grues ends (checked at the end of a movement turn)."""

    SCORED = "no gleeb can move: scored"
    GRUES_WIN = "the grues win"  # scored, and a tie
    NO_STACK = "a player has no stack left"


class Details(TypedDict):
    """The summary keys of records.md, then extra ones for the screens."""

    phase: SummaryPhase
    board: dict[str, list[str]]
    pinned: list[str]
    eaten: list[str]
    scores: dict[str, int]
    #: Who places and moves first.
    first: str


class GleebsSummary(Summary, Details):
    """A Gleeb's and Grues summary, as the screens read it."""


def parse_first(value: str) -> str:
    """The ``first`` option: a player's name; "" (the default) means the first seat.

    Whether the name is in the game is checked when the game starts.
    """
    if value and (not NAME.fullmatch(value) or value in RESERVED_NAMES):
        raise ValueError(f"{value!r} is not a player's name")
    return value


@valueclass
class State:
    """A game in progress. Seats are 0 (blue and yellow) and 1 (green and red)."""

    players: tuple[str, str]
    first: int  # seat that places first and moves first
    board: Board = EMPTY_BOARD
    eaten: tuple[str, ...] = ()
    step: Step = GRUES_STEP
    mover: int = 0  # seat whose step is pending (unused while the table sets the grues)
    winner: int | None = None  # with step over: None means the grues win


class GleebsAndGrues(Game[State, GleebsSummary]):
    """Two players stack gleebs while three grues eat or pin them; the engine keeps it all."""

    id: ClassVar[str] = "gleebs-and-grues"
    title: ClassVar[str] = "Gleeb's and Grues"
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 2
    verbs: ClassVar[Mapping[str, Verb]] = {
        GRUES_STEP: Verb(("S1 S2 S3",), TABLE_ONLY),
        PLACE: Verb(("PIECE SQUARE",)),
        MOVE: Verb(("FROM TO",)),
        GRUE_STEP: Verb(("FROM TO",)),
    }
    options: ClassVar[Mapping[str, OptionSpec]] = {
        "first": OptionSpec("", parse_first, "who places and moves first (default: first seat)"),
    }
    starter: ClassVar[str] = "first"
    pages: ClassVar[Mapping[str, str]] = {
        "": "Two players, three grues on a 4x4 board. First seat: blue+yellow gleebs, "
            "second seat: green+red. Stack your gleebs on others; grues eat lone gleebs "
            "and pin stacks. The most pips in stacks you top wins. A tie: the grues win.",
        "setup": "The small, medium and large grue (K1 K2 K3) go on three random squares: "
                 "the box picks them, or the table does and enters them. Columns a-d, rows 1-4.",
        "place": "Take turns putting one of your gleebs on an empty square, first player "
                 "first, until all 12 are down. One square stays empty.",
        "move": "Your turn, step 1: move one stack topped by your colour straight along "
                "a row or column, any distance, over anything. It must land on a stack "
                "topped by a gleeb of another colour (your other colour is fine). A stack "
                "counts as its top piece. No such move: the step is skipped.",
        "grue": "Step 2: move one free grue the same way, onto an empty square or a "
                "gleeb-topped stack of the grue's size. If any grue can land on a gleeb, "
                "one must. A lone gleeb is eaten; a taller stack is pinned for good and "
                "counts as a grue. Nothing lands on grues or pins. No move: skipped.",
        "end": "After each turn, also one whose steps were skipped (house default): if "
               "no one can move a gleeb, score. Else a player with no stack left loses. "
               "Score: the pips of every piece in unpinned stacks your colours top; a "
               "lone gleeb is a stack of one (house default). Higher score wins; a tie, "
               "or nothing left, means the grues win.",
    }

    # --- the contract ---

    def start(self, players: tuple[str, ...], options: Mapping[str, Any]) -> State:
        first = options["first"] or players[0]
        if first not in players:
            raise NotPlaying(f"option first: {first} is not playing")
        return State(players=(players[0], players[1]), first=players.index(first))

    def outcome(self, state: State) -> Outcome | None:
        if state.step != OVER:
            return None
        if state.winner is None:
            return Outcome(Termination.GRUES_WIN)
        # end_of_turn scores the board when nobody can move a gleeb; else a stackless loses.
        scored = not any(can_move_gleeb(state.board, seat) for seat in (0, 1))
        return Outcome(Termination.SCORED if scored else Termination.NO_STACK,
                       (state.players[state.winner],))

    def details(self, state: State) -> Details:
        board = state.board
        by_name = sorted(range(len(board)), key=lambda i: SQUARES[i])  # a1, a2, ... d4
        return {
            "phase": PHASES[state.step],
            "board": {SQUARES[i]: list(board[i]) for i in by_name if board[i]},
            "pinned": [SQUARES[i] for i in by_name if is_pinned(board[i])],
            "eaten": list(state.eaten),
            "scores": {name: pip_score(board, seat) for seat, name in enumerate(state.players)},
            "first": state.players[state.first],
        }

    def seats(self, state: State) -> tuple[str, ...]:
        return state.players

    def play(self, state: State, line: Line) -> State:
        handler = {
            GRUES_STEP: self._set_grues,
            PLACE: self._place,
            MOVE: self._move_gleeb,
            GRUE_STEP: self._move_grue,
        }[line.verb]
        actor = self._actor(state)
        if line.actor != actor:
            raise NotYourTurn(f"{self._who(actor)} must {WHAT[state.step]} now")
        if line.verb != state.step:
            raise WrongStep(f"{self._who(actor)} must {WHAT[state.step]} first")
        return handler(state, line)

    def prompt(self, state: State) -> Prompt | None:
        if state.step == OVER:
            return None
        actor = self._actor(state)
        if state.step == GRUES_STEP:
            # A fair pick of three different squares: a roll of three 16-sided dice whose
            # faces are the squares, rolled again until they differ; or picked on the board.
            board = board_pick("Set the grues", TABLE, GRUES_STEP, self.legal_lines(state))
            roll = Roll(TABLE, GRUES_STEP, (SIZE * SIZE,) * len(GRUES), GRUES, label="Set the grues",
                        reroll_refused=True, names=SQUARES, by_device="Random squares",
                        by_hand="Enter squares", board=replace(board, steps=len(GRUES)))
            return Prompt(TABLE, "Grues: which squares?", (roll,), topic="setup")
        legal = self.legal_lines(state)
        if state.step == PLACE:
            # The largest pyramids first: they score most, and go down while safe squares
            # are left (what the companion's own search prefers).
            pieces = sorted(unplaced(state.board, state.mover), key=lambda piece: -size(piece))
            grids = tuple(board_pick(f"Place {piece}", actor, PLACE,
                                     tuple(line for line in legal if line.args[0] == piece), (piece,))
                          for piece in pieces)
            return Prompt(actor, f"{actor}: place a gleeb", grids, topic=PLACE)
        what = "gleeb" if state.step == MOVE else "grue"
        grid = board_pick(f"Move a {what}", actor, state.step, legal, notes=self._notes(state),
                          refusals=self._start_refusals(state, legal))
        return Prompt(actor, f"{actor}: move a {what}", (grid,), topic=state.step)

    # --- for computer players ---

    def legal_lines(self, state: State) -> tuple[Line, ...]:
        """Every legal line for the pending step (empty when the game is over)."""
        if state.step == OVER:
            return ()
        board, actor = state.board, self._actor(state)
        if state.step == GRUES_STEP:
            return tuple(Line(TABLE, GRUES_STEP, tuple(SQUARES[i] for i in trio))
                         for trio in permutations(range(SIZE * SIZE), len(GRUES)))
        if state.step == PLACE:
            empty = [SQUARES[i] for i, stack in enumerate(board) if not stack]
            return tuple(Line(actor, PLACE, (piece, where))
                         for piece in unplaced(board, state.mover) for where in empty)
        if state.step == MOVE:
            return tuple(self._line(actor, MOVE, a, b) for a, b in gleeb_moves(board, state.mover))
        return tuple(self._line(actor, GRUE_STEP, a, b) for a, b in grue_moves(board))

    # --- helpers that read the state ---

    @staticmethod
    def _actor(state: State) -> str:
        return TABLE if state.step == GRUES_STEP else state.players[state.mover]

    @staticmethod
    def _who(actor: str) -> str:
        return "the table" if actor == TABLE else actor

    @staticmethod
    def _notes(state: State) -> Notes:
        """What stands on each occupied square, top first, for the board's side: ``B3 G1``
        and whose it is with its pips, ``pinned``, or ``free grue``."""
        out = []
        for i, stack in enumerate(state.board):
            if not stack:
                continue
            seat = controller(stack)
            if seat is not None:
                worth = sum(size(p) for p in stack)
                owner = f"{state.players[seat]}: {worth} pip{'' if worth == 1 else 's'}"
            else:
                owner = "pinned" if is_pinned(stack) else "free grue"
            out.append((at_square(i), " ".join(reversed(stack)) + "\n" + owner))
        return tuple(out)

    @staticmethod
    def _line(actor: str, verb: str, a: int, b: int) -> Line:
        return Line(actor, verb, (SQUARES[a], SQUARES[b]))

    # --- line handlers: each returns the new state, or raises ---

    def _set_grues(self, state: State, line: Line) -> State:
        where = tuple(square(token) for token in line.args)
        if len(set(where)) < len(where):
            raise SquareTaken("the three grues need three different squares")
        board = list(EMPTY_BOARD)
        for grue, i in zip(GRUES, where):
            board[i] = (grue,)
        return replace(state, board=tuple(board), step=PLACE, mover=state.first)

    def _place(self, state: State, line: Line) -> State:
        piece, where = line.args[0], square(line.args[1])
        if piece in GRUES:
            raise NotYourPiece("the grues are already on the board")
        if piece not in GLEEBS:
            raise BadArguments(f"{piece!r} is not a gleeb: B1-B3 Y1-Y3 G1-G3 R1-R3")
        if OWNER[piece[0]] != state.mover:
            raise NotYourPiece(f"{piece} belongs to {state.players[OWNER[piece[0]]]}")
        if piece not in unplaced(state.board, state.mover):
            raise AlreadyPlaced(f"{piece} is already on the board")
        if state.board[where]:
            raise SquareTaken(f"{SQUARES[where]} is not empty")
        return _at(state, *place_step(state.board, state.mover, piece, where))

    def _move_gleeb(self, state: State, line: Line) -> State:
        a, b = square(line.args[0]), square(line.args[1])
        # Legal means generated, as python-chess decides is_legal: the rest only says why not.
        if (a, b) in gleeb_moves(state.board, state.mover, (a,)):
            return _at(state, *gleeb_step(state.board, state.mover, a, b))
        raise self._gleeb_refusal(state, a, b)

    @staticmethod
    def _not_yours(state: State, a: int) -> NoStackOfYours | None:
        """Why the mover may not move the stack on ``a`` at all, if they may not."""
        if controller(state.board[a]) != state.mover:
            return NoStackOfYours(f"{SQUARES[a]} holds no stack you control")
        return None

    def _start_refusals(self, state: State, legal: tuple[Line, ...]) -> Notes:
        """Why no step of the pending kind starts on each square that none does: said as
        soon as the square is picked, before any destination."""
        starts = {line.args[0] for line in legal}
        board = state.board
        # The grue step's legal moves all land on gleebs, or none does (all walks).
        landings = [(INDEX[line.args[0]], INDEX[line.args[1]]) for line in legal
                    if board[INDEX[line.args[1]]]] if state.step == GRUE_STEP else []
        out = []
        for i, name in enumerate(SQUARES):
            if name in starts:
                continue
            if state.step == MOVE:
                why: IllegalLine = self._not_yours(state, i) or BadLanding(
                    f"the stack on {name} has nowhere to land")
            else:
                why = self._not_free(board, i) or (
                    self._capture_required(board, i, landings) if landings
                    else GrueLanding(f"{board[i][0]} on {name} has nowhere to go"))
            out.append((at_square(i), str(why)))
        return tuple(out)

    def _gleeb_refusal(self, state: State, a: int, b: int) -> IllegalLine:
        """Why the gleeb step from ``a`` to ``b``, which the moves do not include, is refused."""
        board = state.board
        not_yours = self._not_yours(state, a)
        if not_yours is not None:
            return not_yours
        if b not in REACH[a]:
            return NotInLine("a stack moves straight along a row or column")
        top, target = board[a][-1], board[b]
        if not target:
            return BadLanding("a gleeb must land on another gleeb")
        if not is_gleeb(target[-1]):
            return BadLanding("nothing can land on a grue or a pinned stack")
        return BadLanding(f"{top} cannot land on another {COLOUR_NAMES[top[0]]} gleeb")

    def _move_grue(self, state: State, line: Line) -> State:
        a, b = square(line.args[0]), square(line.args[1])
        # Legal means generated (compulsory captures included): the rest only says why not.
        if (a, b) in grue_moves(state.board):
            return _at(state, *grue_step(state.board, state.mover, a, b))
        raise self._grue_refusal(state.board, a, b)

    @staticmethod
    def _not_free(board: Board, a: int) -> NotAFreeGrue | None:
        """Why no grue may move from ``a`` at all, if none may."""
        if is_free_grue(board[a]):
            return None
        if is_pinned(board[a]):
            return NotAFreeGrue(f"the grue on {SQUARES[a]} is pinned for good")
        return NotAFreeGrue(f"{SQUARES[a]} holds no free grue")

    def _grue_refusal(self, board: Board, a: int, b: int) -> IllegalLine:
        """Why the grue step from ``a`` to ``b``, which the moves do not include, is refused."""
        not_free = self._not_free(board, a)
        if not_free is not None:
            return not_free
        if b not in REACH[a]:
            return NotInLine("a grue moves straight along a row or column")
        grue, target = board[a][0], board[b]
        if target and not is_gleeb(target[-1]):
            return GrueLanding("nothing can land on a grue or a pinned stack")
        if not grue_lands(grue, target):
            return GrueLanding(f"{grue} can only land on a size-{size(grue)} gleeb, "
                               f"not {target[-1]}")
        # A walk to an empty square, while some grue can land on a gleeb.
        return self._capture_required(board, a, [(x, y) for x, y in grue_moves(board) if board[y]])

    @staticmethod
    def _capture_required(board: Board, a: int, landings: list[tuple[int, int]]) -> CaptureRequired:
        """The refusal of a grue step while some grue can land on a gleeb: it names a landing
        of the grue on ``a`` when it has one, else another grue's."""
        x, y = next(((x, y) for x, y in landings if x == a), landings[0])
        verb = "eat" if len(board[y]) == 1 else "pin"
        return CaptureRequired(f"a grue must land on a same-size gleeb: "
                               f"{board[x][0]} can {verb} at {SQUARES[y]}")



def _at(state: State, board: Board, phase: Phase, meal: Stack = ()) -> State:
    """``state`` moved on to ``board`` and ``phase``, with ``meal`` eaten on the way."""
    step, mover, winner = phase
    return replace(state, board=board, step=step, mover=mover, winner=winner,
                   eaten=state.eaten + meal)
