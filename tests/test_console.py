"""The serial line protocol: one answer per line, games started and played from a console,
dice faces from a die reader, and refusals that change nothing."""

from __future__ import annotations

import json
import pathlib
import re
from collections.abc import Iterator

import pytest

from companion.record import replay_text, summary
from companion.store import Store
from companion.ui.play import PlayScreen
from companion.ui.widgets import Numbers, Page
from tests.consoles import ConsoleBox as Box

GOLDEN = pathlib.Path(__file__).parent / "golden"
RACE = GOLDEN / "microbot-racers" / "lap-win.record"


@pytest.fixture
def box(tmp_path: pathlib.Path) -> Iterator[Box]:
    made = Box(tmp_path)
    yield made
    made.store.close()


def microbot(box: Box, *options: str) -> None:
    box.ok("game microbot-racers", "players Ann Bob", *(f"option {o}" for o in options))


# --- a whole race from a console ---


def as_dice(line: str) -> str:
    """A record's dice line as a die reader sends it: ``table roll 4 4`` -> ``dice 4 4``."""
    words = line.split("#", 1)[0].split()
    if len(words) >= 3 and words[1] == "roll" and all(w.isdigit() for w in words[2:]):
        return ("die " if len(words) == 3 else "dice ") + " ".join(words[2:])
    return line


@pytest.mark.parametrize("reader", [False, True], ids=["record lines", "dice from a reader"])
def test_a_whole_microbot_race_from_the_console(box: Box, reader: bool) -> None:
    text = RACE.read_text(encoding="utf-8")
    lines = text.splitlines()
    answers = box.ok(*(as_dice(line) if reader else line for line in lines))
    assert len(answers) == len(lines)  # one answer per line, comments and all
    assert answers[0] == "game microbot-racers: the players line next"
    assert answers[4] == "table roll 4 4"  # a tie: the dice are asked for again
    want = json.loads(RACE.with_suffix(".json").read_text())
    got = box.state()
    assert {key: got[key] for key in want} == want
    assert got == summary(replay_text(text))
    session = box.app.session
    assert session is not None and session.header.options == (("laps", "2"), ("side", "hard"))
    assert replay_text(session.record()).state == session.state  # the store holds the race
    assert isinstance(box.app.top, PlayScreen)  # the screen shows the game the console played


def test_option_lines_restart_the_new_game_and_leave_no_playing_stub(box: Box) -> None:
    microbot(box, "laps 2", "side hard")
    playing = box.store.games("playing")
    assert [row.header for row in playing] == [("game microbot-racers", "players Ann Bob",
                                                 "option laps 2", "option side hard")]
    assert len(box.store.games("abandoned")) == 2


def test_action_lines_are_stored_before_the_answer(box: Box, tmp_path: pathlib.Path) -> None:
    microbot(box)
    box.ok("table roll 5 2", "Bob pick move-2")
    other = Store(str(tmp_path / "games.sqlite"))  # what a power cut now would leave
    (row,) = other.games("playing")
    assert [entry.lines for entry in other.entries(row.id)] == [("table roll 5 2",), ("Bob pick move-2",)]
    other.close()


def test_after_a_game_line_only_its_players_line_is_taken_from_that_port(box: Box) -> None:
    microbot(box)
    box.ok("game leaf-climbers")
    assert box.error("table roll 3 5") == "the new game needs its 'players' line first"
    assert box.send("dice 3 5", port="serial 2") == "ok table roll 3 5"  # a reader on the other port
    box.ok("help", "players Ann Bob Cat")
    assert box.state()["game"] == "leaf-climbers"


def test_a_bad_game_line_forgets_the_one_before(box: Box) -> None:
    microbot(box)
    box.ok("game leaf-climbers")
    box.error("game chess")
    assert box.ok("table roll 3 5") == ["table roll 3 5"]


# --- header lines ---


@pytest.mark.parametrize("lines, reason", [
    (["game chess"], "unknown game 'chess'"),
    (["game microbot-racers extra"], "write it as 'game ID'"),
    (["players Ann Bob"], "a new game starts with 'game ID'"),
    (["game microbot-racers", "players Ann"], "is for exactly 2 players, not 1"),
    (["game microbot-racers", "players Ann Ann"], "two players have the same name"),
    (["game microbot-racers", "players Ann table"], "reserved word"),
    (["game microbot-racers", "players Ann Bob", "option laps 12"], "option laps"),
    (["game microbot-racers", "players Ann Bob", "option speed 3"], "has no option 'speed'"),
    (["game microbot-racers", "players Ann Bob", "option laps 2", "option laps 3"], "given twice"),
    (["game microbot-racers", "players Ann Bob", "table roll 5 2", "option laps 2"],
     "options come right after the 'players' line"),
    (["game gleebs-and-grues", "players Ann Bob", "option first Cat"], "Cat"),
])
def test_bad_header_lines_are_refused_with_their_reason(box: Box, lines: list[str], reason: str) -> None:
    *before, last = lines
    box.ok(*before)
    assert reason in box.error(last)


# --- dice from a die reader ---


def test_faces_answer_the_dice_prompt_as_if_typed_in(box: Box) -> None:
    microbot(box)
    assert box.ok("dice 3 5") == ["table roll 3 5"]
    session = box.app.session
    assert session is not None
    entry = session.store.entry(session.gid, 1)
    assert entry is not None and entry.lines == ("table roll 3 5",)
    assert not entry.rolled  # the table rolled these: undo then offers no "use again"
    assert box.state()["p1"] == "Ann"
    top = box.app.top
    assert isinstance(top, PlayScreen) and top.result == "Ann is P1: Ann 3, Bob 5"


def test_one_die_at_a_time_fills_the_prompt_in_record_order(box: Box) -> None:
    microbot(box)
    assert box.ok("die 6") == ["waiting for 1 more face(s): Ann 6, Bob ?"]
    assert box.state()["p1"] is None
    assert box.ok("die 2") == ["table roll 6 2"]
    assert box.state()["p1"] == "Bob"


def test_faces_for_a_chain_of_rolls_are_one_entry_and_one_undo(box: Box) -> None:
    box.ok("game leaf-climbers", "players Ann Bob")
    assert box.ok("dice 2 3 3 1 1") == ["table drop 2; table leaf 3 3; table leaf 1 1"]
    session = box.app.session
    assert session is not None and session.head == 1
    assert box.state()["next"] == "Ann"
    box.ok("undo")
    assert session.head == 0 and box.state()["next"] == "table"


def test_a_chain_may_arrive_over_several_lines(box: Box) -> None:
    box.ok("game leaf-climbers", "players Ann Bob")
    assert box.ok("dice 1 4") == ["table drop 1; waiting for 1 more face(s): column 4, row ?"]
    assert box.ok("die 2") == ["table leaf 4 2"]
    assert box.state()["next"] == "Ann"


@pytest.mark.parametrize("line, reason", [
    ("dice 7 1", "no 7 on a d6 (Ann)"),
    ("dice 0 1", "no 0 on a d6 (Ann)"),
    ("dice 3 5 2", "1 face(s) too many"),
    ("dice 3 x", "a face must be a number, not 'x'"),
    ("dice", "write the faces"),
    ("die 3 5", "'die' takes one face"),
    ("dice -3 5", "a face must be a number"),
    ("dice ٣ 5", "a face must be a number"),  # an Arabic-Indic three is a digit, not an ASCII one
])
def test_faces_that_do_not_fit_are_refused(box: Box, line: str, reason: str) -> None:
    microbot(box)
    assert reason in box.error(line)
    top = box.app.top
    # The table sees why too: on the play screen, or on a page of its own when it is long.
    said = top.message if isinstance(top, PlayScreen) else " ".join(top.lines) if isinstance(top, Page) else ""
    assert reason in said


def test_faces_the_rules_refuse_are_refused_and_the_waiting_faces_dropped(box: Box) -> None:
    box.ok("game leaf-climbers", "players Ann Bob")
    for _ in range(3):  # six leaves on c3 r3: no more may fall there
        box.ok("dice 2 3 3 3 3", "Ann roll 1", "Ann stay", "Bob roll 1", "Bob stay")
    box.ok("dice 1 3")
    assert box.error("die 3")  # the leaf on c3 r3 is refused, with the rules' reason
    assert box.ok("dice 2 2") == ["table leaf 2 2"]  # the column 3 did not wait


def test_no_dice_asked_for(box: Box) -> None:
    assert "no game on screen" in box.error("dice 3 5")
    microbot(box)
    box.ok("dice 3 5")
    assert box.error("die 4") == "no dice are asked for now"


def test_waiting_faces_are_forgotten_when_the_prompt_changes_on_the_box(box: Box) -> None:
    microbot(box)
    box.ok("die 3")
    box.ok("Ann first", "Bob first")  # both claim P1: the same dice are asked for again
    assert box.ok("dice 4 1") == ["table roll 4 1"]


def test_faces_close_a_half_entered_answer_on_the_box(box: Box) -> None:
    microbot(box)
    top = box.app.top
    assert isinstance(top, PlayScreen)
    top.enter_faces(top.session.prompt().answers[0])  # type: ignore[union-attr, arg-type]
    assert isinstance(box.app.top, Numbers)
    box.ok("dice 3 5")
    assert box.app.top is top


# --- undo, redo, state, help ---


def test_undo_redo_and_state(box: Box) -> None:
    assert "no game on screen" in box.error("undo")
    microbot(box)
    assert box.error("undo") == "nothing to undo: this is the start of the game"
    assert box.error("redo") == "nothing to redo"
    box.ok("table roll 5 2", "Bob pick move-2")
    assert box.ok("undo", "undo") == ["undone: Bob pick move-2", "undone: table roll 5 2"]
    assert box.state()["p1"] is None
    assert box.ok("redo") == ["redone: table roll 5 2"]
    assert box.state()["p1"] == "Bob"
    top = box.app.top
    assert isinstance(top, PlayScreen) and top.message == "Redone: table roll 5 2"
    assert box.error("state now") == "'state' takes no words after it"


def test_state_is_the_summary_json_on_the_same_line(box: Box) -> None:
    microbot(box)
    answer = box.send("state")
    assert answer is not None and "\n" not in answer
    assert json.loads(answer.removeprefix("ok ")) == summary(replay_text(
        "game microbot-racers\nplayers Ann Bob\n"))


def test_help_names_every_command(box: Box) -> None:
    (said,) = box.ok("help")
    for word in ("game", "players", "option", "dice", "die", "undo", "redo", "state", "help"):
        assert re.search(rf"\b{word}\b", said)


def test_a_player_named_like_a_command_still_plays(box: Box) -> None:
    box.ok("game microbot-racers", "players state Bob", "table roll 2 5")
    assert box.ok("state pick move-2") == ["state pick move-2"]
    assert box.state()["next"] == "Bob"


def test_action_line_refusals(box: Box) -> None:
    assert "no game on screen" in box.error("Ann pick move-2")
    microbot(box)
    assert box.error("Cat pick move-2") == "'Cat' is not a player in this game"
    assert "not a command" in box.error("hello")
    box.ok("table roll 5 2")
    assert box.error("Ann pick move-2")  # Bob is P1: his pick comes first


def test_a_switch_and_the_other_robots_puddle_from_the_console_and_a_reader(box: Box) -> None:
    microbot(box)
    box.ok("table roll 5 2", "Bob pick move-2", "Ann pick move-3", "Ann pass", "Bob pass",
           "Bob pass", "Ann pass", "Ann do move-3")
    assert "after Ann logs a switch" in box.error("Bob hazard")  # no switch yet: Bob's robot is not acting
    box.ok("Ann switch", "Bob hazard")
    assert box.state()["next"] == "Bob"
    assert "Bob" in box.error("Ann roll 3")  # the check is Bob's to roll
    assert "roll" in box.error("Bob do move-2")  # the roll comes first
    assert box.ok("die 6") == ["Bob roll 6"]  # a die reader answers Bob's check
    got = box.state()
    assert got["health"] == {"Ann": 6, "Bob": 5} and got["next"] == "Bob"
    assert "already logged" in box.error("Bob hazard")


# --- what is not a line of the protocol ---


@pytest.mark.parametrize("data, reason", [
    (b"state \xff\xfe", "not UTF-8"),
    (b"\x00\x01\x02\x03", "control character 0x00"),
    (b"dice 3\x1b[A 5", "control character 0x1b"),
])
def test_noise_is_refused_and_changes_nothing(box: Box, data: bytes, reason: str) -> None:
    microbot(box)
    assert reason in box.error(data)


def test_an_over_long_line_is_refused(box: Box) -> None:
    microbot(box)
    assert box.console.line(b"dice 3 5 ", overflow=True).answer == "error: line too long; ignored"
    assert box.state()["p1"] is None


def test_blank_lines_and_comments_are_answered_ok(box: Box) -> None:
    assert box.ok("", "   ", "# a comment") == ["", "", ""]


def test_backspaces_typed_in_a_terminal_edit_the_line(box: Box) -> None:
    microbot(box)
    assert box.ok(b"stat\x7fte".decode())[0].startswith("{")
    assert box.ok("dice 3 4\b5") == ["table roll 3 5"]


def test_an_answer_coming_back_gets_no_answer(box: Box) -> None:
    microbot(box)
    assert box.send("ok table roll 3 5") is None
    assert box.send("error: no dice are asked for now") is None
    assert box.state()["p1"] is None
