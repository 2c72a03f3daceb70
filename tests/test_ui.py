"""The real loop, driven through mock pins, read back from the dummy display."""

from __future__ import annotations

import errno
import pathlib
from dataclasses import replace

import pytest

from companion.config import Config
from companion.games import game_by_id
from companion.games.base import Line
from companion.intents import Intent
from companion.record import Header
from companion.session import Session
from companion.store import Store
from companion.ui.app import App
from companion.ui.keytest import KeyTest
from companion.ui.play import PlayScreen
from tests.harness import Harness


@pytest.fixture
def box(tmp_path: pathlib.Path) -> Harness:
    harness = Harness(tmp_path)
    yield harness
    harness.close()


def start_microbot(box: Harness) -> None:
    """Home > New game > Microbot Racers > Ann > Bob > Start game (3 laps, the easy side)."""
    box.presses("select", "select", "select", "select", "select")


def test_home_screen_offers_a_new_game(box: Harness) -> None:
    assert box.shows("New game")
    assert box.shows("History")


def test_new_game_reaches_the_first_player_roll(box: Harness) -> None:
    start_microbot(box)
    assert box.shows("Table")
    assert box.shows("Who is P1 this turn?", 11)
    assert box.shows("Roll for me")


def test_device_roll_is_stored_before_it_is_shown(box: Harness, tmp_path: pathlib.Path) -> None:
    start_microbot(box)
    box.press("select")  # roll for me
    stored = Session(box.store, box.app.session.gid)  # a fresh reader of the file
    assert stored.head == 1
    ann, bob = stored.store.entries(stored.gid)[0].lines[-1].split()[2:]
    assert box.says(f"Ann {ann}, Bob {bob}"), box.texts()
    p1 = stored.summary()["p1"]
    assert box.shows(p1)  # whose turn, in the header
    box.press("down")
    assert box.shows(f"{p1}: pick 1 of 3", 11)


def test_long_press_opens_the_menu_on_back_to_the_game_with_undo_next_saying_what(box: Harness) -> None:
    """Issue 26 §5: the menu opens on "Back to the game"; undo is the next line, two
    presses away, and names the entry it takes back."""
    start_microbot(box)
    box.press("select")
    gid = box.app.session.gid
    entry = box.store.entries(gid)[0].lines[0]
    box.long_press()
    assert box.shows("Game menu")
    assert box.shows("Back to the game")
    assert box.says(f"Undo: {entry}"[:16])
    assert box.app.session.head == 1  # the long press did not also pick anything
    box.press("select")  # back to the game: nothing undone
    assert box.app.session.head == 1 and isinstance(box.app.top, PlayScreen)
    box.long_press()
    box.presses("down", "select")  # undo: two presses in the menu
    assert box.app.session.head == 0
    assert box.shows("Table")
    assert box.says("Undone: table roll")
    assert Session(box.store, gid).head == 0


def test_undone_device_roll_is_offered_again_first(box: Harness) -> None:
    start_microbot(box)
    box.press("select")
    first = box.app.session.store.entries(box.app.session.gid)[0].lines
    box.long_press()
    box.presses("down", "select")  # the game menu's line under "Back to the game": Undo
    faces = ", ".join(" ".join(line.split()[2:]) for line in first)
    assert box.shows(f"Use {faces} again")
    box.press("select")
    assert box.app.session.store.entries(box.app.session.gid)[0].lines == first
    assert box.app.session.head == 1


def test_bouncing_contacts_count_as_one_press(box: Harness) -> None:
    box.press("down", bounce=True)  # New game > History, not further
    box.press("select", bounce=True)
    assert box.shows("History")
    box.press("down", bounce=True)  # Players > Dice, not further (no game is listed below)
    box.press("select", bounce=True)
    assert box.shows("No dice yet")


def test_screen_dims_then_blanks_and_the_first_press_only_wakes(box: Harness) -> None:
    box.wait(61)
    assert box.output.level == "dim"
    assert (0x81, 0x08) in box.serial.commands  # contrast down
    box.wait(600)
    assert box.output.level == "blank"
    assert (0xAE,) in box.serial.commands  # display off
    box.press("select")
    assert box.output.level == "bright"
    assert box.shows("New game")  # still home: the press only woke the screen
    box.press("select")
    assert box.shows("Microbot Racers")


def test_a_restart_resumes_at_the_same_prompt(tmp_path: pathlib.Path) -> None:
    first = Harness(tmp_path)
    start_microbot(first)
    first.press("select")
    first.press("select")  # P1's first pick
    first.wait(3)  # its result line has gone
    before = first.screen.tobytes()
    first.close()
    second = Harness(tmp_path)
    assert second.app.resume_latest()
    second.daemon.refresh()
    assert second.screen.tobytes() == before
    second.close()


def test_idle_loop_has_nothing_to_do_until_a_deadline(box: Harness) -> None:
    box.wait(1)
    deadline = box.daemon.deadline()
    assert deadline is not None and deadline - box.now > 50  # sleeps until it is time to dim
    assert box.output.frames_sent == 1  # nothing redrawn while idle


def test_typed_faces_the_rules_refuse_get_the_reason_and_change_nothing(tmp_path: pathlib.Path) -> None:
    box = Harness(tmp_path)
    session = Session.new(box.store, Header(game_by_id("leaf-climbers"), ("Ann", "Bob")))
    for text in ("table drop 3", "table leaf 6 6", "table leaf 6 6"):
        session.play([Line.parse(text)])
    box.app.open(session.gid)
    box.press("down")  # Enter faces
    box.press("select")
    box.intent("digit", 6)  # column 6, and on to the row
    box.intent("digit", 6)
    box.press("select")
    assert box.shows("c6 r6 already has 2", 11)
    assert Session(box.store, session.gid).head == 3  # nothing was logged
    box.close()


def test_a_stored_game_that_no_longer_replays_is_kept_and_the_box_still_starts(
        tmp_path: pathlib.Path) -> None:
    first = Harness(tmp_path)
    start_microbot(first)
    first.press("select")
    gid = first.app.session.gid
    # A byte changed on the card that SQLite's checks cannot see: the entry no longer parses.
    first.store.db.execute("UPDATE entries SET lines = 'table roll 9 9' WHERE game = ?", (gid,))
    first.close()
    second = Harness(tmp_path)
    assert not second.app.resume_latest()
    second.daemon.refresh()
    assert second.says("Game 1 cannot be")
    second.press("down")  # the message goes with the next press
    assert second.shows("New game")
    # nothing was deleted (its row kept as it is: no longer as written, so not read as an entry)
    assert second.store.db.execute("SELECT count(*) FROM entries WHERE game = ?", (gid,)).fetchone()[0] == 1
    second.close()


def test_undo_at_the_start_says_so_on_the_screen_and_the_game_goes_on(box: Harness) -> None:
    """Nothing to undo is a refusal (not a rule broken): its reason shows like any other."""
    start_microbot(box)
    box.long_press()
    box.presses("down", "select")  # the game menu's line under "Back to the game": Undo
    assert box.says("nothing to undo"), box.texts()
    assert box.app.session.head == 0
    box.press("select")  # roll for me: the game goes on
    assert box.app.session.head == 1


def test_a_changed_setting_is_asked_of_the_wiring_which_keeps_it(store: Store, tmp_path: pathlib.Path) -> None:
    """The settings screen writes no file: it hands the new settings to ``save``."""
    asked: list[Config] = []
    app = App(store, Config(), save=asked.append)
    app.home.settings()
    app.handle(Intent("select"))  # Dim after: 60 s -> 120 s
    assert asked == [replace(Config(), screen=replace(Config().screen, dim_after=120.0))]
    assert app.config.screen.dim_after == 120.0
    assert not [p for p in tmp_path.iterdir() if not p.name.startswith("companion.db")]  # the store alone


def test_a_setting_the_wiring_cannot_keep_is_said_and_still_used(store: Store) -> None:
    def full(config: Config) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    app = App(store, Config(), save=full)
    app.home.settings()
    app.handle(Intent("select"))
    assert app.top.message == "settings not saved: No space left on device"
    assert app.config.screen.dim_after == 120.0  # in force until the box restarts


def test_the_key_test_lists_the_inputs_the_wiring_made(store: Store) -> None:
    app = App(store, Config(), inputs=["up", "select", "encoder"])
    app.home.hardware_test()
    app.handle(Intent("select"))
    assert isinstance(app.top, KeyTest) and app.top.expected == ["up", "select", "encoder"]
