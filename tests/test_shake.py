"""Shake to roll: a tilt or vibration switch on a mock pin rolls the dice asked for, once per shake."""

from __future__ import annotations

import pathlib
import queue
import re
from collections.abc import Iterator

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory

from companion.config import ConfigError, parse
from companion.intents import Intent
from companion.io.pins import check_pins
from companion.io.shake import SOURCE, ShakeSettings, ShakeSwitch
from companion.io.testing import drained
from tests.harness import Harness

PIN = 26


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


Rig = tuple[ShakeSwitch, Clock, "queue.Queue[object]"]


@pytest.fixture
def switch() -> Iterator[Rig]:
    Device.pin_factory = MockFactory()
    clock = Clock()
    events: queue.Queue[object] = queue.Queue()
    made = ShakeSwitch(ShakeSettings(PIN, settle=1.0), events, clock=clock)
    yield made, clock, events
    made.close()


def rattle(clock: Clock, edges: int, gap: float) -> None:
    """The switch closing and opening ``edges`` times, ``gap`` seconds apart."""
    pin = Device.pin_factory.pin(PIN)
    for _ in range(edges):
        pin.drive_low()
        clock.now += gap
        pin.drive_high()
        clock.now += gap


def test_one_shake_is_one_roll_however_much_it_rattles(switch: Rig) -> None:
    _, clock, events = switch
    rattle(clock, 40, 0.004)  # a vibration switch chattering for a third of a second
    assert drained(events) == [Intent("roll")]
    clock.now += 0.5
    rattle(clock, 5, 0.1)  # shaken again before it was still for a second: the same shake
    assert drained(events) == []
    clock.now += 1.0
    rattle(clock, 3, 0.002)
    assert drained(events) == [Intent("roll")]


def test_a_tilt_switch_set_back_later_does_not_roll_again(switch: Rig) -> None:
    _, clock, events = switch
    pin = Device.pin_factory.pin(PIN)
    pin.drive_low()  # tipped over: the ball closes the contacts
    clock.now += 30.0
    pin.drive_high()  # set upright again after a long while: opening never rolls
    assert drained(events) == [Intent("roll")]


def test_shake_rolls_the_dice_the_prompt_asks_for(tmp_path: pathlib.Path) -> None:
    h = Harness(tmp_path)
    shake = ShakeSwitch(ShakeSettings(PIN), h.events, clock=lambda: h.now)
    try:
        h.presses("select", "select", "select", "select", "select")  # a Microbot race
        assert h.shows("Who is P1 this turn?", 11)
        pin = Device.pin_factory.pin(PIN)
        for _ in range(10):
            pin.drive_low()
            pin.drive_high()
        h.pump()
        session = h.app.session
        assert session is not None and session.head == 1
        entry = session.store.entry(session.gid, 1)
        assert entry is not None and entry.rolled  # as "Roll for me": undo offers the same faces
        assert entry.lines[-1].startswith("table roll ")
    finally:
        shake.close()
        h.close()


def test_a_shake_on_a_dark_screen_only_wakes_it(tmp_path: pathlib.Path) -> None:
    h = Harness(tmp_path)
    shake = ShakeSwitch(ShakeSettings(PIN), h.events, clock=lambda: h.now)
    try:
        h.presses("select", "select", "select", "select", "select")
        h.wait(700)
        assert h.output.level == "blank"
        Device.pin_factory.pin(PIN).drive_low()
        h.pump()
        assert h.output.level == "bright"
        assert h.app.session is not None and h.app.session.head == 0
    finally:
        shake.close()
        h.close()


def test_shake_settings() -> None:
    assert parse({}, "c.toml").inputs["shake"] is None  # no pin: no switch
    assert parse({"shake": {"pin": 26, "settle": 2}}, "c.toml").inputs["shake"] == ShakeSettings(26, 2.0)
    with pytest.raises(ConfigError, match=re.escape("shake.pin: must be a BCM pin")):
        parse({"shake": {"pin": 40}}, "c.toml")
    with pytest.raises(ConfigError, match=re.escape("shake.settle: must be a number of seconds")):
        parse({"shake": {"settle": "long"}}, "c.toml")


def test_a_shake_pin_that_is_a_button_is_a_configuration_error() -> None:
    # Found before any pin is opened (tests/test_faults_start.py runs the process).
    config = parse({"shake": {"pin": 17}}, "c.toml")
    with pytest.raises(ConfigError, match=re.escape("c.toml: shake.pin: GPIO17 is also the minimal "
                                                    "preset's up key")):
        check_pins(config, "")


def test_the_switch_opens_its_pin_on_the_factory_it_is_given() -> None:
    factory = MockFactory()
    events: queue.Queue[object] = queue.Queue()
    shake = ShakeSwitch(ShakeSettings(PIN), events, factory=factory)
    try:
        factory.pin(PIN).drive_low()
        event = events.get_nowait()
        assert isinstance(event, Intent) and event == Intent("roll") and event.source == SOURCE
    finally:
        shake.close()
