"""Lilliputian Leaf-Climbers: movement costs, leaves, crushes, the end and the prompts."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games import GAMES
from companion.games.base import Choice, GameOver, Grid, IllegalLine, Line, NotYourTurn, Outcome, Roll
from companion.games.frozen import replace
from companion.games.leaf_climbers import (
    LeafClimbers,
    LeafRefused,
    SquareFull,
    State,
    Termination,
    Unreachable,
    capacity,
    index,
    move_costs,
    neighbours,
    step_cost,
    total_capacity,
)
from companion.record import Header, format_record, replay_text, summary
from tests.playout import playout

GAME = LeafClimbers()
TWO = ("Ann", "Bob")
THREE = ("Ann", "Bob", "Cat")
FOUR = ("Ann", "Bob", "Cat", "Dan")


def play(state: State, *texts: str) -> State:
    for text in texts:
        state = GAME.apply(state, Line.parse(text))
    return state


def board(heights: dict[tuple[int, int], int], rest: int = 0) -> tuple[int, ...]:
    """A flat elevation tuple: ``rest`` everywhere but the given squares."""
    flat = [rest] * 36
    for square, height in heights.items():
        flat[index(square)] = height
    return tuple(flat)


def at(players: tuple[str, ...], *squares: tuple[int, int] | None) -> State:
    return replace(GAME.start(players, {}), positions=squares)


# --- set-up and registry ---


def test_registered_with_random_seats() -> None:
    assert GAMES["leaf-climbers"].__class__ is LeafClimbers
    assert LeafClimbers.random_seats is True
    assert (LeafClimbers.min_players, LeafClimbers.max_players) == (2, 4)


@pytest.mark.parametrize("players, corners", [
    (TWO, [[1, 1], [6, 6]]),
    (THREE, [[1, 1], [6, 6], [1, 6]]),
    (FOUR, [[1, 1], [6, 6], [1, 6], [6, 1]]),
])
def test_meeples_start_on_corners_in_seat_order(players: tuple[str, ...],
                                                corners: list[list[int]]) -> None:
    details = GAME.details(GAME.start(players, {}))
    assert details["positions"] == dict(zip(players, corners))
    assert details["round"] == 1 and details["out"] == [] and details["leaves"] == []
    assert details["elevation"] == [[0] * 6 for _ in range(6)]


def test_round_counter_counts_rounds_begun() -> None:
    state = GAME.start(TWO, {})
    state = play(state, "table drop 1", "table leaf 3 3", "Ann roll 1", "Ann stay", "Bob roll 1")
    assert GAME.details(state)["round"] == 1
    state = play(state, "Bob stay")
    assert GAME.details(state)["round"] == 1  # the leaves landed; round 2 not begun
    state = play(state, "table drop 4")
    assert GAME.details(state)["round"] == 2


def test_state_is_small_and_hashable() -> None:
    state = play(GAME.start(FOUR, {}), "table drop 2", "table leaf 1 1", "table leaf 1 1")
    assert hash(state) == hash(play(GAME.start(FOUR, {}), "table drop 2", "table leaf 1 1",
                                    "table leaf 1 1"))
    for value in vars(state).values():
        assert isinstance(value, (tuple, int, str))


# --- movement costs ---


def test_worked_examples_of_the_rules() -> None:
    assert step_cost(0, 3) == 4
    assert step_cost(3, 4) == 2
    assert [step_cost(high, low) for high, low in ((6, 0), (1, 0), (4, 3))] == [2, 2, 2]
    assert step_cost(5, 5) == 1


def test_shortest_path_goes_round_a_pile() -> None:
    heights = board({(2, 1): 2})
    costs = move_costs(heights, (1, 1))
    assert costs[(2, 1)] == 3
    assert costs[(3, 1)] == 4  # round by row 2, not 3 + 2 over the pile
    assert move_costs(board({}), (1, 1))[(6, 6)] == 10


def test_down_steps_cost_two_whatever_the_drop() -> None:
    heights = board({(1, 1): 6})
    assert move_costs(heights, (1, 1))[(2, 1)] == 2
    assert move_costs(heights, (2, 1))[(1, 1)] == 7


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 6), min_size=36, max_size=36), st.integers(1, 6), st.integers(1, 6))
def test_move_costs_are_the_cheapest_walks(heights: list[int], column: int, row: int) -> None:
    """The search's costs equal the cheapest walk found by relaxing every step until
    nothing improves (no queue, no order): on any board, from any square."""
    elevation, start = tuple(heights), (column, row)
    squares = [(c, r) for c in range(1, 7) for r in range(1, 7)]
    cheapest = {square: 0 if square == start else 10**6 for square in squares}
    changed = True
    while changed:
        changed = False
        for square in squares:
            for step in neighbours(square):
                walk = cheapest[square] + step_cost(elevation[index(square)], elevation[index(step)])
                if walk < cheapest[step]:
                    cheapest[step], changed = walk, True
    assert dict(move_costs(elevation, start)) == cheapest


def test_unreachable_square_is_refused_with_its_cost() -> None:
    state = replace(at(TWO, (1, 1), (6, 6)), elevation=board({(3, 1): 3}))
    state = play(state, "table drop 1", "table leaf 5 5", "Ann roll 3")
    with pytest.raises(Unreachable, match="c3 r1 costs 5, you have 3"):
        play(state, "Ann move 3 1")
    with pytest.raises(Unreachable, match="c4 r2 costs 4, you have 3"):
        play(state, "Ann move 4 2")
    assert GAME.details(play(state, "Ann move 3 2"))["positions"]["Ann"] == [3, 2]


def test_own_square_is_stay_and_unused_points_are_lost() -> None:
    state = play(GAME.start(TWO, {}), "table drop 1", "table leaf 4 4", "Ann roll 4")
    moved = play(state, "Ann move 1 1")
    stayed = play(state, "Ann stay")
    assert moved == stayed
    assert GAME.details(moved)["positions"]["Ann"] == [1, 1]
    assert GAME.next_actor(moved) == "Bob"


def test_cannot_end_on_two_meeples_but_may_cross_them() -> None:
    state = at(THREE, (1, 1), (1, 2), (1, 2))
    state = play(state, "table drop 1", "table leaf 6 1", "Ann roll 2")
    with pytest.raises(SquareFull, match="c1 r2 already holds 2 meeples"):
        play(state, "Ann move 1 2")
    assert GAME.details(play(state, "Ann move 1 3"))["positions"]["Ann"] == [1, 3]


def test_one_other_meeple_does_not_block() -> None:
    state = play(at(TWO, (1, 1), (1, 2)), "table drop 1", "table leaf 6 1", "Ann roll 1")
    assert GAME.details(play(state, "Ann move 1 2"))["positions"] == {"Ann": [1, 2], "Bob": [1, 2]}


# --- leaves ---


def test_leaf_refusals_name_the_reason() -> None:
    heights = board({(4, 3): 6, (2, 5): 5})
    state = play(replace(GAME.start(TWO, {}), elevation=heights), "table drop 9")
    with pytest.raises(LeafRefused, match="c4 r3 is already blue: roll again"):
        play(state, "table leaf 4 3")
    state = play(state, "table leaf 2 5")
    with pytest.raises(LeafRefused, match="c2 r5 is purple with a leaf: roll again"):
        play(state, "table leaf 2 5")
    state = play(state, "table leaf 3 3", "table leaf 3 3")
    with pytest.raises(LeafRefused, match="c3 r3 already has 2 leaves: roll again"):
        play(state, "table leaf 3 3")


def test_fewer_leaves_fall_when_the_board_is_nearly_full() -> None:
    heights = board({(2, 2): 5, (4, 4): 4, (5, 1): 4}, rest=6)
    assert total_capacity(heights) == 1 + 2 + 2
    state = replace(at(TWO, (1, 1), (6, 6)), elevation=heights)
    state = play(state, "table drop 20")
    assert state.falling == 5
    ask = GAME.prompt(state)
    assert ask is not None and "Leaf 1 of 5" in ask.question
    state = play(state, "table leaf 2 2", "table leaf 4 4", "table leaf 4 4", "table leaf 5 1")
    assert GAME.next_actor(state) == "table"
    state = play(state, "table leaf 5 1")
    assert GAME.next_actor(state) == "Ann"
    with pytest.raises(IllegalLine, match="no more leaves"):
        play(state, "table leaf 5 1")
    state = play(state, "Ann roll 1", "Ann stay", "Bob roll 1", "Bob stay")
    assert GAME.outcome(state) == Outcome(Termination.ALL_BLUE, TWO)
    assert GAME.details(state)["elevation"] == [[6] * 6 for _ in range(6)]


def test_all_leaves_must_fall_before_anyone_moves() -> None:
    state = play(GAME.start(TWO, {}), "table drop 3", "table leaf 1 1")
    with pytest.raises(NotYourTurn, match="2 leaves still to fall"):
        play(state, "Ann roll 2")
    with pytest.raises(IllegalLine):
        play(state, "table drop 3")


def test_leaves_land_after_the_last_living_move_and_block_nothing() -> None:
    state = play(GAME.start(TWO, {}), "table drop 2", "table leaf 2 1", "table leaf 2 1",
                 "Ann roll 1", "Ann move 2 1")  # leaves in the air cost nothing
    assert state.height((2, 1)) == 0
    assert GAME.details(state)["leaves"] == [[2, 1], [2, 1]]
    state = play(state, "Bob roll 1", "Bob stay")
    details = GAME.details(state)
    assert details["elevation"][0][1] == 2
    assert details["out"] == ["Ann"] and details["leaves"] == []
    assert GAME.outcome(state) == Outcome(Termination.LAST_STANDING, ("Bob",))


# --- crushes and the end ---


def test_same_round_crushes_are_in_seat_order_and_the_dead_are_skipped() -> None:
    state = play(GAME.start(FOUR, {}), "table drop 2", "table leaf 6 1", "table leaf 1 6",
                 *(f"{n} {v}" for n in FOUR for v in ("roll 1", "stay")))
    assert GAME.details(state)["out"] == ["Cat", "Dan"]
    assert not GAME.over(state)
    state = play(state, "table drop 1", "table leaf 1 1", "Ann roll 1", "Ann stay", "Bob roll 1")
    with pytest.raises(NotYourTurn, match="Cat was crushed"):
        play(state, "Cat roll 1")
    state = play(state, "Bob stay")
    assert GAME.over(state)
    assert GAME.details(state)["out"] == ["Cat", "Dan", "Ann"]
    assert GAME.outcome(state) == Outcome(Termination.LAST_STANDING, ("Bob",))
    assert GAME.details(state)["positions"] == {"Bob": [6, 6]}


def test_nobody_wins_when_the_last_players_are_crushed_together() -> None:
    state = play(GAME.start(TWO, {}), "table drop 2", "table leaf 6 6", "table leaf 1 1",
                 "Ann roll 1", "Ann stay", "Bob roll 1", "Bob stay")
    assert GAME.outcome(state) == Outcome(Termination.ALL_CRUSHED)
    assert GAME.details(state)["out"] == ["Ann", "Bob"]
    assert GAME.prompt(state) is None and GAME.next_actor(state) is None
    with pytest.raises(GameOver):
        play(state, "table drop 3")


def test_survivors_on_a_full_board_all_win_and_the_crushed_do_not() -> None:
    heights = board({(3, 3): 5}, rest=6)
    state = replace(at(THREE, (1, 1), (3, 3), (6, 6)), elevation=heights)
    state = play(state, "table drop 7", "table leaf 3 3",
                 "Ann roll 1", "Ann stay", "Bob roll 1", "Bob stay", "Cat roll 1", "Cat stay")
    assert GAME.outcome(state) == Outcome(Termination.ALL_BLUE, ("Ann", "Cat"))
    assert GAME.details(state)["out"] == ["Bob"]


def test_summary_through_the_record_format() -> None:
    text = ("game leaf-climbers\nplayers Ann Bob\ntable drop 3\ntable leaf 6 6\n"
            "table leaf 6 6\ntable leaf 1 2\nAnn roll 4\nAnn move 3 1\nBob roll 2\nBob move 5 5\n")
    got = summary(replay_text(text))
    assert got["next"] == "table" and got["over"] is False and got["winners"] == []
    assert got["positions"] == {"Ann": [3, 1], "Bob": [5, 5]}
    assert got["elevation"][1][0] == 1 and got["elevation"][5][5] == 2


# --- prompts ---


def test_prompts_for_dice() -> None:
    state = GAME.start(TWO, {})
    ask = GAME.prompt(state)
    assert ask is not None and ask.actor == "table"
    (drop,) = ask.answers
    assert isinstance(drop, Roll) and drop.sides == (20,) and drop.verb == "drop"
    state = play(state, "table drop 2")
    (leaf,) = GAME.prompt(state).answers  # type: ignore[union-attr]
    assert isinstance(leaf, Roll)
    assert (leaf.sides, leaf.labels, leaf.reroll_refused) == ((6, 6), ("column", "row"), True)
    assert str(leaf.line((4, 3))) == "table leaf 4 3"
    state = play(state, "table leaf 1 2", "table leaf 2 1")
    (d4,) = GAME.prompt(state).answers  # type: ignore[union-attr]
    assert isinstance(d4, Roll) and d4.sides == (4,) and str(d4.line((3,))) == "Ann roll 3"


def test_move_prompt_is_a_board_cursor_on_the_reachable_squares() -> None:
    heights = board({(2, 1): 2, (1, 3): 1, (3, 3): 4})
    state = replace(at(THREE, (1, 1), (1, 2), (1, 2)), elevation=heights)
    state = play(state, "table drop 2", "table leaf 3 1", "table leaf 1 1", "Ann roll 4")
    ask = GAME.prompt(state)
    assert ask is not None and ask.actor == "Ann" and ask.topic == "move"
    grid, stay = ask.answers
    assert isinstance(grid, Grid) and isinstance(stay, Choice)
    assert (grid.cols, grid.rows, grid.start, grid.actor, grid.verb) == (6, 6, (1, 1), "Ann", "move")
    assert str(stay.line) == "Ann stay" and stay.hint == "leaf lands here"
    offered = {str(line) for line in grid.legal}
    assert "Ann move 1 1" in offered  # her own square: the cursor starts there, same as stay
    assert "Ann move 1 2" not in offered  # two meeples there
    assert {"Ann move 3 1", "Ann move 2 1", "Ann move 3 2", "Ann move 2 2"} <= offered
    assert grid.marked(()) == {(int(line.args[0]), int(line.args[1])) for line in grid.legal}
    for column in range(1, 7):
        for row in range(1, 7):
            line = Line("Ann", "move", (str(column), str(row)))
            if str(line) in offered:
                GAME.apply(state, line)
            else:
                with pytest.raises((Unreachable, SquareFull)):
                    GAME.apply(state, line)


def test_the_square_under_the_cursor_says_its_cost_and_flags_a_landing_leaf() -> None:
    heights = board({(2, 1): 2, (1, 3): 1, (3, 3): 4})
    state = replace(at(THREE, (1, 1), (1, 2), (1, 2)), elevation=heights)
    state = play(state, "table drop 3", "table leaf 3 1", "table leaf 1 1", "table leaf 1 1",
                 "Ann roll 4")
    grid = GAME.prompt(state).answers[0]  # type: ignore[union-attr]
    assert isinstance(grid, Grid)
    assert grid.note((1, 1)) == "stay\nleaf x2"
    assert grid.note((2, 1)) == "cost 3"  # up two: 1 + 2
    assert grid.note((3, 1)) == "cost 4\nleaf!"  # round by row 2; over c2 r1 it is 5
    assert grid.note((1, 2)) == "0 high\nfull"
    assert grid.note((3, 3)) == "cost 8\ntoo far"
    assert grid.name((3, 1)) == "c3 r1"


def test_the_own_square_note_gives_the_height_hidden_by_two_letters() -> None:
    state = replace(at(TWO, (2, 2), (2, 2)), elevation=board({(2, 2): 3}))
    state = play(state, "table drop 1", "table leaf 6 6", "Ann roll 1")
    grid = GAME.prompt(state).answers[0]  # type: ignore[union-attr]
    assert isinstance(grid, Grid) and grid.note((2, 2)) == "stay\n3 high"


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), count=st.integers(2, 4))
def test_prompt_driven_games_end_and_keep_their_invariants(seed: int, count: int) -> None:
    players = FOUR[:count]
    state, lines = playout(GAME, players, random.Random(seed), steps=2000)
    outcome = GAME.outcome(state)
    assert outcome is not None, "every game ends: each round adds at least one chip"
    living = state.living()
    assert sorted(living + state.out) == list(range(count))
    assert len(living) <= 1 or all(h == 6 for h in state.elevation)
    assert outcome.winners == tuple(players[s] for s in living)
    assert replay_text(format_record(Header(GAME, players), lines)).state == state


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), count=st.integers(2, 4))
def test_every_state_of_a_random_game_keeps_the_limits(seed: int, count: int) -> None:
    """Elevations 0-6, at most 216 chips, no square over its capacity, two meeples a square."""
    players = FOUR[:count]
    _, lines = playout(GAME, players, random.Random(seed), steps=2000)
    state = GAME.start(players, {})
    for line in lines:
        before, state = state, GAME.apply(state, line)
        assert all(0 <= h <= 6 for h in state.elevation)
        assert sum(state.elevation) <= 216
        if line.verb == "drop":
            assert state.falling == min(int(line.args[0]), total_capacity(before.elevation))
        if line.verb == "leaf":
            square = (int(line.args[0]), int(line.args[1]))
            assert state.leaves.count(square) <= capacity(state.height(square))
        squares = [p for p in state.positions if p is not None]
        assert all(squares.count(p) <= 2 for p in squares)
