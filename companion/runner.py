"""``companion run``: choose the display and the inputs, wire them to the app and the loop.

This is the only module (with the command line) that knows about devices, the app and the
daemon at once.
"""

from __future__ import annotations

import argparse
import logging
import pathlib
import queue
import sys
import time
from collections.abc import Callable
from contextlib import ExitStack
from functools import partial
from typing import Any

from companion.config import Config, ConfigError
from companion.daemon import Daemon, Stop
from companion.games.base import IllegalLine, shown, whole_number
from companion.io.buttons import EMULATOR_PINS, ButtonBank, KeyLogic, pins_for
from companion.io.display import (
    DisplayError,
    NoDisplay,
    Output,
    TerminalDisplay,
    capture_device,
    luma_opener,
    pygame_device,
)
from companion.io.serial import SerialPort
from companion.io.shake import ShakeSwitch
from companion.io.systemd import watchdog_period
from companion.salvage import open_store
from companion.ui.app import App
from companion.ui.intents import KINDS, Intent

log = logging.getLogger(__name__)


def choose_display(config: Config, args: argparse.Namespace) -> tuple[Callable[[], Any], bool]:
    """How to open the display, and whether the keyboard drives the emulator's buttons."""
    mode = args.emulator
    interactive = sys.stdin.isatty()
    if mode == "capture":
        pathlib.Path(args.capture_dir).mkdir(parents=True, exist_ok=True)
        return partial(capture_device, args.capture_dir), interactive
    if mode == "pygame":
        return pygame_device, interactive
    if mode == "terminal":
        return TerminalDisplay, interactive
    if mode == "none":
        return NoDisplay, False
    flags = args.display or config.display
    if flags:
        try:
            return luma_opener(flags), False
        except DisplayError as err:
            raise ConfigError(config.source, "display.flags", str(err)) from None
    if interactive and sys.stdout.isatty():
        return TerminalDisplay, True
    log.warning("no display configured and no terminal: running headless (no screen attached)")
    return NoDisplay, False


def start_buttons(config: Config, events: queue.Queue[object], emulated: bool) -> ButtonBank | None:
    """Real GPIO buttons, or mock pins that the keyboard presses in the emulator."""
    from gpiozero import Device
    from gpiozero.exc import BadPinFactory
    from gpiozero.pins.mock import MockFactory

    if emulated:
        Device.pin_factory = MockFactory()
        return ButtonBank(EMULATOR_PINS, events)
    encoder = None
    if config.encoder.a is not None and config.encoder.b is not None:
        encoder = (config.encoder.a, config.encoder.b, config.encoder.push)
    try:
        return ButtonBank(pins_for(config.buttons.preset, config.buttons.pins), events, encoder)
    except (BadPinFactory, OSError, RuntimeError) as err:
        log.warning("no GPIO buttons (%s); other inputs still work", err)
        return None


def start_shake(config: Config, events: queue.Queue[object]) -> ShakeSwitch | None:
    """The tilt or vibration switch, when the configuration names its pin."""
    pin = config.shake.pin
    if pin is None:
        return None
    from gpiozero.exc import BadPinFactory, GPIOPinInUse

    try:
        return ShakeSwitch(pin, events, config.shake.settle)
    except GPIOPinInUse:
        raise ConfigError(config.source, "shake.pin", f"GPIO{pin} is already a button's pin") from None
    except (BadPinFactory, OSError, RuntimeError) as err:
        log.warning("no shake switch (%s); the roll choice still works", err)
        return None


def start_ports(config: Config, events: queue.Queue[object], stack: ExitStack) -> dict[str, SerialPort]:
    """A reader thread for each configured serial port; it follows its device in and out."""
    ports: dict[str, SerialPort] = {}
    for number, port in enumerate(config.serial, start=1):
        reader = SerialPort(f"serial {number}", port.path, port.baud, events)
        reader.start()
        stack.callback(reader.close)
        ports[reader.name] = reader
    return ports


def press_pin(role: str) -> bool:
    """Tap the emulator's mock pin for a role; False when the role has no pin.

    Runs on the keyboard thread and sleeps there, so keys typed quickly are tapped one after
    the other instead of landing on a pin that is still held down.
    """
    from gpiozero import Device

    from companion.io.keyboard import TAP

    pin = EMULATOR_PINS.get(role)
    if pin is None:
        return False
    mock = Device.pin_factory.pin(pin)
    mock.drive_low()
    time.sleep(TAP)
    mock.drive_high()
    time.sleep(TAP / 2)
    return True


def scripted(keys: str, events: queue.Queue[object]) -> None:
    """Queue presses written as words (``down select digit:4``), then a stop."""
    for word in keys.split():
        kind, _, value = word.partition(":")
        if kind not in KINDS:
            raise ConfigError("--keys", word, f"not a key; use {', '.join(sorted(KINDS))}")
        events.put(Intent(kind, key_value(word, value)))
    events.put(Stop("end of --keys"))


def key_value(word: str, value: str) -> int:
    """The number after ``digit:`` in ``--keys`` (0 when there is none)."""
    try:
        return whole_number(value, "the digit") if value else 0
    except IllegalLine as err:
        raise ConfigError("--keys", shown(word), str(err)) from None


def log_to_file(path: pathlib.Path) -> None:
    """The terminal is the screen now: send the log to a file so it does not scribble on it."""
    root = logging.getLogger()
    for handler in list(root.handlers):
        root.removeHandler(handler)
    handler = logging.FileHandler(path, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root.addHandler(handler)


def run(config: Config, directory: pathlib.Path, store_file: str, args: argparse.Namespace,
        note: str = "") -> int:
    """Run until stopped; the exit status."""
    events: queue.Queue[object] = queue.Queue()
    opener, keyboard_drives = choose_display(config, args)
    with ExitStack() as stack:
        store, damaged = open_store(store_file)  # waits for a lock; sets a damaged file aside
        stack.callback(store.close)
        app = App(store, config, directory)
        if app.resume_latest():
            log.info("resumed game %s", app.session.gid if app.session else "?")
        note = "; ".join(filter(None, (damaged, note)))
        if note:
            app.toast(note)
        if args.keys is not None:
            scripted(args.keys, events)
        else:
            buttons = start_buttons(config, events, keyboard_drives)
            if buttons is not None:
                stack.callback(buttons.close)
            shake = None if keyboard_drives else start_shake(config, events)
            if shake is not None:
                stack.callback(shake.close)
            if keyboard_drives:
                from companion.io.keyboard import Keyboard

                keyboard = Keyboard(sys.stdin.fileno(), events, press_pin)
                keyboard.start()
                stack.callback(keyboard.close)
                if opener is TerminalDisplay:
                    log_to_file(directory / "companion.log")
                    sys.stdout.write("\x1b[2J")
        output = Output(opener, config.screen.shift)
        stack.callback(output.close)
        keys = KeyLogic(config.buttons.debounce, config.buttons.long_press)
        daemon = Daemon(app, output, events, keys, watchdog=watchdog_period(),
                        ports=start_ports(config, events, stack))
        daemon.run()
    return 0
