"""The Gleeb's and Grues search: legal, exact where the tree is small, and it converts wins.

Searches here run on node budgets (``max_nodes``) or a fake clock, so every result is the
same on every machine; how fast the search is on real hardware is for
``python -m companion.ai.bench`` to print, never for a test to assert.
"""

from __future__ import annotations

import random
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.ai import advisor
from companion.ai.gleebs import WIN, WON, Search, advise, children, evaluate, line_of
from companion.games.base import Line
from companion.games.gleebs_and_grues import MOVE, OVER, SQUARES, Board, GleebsAndGrues, State
from tests.games.scenarios import at, random_game

GAME = GleebsAndGrues()


def random_states(seed: int) -> list[State]:
    """Every state of a random game from the grues on (placement included)."""
    return random_game(seed)[1:]


@cache
def outcome(board: Board, step: str, mover: int) -> int:
    """Plain minimax to the end, no pruning and no table: +1 ``mover`` wins, 0 the grues,
    -1 the other player wins."""
    best = -2
    for _, child, (child_step, seat, winner) in children(board, step, mover):
        if child_step == OVER:
            value = 0 if winner is None else 1 if winner == mover else -1
        else:
            value = outcome(child, child_step, seat)
            value = value if seat == mover else -value
        best = max(best, value)
    return best


def category(value: int) -> int:
    return 1 if value > WON else -1 if value < -WON else 0


def endgame_states(seeds: range, stacks: int) -> list[State]:
    """Movement positions with at most ``stacks`` gleeb-topped stacks, from random games."""
    found = []
    for seed in seeds:
        for state in random_states(seed):
            tops = sum(1 for stack in state.board if stack and stack[-1][0] != "K")
            if state.step in ("move", "grue") and tops <= stacks:
                found.append(state)
                break
    return found


# --- legal, always ---


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_the_advice_is_always_a_legal_line(seed: int) -> None:
    states = random_states(seed)
    for state in states[:-1]:
        advice = advise(state, 10.0, max_nodes=200)
        assert advice is not None
        assert advice.line in GAME.legal_lines(state)
        GAME.apply(state, advice.line)


def test_no_advice_for_the_tables_set_up_or_after_the_end() -> None:
    start = GAME.start(("Ann", "Bob"), GAME.option_values({}))
    assert advise(start, 1.0) is None
    assert advise(random_states(1)[-1], 1.0) is None
    assert advisor("gleebs-and-grues") is advise


# --- exact in the endgame ---


@pytest.mark.parametrize("state", endgame_states(range(40), 5))
def test_endgame_values_are_exact(state: State) -> None:
    result = Search(60.0).best(state.board, state.step, state.mover)
    assert category(result.value) == outcome(state.board, state.step, state.mover)
    assert result.exact or abs(result.value) > WON


# --- proven wins are converted ---


BUDGET = 10_000  # nodes a search: proofs and the moves that follow them alike


def holds_the_win(state: State, winner: int, budget: int = BUDGET) -> bool:
    """From ``state``, ``winner`` follows the advice and the other seat tries every reply:
    ``winner`` wins every game."""
    if GAME.over(state):
        return state.winner == winner
    if state.mover == winner:
        advice = advise(state, 60.0, max_nodes=budget)
        assert advice is not None
        return holds_the_win(GAME.apply(state, advice.line), winner, budget)
    return all(holds_the_win(GAME.apply(state, line), winner, budget) for line in GAME.legal_lines(state))


# Positions where exactly one gleeb step wins by force (plain minimax says so): the
# search must find it and keep winning whatever the other seat does.
ONLY_WIN = [
    ("b1=R1,B2,G2 b2=G3 b4=B1 c3=B3,Y1,R3,K3 d4=Y2 a1=K2 c2=K1", 0),  # 1 of Ann's 4 steps
    ("b1=Y1 c1=G2,Y2 d1=G3 d2=B3,R2,B2 b2=K3 a3=K1 b4=K2 c4=R3 d4=B1", 1),  # 1 of Bob's 6
    ("a1=R2 b1=G1 c1=B3 d1=B2 a2=Y3 c2=Y2,B1,K1 a3=K2 d3=K3 a4=R3,Y1 c4=G2,R1", 1),  # 1 of 10
]


def wins_of(state: State) -> int:
    """How many of the mover's steps win by force."""
    count = 0
    for _, child, (step, seat, winner) in children(state.board, state.step, state.mover):
        if step == OVER:
            count += winner == state.mover
        else:
            value = outcome(child, step, seat)
            count += (value if seat == state.mover else -value) == 1
    return count


@pytest.mark.parametrize(("position", "mover"), ONLY_WIN)
def test_the_only_winning_step_is_found_and_the_win_converted(position: str, mover: int) -> None:
    state = at(position, mover)
    assert wins_of(state) == 1
    proof = Search(60.0, max_nodes=BUDGET).best(state.board, state.step, state.mover)
    assert proof.value > WON
    assert holds_the_win(state, mover)


@pytest.mark.parametrize("state", endgame_states(range(40, 70), 5))
def test_wins_found_in_random_endgames_are_converted(state: State) -> None:
    proof = Search(60.0, max_nodes=BUDGET).best(state.board, state.step, state.mover)
    if proof.value > WON:
        assert holds_the_win(state, state.mover)


# --- the clock ---


def test_the_search_stops_at_its_budget_and_still_answers() -> None:
    """A fake clock that moves a millisecond per look: the search must stop looking soon
    after its 50 ms, with a legal move from the iterations it finished."""
    now = [0.0]

    def clock() -> float:
        now[0] += 0.001
        return now[0]

    state = random_states(5)[3]  # in placement: the tree is far too big to finish
    result = Search(0.05, clock).best(state.board, state.step, state.mover)
    assert now[0] < 0.06
    assert line_of(state, result.move) in GAME.legal_lines(state)
    assert not result.exact and result.depth >= 1


# --- a sound evaluation for placement ---


def test_a_gleeb_in_line_with_a_grue_of_its_size_is_worth_less() -> None:
    safe = at("a1=K3 b2=B3 c4=G1", step="place")
    threatened = at("a1=K3 a2=B3 c4=G1", step="place")
    assert evaluate(safe.board, 0) > evaluate(threatened.board, 0)
    assert evaluate(safe.board, 1) < evaluate(threatened.board, 1)


def test_the_computer_beats_a_random_player() -> None:
    # One game from each seat (the computer moves second with seed 1); more seeds replay
    # the same two seats with other grues.
    wins = 0
    for seed in range(2):
        rng = random.Random(seed)
        state = GAME.apply(GAME.start(("Ann", "Bob"), GAME.option_values({})),
                           Line("table", "grues", tuple(rng.sample(SQUARES, 3))))
        computer = seed % 2
        while not GAME.over(state):
            if state.mover == computer:
                advice = advise(state, 60.0, max_nodes=1500)
                assert advice is not None
                line = advice.line
            else:
                line = rng.choice(GAME.legal_lines(state))
            state = GAME.apply(state, line)
        wins += state.winner == computer
    assert wins == 2


def test_values_are_from_the_movers_side() -> None:
    """Ann to move with a won position and Bob to move in the mirror position agree."""
    ann = at("a1=B1 a2=G1 d4=K1")
    bob = at("a1=G1 a2=B1 d4=K1", mover=1)
    assert Search(5.0).best(ann.board, MOVE, 0).value == Search(5.0).best(bob.board, MOVE, 1).value
    assert Search(5.0).best(ann.board, MOVE, 0).value == WIN - 2


def test_the_advice_names_the_move_what_it_does_and_a_proven_result() -> None:
    advice = advise(at("a1=B1 a2=G1 d4=K1"), 5.0)
    assert advice is not None
    assert (advice.label, advice.note, str(advice.line)) == ("a1>a2", "onto G1, wins", "Ann move a1 a2")
    grue = advise(at("a1=B1 a4=G2 c3=R2 c1=K1 d4=K2 b3=K3", step="grue"), 5.0, max_nodes=2000)
    assert grue is not None and grue.note.startswith("eats ")
    place = advise(at("b2=K1 c3=K2 d4=K3", step="place"), 5.0, max_nodes=2000)
    assert place is not None and place.label == f"{place.line.args[0]} on {place.line.args[1]}"
