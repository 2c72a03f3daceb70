"""The keys, the encoder and the key logic: presses become the right intents, once."""

from __future__ import annotations

import contextlib
import os
import pty
import queue
import threading
from collections.abc import Iterator

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory

from companion.intents import Intent
from companion.io.base import Edge
from companion.io.buttons import PRESETS, ROLES, Keys, KeySettings, pins_for
from companion.io.encoder import Encoder, EncoderSettings
from companion.io.keyboard import Keyboard, Quit
from companion.io.keylogic import KeyLogic
from companion.io.shake import ShakeSettings, ShakeSwitch


@pytest.fixture(autouse=True)
def mock_pins() -> None:
    Device.pin_factory = MockFactory()


def settle(keys: KeyLogic, edges: list[Edge], until: float) -> list[str]:
    """Feed edges in time order, asking for due intents along the way."""
    out: list[str] = []
    for edge in edges:
        out += [i.kind for i in keys.due(edge.at)]
        keys.feed(edge)
    out += [i.kind for i in keys.due(until)]
    return out


def test_a_press_counts_once_it_has_held_for_the_debounce_time() -> None:
    keys = KeyLogic(debounce=0.02, long_press=0.6)
    assert settle(keys, [Edge("down", True, 0.0)], 0.019) == []
    assert [i.kind for i in keys.due(0.021)] == ["down"]


def test_contact_bounce_is_one_press() -> None:
    keys = KeyLogic(debounce=0.02)
    edges = [Edge("up", pressed, t / 1000) for t, pressed in
             ((0, True), (3, False), (5, True), (8, False), (10, True))]
    assert settle(keys, edges + [Edge("up", False, 0.2)], 0.3) == ["up"]


def test_a_glitch_shorter_than_the_debounce_is_ignored() -> None:
    keys = KeyLogic(debounce=0.02)
    assert settle(keys, [Edge("up", True, 0.0), Edge("up", False, 0.005)], 1.0) == []


def test_select_acts_on_release_and_a_long_press_opens_the_menu_only() -> None:
    keys = KeyLogic(debounce=0.02, long_press=0.6)
    assert settle(keys, [Edge("select", True, 0.0), Edge("select", False, 0.2)], 0.3) == ["select"]
    held = settle(keys, [Edge("select", True, 1.0), Edge("select", False, 2.0)], 2.1)
    assert held == ["context"]


def test_the_long_press_fires_while_still_held() -> None:
    keys = KeyLogic(debounce=0.02, long_press=0.6)
    keys.feed(Edge("select", True, 0.0))
    keys.due(0.03)
    assert keys.deadline() == pytest.approx(0.62)
    assert [i.kind for i in keys.due(0.63)] == ["context"]


def test_keys_only_enqueue_edges_for_their_role() -> None:
    events: queue.Queue[object] = queue.Queue()
    bank = Keys(KeySettings("adafruit-bonnet"), events, clock=lambda: 5.0)
    Device.pin_factory.pin(22).drive_low()
    Device.pin_factory.pin(22).drive_high()
    assert events.get_nowait() == Edge("down", True, 5.0)
    assert events.get_nowait() == Edge("down", False, 5.0)
    bank.close()


def test_custom_pins_override_the_preset() -> None:
    pins = pins_for("minimal", {"select": 4, "roll": 26})
    assert pins == {"up": 17, "down": 27, "select": 4, "roll": 26}


def turn(events: queue.Queue[object], steps: tuple[tuple[int, int], ...]) -> list[object]:
    """Drive the encoder's A (pin 5) and B (pin 6) through quadrature steps."""
    a, b = Device.pin_factory.pin(5), Device.pin_factory.pin(6)
    for level_a, level_b in steps:
        a.drive_high() if level_a else a.drive_low()
        b.drive_high() if level_b else b.drive_low()
    out = []
    while not events.empty():
        out.append(events.get_nowait())
    return out


def test_the_encoder_turns_down_clockwise_up_anticlockwise_and_pushes_select() -> None:
    events: queue.Queue[object] = queue.Queue()
    bank = Keys(KeySettings("custom", {"select": 22}), events, clock=lambda: 1.0)
    encoder = Encoder(EncoderSettings(5, 6, 13), events, clock=lambda: 1.0)
    assert turn(events, ((0, 1), (0, 0), (1, 0), (1, 1))) == [Intent("down")]
    assert turn(events, ((1, 0), (0, 0), (0, 1), (1, 1))) == [Intent("up")]
    Device.pin_factory.pin(13).drive_low()
    assert events.get_nowait() == Edge("select", True, 1.0)
    Device.pin_factory.pin(22).drive_low()  # the select button still works beside the push
    assert events.get_nowait() == Edge("select", True, 1.0)
    encoder.close()
    bank.close()


def test_every_preset_names_only_known_roles() -> None:
    for preset, pins in PRESETS.items():
        assert set(pins) <= set(ROLES), preset
        assert preset == "custom" or "select" in pins


def test_the_emulators_keys_bring_their_own_mock_pins_and_leave_gpiozeros_default() -> None:
    from contextlib import ExitStack

    from companion import runner
    from companion.config import Config

    default = Device.pin_factory
    events: queue.Queue[object] = queue.Queue()
    config = Config(inputs={**Config().inputs, "shake": ShakeSettings(12)})
    with ExitStack() as stack:
        chosen = runner.chosen_inputs(config, emulated=True)
        assert [kind for kind, _ in chosen] == [Keys]  # the tilt switch has no key to press
        inputs = runner.start_inputs(chosen, events, True, stack)
        assert inputs is not None
        assert Device.pin_factory is default
        factory = inputs[0].factory
        assert isinstance(factory, MockFactory) and factory is not default
        assert all(device.pin_factory is factory for device in inputs[0].devices)
        assert runner.press_pin(inputs, "select")
        assert [(e.role, e.pressed) for e in (events.get_nowait(), events.get_nowait())] == [
            ("select", True), ("select", False)]
        assert not runner.press_pin(inputs, "undo")  # no key: the keyboard sends it as an intent


def test_an_input_opens_its_pins_on_the_factory_it_is_given() -> None:
    factory = MockFactory()
    keys = Keys(KeySettings("custom", {"select": 22}), queue.Queue(), factory)
    encoder = Encoder(EncoderSettings(5, 6, 13), queue.Queue(), factory)
    try:
        assert [device.pin for device in keys.devices] == [factory.pin(22)]
        assert Device.pin_factory.pin(22) is not factory.pin(22)
        assert all(device.pin_factory is factory for device in encoder.devices)
    finally:
        encoder.close()
        keys.close()


def test_keys_encoder_and_shake_switch_start_no_thread_so_an_idle_box_sleeps() -> None:
    """gpiozero's Button wakes a hold thread ten times a second; our long press is KeyLogic's,
    so every input here must wait on pin edges alone (check_input measures it too)."""
    before = set(threading.enumerate())
    events: queue.Queue[object] = queue.Queue()
    inputs = [Keys(KeySettings("adafruit-bonnet"), events, clock=lambda: 0.0),
              Encoder(EncoderSettings(24, 25, 26), events), ShakeSwitch(ShakeSettings(16), events)]
    try:
        assert set(threading.enumerate()) == before
        Device.pin_factory.pin(4).drive_low()  # and they still report their edges
        assert events.get_nowait() == Edge("select", True, 0.0)
    finally:
        for made in inputs:
            made.close()


@pytest.fixture
def typed() -> Iterator[tuple[int, queue.Queue[object], Keyboard]]:
    """A started emulator keyboard on a pseudo-terminal: (the typing end, its queue, it)."""
    controller, terminal = pty.openpty()
    events: queue.Queue[object] = queue.Queue()
    keyboard = Keyboard(terminal, events, lambda role: False)
    keyboard.start()
    try:
        yield controller, events, keyboard
    finally:
        keyboard.close()
        with contextlib.suppress(OSError):  # a test may have hung the terminal up already
            os.close(controller)
        os.close(terminal)


def test_the_emulator_keyboard_waits_for_keys_and_stops_when_closed(
        typed: tuple[int, queue.Queue[object], Keyboard]) -> None:
    """The reader blocks with no timeout (no polling); closing wakes it at once."""
    controller, events, keyboard = typed
    os.write(controller, b"u")
    assert events.get(timeout=10) == Intent("undo")
    keyboard.close()
    assert not keyboard.thread.is_alive()


def test_the_emulator_keyboard_stops_reading_when_its_terminal_goes(
        typed: tuple[int, queue.Queue[object], Keyboard]) -> None:
    controller, events, keyboard = typed
    os.write(controller, b"q")
    assert isinstance(events.get(timeout=10), Quit)
    os.close(controller)  # hung up: reads fail from now on
    keyboard.thread.join(timeout=10)
    assert not keyboard.thread.is_alive()


def test_only_keys_that_can_be_held_stand_in_for_a_lost_select() -> None:
    """The encoder's turns are intents, not keys: a box left with them alone has no key to
    hold, and says so, rather than offering "hold down" for a key it does not have."""
    from companion.io.keylogic import hold_hint, stand_ins

    events: queue.Queue[object] = queue.Queue()
    turns = Encoder(EncoderSettings(5, 6), events)
    with_push = Encoder(EncoderSettings(12, 16, 13), events)
    try:
        assert turns.keys == set() and with_push.keys == {"select"}
        assert hold_hint(stand_ins(turns.keys)) == "no key left to select with"
    finally:
        turns.close()
        with_push.close()
