"""Settings > Test keys & screen, driven through mock pins and read back from the screen."""

from __future__ import annotations

import pathlib
from collections.abc import Iterator

import pytest
from gpiozero import Device

from companion import runner
from companion.config import parse
from companion.io.encoder import Encoder
from companion.io.shake import ShakeSwitch
from companion.ui.keytest import KeyTest, PatternTest
from companion.ui.widgets import Menu
from tests.harness import Harness

ENCODER_A, ENCODER_B, ENCODER_PUSH, TILT_PIN = 5, 6, 13, 26


@pytest.fixture
def box(tmp_path: pathlib.Path) -> Iterator[Harness]:
    harness = Harness(tmp_path)
    yield harness
    harness.close()


def choose(box: Harness, label: str) -> None:
    """Move the menu's cursor to ``label`` with the down key and press select."""
    menu = box.app.top
    assert isinstance(menu, Menu)
    labels = [item.label for item in menu.items]
    for _ in range((labels.index(label) - menu.cursor) % len(labels)):
        box.press("down")
    box.press("select")


def open_test(box: Harness, which: str) -> None:
    choose(box, "Settings")
    choose(box, "Test keys & screen")
    choose(box, which)


def test_each_key_shows_its_name_and_pin_and_the_keys_left(box: Harness) -> None:
    open_test(box, "Keys")
    assert box.shows("Press each key", 12)
    assert box.shows("hold 2 s: leave", 10)
    assert box.shows("3 to try: up down select", 10)
    box.press("up")
    assert box.shows("up", 12)
    assert box.shows("GPIO17", 10)
    assert box.shows("held 0.08 s", 10)
    assert box.shows("2 to try: down select", 10)
    box.press("down")
    assert box.shows("GPIO27", 10)
    box.press("select")
    assert box.shows("select", 12)
    assert box.shows("GPIO22", 10)
    assert box.shows("Every key works", 10)
    assert isinstance(box.app.top, KeyTest)  # select chose nothing


def test_a_key_held_down_shows_down(box: Harness) -> None:
    open_test(box, "Keys")
    pin = Device.pin_factory.pin(box.pins["down"])
    pin.drive_low()
    box.pump()
    assert box.shows("down", 12)
    assert box.shows("GPIO27", 10)
    assert box.shows("down", 10)
    pin.drive_high()
    box.pump()


def test_select_back_and_long_presses_only_show_their_names(tmp_path: pathlib.Path) -> None:
    box = Harness(tmp_path, preset="adafruit-bonnet")  # the wiring hands the bonnet's keys in
    try:
        open_test(box, "Keys")
        assert box.shows("7 to try: up down left", 10)
        box.press("back")
        assert isinstance(box.app.top, KeyTest)
        assert box.shows("back", 12)
        assert box.shows("GPIO6", 10)
        box.long_press("select")  # the game menu elsewhere; here only its name
        assert isinstance(box.app.top, KeyTest)
        assert box.shows("GPIO4", 10)
        assert box.shows("held 0.80 s", 10)
        box.press("left")
        assert isinstance(box.app.top, KeyTest)
        assert box.shows("4 to try: up down right", 10)
    finally:
        box.close()


def test_holding_any_key_two_seconds_leaves(box: Harness) -> None:
    open_test(box, "Keys")
    box.press("up", hold=1.9)
    assert isinstance(box.app.top, KeyTest)
    box.press("up", hold=2.0)
    assert isinstance(box.app.top, Menu) and box.app.top.title == "Test"
    assert box.shows("Keys")
    box.press("down")  # the keys move menus again
    assert box.app.top.cursor == 1


def test_three_quick_backs_leave_but_slow_or_bouncing_ones_do_not(tmp_path: pathlib.Path) -> None:
    """The terminal emulator's keys are taps: back three times is its way out."""
    box = Harness(tmp_path, preset="adafruit-bonnet")
    try:
        open_test(box, "Keys")
        box.press("back", bounce=True)  # three bounces and a press: one press
        box.wait(2.5)
        box.presses("back", "back")  # the first of these is more than 2 s after the last
        box.wait(2.5)
        box.press("back")
        assert isinstance(box.app.top, KeyTest)
        box.presses("back", "back")
        assert isinstance(box.app.top, Menu) and box.app.top.title == "Test"
    finally:
        box.close()


def test_contact_bounce_is_counted(box: Harness) -> None:
    open_test(box, "Keys")
    box.press("up", bounce=True)
    assert box.shows("held 0.08 s, 3 bounces", 10)


#: One detent of the encoder, as levels of its A and B contacts.
CLOCKWISE = ((0, 1), (0, 0), (1, 0), (1, 1))
ANTICLOCKWISE = ((1, 0), (0, 0), (0, 1), (1, 1))


def turn(box: Harness, steps: tuple[tuple[int, int], ...]) -> None:
    """Drive the encoder's contacts through one detent, then let the loop see it."""
    a, b = Device.pin_factory.pin(ENCODER_A), Device.pin_factory.pin(ENCODER_B)
    for level_a, level_b in steps:
        a.drive_high() if level_a else a.drive_low()
        b.drive_high() if level_b else b.drive_low()
    box.pump()


def test_the_encoder_and_the_tilt_switch_show_their_events(tmp_path: pathlib.Path) -> None:
    box = Harness(tmp_path)
    config = parse({"encoder": {"a": ENCODER_A, "b": ENCODER_B, "push": ENCODER_PUSH},
                    "shake": {"pin": TILT_PIN}}, "companion.toml")
    # What the wiring hands the screens: every configured input's names, from the registry.
    box.app.inputs = tuple(runner.sources(runner.chosen_inputs(config, emulated=False)))
    encoder = Encoder(config.inputs["encoder"], box.events, clock=lambda: box.now)
    shake = ShakeSwitch(config.inputs["shake"], box.events, clock=lambda: box.now)
    try:
        open_test(box, "Keys")
        assert box.shows("5 to try: up down select", 10)
        turn(box, CLOCKWISE)
        assert box.shows("encoder", 12)
        assert box.shows("sent down", 10)
        assert box.shows("down 1", 10)
        turn(box, ANTICLOCKWISE)
        assert box.shows("sent up", 10)
        assert box.shows("down 1, up 1", 10)
        push = Device.pin_factory.pin(ENCODER_PUSH)
        push.drive_low()
        box.pump()
        box.now += 0.1
        push.drive_high()
        box.pump()
        assert box.shows("encoder push GPIO13", 10)
        assert box.shows("held 0.10 s", 10)
        tilt = Device.pin_factory.pin(TILT_PIN)
        for _ in range(5):
            tilt.drive_low()
            tilt.drive_high()
        box.pump()
        assert box.shows("tilt switch", 12)
        assert box.shows("sent roll", 10)
        assert box.shows("roll 1", 10)
        assert box.shows("2 to try: up down", 10)  # the push is a select
        assert isinstance(box.app.top, KeyTest)
    finally:
        shake.close()
        encoder.close()
        box.close()


def test_nothing_is_logged_to_the_game_in_progress(box: Harness) -> None:
    box.presses("select", "select", "select", "select", "select")  # a Microbot race
    box.press("select")  # roll for me: one entry
    gid = box.app.session.gid
    before = (box.store.entries(gid), box.store.games())
    box.long_press()
    choose(box, "Leave game")
    open_test(box, "Keys")
    box.presses("select", "up", "down", "select")
    box.long_press()
    box.intent("roll")
    box.intent("undo")
    box.intent("digit", 4)
    assert box.shows("digit 4", 12)
    box.press("select", hold=2.5)
    assert (box.store.entries(gid), box.store.games()) == before


def test_a_back_from_no_key_leaves_the_key_test(box: Harness) -> None:
    open_test(box, "Keys")
    box.intent("back")
    assert isinstance(box.app.top, Menu) and box.app.top.title == "Test"


def lit(box: Harness) -> int:
    return box.screen.convert("L").histogram()[255]


def test_the_patterns_light_every_pixel_and_check_the_corners(box: Harness) -> None:
    open_test(box, "Screen patterns")
    assert lit(box) == 128 * 64  # white
    box.press("select")
    first = box.screen
    assert lit(box) == 128 * 64 // 2
    assert first.getpixel((0, 0)) and not first.getpixel((1, 0)) and first.getpixel((1, 1))
    box.press("down")
    assert lit(box) == 128 * 64 // 2
    assert not box.screen.getpixel((0, 0)) and box.screen.getpixel((1, 0))
    box.press("select")
    frame = box.screen
    edge = [(x, 0) for x in range(128)] + [(x, 63) for x in range(128)] \
        + [(0, y) for y in range(64)] + [(127, y) for y in range(64)]
    assert all(frame.getpixel(p) for p in edge)  # the border, every outer pixel
    assert box.shows("top left")
    assert frame.getpixel((5, 5)) and not frame.getpixel((122, 58))  # the corner mark
    box.press("select")
    assert isinstance(box.app.top, Menu) and box.app.top.title == "Test"


def test_a_pattern_is_never_shifted_for_burn_in(box: Harness) -> None:
    assert box.app.config.screen.shift
    open_test(box, "Screen patterns")
    box.presses("select", "select", "select")
    assert isinstance(box.app.top, PatternTest) and box.app.top.pattern == "border"
    box.wait(250)  # two burn-in shift periods pass; the screen dims but is not blanked
    frame = box.screen
    assert frame.getpixel((0, 0)) and frame.getpixel((127, 63)) and frame.getpixel((127, 0))
    box.press("up")  # wakes the dimmed screen only
    assert isinstance(box.app.top, PatternTest)
    box.press("up")
    assert isinstance(box.app.top, Menu)
    box.wait(1)
    assert box.output.shift  # the menus are shifted again


def test_back_leaves_the_patterns_at_once(box: Harness) -> None:
    open_test(box, "Screen patterns")
    box.intent("back")
    assert isinstance(box.app.top, Menu) and box.app.top.title == "Test"
