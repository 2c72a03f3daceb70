"""Gleeb's and Grues against RULES.md section 4 and records.md ``gleebs-and-grues``.

Ann is the first seat (blue and yellow), Bob the second (green and red). Games are written
as record lines, or start from a hand-made position (``at``) when only the end of a game
matters, and are checked through what players see: the board, pins, meals, scores, who is
next and who wins.
"""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.dice import device_roll
from companion.games.base import (
    BadArguments,
    GameOver,
    Grid,
    IllegalLine,
    Line,
    NotYourTurn,
    Outcome,
    Roll,
    UnknownVerb,
)
from companion.games.frozen import replace
from companion.games.gleebs_and_grues import (
    GLEEBS,
    GRUES,
    SQUARES,
    AlreadyPlaced,
    BadLanding,
    CaptureRequired,
    GleebsAndGrues,
    GrueLanding,
    NoStackOfYours,
    NotAFreeGrue,
    NotInLine,
    NotPlaying,
    NotYourPiece,
    SquareTaken,
    State,
    Termination,
    WrongStep,
    is_pinned,
    parse_first,
    size,
)
from companion.record import Header, RecordError, replay_text, summary
from companion.session import Session
from companion.store import Store
from tests.games.scenarios import SPEC_SETUP, at, random_game, random_lines

GAME = GleebsAndGrues()


def text(lines: list[str], first: str | None = None) -> str:
    head = ["game gleebs-and-grues", "players Ann Bob"]
    if first is not None:
        head.append(f"option first {first}")
    return "\n".join(head + lines) + "\n"


def summ(lines: list[str], first: str | None = None) -> dict[str, Any]:
    return summary(replay_text(text(lines, first)))


def state(lines: list[str], first: str | None = None) -> State:
    return replay_text(text(lines, first)).state


def refuse(lines: list[str], bad: str, error: type[IllegalLine], first: str | None = None) -> str:
    """``bad`` is refused with ``error`` after ``lines``, and the whole record is rejected."""
    with pytest.raises(error) as refused:
        GAME.apply(state(lines, first), Line.parse(bad))
    with pytest.raises(RecordError) as err:
        replay_text(text(lines + [bad], first))
    assert err.value.line == len(lines) + 3 + (first is not None)
    return str(refused.value)


def play(start: State, *lines: str) -> State:
    for line in lines:
        start = GAME.apply(start, Line.parse(line))
    return start


def swap_seats(lines: list[str]) -> list[str]:
    """The same placements with Bob's lines first in each pair."""
    out: list[str] = []
    for ann, bob in zip(lines[::2], lines[1::2]):
        out += [bob, ann]
    return out


def refuse_at(position: State, bad: str, error: type[IllegalLine]) -> str:
    with pytest.raises(error) as refused:
        GAME.apply(position, Line.parse(bad))
    return str(refused.value)


def grids(position: State) -> list[Grid]:
    """The prompt's board picks; every answer of a player's step is one."""
    ask = GAME.prompt(position)
    assert ask is not None
    assert all(isinstance(a, Grid) for a in ask.answers)
    return [a for a in ask.answers if isinstance(a, Grid)]


def offered(position: State) -> list[str]:
    """Every line the board picks allow, as text."""
    return [str(line) for grid in grids(position) for line in grid.legal]


# --- the records.md worked example ---


def test_records_md_example_replays_to_its_summary() -> None:
    got = summ(SPEC_SETUP + ["Ann move a1 a2", "Ann grue c3 c4"])
    assert got["next"] == "Bob"
    assert got["phase"] == "movement"
    assert got["pinned"] == []
    assert got["eaten"] == ["G2"]
    assert got["scores"] == {"Ann": 13, "Bob": 9}
    assert got["board"] == {
        "a2": ["G1", "B1"], "a3": ["Y2"], "a4": ["R2"], "b1": ["B3"], "b2": ["K1"], "b3": ["G3"],
        "b4": ["Y1"], "c1": ["R1"], "c2": ["B2"], "c4": ["K2"], "d1": ["Y3"], "d2": ["R3"],
        "d4": ["K3"],
    }


# --- setup [S] ---


def test_the_table_sets_the_three_grues_first() -> None:
    start = summ([])
    assert start["next"] == "table"
    assert start["phase"] == "placement"
    assert start["board"] == {}
    assert summ(["table grues a1 b2 c3"])["board"] == {"a1": ["K1"], "b2": ["K2"], "c3": ["K3"]}
    refuse([], "Ann place B1 a1", NotYourTurn)


def test_grues_need_three_different_squares() -> None:
    refuse([], "table grues a1 a1 c3", SquareTaken)
    refuse([], "table grues a1 b2", BadArguments)
    refuse([], "table grues a1 b2 e5", BadArguments)
    refuse([], "table grues 1 2 3", BadArguments)  # squares are named, never numbered


def test_the_setup_is_a_pick_of_squares_by_name_typed_or_random() -> None:
    ask = GAME.prompt(state([]))
    assert ask is not None and ask.actor == "table"
    (roll,) = ask.answers
    assert isinstance(roll, Roll)
    assert roll.sides == (16, 16, 16) and roll.labels == GRUES
    line = roll.line((1, 4, 16))
    assert str(line) == "table grues a1 d1 d4"  # the record names squares, never numbers
    board = GAME.details(GAME.apply(state([]), line))["board"]
    assert board == {"a1": ["K1"], "d1": ["K2"], "d4": ["K3"]}


def test_a_device_pick_puts_the_grues_on_three_different_random_squares() -> None:
    seen: set[str] = set()
    for seed in range(40):
        ask = GAME.prompt(state([]))
        assert ask is not None and isinstance(ask.answers[0], Roll)
        (line,) = device_roll(GAME, state([]), ask.answers[0], random.Random(seed))
        assert len(set(line.args)) == 3 and set(line.args) <= set(SQUARES)
        seen |= set(line.args)
    assert seen == set(SQUARES)  # every square can be picked


def test_the_first_player_places_first_and_moves_first() -> None:
    assert summ(["table grues a1 b2 c3"])["next"] == "Ann"
    bob_first = summ(["table grues a1 b2 c3"], first="Bob")
    assert bob_first["next"] == "Bob"
    # Colours follow seats, whoever is first: Bob still plays green and red.
    refuse(["table grues a1 b2 c3"], "Bob place B1 a2", NotYourPiece, first="Bob")
    placed = state(["table grues b2 c3 d4"] + swap_seats(SPEC_SETUP[1:]), first="Bob")
    assert GAME.details(placed)["phase"] == "movement"
    assert GAME.next_actor(placed) == "Bob"


def test_option_first_must_name_a_player() -> None:
    assert parse_first("Bob") == "Bob"
    with pytest.raises(ValueError):
        parse_first("table")
    with pytest.raises(ValueError):
        parse_first("no/name")
    with pytest.raises(NotPlaying):
        GAME.start(("Ann", "Bob"), {"first": "Cat"})


# --- placement [S] ---


def test_players_alternate_placing_until_all_twelve_are_down() -> None:
    for count in range(1, 13):
        got = summ(SPEC_SETUP[:count])
        assert got["phase"] == "placement"
        assert got["next"] == ("Ann" if count % 2 else "Bob")
    done = summ(SPEC_SETUP)
    assert done["phase"] == "movement"
    assert done["next"] == "Ann"
    assert len(done["board"]) == 15  # one square stays empty
    assert done["scores"] == {"Ann": 12, "Bob": 12}


def test_placement_goes_on_an_empty_square_with_your_own_unplaced_gleeb() -> None:
    setup = SPEC_SETUP[:2]
    refuse(setup, "Bob place G2 b2", SquareTaken)       # a grue stands there
    refuse(setup, "Bob place G2 a1", SquareTaken)       # Ann's B1 is there
    refuse(setup, "Bob place B2 a2", NotYourPiece)
    refuse(setup, "Bob place K1 a2", NotYourPiece)
    refuse(SPEC_SETUP[:3], "Ann place B1 a3", AlreadyPlaced)
    refuse(setup, "Bob place X1 a2", BadArguments)
    refuse(setup, "Bob place G2", BadArguments)
    refuse(setup, "Ann place B2 a2", NotYourTurn)
    refuse(setup, "Bob move a1 a2", WrongStep)


def test_placement_choices_cover_every_unplaced_gleeb_and_empty_square_the_largest_first() -> None:
    ask = GAME.prompt(state(SPEC_SETUP[:1]))
    assert ask is not None and ask.actor == "Ann"
    picks = grids(state(SPEC_SETUP[:1]))
    assert [g.label for g in picks] == ["Place B3", "Place Y3", "Place B2", "Place Y2", "Place B1",
                                        "Place Y1"]
    assert all(g.steps == 1 and g.prefix == (g.label[-2:],) for g in picks)
    lines = offered(state(SPEC_SETUP[:1]))
    assert len(lines) == 6 * 13
    assert "Ann place B1 a1" in lines and "Ann place B1 b2" not in lines
    assert picks[4].marked(()) == {(c, r) for c in range(1, 5) for r in range(1, 5)} - {
        (2, 2), (3, 3), (4, 4)}  # the grues' squares are taken
    # Once B1 is down, it is no longer offered.
    assert "Place B1" not in [g.label for g in grids(state(SPEC_SETUP[:3]))]


# --- the gleeb step [S] ---


def test_a_gleeb_moves_straight_any_distance_over_anything() -> None:
    # Ann's B3 on b1 jumps K1 on b2 and lands on G3 on b3.
    got = summ(SPEC_SETUP + ["Ann move b1 b3"])
    assert got["board"]["b3"] == ["G3", "B3"]
    assert "b1" not in got["board"]
    assert got["next"] == "Ann"  # the grue step is still Ann's
    refuse(SPEC_SETUP, "Ann move b1 c2", NotInLine)     # diagonal
    refuse(SPEC_SETUP, "Ann move b1 b1", NotInLine)


def test_a_gleeb_lands_only_on_a_gleeb_of_another_colour() -> None:
    # Ann's other colour is fine: Y2 on a3 jumps G1 and lands on B1.
    assert summ(SPEC_SETUP + ["Ann move a3 a1"])["board"]["a1"] == ["B1", "Y2"]
    reason = refuse(SPEC_SETUP, "Ann move a1 b1", BadLanding)
    assert reason == "B1 cannot land on another blue gleeb"
    refuse(SPEC_SETUP, "Ann move b1 b2", BadLanding)    # a grue
    refuse(SPEC_SETUP, "Ann move d1 d3", BadLanding)    # an empty square


def test_only_a_stack_topped_by_your_colour_moves() -> None:
    assert refuse(SPEC_SETUP, "Ann move a2 a3", NoStackOfYours) == "a2 holds no stack you control"
    refuse(SPEC_SETUP, "Ann move c3 c2", NoStackOfYours)    # a grue
    refuse(SPEC_SETUP, "Ann move d3 d1", NoStackOfYours)    # empty
    # Once B1 tops G1, the a2 stack is Ann's and not Bob's.
    refuse(SPEC_SETUP + ["Ann move a1 a2", "Ann grue c3 c4"], "Bob move a2 a3", NoStackOfYours)


def test_the_whole_stack_moves_and_counts_as_its_top_piece() -> None:
    position = at("a1=G3,Y1 a3=Y2 c1=R1 b1=K1 d4=K2 d3=K3")
    refuse_at(position, "Ann move a1 a3", BadLanding)    # the stack is a yellow gleeb
    moved = play(position, "Ann move a1 c1")
    assert GAME.details(moved)["board"]["c1"] == ["R1", "G3", "Y1"]
    # ... and a size-1 one: only K1 can land on it, and it must.
    assert offered(moved) == ["Ann grue b1 c1"]
    assert GAME.details(play(moved, "Ann grue b1 c1"))["pinned"] == ["c1"]


def test_a_gleeb_step_is_two_picks_on_the_board_from_the_legal_steps() -> None:
    position = state(SPEC_SETUP)
    (grid,) = grids(position)
    assert (grid.steps, grid.spell, grid.label) == (2, "alg", "Move a gleeb")
    assert set(grid.legal) == set(GAME.legal_lines(position))
    assert grid.start in grid.marked(())  # the cursor starts on a stack that can move
    assert (1, 1) in grid.marked(()) and (1, 2) not in grid.marked(())  # Ann's B1, not Bob's G1
    # B1 onto G1, Y2, R2 up the column, or R1, Y3 along the row; never onto its own B3.
    assert grid.marked(((1, 1),)) == {(1, 2), (1, 3), (1, 4), (3, 1), (4, 1)}
    assert str(grid.line(((1, 1), (1, 2)))) == "Ann move a1 a2"


def test_a_square_no_step_starts_on_says_why_before_any_destination() -> None:
    (grid,) = grids(state(SPEC_SETUP))
    assert grid.refusal((1, 1)) == ""  # Ann's B1 can move
    assert grid.refusal((1, 2)) == "a2 holds no stack you control"  # Bob's G1, as apply says it
    assert grid.refusal((2, 2)) == "b2 holds no stack you control"  # a grue
    assert grid.refusal((4, 3)) == "d3 holds no stack you control"  # empty
    boxed = at("a1=B1 b1=B2 a2=K1 b3=R1 d4=G1")  # B2 can land on R1; B1 only on blue or a grue
    (grid,) = grids(boxed)
    assert grid.refusal((2, 1)) == ""
    assert grid.refusal((1, 1)) == "the stack on a1 has nowhere to land"
    refuse_at(boxed, "Ann move a1 b1", BadLanding)  # (each destination says its own reason)


def test_a_grue_that_may_not_move_says_why_when_picked() -> None:
    position = at("a1=B3 a4=G2 c3=R2 c1=K1 d4=K2 b2=G1,K3", step="grue")
    (grid,) = grids(position)
    assert grid.marked(()) == {(4, 4)}  # only K2 can land on a gleeb: G2 on a4
    assert grid.refusal((2, 2)) == "the grue on b2 is pinned for good"
    assert grid.refusal((1, 1)) == "a1 holds no free grue"
    assert grid.refusal((3, 1)) == "a grue must land on a same-size gleeb: K2 can eat at a4"
    walks = at("a1=K1 d4=K3 c3=B2,K2", step="grue")  # nothing to eat: walks for all
    (grid,) = grids(walks)
    assert grid.refusal((1, 1)) == "" and grid.refusal((3, 3)) == "the grue on c3 is pinned for good"


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_a_square_is_refused_as_a_start_exactly_when_every_step_from_it_is(seed: int) -> None:
    for position in random_game(seed)[1:-1]:
        if position.step not in ("move", "grue"):
            continue
        (grid,) = grids(position)
        legal = set(GAME.legal_lines(position))
        for i, name in enumerate(SQUARES):
            starts = any(line.args[0] == name for line in legal)
            assert (grid.refusal((i % 4 + 1, i // 4 + 1)) == "") == starts, name
            assert starts or f"no {position.step} starts" not in grid.refusal((i % 4 + 1, i // 4 + 1))


# --- the grue step [S] ---


def test_landing_on_a_gleeb_is_compulsory_with_the_grue_of_your_choice() -> None:
    position = at("a1=B1 a4=G2 c3=R2 c1=K1 d4=K2 b3=K3", step="grue")
    legal = {str(line) for line in GAME.legal_lines(position)}
    assert legal == {"Ann grue c1 a1", "Ann grue d4 a4"}
    reason = refuse_at(position, "Ann grue b3 b2", CaptureRequired)
    assert reason == "a grue must land on a same-size gleeb: K1 can eat at a1"
    assert "K2 can eat at a4" in refuse_at(position, "Ann grue d4 d1", CaptureRequired)
    (grid,) = grids(position)
    assert grid.marked(()) == {(3, 1), (4, 4)}  # K1 and K2 may move, K3 may not
    play(position, "Ann grue d4 a4")  # either landing will do


def test_a_grue_eats_a_lone_gleeb_and_stays_free() -> None:
    got = summ(SPEC_SETUP + ["Ann move a1 a2", "Ann grue c3 c4"])
    assert got["eaten"] == ["G2"]
    assert got["board"]["c4"] == ["K2"]
    assert got["pinned"] == []
    # Later on, K2 may move again.
    after = state(SPEC_SETUP + ["Ann move a1 a2", "Ann grue c3 c4", "Bob move a4 a3"])
    assert any(line.args[0] == "c4" for line in GAME.legal_lines(after))


def test_a_grue_pins_a_stack_for_good() -> None:
    pinned = state(SPEC_SETUP + ["Ann move a1 a2", "Ann grue c3 c4",
                                 "Bob move a4 a3", "Bob grue b2 a2"])
    got = GAME.details(pinned)
    assert got["board"]["a2"] == ["G1", "B1", "K1"]
    assert got["pinned"] == ["a2"]
    assert got["eaten"] == ["G2"]
    # From 13 to 9, Ann lost Y2 under R2 and the pinned B1 and G1, which score for nobody;
    # Bob went from 9 to 11 with Y2.
    assert got["scores"] == {"Ann": 9, "Bob": 11}


def test_a_pinned_stack_counts_as_a_grue() -> None:
    position = at("a1=B1 a2=G1,R2,K2 b4=R1 c2=K1 c4=K3", step="grue")
    reason = refuse_at(position, "Ann grue a2 a3", NotAFreeGrue)
    assert reason == "the grue on a2 is pinned for good"
    refuse_at(position, "Ann grue c2 a2", GrueLanding)
    refuse_at(replace(position, step="move"), "Ann move a1 a2", BadLanding)


def test_a_grue_lands_only_on_empty_squares_or_gleebs_of_its_size() -> None:
    position = at("a1=B1 a2=G1,R2,K2 b4=R1 c2=K1 c4=K3", step="grue")
    reason = refuse_at(position, "Ann grue c4 b4", GrueLanding)
    assert reason == "K3 can only land on a size-3 gleeb, not R1"
    refuse_at(position, "Ann grue c2 c4", GrueLanding)     # onto another grue
    refuse_at(position, "Ann grue c2 d3", NotInLine)
    refuse_at(position, "Ann grue b1 b2", NotAFreeGrue)    # empty
    refuse_at(position, "Ann grue a1 a3", NotAFreeGrue)    # a gleeb
    assert GAME.details(play(position, "Ann grue c2 c1"))["board"]["c1"] == ["K1"]


# --- skipped steps: no line, and next names the pending step's player ---


def test_a_gleeb_step_without_a_move_is_skipped() -> None:
    position = at("a1=B1 b2=G1 b3=R1 d4=K3 c4=K2", mover=1, step="grue")
    after = play(position, "Bob grue c4 c1")
    assert GAME.next_actor(after) == "Ann"
    ask = GAME.prompt(after)
    assert ask is not None and ask.question == "Ann: move a grue"
    assert refuse_at(after, "Ann move a1 a2", WrongStep) == "Ann must move a grue first"


def test_a_grue_step_without_a_move_is_skipped() -> None:
    position = at("a1=B1 a2=G1 b3=R1 b4=Y1 c4=Y2,G2,K2 d1=B3,G3,K3 d2=B2,R2,K1")
    after = play(position, "Ann move a1 a2")
    assert GAME.next_actor(after) == "Bob"
    assert not GAME.over(after)


def test_a_turn_without_any_move_is_skipped_whole() -> None:
    position = at("a4=B1 b1=G1 b2=R1 c3=G2 d3=R2 c4=Y3,G3,K3 d1=Y2,B2,K2 d2=B3,Y1,K1", mover=1)
    after = play(position, "Bob move b1 b2")
    assert GAME.next_actor(after) == "Bob"
    assert after.step == "move"


# --- the end [S], and the house defaults [D] ---


def test_the_end_is_checked_after_a_turn_whose_grue_step_was_skipped() -> None:
    """[D] Here Bob has nothing left and no grue can move: the game ends on Ann's move."""
    position = at("a1=B1 a2=G1 c4=Y2,G2,K2 d1=B3,G3,K3 d2=B2,R2,K1")
    after = play(position, "Ann move a1 a2")
    assert GAME.outcome(after) == Outcome(Termination.SCORED, ("Ann",))
    assert GAME.details(after)["phase"] == "over"
    refuse_at(after, "Bob move a2 a3", GameOver)


def test_when_nobody_can_move_a_gleeb_the_higher_score_wins() -> None:
    """The rule text's example ending: red/green wins 7 to 4."""
    position = at("a1=Y1,B3 b3=Y2,G3 d3=R2 b1=K1 b2=K2 c4=K3", mover=1)
    moved = play(position, "Bob move b3 d3")
    assert not GAME.over(moved)  # the end is checked after the grue step
    after = play(moved, "Bob grue b1 b4")
    assert GAME.details(after)["scores"] == {"Ann": 4, "Bob": 7}
    assert GAME.outcome(after) == Outcome(Termination.SCORED, ("Bob",))
    assert GAME.prompt(after) is None and GAME.next_actor(after) is None


def test_lone_gleebs_score_as_stacks_of_one() -> None:
    """[D] Every placed gleeb is a stack of one: 1+2+3 twice for each player."""
    assert summ(SPEC_SETUP)["scores"] == {"Ann": 12, "Bob": 12}
    assert summ(SPEC_SETUP[:2])["scores"] == {"Ann": 1, "Bob": 0}


def test_a_tie_means_the_grues_win() -> None:
    position = at("a1=B2 d3=R1 d4=G1 b2=K1 c3=K2 b3=K3", mover=1)
    after = play(position, "Bob move d3 d4", "Bob grue b2 b1")
    assert GAME.over(after)
    assert GAME.details(after)["scores"] == {"Ann": 2, "Bob": 2}
    assert GAME.outcome(after) == Outcome(Termination.GRUES_WIN)


def test_every_gleeb_eaten_or_pinned_means_the_grues_win() -> None:
    position = at("a1=B1 a3=G1 c3=K1 c1=K2 d4=K3")
    after = play(position, "Ann move a1 a3", "Ann grue c3 a3")  # the last stack is pinned
    assert GAME.over(after)
    assert GAME.details(after)["scores"] == {"Ann": 0, "Bob": 0}
    assert GAME.outcome(after) == Outcome(Termination.GRUES_WIN)


def test_a_player_with_no_stack_left_loses_while_the_other_can_move() -> None:
    position = at("a1=B1 c1=R1 a2=Y2 c2=B3 d4=K1 c4=K2 b4=K3")
    after = play(position, "Ann move a1 c1", "Ann grue d4 d3")
    assert GAME.outcome(after) == Outcome(Termination.NO_STACK, ("Ann",))
    assert GAME.details(after)["scores"] == {"Ann": 7, "Bob": 0}


# --- lines that do not fit ---


def test_lines_out_of_turn_or_out_of_step_are_refused() -> None:
    refuse(SPEC_SETUP, "Bob move a2 a1", NotYourTurn)
    refuse(SPEC_SETUP, "Ann grue c3 c4", WrongStep)
    refuse(SPEC_SETUP, "Ann place B1 d3", WrongStep)
    refuse(SPEC_SETUP + ["Ann move a1 a2"], "Ann move a3 a2", WrongStep)
    refuse(SPEC_SETUP, "table grues a1 b2 c3", NotYourTurn)
    refuse(SPEC_SETUP, "Ann eat a1", UnknownVerb)
    refuse(SPEC_SETUP, "Ann move a1 a2 a3", BadArguments)
    refuse(SPEC_SETUP, "Ann move a1 a5", BadArguments)


# --- rules pages ---


def test_every_prompt_topic_has_a_page_and_the_house_defaults_are_marked() -> None:
    assert "" in GAME.pages
    for position in (state([]), state(SPEC_SETUP[:1]), state(SPEC_SETUP),
                     state(SPEC_SETUP + ["Ann move a1 a2"])):
        ask = GAME.prompt(position)
        assert ask is not None and ask.topic in GAME.pages
    assert GAME.pages["end"].count("(house default)") == 2


# --- properties over random games ---


def pieces(position: State) -> list[str]:
    return [p for stack in position.board for p in stack] + list(position.eaten)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_every_piece_and_pip_is_accounted_for(seed: int) -> None:
    states = random_game(seed)
    for before, after in itertools.pairwise(states):
        assert len(pieces(after)) == len(set(pieces(after)))
        assert all(p[0] != "K" for p in after.eaten)
        assert after.eaten[:len(before.eaten)] == before.eaten
        # A pinned stack never changes again.
        for stack_before, stack_after in zip(before.board, after.board):
            if is_pinned(stack_before):
                assert stack_after == stack_before
        if after.step in ("move", "grue", "over"):
            assert sorted(pieces(after)) == sorted(GLEEBS + GRUES)
            scored = sum(GAME.details(after)["scores"].values())
            pinned = sum(size(p) for stack in after.board if is_pinned(stack) for p in stack[:-1])
            assert scored + pinned + sum(size(p) for p in after.eaten) == 24


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_legal_lines_are_exactly_the_lines_apply_accepts(seed: int) -> None:
    for position in random_game(seed)[1:-1]:
        actor = GAME.next_actor(position)
        assert actor is not None
        if position.step == "place":
            candidates = [Line(actor, "place", (p, s)) for p in GLEEBS for s in SQUARES]
        else:
            candidates = [Line(actor, position.step, (a, b)) for a in SQUARES for b in SQUARES]
        legal = set(GAME.legal_lines(position))
        for line in candidates:
            try:
                GAME.apply(position, line)
                accepted = True
            except IllegalLine:
                accepted = False
            assert accepted == (line in legal), line
        assert set(offered(position)) == {str(line) for line in legal}


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), back=st.integers(1, 40))
def test_replay_equals_live_play_and_undo_then_redo_is_the_identity(seed: int, back: int) -> None:
    first, lines = random_lines(seed)
    options = (("first", first),) if first else ()
    session = Session.new(Store(":memory:"), Header(GAME, ("Ann", "Bob"), options))
    for line in lines:
        session.play([line])
    live, summary_then = session.state, session.summary()
    assert replay_text(session.record()).state == live
    back = min(back, len(lines))
    for _ in range(back):
        session.undo()
    for _ in range(back):
        session.redo()
    assert session.state == live and session.summary() == summary_then
