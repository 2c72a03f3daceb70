"""Microbot Racers on the box: a transform switch and the other robot's puddle check, through
the real loop (mock pins of the minimal build), read back from the screen and the store."""

from __future__ import annotations

import pathlib
from collections.abc import Iterator

import pytest

from companion.games import game_by_id
from companion.games.base import Line
from companion.record import Header
from companion.session import Session
from companion.ui.draw import wrap
from companion.ui.play import PlayScreen
from companion.ui.rows import result_rows
from tests.games.scenarios import BOB_FIRST_ANN_ACTS, BOB_P1, picks
from tests.harness import Harness

GAME = game_by_id("microbot-racers")
BOB_AT_5 = "Puddle: 1-4 is safe"


@pytest.fixture
def box(tmp_path: pathlib.Path) -> Iterator[Harness]:
    harness = Harness(tmp_path)
    yield harness
    harness.close()


def open_race(box: Harness, *lines: str, options: tuple[tuple[str, str], ...] = ()) -> Session:
    """A stored race after ``lines``, open on the play screen."""
    assert GAME is not None
    session = Session.new(box.store, Header(GAME, ("Ann", "Bob"), options))
    for text in lines:
        session.play([Line.parse(text)])
    box.app.open(session.gid)
    box.daemon.refresh()
    return session


def stored(box: Harness, session: Session) -> list[tuple[str, bool]]:
    """Each stored line, read afresh, with whether the device rolled it."""
    again = Session(box.store, session.gid)
    return [(line, entry.rolled) for entry in again.store.entries(again.gid, again.head)
            for line in entry.lines]


def down_to(box: Harness, label: str, most: int = 12) -> None:
    """Press down until the play screen's choice is ``label``."""
    for _ in range(most):
        if box.shows(label):
            return
        box.press("down")
    assert box.shows(label), f"{label!r} is not offered"


def switch_and_puddle(box: Harness) -> None:
    """While Ann's robot moves: `+ Ann switch`, then `+ Bob puddle`."""
    down_to(box, "+ Ann switch")
    box.press("select")
    down_to(box, "+ Bob puddle")
    box.press("select")


def test_a_switch_is_an_optional_line_while_a_robot_moves(box: Harness) -> None:
    session = open_race(box, *BOB_FIRST_ANN_ACTS)
    assert box.shows("Bob")  # Bob's action is the step asked for
    down_to(box, "+ Ann switch")
    box.press("select")
    assert stored(box, session)[-1] == ("Ann switch", False)
    assert box.shows("Bob: do an action", 11)  # still Bob's action: the puddle is optional


def test_after_a_switch_the_puddle_comes_first_and_then_the_check_with_its_chance(
        box: Harness) -> None:
    session = open_race(box, *BOB_FIRST_ANN_ACTS)
    down_to(box, "+ Ann switch")
    box.press("select")
    box.press("up")  # the first of the extras, one press up from Bob's first action
    assert box.shows("+ Bob puddle")
    box.press("select")
    assert stored(box, session)[-1] == ("Bob hazard", False)
    assert box.shows("Puddle: 1-5 is safe", 11)
    assert box.shows("Roll for me") and box.shows("83%", 10)


def test_device_roll_for_the_other_robot_is_stored_first_and_never_a_free_reroll(
        box: Harness) -> None:
    # Ann's switch, then she runs into Bob (both at 5): Bob's puddle is still to check
    session = open_race(box, *BOB_FIRST_ANN_ACTS, "Ann switch", "Ann impact robot")
    down_to(box, "+ Bob puddle")
    box.press("select")
    assert box.shows(BOB_AT_5, 11) and box.shows("67%", 10)
    box.press("select")  # roll for me
    line, rolled = stored(box, session)[-1]
    assert rolled and line.startswith("Bob roll ")
    face = int(line.split()[-1])
    assert Session(box.store, session.gid).summary()["health"]["Bob"] == (5 if face < 5 else 4)
    box.long_press()
    box.presses("down", "select")  # the game menu's line under "Back to the game": Undo
    assert box.shows(f"Undone: {line}", 11)
    assert box.shows(f"Use {face} again")  # the same face first, not a new roll
    box.press("select")
    assert stored(box, session)[-1] == (line, True)


def test_typed_faces_answer_the_other_robots_check(box: Harness) -> None:
    session = open_race(box, *BOB_FIRST_ANN_ACTS)
    switch_and_puddle(box)
    box.intent("digit", 6)  # as the keyboard or a die reader types it
    box.press("select")
    assert stored(box, session)[-1] == ("Bob roll 6", False)
    assert Session(box.store, session.gid).summary()["health"] == {"Ann": 6, "Bob": 5}
    assert box.shows("Bob: do an action", 11)


def test_a_second_puddle_after_the_same_switch_is_not_offered(box: Harness) -> None:
    session = open_race(box, *BOB_FIRST_ANN_ACTS, "Ann switch", "Bob hazard", "Bob roll 1")
    top = box.app.top
    assert isinstance(top, PlayScreen)
    labels = [item.label for item in top.items()]
    assert "+ Bob puddle" not in labels and "+ Ann switch" in labels
    assert stored(box, session)[-1] == ("Bob roll 1", False)


def test_the_rules_page_of_the_check_says_what_the_switch_does(box: Harness) -> None:
    open_race(box, *BOB_FIRST_ANN_ACTS, "Ann switch", "Bob hazard")
    box.long_press()
    box.presses("down", "down")  # "Back to the game", undo, then the rules of this step
    box.press("select")
    assert box.shows("A blue switch", 11)
    assert box.shows("changes the track:", 11)
    box.press("down")
    assert box.shows("the robots (the box", 11)


# --- the run-up, and picks lost on the way ---

HARD = (("side", "hard"),)
#: Ann is P1 and has moved; a turn and a jump are left to her.
ANN_MOVED = ("table roll 1 2", "Ann pick move-1", "Bob pick move-2", "Bob pass", "Ann pick turn-left",
             "Ann pick jump-2", "Bob pass", "Bob do move-2", "Ann do move-1")


def labels(box: Harness) -> list[str]:
    top = box.app.top
    assert isinstance(top, PlayScreen)
    return [item.label for item in top.items()]


def test_the_result_of_an_entry_that_forfeits_a_pick_says_so(box: Harness) -> None:
    session = open_race(box, *ANN_MOVED, options=HARD)
    assert box.shows("Ann: do an action", 11)
    down_to(box, "turn-left")
    box.press("select")
    assert stored(box, session)[-1] == ("Ann do turn-left", False)
    size, rows = result_rows("Jump-2 forfeited: no run-up")  # the news first in the result
    assert all(box.shows(row, size) for row in rows)
    assert box.shows("Who is P1 this turn?", 11)  # nothing left to do: the jump is gone


def test_a_repair_keeps_the_run_up_on_the_box(box: Harness) -> None:
    lines = [line.replace("turn-left", "repair") for line in ANN_MOVED]
    session = open_race(box, *lines, options=HARD)
    down_to(box, "repair")
    box.press("select")
    assert stored(box, session)[-1] == ("Ann do repair", False)
    assert "jump-2" in labels(box) and box.shows("Ann: do an action", 11)
    down_to(box, "jump-2")
    box.press("select")
    assert stored(box, session)[-1] == ("Ann do jump-2", False)
    assert box.shows("Jump: 1-4 is safe", 11)


def test_the_do_rules_page_says_a_repair_keeps_the_run_up(box: Harness) -> None:
    open_race(box, *ANN_MOVED, options=HARD)
    box.long_press()
    box.presses("down", "down")  # Back to the game, Undo, then the rules of this step
    box.press("select")
    words = " ".join(text for text, _ in box.texts())
    for _ in range(12):  # scrolled to its end
        box.press("down")
        words += " " + " ".join(text for text, _ in box.texts())
    assert "A repair keeps it." in words and "breaks it (house" in words


# --- what can be logged now, in view (issue 26 section 4) ---

#: Turn 1 played out: Bob's move-3 is the last action, so its hazard, impacts, lap and
#: switch may still be logged while the table decides who is P1 next.
BOB_MOVED_LAST = (BOB_P1, *picks("Bob", ["move-3", "drift-right", "turn-left"], "Ann",
                                 ["move-2", "drift-left", "move-1"]),
                  "Ann do move-2", "Bob do turn-left", "Ann do drift-left", "Bob do drift-right",
                  "Ann do move-1", "Bob do move-3")


def test_the_lines_of_the_action_just_done_are_named_beside_the_answer_and_one_press_up(
        box: Harness) -> None:
    session = open_race(box, *BOB_MOVED_LAST)
    box.wait(3)  # the result has gone
    assert box.shows("Who is P1 this turn?", 11) and box.shows("Roll for me")
    assert box.shows("hazard", 10)  # beside the answer: the likeliest optional line's verb
    box.press("up")  # the hazard before the privilege, one press away
    assert box.shows("+ Bob hazard")
    box.press("select")
    assert stored(box, session)[-1] == ("Bob hazard", False)
    assert box.shows("Hazard: 1-5 is safe", 11)


def test_no_optional_line_is_named_where_there_is_none(box: Harness) -> None:
    open_race(box, BOB_P1)
    box.wait(3)
    assert box.shows("Bob: pick 1 of 3", 11) and box.shows("move-3")
    assert not any(label.startswith("+ ") for label in labels(box))
    assert box.texts()[-1][0] == "move-3" and not box.says("hazard")  # the answer's own hint


#: Ann drifted last in turn 1, with no forward move since: her drift of turn 2 must wait.
ANN_DRIFTED = (BOB_P1, *picks("Bob", ["move-3", "turn-right", "repair"], "Ann",
                              ["drift-left", "move-1", "turn-left"]),
               "Ann do move-1", "Bob do move-3", "Ann do drift-left", "Bob do turn-right",
               "Ann do turn-left", "Bob do repair",
               BOB_P1, *picks("Bob", ["move-1", "turn-left", "repair"], "Ann", ["drift-right", "move-2", "pass"]))


def test_a_drift_that_must_wait_is_struck_through_and_says_why(box: Harness) -> None:
    session = open_race(box, *ANN_DRIFTED)
    box.wait(3)
    assert box.shows("Ann: do an action", 11) and box.shows("move-2")
    assert labels(box)[-1] == "drift-right"  # listed after what can be done now
    box.press("down")
    assert box.shows("drift-right", struck=True) and box.shows("not now", 10)
    box.press("select")
    reason = wrap("drift-right: a forward move first", 11)  # the rules' reason, at once, whole
    assert len(reason) == 2 and all(box.shows(row, 11) for row in reason)
    assert stored(box, session)[-1] == ("Ann pass", False)  # nothing logged
    box.press("up")
    box.press("select")  # the move first
    assert stored(box, session)[-1] == ("Ann do move-2", False)
