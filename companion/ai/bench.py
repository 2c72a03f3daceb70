"""``python -m companion.ai.bench``: how long the Gleeb's and Grues search takes to answer.

It plays a few games of the search against itself (grues placed by a seeded generator) and
times every answer at the budget the box uses (:data:`companion.ai.THINK`). The search
stops at its budget wherever it runs, so what a slower machine changes is how far past
the budget the last look at the clock lands and how deep the search gets. The Pi figures
are estimates: CPython on a Pi Zero 2 W runs about ``--factor`` times slower than one core
of a current x86 machine (``spec/hardware.md``), so the part of an answer that is not the
budget is scaled by that factor, and the Pi's depth is found by searching here with the
node count the Pi would reach. Times are this process's CPU time (the search's clock here
too), so other work on the machine does not skew them; the box itself counts wall time.

Benchmarks print figures; the test suite never asserts on timings.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass

from companion import ai
from companion.ai.gleebs import CHECK_EVERY, Search, line_of
from companion.games.base import Line
from companion.games.gleebs_and_grues import PHASES, SQUARES, GleebsAndGrues, State, SummaryPhase

GAME = GleebsAndGrues()
CLOCK = time.process_time


@dataclass(frozen=True)
class Answer:
    """One timed answer, and what the Pi would take and reach for it."""

    phase: SummaryPhase
    seconds: float
    nodes: int
    depth: int
    pi_seconds: float
    pi_depth: int


def positions(games: int, seconds: float) -> list[State]:
    """The positions of ``games`` self-played games, each answered within ``seconds``."""
    found = []
    for seed in range(games):
        rng = random.Random(seed)
        state = GAME.start(("Ann", "Bob"), GAME.option_values({}))
        state = GAME.apply(state, Line("table", "grues", tuple(rng.sample(SQUARES, 3))))
        while not GAME.over(state):
            found.append(state)
            result = Search(seconds, CLOCK).best(state.board, state.step, state.mover)
            state = GAME.apply(state, line_of(state, result.move))
    return found


def answer(state: State, seconds: float, factor: float) -> Answer:
    """Time one answer at the budget; then what the Pi would take and how deep it would get.

    On the Pi, work that took ``t`` here takes ``t * factor``, but the search stops at the
    budget: past it by the time from the deadline to the next look at the clock (at most
    ``CHECK_EVERY`` nodes) plus the work after the search, both ``factor`` times longer.
    """
    start = CLOCK()
    result = Search(seconds, CLOCK).best(state.board, state.step, state.mover)
    took = CLOCK() - start
    rate = result.nodes / max(took, 1e-9)
    late = max(took - seconds, CHECK_EVERY / max(rate, 1.0))
    pi_seconds = min(took * factor, seconds + late * factor)
    pi_nodes = max(int(rate * seconds / factor), 1)
    pi = Search(3600.0, max_nodes=pi_nodes).best(state.board, state.step, state.mover)
    return Answer(PHASES[state.step], took, result.nodes, result.depth, pi_seconds, pi.depth)


def report(answers: Sequence[Answer], seconds: float, factor: float) -> None:
    """Per phase: answer times here and estimated on the Pi, nodes a second, depths."""
    print(f"budget {seconds:.2f} s a move; Pi Zero 2 W estimate: {factor:g}x slower than here")
    print(f"{'phase':10} {'moves':>5} {'answer here':>17} {'Pi (est.)':>10} {'nodes/s':>8} "
          f"{'depth here':>10} {'depth Pi':>8}")
    for phase in ("placement", "movement"):
        some = [a for a in answers if a.phase == phase]
        if not some:
            continue
        worst = max(a.seconds for a in some)
        pi_worst = max(a.pi_seconds for a in some)
        rate = sum(a.nodes for a in some) / sum(a.seconds for a in some)
        print(f"{phase:10} {len(some):5} {statistics.median(a.seconds for a in some):7.3f} s "
              f"max {worst:5.3f} {pi_worst:8.2f} s {rate:8.0f} "
              f"{statistics.median(a.depth for a in some):10.0f} "
              f"{statistics.median(a.pi_depth for a in some):8.0f}")
    overshoot = max(max(a.seconds for a in answers) - seconds, 0.0)
    print(f"worst answer past the budget here: {overshoot * 1000:.1f} ms; slowest Pi answer "
          f"(est.): {max(a.pi_seconds for a in answers):.2f} s")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m companion.ai.bench", description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=2, help="self-played games to time (default 2)")
    parser.add_argument("--seconds", type=float, default=ai.THINK, help="budget a move (default: the box's)")
    parser.add_argument("--factor", type=float, default=10.0, help="how much slower the Pi is (default 10)")
    args = parser.parse_args(argv)
    states = positions(args.games, 0.2)
    report([answer(state, args.seconds, args.factor) for state in states], args.seconds, args.factor)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
