"""Lilliputian Leaf-Climbers through the real loop: mock pins in, the dummy display read back."""

from __future__ import annotations

import pathlib
import sqlite3
from collections.abc import Iterator
from dataclasses import replace

import pytest
from PIL import Image, ImageDraw

from companion.config import with_settings
from companion.games import GAMES
from companion.games.base import Line
from companion.intents import Intent
from companion.record import Header
from companion.session import Session
from companion.ui.draw import blank
from companion.ui.games.leaf_climbers import CELL_HEIGHT, CELL_WIDTH, labels
from companion.ui.play import PlayScreen
from companion.ui.reveal import Reveal, Shown, plain_picture
from tests.harness import Harness, Host

GAME = GAMES["leaf-climbers"]


@pytest.fixture
def box(tmp_path: pathlib.Path) -> Iterator[Harness]:
    harness = Harness(tmp_path, preset="adafruit-bonnet")
    yield harness
    harness.close()


def open_game(box: Harness, *lines: str, players: tuple[str, ...] = ("Ann", "Bob")) -> Session:
    """A stored game played up to ``lines``, open on the play screen."""
    session = Session.new(box.store, Header(GAME, players))
    for text in lines:
        session.play([Line.parse(text)])
    box.app.open(session.gid)
    box.daemon.refresh()
    return box.app.session  # type: ignore[return-value]


def lit(frame: Image.Image, square: tuple[int, int]) -> int:
    """Lit pixels inside a square of the board picture (its gap left out)."""
    col, row = square
    x, y = (col - 1) * CELL_WIDTH, (6 - row) * CELL_HEIGHT
    counts = frame.crop((x + 1, y + 1, x + CELL_WIDTH, y + CELL_HEIGHT)).histogram()
    return sum(counts[1:])


def stored(box: Harness, session: Session) -> Session:
    """The same game read afresh from the file: what survives a power cut."""
    return Session(box.store, session.gid)


# --- setting up ---


def test_a_new_game_offers_shuffled_seats_and_starts_with_the_d20(box: Harness) -> None:
    box.presses("select", "down", "select")  # New game > Lilliputian Leaf-Climbers
    assert box.shows("2 players")
    box.presses("down", "down", "select")  # 4 players
    box.presses("select", "select", "select", "select")  # Ann, Bob, Cat, Dan
    assert box.shows("Start game") and box.shows("Seats") and box.shows("shuffled", 10)
    box.press("select")
    assert box.shows("Table")  # whose turn: the table drops the leaves
    assert box.shows("Order:", 11)
    assert box.shows("Roll for me")
    box.press("down")
    assert box.shows("How many leaves fall?", 10)
    assert box.shows("R1", 10)
    assert box.shows("no leaf yet", 10) and box.shows("0/36 blue", 10)


# --- the board and the cursor ---


def test_the_board_names_the_square_under_the_cursor_which_starts_on_the_mover(box: Harness) -> None:
    open_game(box, "table drop 1", "table leaf 4 4", "Ann roll 3")
    assert box.shows("Ann: move up to 3", 11)
    assert box.shows("Move")
    box.press("select")
    assert box.shows("Ann") and box.shows("c1 r1") and box.shows("stay", 10)
    box.presses("right", "up")
    assert box.shows("c2 r2") and box.shows("cost 2", 10)


def test_reachable_squares_are_marked_and_the_others_are_not(box: Harness) -> None:
    open_game(box, "table drop 1", "table leaf 4 4", "Ann roll 1")
    box.press("select")
    frame = box.screen
    dot = 9  # the mark's three-by-three square, besides the bare ground's single dot
    assert lit(frame, (2, 1)) == lit(frame, (1, 2)) == 1 + dot
    assert lit(frame, (3, 1)) == lit(frame, (2, 2)) == 1


def test_a_move_by_cursor_is_stored_and_the_turn_passes(box: Harness) -> None:
    session = open_game(box, "table drop 1", "table leaf 4 4", "Ann roll 3")
    box.presses("select", "right", "right", "up", "select")
    assert stored(box, session).summary()["positions"]["Ann"] == [3, 2]
    assert box.shows("Bob")  # the board closed; the header says whose turn it is
    assert box.shows("Bob: roll the d4", 11)


def test_an_unreachable_square_is_refused_with_its_cost_and_the_board_stays(box: Harness) -> None:
    session = open_game(box, "table drop 1", "table leaf 4 4", "Ann roll 1")
    box.presses("select", "right", "right")  # along the row: c3 r1, out of reach
    assert box.shows("too far", 10)  # before confirming
    box.press("select")
    assert box.shows("c3 r1 costs 2, you", 11)  # across the foot: the side is narrow
    assert box.shows("c3 r1")  # still on the board
    box.press("up")  # up and down stop only where Ann can go: on round to her own square
    assert box.shows("c1 r1") and box.shows("stay", 10)
    assert stored(box, session).head == 3


def test_a_square_a_leaf_will_hit_is_flagged_before_it_is_confirmed(box: Harness) -> None:
    open_game(box, "table drop 2", "table leaf 2 1", "table leaf 2 1", "Ann roll 2")
    box.press("select")
    frame = box.screen
    assert lit(frame, (2, 1)) > 60  # two leaves: the whole square white
    assert lit(frame, (4, 1)) == 1  # bare ground, out of reach
    box.press("right")
    assert box.shows("cost 1", 10) and box.shows("leaf x2", 10)


def test_stay_is_a_choice_of_its_own_with_the_danger_beside_it(box: Harness) -> None:
    session = open_game(box, "table drop 1", "table leaf 1 1", "Ann roll 2")
    box.press("down")
    assert box.shows("Stay")
    assert box.shows("leaf lands here", 10)
    box.press("select")
    assert stored(box, session).summary()["positions"]["Ann"] == [1, 1]
    assert box.shows("Bob: roll the d4", 11)


def test_every_meeple_is_shown_by_its_letter(box: Harness) -> None:
    open_game(box, "table drop 1", "table leaf 4 4", "Ann roll 1",
              players=("Ann", "Bob", "Cat", "Dan"))
    box.press("select")
    frame = box.screen
    for square in ((6, 6), (1, 6), (6, 1)):  # the corners, in seat order
        assert lit(frame, square) > 30  # a boxed letter beside the bare ground's dot
    assert lit(frame, (1, 1)) > 15  # Ann's, under the cursor's ring: her letter, unboxed
    assert lit(frame, (3, 3)) == 1
    assert labels(["Ann", "Bob", "Cat", "Dan"]) == {"Ann": "A", "Bob": "B", "Cat": "C", "Dan": "D"}


# --- the leaves: rolled by the box, or typed in ---


def test_one_press_rolls_the_d20_and_every_leaf_and_shows_them_all(box: Harness) -> None:
    session = open_game(box)
    box.press("roll")
    entries = stored(box, session).store.entries(session.gid)
    assert len(entries) == 1 and entries[0].rolled  # one undo step
    drop, *leaves = [Line.parse(text) for text in entries[0].lines]
    assert drop.verb == "drop" and len(leaves) == int(drop.args[0])
    assert box.shows("d20") and box.shows(drop.args[0])
    assert box.shows("go on >", 10)
    frame = box.screen
    for leaf in leaves:
        assert lit(frame, (int(leaf.args[0]), int(leaf.args[1]))) > 40  # landing squares white
    box.press("select")
    assert box.shows("Ann: roll the d4", 11)


def test_leaves_fall_one_by_one_when_the_players_prefer(box: Harness) -> None:
    box.presses("down", "down", "down", "select")  # Home > Settings
    box.presses("down", "down", "down")
    assert box.shows("Rolls") and box.shows("at once", 10)
    box.press("select")
    assert box.shows("one by one", 10)
    box.press("back")
    session = open_game(box)
    box.press("roll")
    lines = [Line.parse(text) for text in stored(box, session).store.entries(session.gid)[0].lines]
    assert box.shows("d20") and box.shows("next >", 10)
    for number, leaf in enumerate(lines[1:], start=1):
        box.press("select")
        assert box.shows("Leaf") and box.shows(f"c{leaf.args[0]} r{leaf.args[1]}")
        assert box.shows(f"{number} of {len(lines) - 1}", 10)
    assert box.shows("go on >", 10)
    box.press("select")
    assert box.shows("Ann: roll the d4", 11)


def test_typed_faces_for_a_full_square_are_refused_in_words(box: Harness) -> None:
    session = open_game(box, "table drop 3", "table leaf 6 6", "table leaf 6 6")
    box.press("down")  # Enter faces
    box.press("select")
    box.intent("digit", 6)
    box.intent("digit", 6)
    box.press("select")
    assert box.shows("c6 r6 already has 2", 11)
    assert box.shows("leaves: roll again", 11)
    assert stored(box, session).head == 3


# --- key figures and rules ---


def test_round_whose_turn_and_who_is_out_are_always_on_the_play_screen(box: Harness) -> None:
    open_game(box, "table drop 1", "table leaf 6 6", "Ann roll 1", "Ann stay", "Bob roll 1",
              "Bob stay", "Cat roll 1", "Cat stay", "table drop 1", "table leaf 3 3",
              players=("Ann", "Bob", "Cat"))
    assert box.shows("Ann")
    assert box.shows("R2", 10)
    assert box.shows("Cat", 10) and box.shows("Bob", 10)
    assert box.shows("1 leaf", 10)


def test_the_rules_page_of_the_move_step_explains_costs_and_the_picture(box: Harness) -> None:
    open_game(box, "table drop 1", "table leaf 4 4", "Ann roll 3")
    box.press("back")  # the game menu
    box.presses("down", "down", "select")  # under "Back to the game" and undo: Rules
    assert box.shows("Step up, down, left", 11)


def test_the_rolls_setting_survives_a_restart(tmp_path: pathlib.Path) -> None:
    first = Harness(tmp_path, preset="adafruit-bonnet")
    first.presses("down", "down", "down", "select", "down", "down", "down", "select")
    first.close()
    again = Harness(tmp_path, preset="adafruit-bonnet")
    again.app.config = with_settings(again.app.config, tmp_path)[0]  # as `companion run` starts
    session = open_game(again)
    again.press("roll")
    assert again.shows("d20") and again.shows("next >", 10)  # the first of several frames
    assert stored(again, session).head == 1
    again.close()


def test_a_game_without_a_roll_picture_shows_each_line_in_words() -> None:
    shown = [Shown("Ann 3, Bob 3", {}), Shown("Ann 5, Bob 1", {})]
    reveal, host = Reveal(shown, plain_picture, each=True), Host()
    frames = []
    for _ in shown:
        image = blank()
        reveal.draw(ImageDraw.Draw(image))
        frames.append(image.tobytes())
        reveal.on(Intent("select"), host)
    assert frames[0] != frames[1] and host.popped == 1



def test_a_game_left_during_a_one_by_one_reveal_comes_back_to_the_leaves_not_shown(
        tmp_path: pathlib.Path) -> None:
    """Issue 26 §8: the box switched off while the leaves were shown one by one came back
    at the next roll, and the leaves not shown yet were never shown."""
    first = Harness(tmp_path, preset="adafruit-bonnet")
    first.app.config = replace(first.app.config, screen=replace(first.app.config.screen, rolls="one-by-one"))
    session = open_game(first)
    first.press("roll")
    reveal = first.app.top
    assert isinstance(reveal, Reveal) and len(reveal.lines) > 3  # the d20 and its leaves
    first.presses("select", "select")  # the d20, leaf 1, leaf 2 seen
    total = len(reveal.lines)
    gid = session.gid
    first.close()  # switched off here

    again = Harness(tmp_path, preset="adafruit-bonnet")
    assert again.app.resume_latest()
    again.daemon.refresh()
    back = again.app.top
    assert isinstance(back, Reveal) and back.at == 2  # leaf 2, the last one seen
    assert again.shows(f"2 of {total - 1}", 10)
    again.presses(*["select"] * (total - 3))
    assert isinstance(again.app.top, Reveal) and again.app.top.at == total - 1  # the last leaf
    again.press("select")
    assert isinstance(again.app.top, PlayScreen)
    again.close()

    third = Harness(tmp_path, preset="adafruit-bonnet")  # all seen: the roll is not shown again
    assert third.app.resume_latest() and isinstance(third.app.top, PlayScreen)
    assert Session(third.store, gid).head == 1
    third.close()


@pytest.mark.parametrize("spoil", ["seq = 'x'", "shown = 'x'", "shown = x'ff00'", "shown = -5",
                                   "shown = 2.5", "seq = 1e300", "shown = 1e300"])
def test_a_damaged_reveal_row_is_a_cache_that_costs_only_the_lines_seen(
        tmp_path: pathlib.Path, spoil: str) -> None:
    """Where a roll shown one by one stands is a cache (store.CACHES): a value a flipped bit
    or another program made of the wrong kind or out of range brings the game back on its
    play screen or at a line the roll has, never a crash at every start."""
    first = Harness(tmp_path, preset="adafruit-bonnet")
    first.app.config = replace(first.app.config, screen=replace(first.app.config.screen, rolls="one-by-one"))
    open_game(first)
    first.press("roll")
    first.presses("select", "select")
    first.close()
    db = sqlite3.connect(tmp_path / "games.sqlite")
    db.execute("PRAGMA ignore_check_constraints = ON")
    with db:
        db.execute(f"UPDATE reveals SET {spoil}")
    db.close()

    again = Harness(tmp_path, preset="adafruit-bonnet")
    assert again.app.resume_latest()
    again.daemon.refresh()
    top = again.app.top
    assert isinstance(top, PlayScreen) or (isinstance(top, Reveal) and 0 <= top.at < len(top.lines))
    again.close()
