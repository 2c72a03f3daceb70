"""The example game proves the contract a new game signs: its rules with their errors, its
golden record through `companion replay`, random games through the session, and a whole
game typed on the box through the real app and loop (docs/adding-a-game.md)."""

from __future__ import annotations

import json
import pathlib
import random
import tempfile
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.ai import advisor
from companion.cli import main
from companion.games import GAMES, title
from companion.games.base import (
    BadArguments,
    Choice,
    GameOver,
    Line,
    NotYourTurn,
    Outcome,
    Roll,
    UnknownVerb,
)
from companion.record import Header, format_record, replay_text, summarise
from companion.session import Session
from companion.ui.driver import Driver
from companion.ui.games import screen_title, screens_of
from companion.ui.play import RESULT_SECONDS
from tests.example_game.rules import Details, NothingToHold, Pig, State, Termination
from tests.example_game.screens import SCREENS
from tests.games.records import Records
from tests.harness import Harness
from tests.playout import players_for, playout, wander

HERE = pathlib.Path(__file__).parent
GOLDEN = HERE / "golden.record"
BOOK = Records("pig")
GOAL_20 = ("goal 20",)  # as a record writes it
GOAL_20_OPTION = (("goal", "20"),)  # as a header holds it


def state_after(*lines: str) -> State:
    state: State = BOOK.state_after(*lines, options=GOAL_20)
    return state


# --- the one registration ---


def test_the_registration_line_gives_the_engine_its_screens_and_its_title() -> None:
    assert isinstance(GAMES["pig"], Pig)
    assert screens_of(GAMES["pig"]) is SCREENS
    assert title("pig") == screen_title("pig") == "Pig"  # the engine's, not written again
    assert advisor("pig") is None  # no advisor named: no hint, no companion seat


# --- the rules, one by one ---


def test_each_face_but_a_one_adds_to_the_turn() -> None:
    summary = BOOK.replay("Ann roll 5", "Ann roll 6", options=GOAL_20)
    assert (summary["turn_points"], summary["scores"], summary["next"]) == (11, {"Ann": 0, "Bob": 0}, "Ann")


def test_a_one_loses_the_turn_and_passes_the_die() -> None:
    summary = BOOK.replay("Ann roll 5", "Ann roll 1", options=GOAL_20)
    assert (summary["turn_points"], summary["scores"]["Ann"], summary["next"]) == (0, 0, "Bob")


def test_hold_banks_the_turn_and_passes_the_die() -> None:
    summary = BOOK.replay("Ann roll 5", "Ann hold", options=GOAL_20)
    assert (summary["turn_points"], summary["scores"]["Ann"], summary["next"]) == (0, 5, "Bob")


def test_reaching_the_goal_wins_at_once_without_a_hold() -> None:
    summary = BOOK.replay("Ann roll 6", "Ann roll 6", "Ann roll 6", "Ann roll 2", options=GOAL_20)
    assert (summary["over"], summary["winners"], summary["next"]) == (True, ["Ann"], None)
    state = state_after("Ann roll 6", "Ann roll 6", "Ann roll 6", "Ann roll 2")
    assert Pig().outcome(state) == Outcome(Termination.GOAL, ("Ann",))


def test_a_line_after_the_end_is_refused_with_how_it_ended() -> None:
    state = state_after("Ann roll 6", "Ann roll 6", "Ann roll 6", "Ann roll 2")
    with pytest.raises(GameOver) as caught:
        Pig().apply(state, Line("Bob", "roll", ("3",)))
    assert str(caught.value) == "the game is over: goal reached"


def test_the_goal_is_fifty_unless_the_record_says() -> None:
    assert BOOK.replay()["goal"] == 50


@pytest.mark.parametrize(("lines", "error"), [
    (("Ann hold",), NothingToHold),  # nothing rolled yet
    (("Ann roll 4", "Ann roll 1", "Bob hold"), NothingToHold),  # Bob's turn has just begun
    (("Bob roll 3",), NotYourTurn),
    (("Zed roll 3",), NotYourTurn),
    (("table roll 3",), NotYourTurn),
    (("Ann roll 7",), BadArguments),
    (("Ann roll",), BadArguments),
    (("Ann hold 4",), BadArguments),
    (("Ann pass",), UnknownVerb),
    (("Ann roll 6", "Ann roll 6", "Ann roll 6", "Ann roll 2", "Bob roll 3"), GameOver),
])
def test_illegal_lines_are_refused_with_their_kind(lines: tuple[str, ...], error: type[Exception]) -> None:
    BOOK.refused(error, *lines, options=GOAL_20)


def test_the_prompt_offers_a_roll_then_a_hold_worth_the_turn() -> None:
    game = Pig()
    ask = game.prompt(state_after("Ann roll 4"))
    assert ask is not None and ask.actor == "Ann"
    roll, hold = ask.answers
    assert isinstance(roll, Roll) and roll.line((3,)) == Line("Ann", "roll", ("3",))
    assert isinstance(hold, Choice) and (hold.line, hold.hint) == (Line("Ann", "hold"), "bank 4")


# --- the record: `companion replay`, as the contract says ---


def test_the_golden_record_replays_to_its_summary(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(GOLDEN)]) == 0
    assert json.loads(capsys.readouterr().out) == json.loads(GOLDEN.with_suffix(".json").read_text())


def test_an_illegal_line_fails_the_replay_at_its_line(tmp_path: pathlib.Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.record"
    bad.write_text("game pig\nplayers Ann Bob\n# nothing rolled yet\nAnn hold\n")
    assert main(["replay", str(bad)]) == 1
    out = capsys.readouterr()
    assert (out.out, out.err) == ("", f"{bad}:4: roll first: Ann has no points to bank\n")


# --- random games: what the prompt offers is legal, and the session keeps it ---


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), extra=st.integers(0, 2))
def test_prompt_answers_are_legal_and_replay_matches(seed: int, extra: int) -> None:
    game = GAMES["pig"]
    players = players_for(game, extra)
    state, lines = playout(game, players, random.Random(seed), options={"goal": "20"})
    assert replay_text(format_record(Header(game, players, GOAL_20_OPTION), lines)).state == state
    assert (game.prompt(state) is None) == game.over(state)
    # The typed contract (tests/test_typed_details.py for the box's games): the details are
    # exactly the keys of Details, and the summary follows the outcome.
    assert set(game.details(state)) == Details.__required_keys__
    summary = summarise(game, players, state)
    outcome = game.outcome(state)
    assert summary["over"] is (outcome is not None)
    assert summary["winners"] == (list(outcome.winners) if outcome else [])
    assert outcome is None or outcome.termination is Termination.GOAL


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), ops=st.lists(st.sampled_from("ppppuur!"), min_size=20, max_size=80))
def test_only_the_winner_reaches_the_goal_through_plays_undos_redos_and_restarts(seed: int, ops: str) -> None:
    header = Header(GAMES["pig"], ("Ann", "Bob", "Cat"), GOAL_20_OPTION)
    with tempfile.TemporaryDirectory() as directory:
        for session in wander(f"{directory}/c.db", header, ops, random.Random(seed)):
            state = session.state
            assert all(b >= 0 for b in state.banked)
            if state.winner is None:  # nobody has reached the goal, banked or with this turn
                assert state.banked[state.turn] + state.points < state.goal > max(state.banked)
            else:  # the winner's last roll took them there: at most 5 beyond
                assert state.goal <= state.banked[state.winner] < state.goal + 6
                assert sorted(state.banked)[-2] < state.goal


# --- on the box: the real app and loop, mock keys, the screen read back ---


@pytest.fixture
def box(tmp_path: pathlib.Path) -> Iterator[Harness]:
    harness = Harness(tmp_path)
    yield harness
    harness.close()


def test_the_golden_game_typed_on_the_box_is_stored_line_for_line(box: Harness) -> None:
    replayed = replay_text(GOLDEN.read_text())
    driver = Driver(box.app, lambda intent: box.intent(intent.kind, intent.value))
    driver.new_game(replayed.header)
    for line in replayed.actions:
        driver.line(line)
    assert box.app.session is not None
    assert Session(box.store, box.app.session.gid).state == replayed.state
    assert box.shows("Game over") and box.says("Ann wins!")


def test_new_game_with_the_keys_and_the_games_own_panel(box: Harness) -> None:
    box.press("select")  # New game
    for _ in range(list(GAMES).index("pig")):  # registered last, so listed last
        box.press("down")
    assert box.shows("Pig")
    box.presses("select", "select")  # Pig, 2 players
    box.presses("select", "select")  # seat 1 Ann, seat 2 Bob
    box.press("select")  # the goal: 50, the default
    assert box.shows("Ann") and box.says("Ann: roll or hold")
    assert box.says("goal 50")  # Pig's own panel
    box.intent("digit", 6)  # a face typed in: the roll's number entry opens on it
    box.press("select")
    assert box.says("Ann rolls 6: 6 this turn")  # the entry's result, in the panel's place
    box.wait(RESULT_SECONDS)
    assert box.says("Ann 0 +6")  # then the panel: this turn's points beside the banked ones
