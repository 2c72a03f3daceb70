"""Microbot Racers against RULES.md section 3 and records.md ``microbot-racers``.

Races are written as record lines (Ann is the first seat, Bob the second) and checked
through what players see: health, laps, P1, who is next, winners and the privilege.
"""

from __future__ import annotations

import pathlib
import random
import re

import pytest

from companion.games.base import (
    BadArguments,
    Choice,
    GameOver,
    IllegalLine,
    Line,
    NotYourTurn,
    Outcome,
    Roll,
    usable,
)
from companion.games.microbot_racers import (
    CheckPending,
    DriftTooSoon,
    Forfeited,
    MicrobotRacers,
    NoRunUp,
    NoSwitch,
    NotActing,
    NotTravelling,
    PrivilegeSpent,
    PuddleLogged,
    SpaceTaken,
    Termination,
    TooFast,
    WrongRoller,
)
from companion.record import Header, RecordError, format_record, replay_text, summary
from tests.games.scenarios import BOB_FIRST_ANN_ACTS, BOB_P1, picks
from tests.playout import playout

GAME = MicrobotRacers()
ANN_P1 = "table roll 1 2"
GOLDEN = pathlib.Path(__file__).parent.parent / "golden" / "microbot-racers"


def text(lines: list[str], laps: int | None = None, side: str | None = None) -> str:
    head = ["game microbot-racers", "players Ann Bob"]
    if laps is not None:
        head.append(f"option laps {laps}")
    if side is not None:
        head.append(f"option side {side}")
    return "\n".join(head + lines) + "\n"


def summ(lines: list[str], **options: object) -> dict:
    return summary(replay_text(text(lines, **options)))  # type: ignore[arg-type]


def state(lines: list[str], **options: object):
    return replay_text(text(lines, **options)).state  # type: ignore[arg-type]


def refuse(lines: list[str], bad: str, error: type[IllegalLine], **options: object) -> None:
    """``bad`` is refused with ``error`` after ``lines``, and the whole record is rejected."""
    before = state(lines, **options)
    with pytest.raises(error):
        GAME.apply(before, Line.parse(bad))
    with pytest.raises(RecordError) as err:
        replay_text(text(lines + [bad], **options))  # type: ignore[arg-type]
    assert err.value.line == len(lines) + 3 + len(options)


PASS3 = ["pass", "pass", "pass"]
ALL_PASS_ANN_P1 = picks("Ann", PASS3, "Bob", PASS3)


def hurt(name: str, times: int) -> list[str]:
    """Hazards failed by the acting robot: a 6 is never below health."""
    return [f"{name} hazard", f"{name} roll 6"] * times


def ann_at(health: int) -> list[str]:
    """A first turn after which Ann's robot has ``health`` (Ann's move-1 is the last action)."""
    return [ANN_P1, *picks("Ann", ["move-1", "pass", "pass"], "Bob", PASS3),
            "Ann do move-1", *hurt("Ann", 6 - health)]


def lines_of(ask) -> list[str]:
    """The required lines the prompt offers that can be logged now."""
    return [str(a.line) for a in usable(ask.answers) if isinstance(a, Choice)]


def refused_of(ask) -> dict[str, str]:
    """The required lines the prompt lists although the rules refuse them now, with why."""
    return {str(a.line): a.refusal for a in ask.answers if isinstance(a, Choice) and a.refusal}


def extras_of(ask) -> list[str]:
    return [str(a.line) for a in ask.extras]


# --- options ---


def test_default_options_are_three_laps_on_the_easy_side() -> None:
    assert GAME.option_values({}) == {"laps": 3, "side": "easy"}


@pytest.mark.parametrize("laps", [1, 5, 9])
def test_laps_option_1_to_9(laps: int) -> None:
    assert summ([], laps=laps)["over"] is False


@pytest.mark.parametrize("head", ["option laps 0", "option laps 10", "option side medium"])
def test_bad_options_are_refused_at_their_line(head: str) -> None:
    with pytest.raises(RecordError) as err:
        replay_text(f"game microbot-racers\nplayers Ann Bob\n{head}\n")
    assert err.value.line == 3


def test_jumps_only_on_the_hard_side() -> None:
    refuse([ANN_P1], "Ann pick jump-2", BadArguments)
    assert summ([ANN_P1, "Ann pick jump-2"], side="hard")["next"] == "Bob"


def test_exactly_two_players() -> None:
    with pytest.raises(RecordError):
        replay_text("game microbot-racers\nplayers Ann Bob Cat\n")


# --- first player ---


def test_start_of_race() -> None:
    s = summ([])
    assert s["turn"] == 1 and s["p1"] is None and s["next"] == "table"
    assert s["health"] == {"Ann": 6, "Bob": 6}
    assert s["laps"] == {"Ann": 0, "Bob": 0}
    assert s["privilege"] == {"Ann": True, "Bob": True}
    assert s["over"] is False and s["winners"] == []


@pytest.mark.parametrize(("roll", "p1"), [("table roll 2 5", "Ann"), ("table roll 6 1", "Bob")])
def test_lower_roll_is_p1(roll: str, p1: str) -> None:
    s = summ([roll])
    assert s["p1"] == p1 and s["next"] == p1


def test_tied_roll_is_rolled_again() -> None:
    s = summ(["table roll 4 4"])
    assert s["p1"] is None and s["next"] == "table"
    assert summ(["table roll 4 4", "table roll 3 1"])["p1"] == "Bob"


def test_no_second_roll_once_p1_is_decided() -> None:
    refuse([ANN_P1], "table roll 3 4", IllegalLine)


def test_first_player_roll_is_the_tables_with_two_faces() -> None:
    refuse([], "Ann roll 3", NotYourTurn)
    refuse([], "table roll 3", BadArguments)
    refuse([], "table roll 0 3", BadArguments)
    refuse([], "table roll 3 7", BadArguments)


# --- the take-P1 privilege ---


def test_single_claim_makes_p1_and_spends_the_privilege() -> None:
    s = summ(["Bob first"])
    assert s["p1"] == "Bob" and s["next"] == "Bob"
    assert s["privilege"] == {"Ann": True, "Bob": False}


def test_privilege_is_once_per_race() -> None:
    turn1 = ["Ann first", *picks("Ann", PASS3, "Bob", PASS3)]
    assert summ(turn1)["next"] == "table"
    refuse(turn1, "Ann first", PrivilegeSpent)
    refuse(["Ann first"], "Ann first", PrivilegeSpent)
    s = summ(turn1 + ["Bob first"])
    assert s["turn"] == 2 and s["p1"] == "Bob" and s["privilege"] == {"Ann": False, "Bob": False}


def test_both_claim_both_spent_and_a_roll_follows() -> None:
    s = summ(["Ann first", "Bob first"])
    assert s["p1"] is None and s["next"] == "table"
    assert s["privilege"] == {"Ann": False, "Bob": False}
    refuse(["Ann first", "Bob first"], "Ann pick move-1", IllegalLine)
    refuse(["Ann first", "Bob first"], "Ann first", PrivilegeSpent)
    assert summ(["Ann first", "Bob first", "table roll 5 2"])["p1"] == "Bob"


def test_privilege_only_at_the_start_of_a_turn() -> None:
    refuse([ANN_P1], "Bob first", PrivilegeSpent)
    refuse(["table roll 3 3"], "Bob first", PrivilegeSpent)  # even after a tie
    refuse(["Ann first", "Ann pick move-1"], "Bob first", PrivilegeSpent)
    in_do = [ANN_P1, *picks("Ann", ["move-1", "pass", "pass"], "Bob", ["move-2", "pass", "pass"])]
    refuse(in_do, "Ann first", PrivilegeSpent)
    refuse(in_do + ["Bob do move-2"], "Bob first", PrivilegeSpent)


def test_privilege_belongs_to_a_player() -> None:
    refuse([], "table first", NotYourTurn)


# --- the p1 and turn summary keys ---


def test_p1_and_turn_through_turns() -> None:
    turn1 = ["table roll 4 4", ANN_P1, *ALL_PASS_ANN_P1]
    s = summ(turn1)
    assert (s["turn"], s["p1"], s["next"]) == (1, "Ann", "table")  # last turn's until ...
    s = summ(turn1 + ["table roll 3 3"])
    assert (s["turn"], s["p1"], s["next"]) == (2, None, "table")  # ... the next turn's first line
    s = summ(turn1 + ["table roll 3 3", "table roll 5 2"])
    assert (s["turn"], s["p1"]) == (2, "Bob")
    s = summ(turn1 + ["Bob first"])
    assert (s["turn"], s["p1"]) == (2, "Bob")
    s = summ(turn1 + ["Bob first", "Ann first"])
    assert (s["turn"], s["p1"], s["next"]) == (2, None, "table")


def test_turn_counts_turns_begun() -> None:
    assert summ([])["turn"] == 1
    assert summ(["table roll 2 2"])["turn"] == 1
    two = [ANN_P1, *ALL_PASS_ANN_P1, ANN_P1, *ALL_PASS_ANN_P1]
    assert summ(two)["turn"] == 2
    assert summ(two + ["Ann first"])["turn"] == 3


# --- picks ---


def test_pick_order_p1_p2_p2_p1_p1_p2() -> None:
    lines = [BOB_P1]
    expected = ["Bob", "Ann", "Ann", "Bob", "Bob", "Ann"]
    actions = ["move-1", "move-2", "move-3", "drift-left", "turn-left", "repair"]
    for who, action in zip(expected, actions):
        assert summ(lines)["next"] == who
        refuse(lines, f"{'Ann' if who == 'Bob' else 'Bob'} pick {action}", NotYourTurn)
        lines.append(f"{who} pick {action}")
    assert summ(lines)["next"] == "Ann"  # P2 carries out first


def test_one_marker_per_space() -> None:
    refuse([ANN_P1, "Ann pick move-2"], "Bob pick move-2", SpaceTaken)
    refuse([ANN_P1, "Ann pick move-2", "Bob pass", "Bob pass"], "Ann pick move-2", SpaceTaken)


def test_move_longer_than_health_cannot_be_picked() -> None:
    at2 = ann_at(2)
    assert summ(at2)["health"]["Ann"] == 2
    refuse(at2 + [ANN_P1], "Ann pick move-3", TooFast)
    assert summ(at2 + [ANN_P1, "Ann pick move-2"])["next"] == "Bob"
    ask = GAME.prompt(state(at2 + [ANN_P1]))
    assert "Ann pick move-3" not in lines_of(ask) and "Ann pick move-2" in lines_of(ask)


def test_unknown_action_is_refused() -> None:
    refuse([ANN_P1], "Ann pick fly", BadArguments)


def test_passes_and_a_turn_where_everyone_passes() -> None:
    s = summ([ANN_P1, *ALL_PASS_ANN_P1])
    assert s["next"] == "table" and s["health"] == {"Ann": 6, "Bob": 6}


def test_no_actions_before_all_six_picks_and_no_picks_after() -> None:
    refuse([ANN_P1, "Ann pick move-1"], "Ann do move-1", IllegalLine)
    done = [ANN_P1, *picks("Ann", ["move-1", "pass", "pass"], "Bob", ["move-2", "pass", "pass"])]
    refuse(done, "Bob pick repair", IllegalLine)


# --- carrying out ---

FULL = picks("Ann", ["move-1", "turn-left", "repair"], "Bob", ["move-2", "drift-left", "turn-right"])


def test_execution_alternates_starting_with_p2() -> None:
    lines = [ANN_P1, *FULL]
    refuse(lines, "Ann do move-1", NotYourTurn)
    order = ["Bob do move-2", "Ann do move-1", "Bob do turn-right", "Ann do turn-left",
             "Bob do drift-left", "Ann do repair"]
    for line in order:
        assert summ(lines)["next"] == line.split()[0]
        lines.append(line)
    assert summ(lines)["next"] == "table"


def test_actions_in_any_order_but_only_picked_ones() -> None:
    lines = [ANN_P1, *FULL]
    assert summ(lines + ["Bob do turn-right"])["next"] == "Ann"
    refuse(lines, "Bob do move-1", IllegalLine)  # Ann's pick, not Bob's
    refuse(lines + ["Bob do move-2", "Ann do move-1"], "Bob do move-2", IllegalLine)  # done


def test_player_with_nothing_left_is_skipped() -> None:
    lines = [ANN_P1, *picks("Ann", ["move-1", "turn-left", "repair"], "Bob", ["move-2", "pass", "pass"])]
    for line in ["Bob do move-2", "Ann do move-1", "Ann do turn-left"]:
        lines.append(line)
        assert summ(lines)["next"] == "Ann"
    lines.append("Ann do repair")
    assert summ(lines)["next"] == "table"
    # P2 with nothing at all: P1 starts
    assert summ([ANN_P1, *picks("Ann", ["move-1", "pass", "pass"], "Bob", PASS3)])["next"] == "Ann"


# --- jumps: run-up ---

HARD = {"side": "hard"}


def test_jump_needs_a_move_just_before() -> None:
    lines = [ANN_P1, *picks("Ann", ["jump-2", "move-1", "pass"], "Bob", PASS3)]
    refuse(lines, "Ann do jump-2", NoRunUp, **HARD)  # nothing before it in the race
    s = summ(lines + ["Ann do move-1", "Ann do jump-2"], **HARD)
    assert s["next"] == "Ann"  # the jump roll


def test_run_up_carries_across_turns() -> None:
    turn1 = [ANN_P1, *picks("Ann", ["move-1", "pass", "pass"], "Bob", PASS3), "Ann do move-1"]
    turn2 = [ANN_P1, *picks("Ann", ["jump-3", "turn-left", "pass"], "Bob", PASS3), "Ann do jump-3",
             "Ann roll 1"]
    assert summ(turn1 + turn2, **HARD)["health"]["Ann"] == 6


@pytest.mark.parametrize("breaker", [["Ann do turn-left"], ["Ann do drift-left"],
                                     ["Ann do jump-2", "Ann roll 1"], ["Ann do jump-2", "Ann roll 6"]])
def test_run_up_broken_by_turn_drift_or_jump(breaker: list[str]) -> None:  # [D]
    action = breaker[0].split()[2]
    turn1 = [ANN_P1, *picks("Ann", ["move-1", action, "pass"], "Bob", PASS3), "Ann do move-1", *breaker]
    turn2 = [ANN_P1, *picks("Ann", ["jump-3", "move-2", "pass"], "Bob", PASS3)]
    refuse(turn1 + turn2, "Ann do jump-3", NoRunUp, **HARD)
    assert summ(turn1 + turn2 + ["Ann do move-2", "Ann do jump-3"], **HARD)["next"] == "Ann"


def test_a_repair_keeps_the_run_up() -> None:  # [S]: a repair is no move
    lines = [ANN_P1, *picks("Ann", ["move-2", "repair", "jump-2"], "Bob", PASS3),
             "Ann do move-2", "Ann do repair"]
    assert summ(lines, **HARD)["next"] == "Ann"  # the jump is still to do
    s = summ(lines + ["Ann do jump-2", "Ann roll 1"], **HARD)
    assert (s["next"], s["health"]["Ann"]) == ("table", 6)
    # across turns, and after a pit stop too
    turn1 = [ANN_P1, *picks("Ann", ["move-1", "repair", "pass"], "Bob", PASS3), "Ann do move-1",
             "Ann do repair pit"]
    turn2 = [ANN_P1, *picks("Ann", ["jump-3", "pass", "pass"], "Bob", PASS3), "Ann do jump-3", "Ann roll 1"]
    assert summ(turn1 + turn2, **HARD)["next"] == "table"


def test_a_repair_keeps_no_run_up_that_was_already_broken() -> None:
    lines = [ANN_P1, *picks("Ann", ["move-1", "turn-left", "repair"], "Bob", PASS3), "Ann do move-1",
             "Ann do turn-left", "Ann do repair", ANN_P1, *picks("Ann", ["jump-2", "move-1", "pass"], "Bob", PASS3)]
    refuse(lines, "Ann do jump-2", NoRunUp, **HARD)


def test_jumps_cannot_follow_each_other() -> None:
    lines = [ANN_P1, *picks("Ann", ["move-1", "jump-2", "jump-3"], "Bob", PASS3),
             "Ann do move-1", "Ann do jump-2", "Ann roll 1"]
    assert summ(lines, **HARD)["next"] == "table"  # jump-3 could not be done: forfeited


# --- drifts ---


def test_two_drifts_need_a_forward_move_between() -> None:
    lines = [ANN_P1, *picks("Ann", ["drift-left", "drift-right", "move-1"], "Bob", PASS3),
             "Ann do drift-left"]
    refuse(lines, "Ann do drift-right", DriftTooSoon)
    assert summ(lines + ["Ann do move-1", "Ann do drift-right"])["next"] == "table"


@pytest.mark.parametrize("between", ["turn-left", "repair"])
def test_turn_and_repair_are_not_forward_moves(between: str) -> None:
    lines = [ANN_P1, *picks("Ann", ["drift-left", between, "drift-right"], "Bob", PASS3),
             "Ann do drift-left"]
    refuse(lines, "Ann do drift-right", DriftTooSoon)
    assert summ(lines + [f"Ann do {between}"])["next"] == "table"  # drift-right forfeited


def test_drift_rule_spans_turns() -> None:
    turn1 = [ANN_P1, *picks("Ann", ["drift-left", "pass", "pass"], "Bob", PASS3), "Ann do drift-left"]
    turn2 = [ANN_P1, *picks("Ann", ["drift-right", "turn-left", "pass"], "Bob", PASS3)]
    refuse(turn1 + turn2, "Ann do drift-right", DriftTooSoon)


def test_move_stopped_by_an_impact_counts_as_forward() -> None:
    turn1 = [ANN_P1, *picks("Ann", ["drift-left", "move-1", "pass"], "Bob", PASS3),
             "Ann do drift-left", "Ann do move-1", "Ann impact block"]
    turn2 = [ANN_P1, *picks("Ann", ["drift-right", "turn-left", "pass"], "Bob", PASS3),
             "Ann do drift-right"]
    assert summ(turn1 + turn2)["next"] == "Ann"


def test_successful_jump_then_drift() -> None:
    turn1 = [ANN_P1, *picks("Ann", ["drift-left", "pass", "pass"], "Bob", PASS3), "Ann do drift-left"]
    turn2 = [ANN_P1, *picks("Ann", ["move-1", "jump-2", "drift-right"], "Bob", PASS3),
             "Ann do move-1", "Ann do jump-2", "Ann roll 1", "Ann do drift-right"]
    assert summ(turn1 + turn2, **HARD)["next"] == "table"


def test_failed_jump_forfeits_a_drift_after_it() -> None:
    lines = [ANN_P1, *picks("Ann", ["move-1", "jump-2", "drift-right"], "Bob", PASS3),
             "Ann do move-1", "Ann do jump-2", "Ann roll 6"]
    s = summ(lines, **HARD)
    assert s["next"] == "table" and s["health"]["Ann"] == 5


def test_undoable_actions_forfeited_only_when_all_left_are_undoable() -> None:
    # at the race start a lone jump has no run-up: forfeited, Bob's move is all that is left
    lines = [ANN_P1, *picks("Ann", ["jump-2", "pass", "pass"], "Bob", ["move-1", "pass", "pass"])]
    assert summ(lines, **HARD)["next"] == "Bob"
    assert summ(lines + ["Bob do move-1"], **HARD)["next"] == "table"
    refuse(lines + ["Bob do move-1"], "Ann do jump-2", Forfeited, **HARD)
    # a jump that only waits for a move is not lost
    waits = [ANN_P1, *picks("Ann", ["jump-2", "move-1", "pass"], "Bob", PASS3)]
    with pytest.raises(NoRunUp) as err:
        GAME.apply(state(waits, **HARD), Line.parse("Ann do jump-2"))
    assert str(err.value) == "jump-2: no run-up before a first move"


def refusal(lines: list[str], bad: str, **options: object) -> str:
    """The reason ``bad`` is refused after ``lines``."""
    with pytest.raises(IllegalLine) as err:
        GAME.apply(state(lines, **options), Line.parse(bad))
    return str(err.value)


TURNED = [ANN_P1, *picks("Ann", ["move-1", "turn-left", "jump-2"], "Bob", ["move-2", "pass", "pass"]),
          "Bob do move-2", "Ann do move-1", "Ann do turn-left"]


def test_a_forfeited_action_is_refused_with_the_reason_it_was_lost() -> None:  # [D]
    assert state(TURNED, **HARD).phase == "done"
    assert refusal(TURNED, "Ann do jump-2", **HARD) == "Ann's jump-2 was forfeited: no run-up since the turn"
    refuse(TURNED, "Ann do jump-2", Forfeited, **HARD)


def test_a_forfeit_is_named_whoever_is_to_act() -> None:
    lost = "Ann's drift-right was forfeited: no forward move since the drift"
    # with a repair left, Ann's second drift waits (and is lost after the repair)
    waits = [ANN_P1, *picks("Ann", ["drift-left", "drift-right", "repair"], "Bob", ["move-2", "move-1", "pass"]),
             "Bob do move-2", "Ann do drift-left", "Bob do move-1"]
    assert refusal(waits, "Ann do drift-right") == "drift-right: a forward move first"
    # the prompt lists it after the repair, with the reason, instead of leaving it out
    ask = GAME.prompt(state(waits))
    assert lines_of(ask) == ["Ann do repair", "Ann do repair pit"]
    assert refused_of(ask) == {"Ann do drift-right": "drift-right: a forward move first"}
    assert refusal(waits + ["Ann do repair"], "Ann do drift-right") == lost
    # with nothing else left it is lost at once, while Bob still has a move to do
    lines = [ANN_P1, *picks("Ann", ["drift-left", "drift-right", "pass"], "Bob", ["move-2", "move-1", "pass"]),
             "Bob do move-2", "Ann do drift-left"]
    assert summ(lines)["next"] == "Bob"
    assert refusal(lines, "Ann do drift-right") == lost
    refuse(lines, "Ann do drift-right", Forfeited)


@pytest.mark.parametrize(("how", "why"), [
    (["Ann do move-1", "Ann impact block"], "the robot hit a block"),
    (["Ann do move-1", "Ann impact robot"], "the robot ran into the other robot"),
    (["Ann do move-1", "Ann do jump-2", "Ann roll 6"], "the jump failed"),
])
def test_actions_lost_when_the_robot_stops_say_so(how: list[str], why: str) -> None:
    lines = [ANN_P1, *picks("Ann", ["move-1", "jump-2", "move-3"], "Bob", ["repair", "pass", "pass"]),
             "Bob do repair", *how]
    assert refusal(lines, "Ann do move-3", **HARD) == f"Ann's move-3 was forfeited: {why}"


@pytest.mark.parametrize(("before", "why"), [
    ([], "no run-up before a first move"),
    (["Ann do drift-left"], "no run-up since the drift"),
    (["Ann do move-1", "Ann do jump-3", "Ann roll 1"], "no run-up since the jump"),
])
def test_each_way_a_run_up_is_missing_is_told(before: list[str], why: str) -> None:
    picked = {0: ["jump-2", "pass", "pass"], 1: ["drift-left", "jump-2", "pass"],
              3: ["move-1", "jump-3", "jump-2"]}[len(before)]
    lines = [ANN_P1, *picks("Ann", picked, "Bob", PASS3), *before]
    assert refusal(lines, "Ann do jump-2", **HARD) == f"Ann's jump-2 was forfeited: {why}"


def test_forfeits_are_the_turns_own() -> None:
    lines = TURNED + [ANN_P1]
    assert refusal(lines, "Ann do jump-2", **HARD) == "actions are carried out after all six picks"
    again = lines + picks("Ann", ["jump-2", "move-1", "pass"], "Bob", PASS3)
    assert refusal(again, "Ann do jump-2", **HARD) == "jump-2: no run-up since the turn"


# --- hazards ---


@pytest.mark.parametrize(("health", "face", "after"), [(6, 5, 6), (6, 6, 5), (4, 3, 4), (4, 4, 3), (1, 1, 0)])
def test_hazard_succeeds_below_health_else_minus_one(health: int, face: int, after: int) -> None:
    s = summ(ann_at(health) + ["Ann hazard", f"Ann roll {face}"])
    assert s["health"]["Ann"] == after


def test_hazard_only_on_a_travelling_action_of_the_acting_robot() -> None:
    refuse([ANN_P1], "Ann hazard", NotActing)
    lines = [ANN_P1, *picks("Ann", ["turn-left", "repair", "pass"], "Bob", ["move-1", "pass", "pass"]),
             "Bob do move-1"]
    refuse(lines, "Ann hazard", NotActing)  # Bob is the one moving
    refuse(lines + ["Ann do turn-left"], "Ann hazard", NotActing)
    refuse(lines + ["Ann do repair"], "Ann lap", NotActing)
    refuse(lines + ["Ann do turn-left"], "Bob hazard", NotActing)  # Bob's move is over


def test_several_hazards_in_one_move() -> None:
    assert summ(ann_at(3))["health"]["Ann"] == 3


def test_a_pending_check_comes_before_any_other_line() -> None:
    lines = [ANN_P1, *picks("Ann", ["move-1", "pass", "pass"], "Bob", ["move-2", "pass", "pass"]),
             "Bob do move-2", "Bob hazard"]
    assert summ(lines)["next"] == "Bob"
    for bad in ["Ann do move-1", "Bob lap", "Bob impact block", "Bob hazard", "Ann roll 1",
                "table roll 1 2", "Ann first"]:
        refuse(lines, bad, CheckPending)
    refuse(lines, "Bob roll 7", BadArguments)
    assert summ(lines + ["Bob roll 1"])["next"] == "Ann"


# --- jump rolls ---


def jump_at(health: int) -> list[str]:
    return [ANN_P1, *picks("Ann", ["move-1", "jump-2", "turn-left"], "Bob", ["move-2", "pass", "pass"]),
            "Bob do move-2", "Ann do move-1", *hurt("Ann", 6 - health), "Ann do jump-2"]


@pytest.mark.parametrize(("health", "face", "ok"), [(6, 4, True), (6, 5, False), (4, 2, True), (4, 3, False),
                                                    (2, 1, False)])
def test_jump_succeeds_below_health_minus_one(health: int, face: int, ok: bool) -> None:
    s = summ(jump_at(health) + [f"Ann roll {face}"], **HARD)
    assert s["health"]["Ann"] == (health if ok else health - 1)
    assert s["next"] == ("Ann" if ok else "table")  # a miss forfeits turn-left


def test_failed_jump_logs_nothing_more() -> None:
    lines = jump_at(6) + ["Ann roll 6"]
    for bad in ["Ann hazard", "Ann lap", "Ann impact block"]:
        refuse(lines, bad, NotActing, **HARD)


def test_successful_jump_may_cross_a_hazard_and_a_lap() -> None:
    s = summ(jump_at(6) + ["Ann roll 1", "Ann hazard", "Ann roll 6", "Ann lap"], **HARD)
    assert s["health"]["Ann"] == 5 and s["laps"]["Ann"] == 1


# --- impacts ---


def test_impact_block_minus_one_and_forfeit_the_rest() -> None:
    lines = BOB_FIRST_ANN_ACTS + ["Ann impact block"]
    s = summ(lines)
    assert s["health"] == {"Ann": 5, "Bob": 6} and s["next"] == "Bob"
    assert summ(lines + ["Bob do move-2"])["next"] == "Bob"  # Ann has nothing left
    assert summ(lines + ["Bob do move-2", "Bob do turn-right"])["next"] == "table"


def test_impact_robot_both_minus_one_only_the_actor_forfeits() -> None:
    lines = BOB_FIRST_ANN_ACTS + ["Ann impact robot"]
    s = summ(lines)
    assert s["health"] == {"Ann": 5, "Bob": 5} and s["next"] == "Bob"
    assert summ(lines + ["Bob do move-2"])["next"] == "Bob"
    assert summ(lines + ["Bob do move-2", "Bob do turn-right"])["next"] == "table"


def test_after_an_impact_nothing_more_is_logged_for_that_action() -> None:
    lines = BOB_FIRST_ANN_ACTS + ["Ann impact block"]
    for bad in ["Ann impact block", "Ann impact robot", "Ann hazard", "Ann lap"]:
        refuse(lines, bad, NotActing)


def test_impact_needs_block_or_robot() -> None:
    refuse(BOB_FIRST_ANN_ACTS, "Ann impact wall", BadArguments)
    refuse(BOB_FIRST_ANN_ACTS, "Ann impact", BadArguments)


# --- transform switches: the other robot's puddle ---

SWITCHED = BOB_FIRST_ANN_ACTS + ["Ann switch", "Bob hazard"]  # Bob's puddle check pending


def test_a_switch_changes_nothing_tracked() -> None:
    before, after = summ(BOB_FIRST_ANN_ACTS), summ(BOB_FIRST_ANN_ACTS + ["Ann switch"])
    assert after == before


def test_after_a_switch_the_other_robot_checks_and_is_next() -> None:
    assert summ(SWITCHED)["next"] == "Bob"
    ask = GAME.prompt(state(SWITCHED))
    assert ask.actor == "Bob" and ask.topic == "puddle"
    assert ask.question == "Puddle: 1-5 is safe"
    (roll,) = ask.answers
    assert isinstance(roll, Roll) and roll.line((3,)) == Line("Bob", "roll", ("3",))
    assert roll.chance == "83%"


@pytest.mark.parametrize(("health", "face", "after"), [(6, 5, 6), (6, 6, 5), (3, 2, 3), (3, 3, 2)])
def test_the_other_robots_check_is_against_its_own_health(health: int, face: int, after: int) -> None:
    hurt_bob = [BOB_P1, *picks("Bob", ["move-2", "pass", "pass"], "Ann", ["move-1", "pass", "pass"]),
                "Ann do move-1", "Bob do move-2", *hurt("Bob", 6 - health)]
    lines = hurt_bob + [ANN_P1, *picks("Ann", ["move-3", "pass", "pass"], "Bob", PASS3),
                        "Ann do move-3", *hurt("Ann", 3), "Ann switch", "Bob hazard", f"Bob roll {face}"]
    s = summ(lines)
    assert s["health"] == {"Ann": 3, "Bob": after}
    assert s["next"] == "table" and s["turn"] == 2


def test_a_failed_check_of_the_other_robot_at_health_1_destroys_it() -> None:
    record = (GOLDEN / "switch-puddle-destroys.record").read_text()
    s = summary(replay_text(record))
    assert s["over"] and s["winners"] == ["Ann"] and s["health"]["Bob"] == 0


def test_the_other_robots_check_does_not_touch_the_acting_robot() -> None:
    s = summ(SWITCHED + ["Bob roll 6", "Ann lap"])
    assert s["health"] == {"Ann": 6, "Bob": 5} and s["laps"]["Ann"] == 1
    assert s["next"] == "Bob"  # Bob's action comes next, as before the switch
    assert summ(SWITCHED + ["Bob roll 6", "Bob do move-2"])["picked"]["Bob"] == ["turn-right"]


def test_a_puddle_for_the_other_robot_needs_a_switch() -> None:
    refuse(BOB_FIRST_ANN_ACTS, "Bob hazard", NoSwitch)
    refuse(BOB_FIRST_ANN_ACTS + ["Ann lap", "Ann hazard", "Ann roll 1"], "Bob hazard", NoSwitch)
    # a new action closes the last one's switch
    refuse(SWITCHED + ["Bob roll 1", "Bob do move-2", "Ann do turn-left"], "Bob hazard", NoSwitch)


def test_one_puddle_for_the_other_robot_after_each_switch() -> None:
    refuse(SWITCHED + ["Bob roll 1"], "Bob hazard", PuddleLogged)
    again = SWITCHED + ["Bob roll 1", "Ann switch", "Bob hazard", "Bob roll 6"]
    assert summ(again)["health"]["Bob"] == 5
    refuse(BOB_FIRST_ANN_ACTS + ["Ann switch", "Ann switch", "Bob hazard", "Bob roll 1"],
           "Bob hazard", PuddleLogged)  # it belongs to the last switch


def test_the_pending_check_is_rolled_by_its_own_robot() -> None:
    refuse(SWITCHED, "Ann roll 3", WrongRoller)
    refuse(BOB_FIRST_ANN_ACTS + ["Ann hazard"], "Bob roll 3", WrongRoller)
    refuse(SWITCHED, "Bob roll 7", BadArguments)


def test_nothing_else_while_the_other_robots_check_is_pending() -> None:
    for bad in ["Bob do move-2", "Ann lap", "Ann switch", "Ann hazard", "Ann impact block",
                "Bob hazard", "table roll 1 2", "Ann first", "Bob pass"]:
        refuse(SWITCHED, bad, CheckPending)


def test_the_acting_robots_own_check_comes_before_the_other_robots_puddle() -> None:
    lines = BOB_FIRST_ANN_ACTS + ["Ann switch", "Ann hazard"]
    refuse(lines, "Bob hazard", CheckPending)
    assert summ(lines + ["Ann roll 1", "Bob hazard", "Bob roll 6"])["health"]["Bob"] == 5


def test_a_switch_only_while_the_robot_travels() -> None:
    turned = [BOB_P1, *picks("Bob", ["move-2", "pass", "pass"], "Ann", ["turn-left", "repair", "pass"])]
    refuse(turned + ["Ann do turn-left"], "Ann switch", NotTravelling)
    refuse(turned + ["Ann do turn-left", "Bob do move-2", "Ann do repair"], "Ann switch", NotTravelling)
    refuse(turned + ["Ann do turn-left"], "Bob switch", NotActing)  # not Bob's action
    refuse([ANN_P1], "Ann switch", NotActing)
    refuse(BOB_FIRST_ANN_ACTS, "Ann switch now", BadArguments)
    refuse(BOB_FIRST_ANN_ACTS + ["Ann switch"], "Bob hazard now", BadArguments)
    assert summ(turned + ["Ann do turn-left", "Bob do move-2", "Bob switch", "Ann hazard",
                          "Ann roll 6"])["health"]["Ann"] == 5


def test_switch_during_a_drift_and_a_successful_jump_not_a_failed_one() -> None:
    drift = [BOB_P1, *picks("Bob", PASS3, "Ann", ["drift-left", "pass", "pass"]), "Ann do drift-left",
             "Ann switch", "Bob hazard", "Bob roll 6"]
    assert summ(drift)["health"]["Bob"] == 5
    refuse(jump_at(6), "Ann switch", CheckPending, **HARD)  # the jump roll first
    assert summ(jump_at(6) + ["Ann roll 1", "Ann switch", "Bob hazard", "Bob roll 6"],
                **HARD)["health"]["Bob"] == 5
    refuse(jump_at(6) + ["Ann roll 6"], "Ann switch", NotActing, **HARD)


def test_a_switch_before_an_impact_still_leaves_the_other_robots_puddle() -> None:
    lines = BOB_FIRST_ANN_ACTS + ["Ann switch", "Ann impact block"]
    refuse(lines, "Ann switch", NotActing)  # the robot has stopped
    assert summ(lines + ["Bob hazard", "Bob roll 6"])["health"] == {"Ann": 5, "Bob": 5}


def test_switch_lines_until_the_next_turns_first_line() -> None:
    lines = ann_at(6) + ["Ann switch", "Bob hazard"]
    assert summ(lines)["next"] == "Bob"
    s = summ(lines + ["Bob roll 6"])
    assert s["health"]["Bob"] == 5 and s["next"] == "table" and s["turn"] == 1
    refuse(lines, "table roll 1 2", CheckPending)
    refuse(ann_at(6) + [ANN_P1], "Ann switch", NotActing)
    refuse(ann_at(6) + ["Ann switch", "Bob first"], "Bob hazard", NotActing)


def test_prompt_offers_the_switch_then_the_other_robots_puddle_once() -> None:
    extras = GAME.prompt(state(BOB_FIRST_ANN_ACTS)).extras
    assert [a.label for a in extras if a.line == Line("Ann", "switch")] == ["Ann switch"]
    after = GAME.prompt(state(BOB_FIRST_ANN_ACTS + ["Ann switch"]))
    assert after.actor == "Bob"  # still Bob's action to do: the puddle is optional
    first = after.extras[0]
    assert first.line == Line("Bob", "hazard") and first.label == "Bob puddle"
    assert first.hint == "83% safe"
    logged = GAME.prompt(state(SWITCHED + ["Bob roll 1"]))
    assert Line("Bob", "hazard") not in [a.line for a in logged.extras]
    stopped = GAME.prompt(state(BOB_FIRST_ANN_ACTS + ["Ann switch", "Ann impact robot"]))
    assert extras_of(stopped) == ["Bob hazard"]
    # Bob is at 5 after the impact: 1-4 is safe
    assert "67%" in GAME.prompt(state(BOB_FIRST_ANN_ACTS + ["Ann switch", "Ann impact robot",
                                                           "Bob hazard"])).answers[0].chance


# --- repairs ---


@pytest.mark.parametrize(("health", "line", "after"), [(4, "Ann do repair", 5), (6, "Ann do repair", 6),
                                                       (2, "Ann do repair pit", 6)])
def test_repair(health: int, line: str, after: int) -> None:
    turn2 = [ANN_P1, *picks("Ann", ["repair", "pass", "pass"], "Bob", PASS3), line]
    assert summ(ann_at(health) + turn2)["health"]["Ann"] == after


def test_pit_is_only_for_repair() -> None:
    lines = [ANN_P1, *picks("Ann", ["move-1", "pass", "pass"], "Bob", PASS3)]
    refuse(lines, "Ann do move-1 pit", BadArguments)


# --- the end ---


def test_health_zero_destroys_and_the_other_wins_at_once() -> None:
    lines = [ANN_P1, *picks("Ann", ["move-1", "turn-left", "pass"], "Bob", ["move-2", "pass", "pass"]),
             "Bob do move-2", "Ann do move-1", *hurt("Ann", 6)]
    s = summ(lines)
    assert s["health"]["Ann"] == 0 and s["over"] is True and s["winners"] == ["Bob"] and s["next"] is None
    assert GAME.prompt(state(lines)) is None
    assert GAME.outcome(state(lines)) == Outcome(Termination.WRECKED, ("Bob",))


def test_both_destroyed_together_is_a_draw() -> None:
    turn1 = [ANN_P1, *picks("Ann", ["move-1", "pass", "pass"], "Bob", ["move-2", "pass", "pass"]),
             "Bob do move-2", *hurt("Bob", 5), "Ann do move-1", *hurt("Ann", 5)]
    assert summ(turn1)["health"] == {"Ann": 1, "Bob": 1}
    s = summ(turn1 + [ANN_P1, *picks("Ann", ["move-1", "pass", "pass"], "Bob", PASS3),
                      "Ann do move-1", "Ann impact robot"])
    assert s["health"] == {"Ann": 0, "Bob": 0}
    assert s["over"] is True and s["winners"] == [] and s["next"] is None
    assert GAME.outcome(state(turn1 + [ANN_P1, *picks("Ann", ["move-1", "pass", "pass"], "Bob", PASS3),
                                       "Ann do move-1", "Ann impact robot"])) == Outcome(
        Termination.BOTH_WRECKED)


def test_last_lap_wins_at_once() -> None:
    lines = [ANN_P1, *picks("Ann", ["move-1", "turn-left", "pass"], "Bob", ["move-2", "pass", "pass"]),
             "Bob do move-2", "Bob lap"]
    s = summ(lines, laps=1)
    assert GAME.outcome(state(lines, laps=1)) == Outcome(Termination.LAPS, ("Bob",))
    assert s["over"] is True and s["winners"] == ["Bob"] and s["laps"]["Bob"] == 1 and s["next"] is None
    s = summ(lines, laps=2)
    assert s["over"] is False and s["next"] == "Ann"


def test_default_race_is_three_laps() -> None:
    one = [ANN_P1, *picks("Ann", ["move-1", "move-2", "move-3"], "Bob", PASS3),
           "Ann do move-1", "Ann lap", "Ann do move-2", "Ann lap"]
    assert summ(one)["over"] is False
    s = summ(one + ["Ann do move-3", "Ann lap"])
    assert s["over"] is True and s["winners"] == ["Ann"] and s["laps"] == {"Ann": 3, "Bob": 0}


def test_at_most_one_lap_an_action() -> None:
    lines = [ANN_P1, *picks("Ann", ["move-1", "move-2", "pass"], "Bob", PASS3), "Ann do move-1", "Ann lap"]
    refuse(lines, "Ann lap", IllegalLine)
    assert summ(lines + ["Ann do move-2", "Ann lap"])["laps"]["Ann"] == 2


def test_lines_of_the_last_action_until_the_next_turns_first_line() -> None:
    lines = ann_at(6)
    assert summ(lines)["next"] == "table"
    s = summ(lines + ["Ann hazard", "Ann roll 6", "Ann lap"])
    assert s["health"]["Ann"] == 5 and s["laps"]["Ann"] == 1 and s["turn"] == 1
    refuse(lines + [ANN_P1], "Ann lap", NotActing)
    refuse(lines + ["Bob first"], "Ann hazard", NotActing)


def test_lines_after_the_race_are_refused() -> None:
    lines = [ANN_P1, *picks("Ann", ["move-1", "turn-left", "pass"], "Bob", ["move-2", "pass", "pass"]),
             "Bob do move-2", "Bob lap"]
    for bad in ["Ann do move-1", "Bob hazard", "Bob lap", "table roll 1 2", "Ann first"]:
        refuse(lines, bad, GameOver, laps=1)


def test_unknown_verb() -> None:
    refuse([], "Ann dance", IllegalLine)


# --- the prompt ---


def test_prompt_offers_the_chances_at_health_4() -> None:
    hazard = GAME.prompt(state(ann_at(4) + ["Ann hazard"]))
    assert hazard.actor == "Ann"
    (roll,) = hazard.answers
    assert isinstance(roll, Roll) and "50%" in roll.chance
    before_jump = jump_at(4)[:-1]
    do = GAME.prompt(state(before_jump, **HARD))
    assert any(a.line == Line("Ann", "do", ("jump-2",)) and "33%" in a.hint for a in do.answers)
    jump = GAME.prompt(state(jump_at(4), **HARD))
    (roll,) = jump.answers
    assert isinstance(roll, Roll) and "33%" in roll.chance


def test_prompt_offers_the_privilege_only_when_legal() -> None:
    assert extras_of(GAME.prompt(state([]))) == ["Ann first", "Bob first"]
    assert extras_of(GAME.prompt(state(["Ann first"]))) == ["Bob first"]
    assert extras_of(GAME.prompt(state(["Ann first", "Ann pick move-1"]))) == []
    assert extras_of(GAME.prompt(state(["Ann first", "Bob first"]))) == []
    assert extras_of(GAME.prompt(state(["table roll 2 2"]))) == []
    assert "Ann first" not in extras_of(GAME.prompt(state([ANN_P1])))


def test_prompt_offers_action_lines_only_when_legal() -> None:
    moving = ["Ann hazard", "Ann impact block", "Ann impact robot", "Ann lap", "Ann switch"]
    assert extras_of(GAME.prompt(state(BOB_FIRST_ANN_ACTS))) == moving
    assert extras_of(GAME.prompt(state(BOB_FIRST_ANN_ACTS + ["Ann lap"]))) == [
        m for m in moving if m != "Ann lap"]
    assert extras_of(GAME.prompt(state(BOB_FIRST_ANN_ACTS + ["Ann impact block"]))) == []
    turned = [BOB_P1, *picks("Bob", PASS3, "Ann", ["turn-left", "repair", "pass"]), "Ann do turn-left"]
    assert extras_of(GAME.prompt(state(turned))) == []
    assert extras_of(GAME.prompt(state(turned[:-1] + ["Ann do repair"]))) == []
    # turn over: the last action's lines, likelier, before the next turn's privileges
    assert extras_of(GAME.prompt(state(ann_at(6)))) == [*moving, "Ann first", "Bob first"]
    assert extras_of(GAME.prompt(state(jump_at(6) + ["Ann roll 6"], **HARD))) == ["Ann first", "Bob first"]


def test_prompt_answers_are_legal_and_actor_is_next() -> None:
    """At every step of the golden races the prompt's actor is ``next`` and its lines apply."""
    races = [r for r in sorted(GOLDEN.glob("*.record")) if not r.with_suffix(".error").exists()]
    assert len(races) >= 3
    for record in races:
        body = record.read_text().splitlines()
        head = [ln for ln in body if ln.split("#")[0].split()[:1] in (["game"], ["players"], ["option"])]
        acts = [ln.split("#")[0].strip() for ln in body[len(head):]]
        acts = [a for a in acts if a]
        for n in range(len(acts) + 1):
            rec = replay_text("\n".join(head + acts[:n]) + "\n")
            ask = GAME.prompt(rec.state)
            assert (ask.actor if ask else None) == summary(rec)["next"], (record.name, n)
            if ask is None:
                continue
            for option in ask.answers + ask.extras:
                if isinstance(option, Choice) and option.refusal:  # listed to say why not
                    with pytest.raises(IllegalLine, match=re.escape(option.refusal)):
                        GAME.apply(rec.state, option.line)
                elif isinstance(option, Choice):
                    GAME.apply(rec.state, option.line)


def test_random_playouts_from_the_prompt_reach_the_other_robots_check() -> None:
    """The generic playouts (and so the property tests built on them) log switches and the
    other robot's puddle checks with both outcomes, and such races replay to the same state."""
    outcomes: set[bool] = set()
    for seed in range(200):
        final, lines = playout(GAME, ("Ann", "Bob"), random.Random(seed))
        s = GAME.start(("Ann", "Bob"), GAME.option_values({}))
        found = False
        for line in lines:
            after = GAME.apply(s, line)
            if s.check == "puddle":
                other = 1 - (s.acting or 0)
                outcomes.add(after.robots[other].health < s.robots[other].health)
                found = True
            s = after
        if found:
            assert replay_text(format_record(Header(GAME, ("Ann", "Bob")), lines)).state == final
        if outcomes == {True, False}:
            break
    assert outcomes == {True, False}
