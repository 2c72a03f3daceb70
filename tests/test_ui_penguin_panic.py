"""Penguin Panic on the box: the real loop through mock pins, read back from the screen.

Each test sets a game up from record lines, opens it as a player would find it, presses the
buttons of the minimal build (up, down, select; a long press for the game menu) and checks
what the screen shows and what the store holds.
"""

from __future__ import annotations

import pathlib
from collections.abc import Iterator

import pytest

from companion.games import game_by_id
from companion.games.base import Line
from companion.record import Header, replay_text
from companion.session import Session
from companion.ui.draw import HEADER
from companion.ui.driver import Driver
from companion.ui.play import PlayScreen
from companion.ui.rows import PANEL, QUESTION_BASELINE
from companion.ui.widgets import VALUE_SIZE
from tests.games.scenarios import ROUND_2P, WILD, whole_game
from tests.harness import Harness

GOLDEN = pathlib.Path(__file__).parent / "golden" / "penguin-panic"
GAME = game_by_id("penguin-panic")


@pytest.fixture
def box(tmp_path: pathlib.Path) -> Iterator[Harness]:
    harness = Harness(tmp_path)
    yield harness
    harness.close()


def open_game(box: Harness, *lines: str, players: tuple[str, ...] = ("Ann", "Bob"),
              options: tuple[tuple[str, str], ...] = ()) -> Session:
    """A stored game after ``lines``, open on the play screen."""
    assert GAME is not None
    session = Session.new(box.store, Header(GAME, players, options))
    for text in lines:
        session.play([Line.parse(text)])
    box.app.open(session.gid)
    box.daemon.refresh()
    return session


def stored(box: Harness, session: Session) -> list[str]:
    """The record lines the store holds for the game, read afresh."""
    again = Session(box.store, session.gid)
    return [line for entry in again.store.entries(again.gid, again.head) for line in entry.lines]


def digits(box: Harness, *values: int) -> None:
    """Type numbers, as the emulator's keys or a die reader send them."""
    for value in values:
        box.intent("digit", value)


def entry_shows(box: Harness, word: str) -> bool:
    """Whether a number entry shows ``word`` (its type shrinks to fit a long name)."""
    return any(box.shows(word, size) for size in (VALUE_SIZE, 16, 14, 12, 11))


def down_to(box: Harness, label: str, most: int = 16, key: str = "down") -> None:
    """Press down (or ``key``) until the play screen's choice is ``label``."""
    for _ in range(most):
        if box.says(label) and box.shows(label):
            return
        box.press(key)
    assert box.shows(label), f"{label!r} is not offered"


def labels(box: Harness) -> list[str]:
    """The play screen's lines, in the order down walks them from the top."""
    top = box.app.top
    assert isinstance(top, PlayScreen)
    return [item.label for item in top.items()]


def circle_filled(box: Harness, circle: int) -> bool:
    """Whether circle ``circle`` of the dice panel is drawn filled (a circle the dice allow)."""
    x0, y0, _, y1 = PANEL
    size = y1 - y0 - 2
    left = x0 + (circle - 1) * (size + 2)
    return bool(box.screen.getpixel((left + 3, (y0 + y1) // 2)))


# --- the bribe phase ---


def test_bribe_screen_shows_each_spaces_price_before_paying(box: Harness) -> None:
    session = open_game(box, "table line", "Ann ability 7")
    assert box.shows("Bob")  # whose turn, in the header
    assert box.shows("Bob: ability? 5 fish", 11)
    assert box.shows("6 3 dice -1") and box.shows("free", 10)  # the free space first
    box.presses("down", "down")
    assert box.shows("4 swap two -1") and box.shows("4 fish", 10)  # two players: 2 a space
    box.press("select")
    assert box.shows("Space 4, swap two: pay 4", 10)
    assert stored(box, session) == ["table line", "Ann ability 7"]  # not paid yet
    box.presses("down", "select")  # no: back to the choice, the cursor where it was
    assert box.shows("Bob: ability? 5 fish", 11) and box.shows("4 swap two -1")
    box.presses("select", "select")
    assert stored(box, session)[-1] == "Bob ability 4"
    assert box.shows("Bob: bribe a bear", 11)


def test_free_space_is_claimed_in_one_press(box: Harness) -> None:
    session = open_game(box, "table line", "Ann ability 7")
    box.press("select")
    assert stored(box, session)[-1] == "Bob ability 6"


# --- dice ---


def test_buy_a_die_is_asked_only_when_affordable(box: Harness) -> None:
    open_game(box, *ROUND_2P)  # Bob: 5 fish
    assert box.shows("Bob: buy a die?", 11)
    assert box.shows("Roll for me")  # the likely answer; buying is one press up
    box.press("up")
    assert box.shows("Buy a die") and box.shows("3 fish", 10)
    poor = ("table line", "Ann ability 7", "Bob ability 4", "Bob bribe 1", "Ann bribe 2",
            "Bob bribe 3", "Ann bribe 4")  # Bob: 1 fish
    open_game(box, *poor)
    assert box.shows("Bob: roll 2 dice", 11)
    assert not box.shows("Buy a die")


def test_buying_a_die_is_checked_before_it_is_logged_like_every_fish_cost(box: Harness) -> None:
    """Issue 26 §8: an ability space's price gets "Yes, log it"; the extra die's did not."""
    session = open_game(box, *ROUND_2P)  # Bob: 5 fish
    box.press("up")  # Buy a die
    box.press("select")
    assert box.says("An extra die: pay 3") and box.says("keep 2") and box.shows("Yes, log it")
    assert stored(box, session)[-1] != "Bob buy"  # not logged yet
    box.press("select")
    assert stored(box, session)[-1] == "Bob buy"


def test_faces_entered_highlight_the_circles_they_allow(box: Harness) -> None:
    open_game(box, *ROUND_2P)
    digits(box, 2, 6, 2)  # ability 6: three dice
    box.press("select")
    assert box.says("Bob: circle 2")  # the one circle they allow: its numbers open at once
    box.long_press()  # leave them
    assert box.shows("Bob: place in", 11)
    box.wait(3)  # the roll's result line has gone from over the panel
    assert [circle_filled(box, k) for k in range(1, 6)] == [False, True, False, False, False]
    assert box.shows("circle 2")
    box.press("down")
    assert box.shows("circle 2")  # the only circle offered: down wraps round to it


def test_a_six_with_ability_1_lights_every_circle(box: Harness) -> None:
    open_game(box, *WILD, players=("Ann", "Bob", "Cat"))
    digits(box, 6, 2)
    box.press("select")
    box.wait(3)
    assert all(circle_filled(box, k) for k in range(1, 6))


# --- the fish gain, shown as its sum before it is applied ---


def test_fish_gain_is_shown_as_its_sum_then_applied(box: Harness) -> None:
    session = open_game(box, *WILD, "Bob roll 6 2", players=("Ann", "Bob", "Cat"))
    box.press("down")  # circle 2 .. circle 5: take circle 2
    box.press("select")
    assert box.says("Bob: circle 2")  # the form's title, over the numbers
    digits(box, 6)  # 6 linked, and on to the coloured igloos
    assert box.shows("6 linked - 0 coloured", 10)  # the sum over the numbers, as they change
    box.press("up")  # 1 coloured
    # Anna's worked example: 6 - 1 - 4 = 1
    assert box.shows("6 linked - 1 coloured", 10) and box.shows("- 4 ability = 1 fish", 10)
    assert Session(box.store, session.gid).summary()["fish"]["Bob"] == 0  # not yet
    box.press("select")  # the numbers the sum says
    assert stored(box, session)[-1] == "Bob place 2 6 1"
    assert Session(box.store, session.gid).summary()["fish"]["Bob"] == 1


def test_the_sum_follows_the_numbers_and_an_impossible_group_says_why_before_it_is_logged(
        tmp_path: pathlib.Path) -> None:
    box = Harness(tmp_path, "adafruit-bonnet")  # left and right: the numbers two at a time
    session = open_game(box, *ROUND_2P, "Bob roll 1 2 3")
    box.press("select")  # circle 1: 1 linked lit, 0 coloured outlined beside it
    assert box.shows("1 linked - 0 coloured", 10) and box.says("Bob: circle 1")
    box.presses("up", "up", "up", "up", "right")  # 5 linked, 1 coloured
    assert box.shows("5 linked - 1 coloured", 10) and box.shows("- 1 ability = 3 fish", 10)
    box.presses("down", "down", "down", "right", "right")  # 2 linked, 3 coloured: more than the group
    assert box.shows("a group of 2 cannot hold", 10)
    assert stored(box, session)[-1] == "Bob roll 1 2 3"
    box.presses("left", "left", "select")  # 1 coloured: both taken at once
    assert stored(box, session)[-1] == "Bob place 1 2 1"
    box.close()


def test_the_check_takes_the_play_screens_rows_under_the_same_top_bar(box: Harness) -> None:
    """The check shown over the numbers keeps the top bar, and the entry's title in the
    question's row; its sentence is where a result goes. Changing a number rewrites neither
    the top bar's pages nor the question's letters."""
    open_game(box, *ROUND_2P, "Bob roll 1 2 3")
    box.press("select")  # circle 1
    entering = box.screen
    digits(box, 5)
    checking = box.screen
    assert box.shows("5 linked - 0 coloured", 10) and box.says("Bob: circle 1")
    top_bar = (0, 0, 128, HEADER)
    question = (0, PANEL[3] + 1, 128, QUESTION_BASELINE + 2)
    assert entering.crop(top_bar).tobytes() == checking.crop(top_bar).tobytes()
    assert entering.crop(question).tobytes() == checking.crop(question).tobytes()
    assert box.shows("Bob") and not box.says("check")


# --- full circles ---


def test_full_circle_is_entered_with_its_colour_by_name(box: Harness) -> None:
    session = open_game(box, *ROUND_2P, "Bob roll 1 2 3", "Bob place 2 3 0")
    assert box.shows("Ann: buy a die?", 11)
    assert box.shows("Roll for me") and box.shows("complete", 10)  # full circles, one press up
    box.press("up")  # just above the answer: the circles, first the first checked (Bob's 1)
    assert box.shows("+ full circle 1")
    down_to(box, "+ full circle 2", key="up")  # the one Bob placed in
    box.press("select")
    assert box.says("Bob: full circle 2")
    box.presses("up", "up")
    assert entry_shows(box, "green")
    box.press("select")
    box.presses("up", "up")  # 4 out
    assert box.shows("1 green escapes to Ann.", 10) and box.shows("3 back to the bag.", 10)
    box.press("select")
    assert stored(box, session)[-1] == "Bob complete 2 green 4"


def test_a_check_too_long_to_show_over_the_numbers_comes_after_them(box: Harness) -> None:
    session = open_game(box, *ROUND_2P, "Bob roll 5 6 6", "Bob place 5 3 0")
    down_to(box, "+ full circle 5", key="up")  # nobody bribed bear 5
    box.presses("select", "select", "up", "select")  # red, 3 out
    assert box.shows("No bribe: 1 red", 10) and box.shows("Yes, log it")  # three lines: a check of its own
    box.presses("down", "select")  # no, change it: the numbers as they were
    assert box.says("Bob: full circle 5") and entry_shows(box, "red")
    box.presses("select", "select", "select")
    assert stored(box, session)[-1] == "Bob complete 5 red 3"


def test_colour_names_follow_the_colours_option(box: Harness) -> None:
    open_game(box, *ROUND_2P, "Bob roll 1 2 3", "Bob place 2 3 0",
              options=(("colours", "white,black,grey,brown,pink"),))
    box.presses("up", "select")  # the first circle checked: its colour
    assert entry_shows(box, "white")
    box.press("down")
    assert entry_shows(box, "pink")


def test_game_over_still_takes_the_last_players_full_circles(box: Harness) -> None:
    session = open_game(box, *whole_game())
    assert box.shows("Game over") and box.shows("Bob wins!", 11)
    assert box.shows("+ full circle 1")  # Bob's bear, checked first: the cursor is on it
    box.press("select")
    box.press("select")  # red
    box.presses("down", "select")  # 7 out: 6 back, and the bag holds 10
    assert stored(box, session)[-1] == "Ann complete 1 red 7"
    assert box.shows("Game over")
    down_to(box, "+ full circle 2")
    box.presses("select", "up", "select", "up", "select")  # yellow, 3
    assert stored(box, session)[-1] == "Ann complete 2 yellow 3"
    assert box.shows("Table") and box.shows("Draw the line", 11)  # 12 in the bag: play on


# --- pages and panels ---


def test_pages_flip_with_whose_turn_kept_in_the_header(box: Harness) -> None:
    open_game(box, *ROUND_2P, "Bob roll 1 2 3", "Bob place 2 3 0", "Bob complete 2 green 4")
    box.long_press()
    box.presses("down", "down", "down", "select")  # Back to the game, Undo, Rules: this step, Scores
    assert box.shows("Ann")  # Ann rolls next
    assert box.shows("Scores 1/4", 10)
    assert box.shows("g1") and box.shows("=1")  # Ann's escapee, from Bob's full circle
    box.press("down")
    assert box.shows("Fish 2/4", 10)
    box.press("down")
    assert box.shows("Ability, bear 3/4", 10)
    assert box.shows("6 3 dice -1", 10) and box.shows("1,3")  # Bob, who bribed bears 1 and 3
    box.press("down")
    assert box.shows("Penguins 4/4", 10)
    assert box.shows("bag", 10) and box.shows("31", 10)
    box.press("select")
    assert box.shows("Ann: buy a die?", 11)


def test_turn_panel_shows_everyones_fish_and_the_line(box: Harness) -> None:
    open_game(box, *ROUND_2P, "Bob roll 1 2 3", "Bob place 2 10 0")
    assert box.shows("Bob", 10) and box.shows("10", 10)  # the fish track stops at 10
    assert box.shows("line", 9) and box.shows("11", 10)


@pytest.mark.parametrize("name", ["two-players-full", "three-players-tie"])
def test_whole_golden_game_can_be_typed_on_the_box(box: Harness, name: str) -> None:
    """Every line of a finished game (its colours too), entered with up, down and select
    and each preview confirmed, stores exactly the record."""
    record = replay_text((GOLDEN / f"{name}.record").read_text())
    session = open_game(box, players=record.header.players, options=record.header.options)
    driver = Driver(box.app, lambda intent: box.intent(intent.kind, intent.value))
    for line in record.actions:
        driver.line(line)
    assert Session(box.store, session.gid).state == record.state
    assert box.shows("Game over")


# --- all sixes with ability 1: place anywhere, or roll them all again ---


def test_all_sixes_with_ability_1_offer_every_circle_and_roll_all_again(box: Harness) -> None:
    session = open_game(box, *WILD, players=("Ann", "Bob", "Cat"))
    digits(box, 6, 6)
    box.press("select")
    assert stored(box, session)[-1] == "Bob roll 6 6"
    assert box.says("Bob: 6s, place or roll")
    assert box.shows("circle 1")  # the cursor starts on placing
    assert labels(box)[:7] == ["Roll all again", "Enter faces", "circle 1", "circle 2", "circle 3",
                               "circle 4", "circle 5"]
    box.wait(3)  # the roll's result has gone from over the panel: every circle is lit
    assert all(circle_filled(box, k) for k in range(1, 6))
    box.presses("down", "down", "select")  # circle 3
    digits(box, 1)  # linked 1; then 0 coloured, the sum over them
    assert box.shows("4 ability = -3: no fish", 10)
    box.presses("select", "select")  # a typist's select after the number, then the coloured
    assert stored(box, session)[-1] == "Bob place 3 1 0"
    assert box.says("Bob placed on the 6s:")  # the result says which way was chosen


def test_all_sixes_with_ability_1_may_be_rolled_again(box: Harness) -> None:
    session = open_game(box, *WILD, "Bob roll 6 6", players=("Ann", "Bob", "Cat"))
    box.presses("up", "up")  # from circle 1: Enter faces, then Roll all again
    assert box.shows("Roll all again")
    box.press("select")
    line = stored(box, session)[-1]
    assert line.startswith("Bob roll ") and line != "Bob roll 6 6"
    assert box.says("Bob rolls all again: ")
    box.long_press()
    box.presses("down", "select")  # undo: the same faces are offered, never a free re-roll
    assert f"Use {' '.join(line.split()[2:])} again" in labels(box) and "Roll all again" not in labels(box)
    assert box.shows("circle 1")  # and the cursor is back on placing


def test_all_sixes_typed_again_say_the_choice(box: Harness) -> None:
    session = open_game(box, *WILD, "Bob roll 6 6", players=("Ann", "Bob", "Cat"))
    box.press("up")
    assert box.shows("Enter faces")
    box.press("select")
    digits(box, 2, 4)
    box.press("select")
    assert stored(box, session)[-1] == "Bob roll 2 4"
    assert box.says("Bob rolls all again: 2 4")
    assert box.shows("Bob: place in", 11)


def test_all_sixes_without_ability_1_offer_only_the_roll(box: Harness) -> None:
    open_game(box, *ROUND_2P, "Bob roll 6 6 6")
    assert box.says("Bob: all 6, roll again")
    assert not any(label.startswith("circle") for label in labels(box))


# --- several full circles: the order the rule text checks them ---

#: Bob placed in circle 1 (turn order Bob, Ann; Bob bribed 1 and 3, Ann 2 and 4; 5 unbribed).
BOB_PLACED = (*ROUND_2P, "Bob roll 1 2 3", "Bob place 1 1 0")


def test_full_circles_are_listed_in_the_order_the_text_checks_them(box: Harness) -> None:
    open_game(box, *BOB_PLACED)
    # Up from "Roll for me", where the cursor starts: the circles in the order they are
    # checked, then "Buy a die".
    assert labels(box) == ["Buy a die", "+ full circle 4", "+ full circle 2", "+ full circle 5",
                           "+ full circle 3", "+ full circle 1", "Roll for me", "Enter faces"]
    assert box.shows("Roll for me") and box.shows("complete", 10)
    box.press("up")
    assert box.shows("+ full circle 1")
    box.press("up")
    assert box.shows("+ full circle 3")


def test_a_circle_that_may_no_longer_come_is_struck_out_and_says_why(box: Harness) -> None:
    session = open_game(box, *BOB_PLACED, "Bob complete 2 blue 2")
    assert [label for label in labels(box) if "circle" in label] == [
        "+ full circle 4", "+ full circle 5", "+ full circle 3", "+ full circle 1"]
    box.press("up")
    assert box.shows("+ full circle 1", struck=True)
    assert not box.shows("+ full circle 1")  # the plain label is not there: struck through
    box.press("select")
    assert box.says("circle 1 is checked") and box.says("before circle 2")  # at once: no numbers asked
    assert stored(box, session)[-1] == "Bob complete 2 blue 2"
    box.presses("up", "up", "up")
    assert box.shows("+ full circle 4")  # the one still open, in its place in the order


def test_once_a_circle_is_logged_the_rules_of_this_step_give_the_order(box: Harness) -> None:
    open_game(box, *BOB_PLACED, "Bob complete 2 blue 2")
    box.long_press()
    box.presses("down", "down")  # Back to the game, Undo, then the rules of this step
    box.press("select")
    assert box.shows("Several circles", 11) and box.shows("full at once: they", 11)


# --- the yard's bounds: the box's own checks ---


def seven_in_circle_1() -> tuple[str, ...]:
    """Seven turns, each placing a penguin in circle 1 (Bob rolls three dice: ability 6)."""
    turns: tuple[str, ...] = ()
    for turn in range(7):
        who = ("Bob", "Ann")[turn % 2]
        turns += (f"{who} roll 1 1" + (" 1" if who == "Bob" else ""), f"{who} place 1 1 0")
    return turns


def test_a_circle_that_holds_seven_is_asked_about_and_takes_no_eighth(box: Harness) -> None:
    """Issue 26 §8: the box accepted a circle of 14. Seven placed in one circle fill it:
    the box asks whether it is full, the full circle first under the cursor; a penguin more
    in it is refused with the reason (the record would still take it: the bound is the
    box's, see penguin_panic_yard)."""
    session = open_game(box, *ROUND_2P, *seven_in_circle_1())  # Bob placed the seventh
    assert box.shows("Bob: circle 1 full?", 11)
    assert box.shows("full circle 1")  # the cursor on it
    assert "+ Roll for me" in labels(box)  # what the rules ask next: one of the lines above
    box.long_press()  # Back to the game
    box.press("select")
    down_to(box, "+ Enter faces", key="up")
    box.press("select")
    digits(box, 1, 1)
    box.press("select")  # the one circle the dice allow opens straight on
    assert box.says("Ann: circle 1")
    box.presses("select", "select")  # 1 linked, 0 coloured
    assert box.says("circle 1 is full")
    assert stored(box, session)[-1] == "Ann roll 1 1"  # the placement was not logged
