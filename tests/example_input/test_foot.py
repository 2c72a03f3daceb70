"""The example input proves the contract a new input signs: its table read and checked, its
pin in the pin checks of `companion run` and `companion doctor`, check_input on mock pins,
and a pedal pressed on the box through the real loop (docs/adding-an-input.md)."""

from __future__ import annotations

import pathlib
import re

import pytest
from gpiozero import Device

from companion import runner
from companion.config import parse
from companion.exc import ConfigError
from companion.io import INPUTS
from companion.io.pins import check_pins
from companion.io.testing import check_input, example
from tests.doctor_pi import BONNET, FakePi
from tests.example_input.foot import FootSettings, FootSwitch
from tests.harness import Harness

PIN = 12  # free on every build (hardware/README.md)


def test_the_registration_line_gives_the_table_its_input() -> None:
    assert INPUTS["foot"].input is FootSwitch


def test_its_table_is_read_and_checked_with_the_rest_of_the_file() -> None:
    assert parse({}, "c.toml").inputs["foot"] is None  # no [foot]: nothing opened
    assert parse({"foot": {"pin": PIN}}, "c.toml").inputs["foot"] == FootSettings(PIN, "roll")
    assert parse({"foot": {"pin": PIN, "role": "select"}}, "c.toml").inputs["foot"].role == "select"
    with pytest.raises(ConfigError, match=re.escape("c.toml: foot.role: must be one of up, down")):
        parse({"foot": {"pin": PIN, "role": "dance"}}, "c.toml")
    with pytest.raises(ConfigError, match=re.escape("c.toml: foot.pin: must be a BCM pin number 0-27")):
        parse({"foot": {"pin": 40}}, "c.toml")


def test_it_passes_check_input() -> None:
    check_input(example("foot"))


def test_its_pin_is_checked_by_run_and_by_doctor_in_the_same_words(tmp_path: pathlib.Path) -> None:
    config = parse({"buttons": {"preset": "adafruit-bonnet"}, "foot": {"pin": 17}}, "companion.toml")
    with pytest.raises(ConfigError) as refused:
        check_pins(config, config.display)
    assert str(refused.value) == ("companion.toml: foot.pin: GPIO17 is also the adafruit-bonnet "
                                  "preset's up key")
    pi = FakePi(tmp_path, BONNET + "[foot]\npin = 17\n")
    assert ("fail  keys      GPIO17 (foot switch) is also the adafruit-bonnet preset's up key; fix: "
            "give each its own GPIO: change foot.pin (or buttons.preset)") in pi.report().splitlines()


def test_the_pedal_rolls_the_dice_the_prompt_asks_for(tmp_path: pathlib.Path) -> None:
    config = parse({"foot": {"pin": PIN}}, "companion.toml")
    assert (FootSwitch, FootSettings(PIN)) in runner.chosen_inputs(config, emulated=False)
    h = Harness(tmp_path)
    foot = FootSwitch(config.inputs["foot"], h.events, clock=lambda: h.now)
    try:
        h.presses("select", "select", "select", "select", "select")  # a Microbot race
        assert h.shows("Who is P1 this turn?", 11)
        pedal = Device.pin_factory.pin(PIN)
        pedal.drive_low()
        h.wait(0.1)
        pedal.drive_high()
        h.wait(0.1)
        session = h.app.session
        assert session is not None and session.head == 1
        entry = session.store.entry(session.gid, 1)
        assert entry is not None and entry.lines[-1].startswith("table roll ")
    finally:
        foot.close()
        h.close()


def test_the_key_test_lists_its_key_and_names_the_pedal(tmp_path: pathlib.Path) -> None:
    config = parse({"foot": {"pin": PIN}}, "companion.toml")
    h = Harness(tmp_path)
    h.app.inputs = tuple(runner.sources(runner.chosen_inputs(config, emulated=False)))
    foot = FootSwitch(config.inputs["foot"], h.events, clock=lambda: h.now)
    try:
        assert h.app.inputs == ("up", "down", "select", "roll")
        h.app.home.hardware_test()  # Settings > Test keys & screen
        h.press("select")  # Keys
        assert h.shows("4 to try: up down select", 10)  # the line ends where the glass does
        pedal = Device.pin_factory.pin(PIN)
        pedal.drive_low()
        h.wait(0.1)
        pedal.drive_high()
        h.pump()
        assert h.shows("roll", 12)
        assert h.shows("foot switch GPIO12", 10)
        assert h.shows("3 to try: up down select", 10)
    finally:
        foot.close()
        h.close()
