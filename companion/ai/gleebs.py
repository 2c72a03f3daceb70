"""Gleeb's and Grues for the computer: iterative deepening alpha-beta with a transposition table.

The search steps through positions with the engine's own pure step functions
(:func:`place_step`, :func:`gleeb_step`, :func:`grue_step`), so it plays by exactly the
rules the engine checks, and its answer is always one of the engine's ``legal_lines``.

A node is a board, the pending step and the seat whose step it is. Values are in tenths
of a pip from that seat's point of view; a seat keeps the turn from its gleeb step to its
grue step, so a child's value is negated only when the seat changes. The game ends within
about 44 steps (each turn stacks or feeds), so the search is exact whenever an iteration
reaches every end: in the endgame, soon. A proven result is a value beyond ``WON``: a win
found that way is a win against every defence, and the search plays the fastest one.

Placement has 6 pieces times up to 13 squares per step, far too many to see the end, so
there a static evaluation judges the leaves (see :func:`evaluate`).

>>> from companion.games.gleebs_and_grues import INDEX, State
>>> board = [()] * 16
>>> for square, stack in {"a1": ("B1",), "a2": ("G1",), "d4": ("K1",)}.items():
...     board[INDEX[square]] = stack
>>> position = State(("Ann", "Bob"), 0, tuple(board), step="move")
>>> result = Search(0.5).best(position.board, position.step, position.mover)
>>> result.move, result.value > WON   # B1 onto G1 and Bob has nothing left: a win
(('move', 0, 4), True)
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from companion.ai import Advice
from companion.exc import OutOfTime
from companion.games.base import Line
from companion.games.gleebs_and_grues import (
    GLEEBS,
    GRUE,
    GRUE_STEP,
    GRUES_STEP,
    MOVE,
    OVER,
    PLACE,
    REACH,
    SQUARES,
    Board,
    GleebsAndGrues,
    Phase,
    State,
    Step,
    controller,
    gleeb_moves,
    gleeb_step,
    grue_moves,
    grue_step,
    is_free_grue,
    place_step,
    size,
    unplaced,
)

#: A step: (verb, from, to); a placement is (PLACE, index of the piece in GLEEBS, square).
Move = tuple[str, int, int]
Node = tuple[Board, Step, int]

WIN = 100_000
WON = WIN - 1_000  # beyond this, a value is a proven end (a win or a loss in so many steps)
MAX_DEPTH = 60  # more steps than any game has left
RESOLVED = 1_000  # the depth stored for a result that saw every end below it
TABLE_SIZE = 100_000  # entries kept: a few tens of MB; a Pi fills a few thousand in its budget
CHECK_EVERY = 64  # nodes between looks at the clock: a few ms here, tens on a Pi

EXACT, LOWER, UPPER = 0, 1, 2
PIECE = {piece: i for i, piece in enumerate(GLEEBS)}

ENGINE = GleebsAndGrues()


@dataclass(frozen=True)
class Result:
    """The search's answer: a move, its value for the seat to move, and how far it looked."""

    move: Move
    value: int
    depth: int  # steps ahead of the last iteration that finished (or was cut short)
    exact: bool  # every line was followed to the end of the game
    nodes: int
    seconds: float


def children(board: Board, step: Step, mover: int) -> list[tuple[Move, Board, Phase]]:
    """Every legal step from a node, with the board and phase it leads to."""
    if step == PLACE:
        empty = [i for i, stack in enumerate(board) if not stack]
        return [((PLACE, PIECE[piece], where), *place_step(board, mover, piece, where))
                for piece in unplaced(board, mover) for where in empty]
    if step == MOVE:
        return [((MOVE, a, b), *gleeb_step(board, mover, a, b)) for a, b in gleeb_moves(board, mover)]
    return [((GRUE_STEP, a, b), *grue_step(board, mover, a, b)[:2]) for a, b in grue_moves(board)]


def evaluate(board: Board, mover: int) -> int:
    """A position's worth to ``mover`` in tenths of a pip, when the search cannot see its end.

    Per stack, for the seat that tops it:

    - its pips (what the score would be now); in placement that favours putting the big
      pyramids down early, while safe squares are left: it beat counting the pieces still
      to place as well (30-22);
    - half its pips lost when its top is the size of a free grue in line with it: the
      next grue step will likely eat or pin it;
    - two fifths of the pips of the richest stack of the other seat it could land on,
      and a little for each landing it has: stacks that can take are worth more.

    The terms and weights won matches between versions of the search (30 grue set-ups,
    both seats, 3000 nodes a move, wins-losses): risk and landings against pips alone
    46-11, adding the capture term 36-19, two fifths against one fifth 35-23.
    """
    grues = [(i, size(stack[0])) for i, stack in enumerate(board) if is_free_grue(stack)]
    worth = [0, 0]
    for i, stack in enumerate(board):
        seat = controller(stack)
        if seat is None:
            continue
        top = stack[-1]
        pips = sum(size(p) for p in stack)
        at_risk = any(grue == size(top) and i in REACH[at] for at, grue in grues)
        landings, richest = 0, 0
        for j in REACH[i]:
            target = board[j]
            if target and target[-1][0] not in (GRUE, top[0]):
                landings += 1
                if controller(target) != seat:
                    richest = max(richest, sum(size(p) for p in target))
        worth[seat] += (5 if at_risk else 10) * pips + 4 * richest + landings
    return worth[mover] - worth[1 - mover]


class Search:
    """One search with a time budget (and, for tests, a node budget)."""

    def __init__(self, seconds: float, clock: Callable[[], float] = time.perf_counter,
                 max_nodes: int | None = None) -> None:
        self.seconds = seconds
        self.clock = clock
        self.max_nodes = max_nodes
        self.table: dict[Node, tuple[int, int, int, Move | None]] = {}
        self.nodes = 0
        self.horizon = 0  # leaves judged by evaluate (or by a shallow stored result)
        self.deadline = 0.0
        self.timed = False  # the clock is watched from the second iteration on

    def best(self, board: Board, step: Step, mover: int) -> Result:
        """The best move for ``mover``; the first iteration always finishes."""
        start = self.clock()
        self.deadline = start + self.seconds
        moves = children(board, step, mover)
        if not moves:
            raise ValueError("no legal step here")
        if len(moves) == 1:  # nothing to choose: look only to say how it stands
            self.deadline = start + self.seconds / 10
        found: tuple[Move, int, int, bool] | None = None
        for depth in range(1, MAX_DEPTH + 1):
            self.timed = depth > 1
            horizon = self.horizon
            try:
                move, value = self._root(moves, mover, depth, found[0] if found else None)
            except OutOfTime as cut:
                if cut.args:  # part of this iteration: its best so far is no worse
                    move, value = cut.args[0]
                    found = (move, value, depth, False)
                break
            exact = self.horizon == horizon
            found = (move, value, depth, exact)
            if exact or abs(value) > WON:
                break
        assert found is not None
        move, value, depth, exact = found
        return Result(move, value, depth, exact, self.nodes, self.clock() - start)

    def _root(self, moves: list[tuple[Move, Board, Phase]], mover: int, depth: int,
              first: Move | None) -> tuple[Move, int]:
        """One iteration over the root's moves, the last iteration's best first."""
        ordered = sorted(moves, key=lambda m: m[0] != first)
        best: tuple[Move, int] | None = None
        alpha = -WIN - 1
        for move, board, (step, seat, winner) in ordered:
            try:
                value = self._child(board, step, seat, winner, mover, depth - 1, alpha, WIN + 1, 1)
            except OutOfTime:
                if best is None:
                    raise
                raise OutOfTime(best) from None
            if best is None or value > best[1]:
                best = (move, value)
                alpha = max(alpha, value)
        assert best is not None
        return best

    def _child(self, board: Board, step: Step, seat: int, winner: int | None, mover: int,
               depth: int, alpha: int, beta: int, ply: int) -> int:
        """A child's value for ``mover``, the seat that made the step leading to it."""
        if step == OVER:
            value = 0 if winner is None else WIN - ply if winner == mover else ply - WIN
            return value
        if seat == mover:
            return self._search(board, step, seat, depth, alpha, beta, ply)
        return -self._search(board, step, seat, depth, -beta, -alpha, ply)

    def _search(self, board: Board, step: Step, mover: int, depth: int, alpha: int, beta: int,
                ply: int) -> int:
        self.nodes += 1
        if self.timed and self.nodes % CHECK_EVERY == 0:
            self._check()
        key = (board, step, mover)
        entry = self.table.get(key)
        hint: Move | None = None
        if entry is not None:
            stored_depth, stored, flag, hint = entry
            if stored_depth >= depth:
                value = _from_table(stored, ply)
                if (flag == EXACT or (flag == LOWER and value >= beta)
                        or (flag == UPPER and value <= alpha)):
                    if stored_depth < RESOLVED:
                        self.horizon += 1
                    return value
        if depth <= 0:
            self.horizon += 1
            return evaluate(board, mover)
        horizon = self.horizon
        moves = children(board, step, mover)
        moves.sort(key=lambda m: _order(m, board, mover, hint), reverse=True)
        best, best_move, low = -WIN - 1, None, alpha
        for move, child, (child_step, seat, winner) in moves:
            value = self._child(child, child_step, seat, winner, mover, depth - 1, alpha, beta, ply + 1)
            if value > best:
                best, best_move = value, move
                if value > alpha:
                    alpha = value
                    if alpha >= beta:
                        break
        flag = UPPER if best <= low else LOWER if best >= beta else EXACT
        if len(self.table) >= TABLE_SIZE:
            self.table.clear()
        resolved = self.horizon == horizon
        self.table[key] = (RESOLVED if resolved else depth, _to_table(best, ply), flag, best_move)
        return best

    def _check(self) -> None:
        if self.clock() >= self.deadline or (self.max_nodes is not None and self.nodes >= self.max_nodes):
            raise OutOfTime()


def _order(item: tuple[Move, Board, Phase], board: Board, mover: int, hint: Move | None) -> int:
    """Try the stored best move first, then steps that take or feed on the other seat's pips."""
    move, _, (step, _, winner) = item
    if move == hint:
        return 1_000_000
    if step == OVER:
        return 500_000 if winner == mover else -500_000
    verb, _a, b = move
    if verb == PLACE:
        return 0
    target = board[b]
    if not target:
        return 0
    pips = sum(size(p) for p in target)
    return pips if controller(target) != mover else -pips


def _to_table(value: int, ply: int) -> int:
    """Proven ends are stored counted from the node, not from the root."""
    if value > WON:
        return value + ply
    if value < -WON:
        return value - ply
    return value


def _from_table(value: int, ply: int) -> int:
    if value > WON:
        return value - ply
    if value < -WON:
        return value + ply
    return value


# --- the advisor: a position in, a line for the table out ---


def line_of(state: State, move: Move) -> Line:
    """The record line of a search move."""
    actor = state.players[state.mover]
    verb, a, b = move
    if verb == PLACE:
        return Line(actor, PLACE, (GLEEBS[a], SQUARES[b]))
    return Line(actor, verb, (SQUARES[a], SQUARES[b]))


def describe(state: State, move: Move) -> tuple[str, str]:
    """A move as the table hears it: ``("b1>b3", "onto G3")``, ``("Y3 on c2", "")``."""
    verb, a, b = move
    if verb == PLACE:
        return f"{GLEEBS[a]} on {SQUARES[b]}", ""
    target = state.board[b]
    label = f"{SQUARES[a]}>{SQUARES[b]}"
    if verb == MOVE:
        return label, f"onto {target[-1]}"
    if not target:
        return label, ""
    return label, f"eats {target[0]}" if len(target) == 1 else f"pins {len(target)}"


def verdict(result: Result) -> str:
    """How the position stands, in a word that fits beside the move: only what the search
    proved ("draw": nobody can win, the grues will)."""
    if result.value > WON:
        return "wins"
    if result.value < -WON:
        return "lost"
    return "draw" if result.exact and result.value == 0 else ""


def advise(state: Any, seconds: float, clock: Callable[[], float] = time.perf_counter,
           max_nodes: int | None = None) -> Advice | None:
    """A strong line for the seat to move; ``None`` for the table's set-up and at the end."""
    if not isinstance(state, State) or state.step in (GRUES_STEP, OVER):
        return None
    result = Search(seconds, clock, max_nodes).best(state.board, state.step, state.mover)
    line = line_of(state, result.move)
    ENGINE.apply(state, line)  # never advise a line the rules refuse
    label, note = describe(state, result.move)
    word = verdict(result)
    return Advice(line, label, ", ".join(part for part in (note, word) if part))
