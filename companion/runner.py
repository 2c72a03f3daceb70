"""``companion run``: choose the display and the inputs, wire them to the app and the loop.

This is the only module (with the command line) that knows about devices, the app and the
daemon at once.
"""

from __future__ import annotations

import argparse
import logging
import os
import pathlib
import queue
import sqlite3
import sys
import time
from collections.abc import Callable
from contextlib import ExitStack
from functools import partial
from typing import Any, TextIO

from PIL import Image, ImageDraw

from companion.backup import keep_copies
from companion.config import Config, display_words, save_settings, with_settings
from companion.daemon import Daemon, Stop
from companion.exc import ConfigError, DisplayError, StateUnavailable
from companion.games.base import IllegalLine, shown, whole_number
from companion.intents import KINDS, Intent, Kind, Role
from companion.io import INPUTS
from companion.io.base import Input, LostPin, reason
from companion.io.display import NoDisplay, Output, TerminalDisplay, capture_device, luma_opener, pygame_device
from companion.io.keyboard import TAP, Keyboard
from companion.io.keylogic import KeyLogic, hold_hint, stand_ins
from companion.io.pins import check_pins
from companion.io.serial import SerialPort
from companion.io.systemd import watchdog_period
from companion.options import folder
from companion.phone import PhoneView
from companion.salvage import open_store
from companion.smallfile import unfit
from companion.statedir import full_disk, hold, prepare
from companion.store import Store
from companion.ui.app import App
from companion.ui.draw import WIDTH, blank, lines
from companion.ui.widgets import Page

log = logging.getLogger(__name__)


def display_flags(config: Config, args: argparse.Namespace) -> str:
    """The display flags (``--display`` over the file's), checked to split into words
    whatever the emulator: the pin check reads them too."""
    flags = args.display or config.display
    try:
        display_words(flags)
    except DisplayError as err:
        raise flags_error(config, args, err) from None
    return flags


def flags_error(config: Config, args: argparse.Namespace, err: DisplayError) -> ConfigError:
    """Refused display flags, naming where they came from: the command line or the file."""
    if args.display:
        return ConfigError("--display", shown(args.display), str(err))
    return ConfigError(config.source, "display.flags", str(err))


def choose_display(config: Config, args: argparse.Namespace) -> tuple[Callable[[], Any], bool]:
    """How to open the display, and whether the keyboard drives the emulator's buttons."""
    mode = args.emulator
    interactive = sys.stdin.isatty()
    if mode == "capture":
        return partial(capture_device, folder("--capture-dir", args.capture_dir)), interactive
    if mode == "pygame":
        return pygame_device, interactive
    if mode == "terminal":
        return TerminalDisplay, interactive
    if mode == "none":
        return NoDisplay, False
    flags = display_flags(config, args)
    if flags:
        try:
            return luma_opener(flags), False
        except DisplayError as err:
            raise flags_error(config, args, err) from None
    if interactive and sys.stdout.isatty():
        return TerminalDisplay, True
    log.warning("no display configured and no terminal: running headless (no screen attached)")
    return NoDisplay, False


#: An input to open: its class and its settings.
Chosen = tuple[type[Input[Any]], Any]


def chosen_inputs(config: Config, emulated: bool) -> list[Chosen]:
    """Every input the configuration sets up; in the terminal emulator, those its keyboard
    presses instead (on mock pins of their own)."""
    chosen: list[Chosen] = []
    for name, kit in INPUTS.items():
        settings = kit.input.emulated() if emulated else config.inputs.get(name)
        if settings is not None:
            chosen.append((kit.input, settings))
    return chosen


def sources(chosen: list[Chosen]) -> list[str]:
    """What the key test lists: each input's keys and devices, once each."""
    return list(dict.fromkeys(name for kind, settings in chosen for name in kind.sources(settings)))


def start_inputs(chosen: list[Chosen], events: queue.Queue[object], emulated: bool,
                 stack: ExitStack) -> list[Input[Any]] | None:
    """Open the inputs (each closed by ``stack``); in the emulator on one MockFactory of
    their own, which leaves gpiozero's default alone.

    None when no pin factory starts at all (one log line says why); a single pin that
    cannot be opened costs only what it is for (see :func:`report_lost`).
    """
    from gpiozero.pins.mock import MockFactory

    factory = MockFactory() if emulated else None
    if factory is None and not pin_factory_ready():
        return None
    opened: list[Input[Any]] = []
    for kind, settings in chosen:
        made = kind(settings, events, factory)
        stack.callback(made.close)
        opened.append(made)
    return opened


def pin_factory_ready() -> bool:
    """Start gpiozero's pin factory once, so that a missing or refused GPIO driver is one
    line in the log rather than the same error for every pin.

    With ``GPIOZERO_PIN_FACTORY=lgpio`` (the service) gpiozero builds that factory directly:
    no ``PinFactoryFallback`` warning, the error is lgpio's own (``No module named 'lgpio'``,
    ``can not open gpiochip``).
    """
    from gpiozero import Device

    try:
        Device.ensure_pin_factory()
    except Exception as err:
        log.warning("no GPIO buttons: the %s pin factory cannot start (%s: %s); other inputs "
                    "still work", os.environ.get("GPIOZERO_PIN_FACTORY", "default"),
                    type(err).__name__, reason(err))
        return False
    return True


def report_lost(lost: list[LostPin], holds: dict[Role, Kind], app: App) -> None:
    """A page on the screen that names the pins that could not be opened (each input has
    logged its own) and the long presses that stand in for a lost select key."""
    if not lost:
        return
    hint = hold_hint(holds)
    if hint and any(pin.role == "select" for pin in lost):
        log.error("no select key: %s; the other keys work", hint)
    body = [f"{pin.name}, GPIO{pin.pin}: {pin.reason}" for pin in lost]
    body += [f"Hold {key} = {'menu' if kind == 'context' else kind}"
             for key, kind in holds.items() if key != "select"]
    keys = all(pin.role for pin in lost)
    title = ("Key lost" if keys else "Pin lost") if len(lost) == 1 else ("Keys lost" if keys else "Pins lost")
    app.push(Page(title, "\n".join(body)))


def start_ports(config: Config, events: queue.Queue[object], stack: ExitStack) -> dict[str, SerialPort]:
    """A reader thread for each configured serial port; it follows its device in and out."""
    ports: dict[str, SerialPort] = {}
    for number, port in enumerate(config.serial, start=1):
        reader = SerialPort(f"serial {number}", port.path, port.baud, events)
        reader.start()
        stack.callback(reader.close)
        ports[reader.name] = reader
    return ports


def press_pin(inputs: list[Input[Any]], role: Kind) -> bool:
    """Tap the emulator's mock pin for a role; False when the role has no pin.

    Runs on the keyboard thread and sleeps there, so keys typed quickly are tapped one after
    the other instead of landing on a pin that is still held down.
    """
    for made in inputs:
        pin = next((claim.pin for claim in made.claimed() if claim.role == role), None)
        if pin is not None and made.factory is not None:
            mock = made.factory.pin(pin)
            mock.drive_low()
            time.sleep(TAP)
            mock.drive_high()
            time.sleep(TAP / 2)
            return True
    return False


def scripted(keys: str) -> list[object]:
    """Presses written as words (``down select digit:4``), then a stop: read before anything
    is opened, so that a wrong word is one line and exit 2 that wrote nothing."""
    presses: list[object] = []
    for word in keys.split():
        kind, _, value = word.partition(":")
        if kind not in KINDS:
            raise ConfigError("--keys", word, f"not a key; use {', '.join(sorted(KINDS))}")
        presses.append(Intent(kind, key_value(word, value)))
    return [*presses, Stop("end of --keys")]


def key_value(word: str, value: str) -> int:
    """The number after ``digit:`` in ``--keys`` (0 when there is none)."""
    try:
        return whole_number(value, "the digit") if value else 0
    except IllegalLine as err:
        raise ConfigError("--keys", shown(word), str(err)) from None


def log_to_file(path: pathlib.Path) -> None:
    """The terminal is the screen now: send the log to a file so it does not scribble on it."""
    stream = log_stream(path)
    root = logging.getLogger()
    for handler in list(root.handlers):
        root.removeHandler(handler)
    if stream is None:
        root.addHandler(logging.NullHandler())
        return
    to_file = FileLog(stream)
    to_file.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root.addHandler(to_file)


class FileLog(logging.StreamHandler[TextIO]):
    """The log to its file, where a line that cannot be written (a full disk) is dropped
    without a word: logging's own report of it is a traceback on standard error, that is on
    the terminal the screen is drawn on. The box says a full disk where it matters (a press
    "not saved")."""

    def handleError(self, record: logging.LogRecord) -> None:
        pass


def log_stream(path: pathlib.Path) -> TextIO | None:
    """The log file, opened to append; None, said in one line while the terminal still
    shows the log, when something else is at that name (a directory; a FIFO, which would
    block the start; a device) or it cannot be written."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK | os.O_NOCTTY, 0o666)
        problem = unfit(os.fstat(fd), None)
    except OSError as err:
        problem = f"cannot be written: {err.strerror}"
        fd = -1
    if problem:
        if fd >= 0:
            os.close(fd)
        log.warning("no log file: %s %s; the log is off while the terminal shows the screen",
                    path, problem)
        return None
    return os.fdopen(fd, "a", encoding="utf-8")


def fault_frame(message: str) -> Image.Image:
    """A start-up failure on the glass (it stays there after the exit: the device persists)."""
    image = blank()
    draw = ImageDraw.Draw(image)
    lines(draw, (2, 11), message, 11, WIDTH - 4, 5, 12)
    return image


def open_games(output: Output, directory: pathlib.Path, store_file: str,
               stack: ExitStack) -> tuple[Store, str]:
    """The state directory checked and held for this process (one daemon per directory),
    and the store opened; a failure is shown on the screen as well as raised (one line:
    ConfigError exits 2, StateUnavailable exits 1)."""
    try:
        prepare(directory, store_file)
        stack.callback(os.close, hold(directory))
        try:
            # waits for another program's lock (saying so); sets a damaged file aside
            return open_store(store_file, waiting=lambda: output.show(fault_frame(
                "Waiting: another program is using the store")))
        except sqlite3.DatabaseError as err:  # full, failing: may pass, so systemd retries
            raise StateUnavailable(f"{store_file}: cannot open the store: "
                                   f"{full_disk(store_file) or err}") from None
    except (ConfigError, StateUnavailable) as err:
        output.show(fault_frame(f"Cannot start: {err}"))
        raise


def run(config: Config, directory: pathlib.Path, store_file: str, args: argparse.Namespace) -> int:
    """Run until stopped; the exit status.

    The order matters: the configuration is checked before anything is opened; the
    display opens first, so that whatever fails next (the store, a pin) is on the screen.
    """
    events: queue.Queue[object] = queue.Queue()
    script = scripted(args.keys) if args.keys is not None else None
    opener, keyboard_drives = choose_display(config, args)
    check_pins(config, display_flags(config, args))
    with ExitStack() as stack:
        output = Output(opener, config.screen.shift)
        stack.callback(output.close)
        store, damaged = open_games(output, directory, store_file, stack)
        stack.callback(store.close)
        # The players' settings, once the state directory is known to be usable: the
        # daemon applies their shift to the output at its first frame.
        config, settings_note = with_settings(config, directory)
        if settings_note:
            log.warning(settings_note)
        # runs before the close: a last copy; after salvage, a whole copy of the new store first
        stack.callback(keep_copies(store, rebase=bool(damaged)).stop)
        phone = PhoneView(config.phone, directory, store_file)
        emulated = keyboard_drives and args.keys is None
        chosen = chosen_inputs(config, emulated)
        # The screens ask; the wiring writes the settings file and knows the inputs.
        app = App(store, config, phone=phone, save=partial(save_settings, state_dir=directory),
                  inputs=sources(chosen))
        if app.resume_latest():
            log.info("resumed game %s", app.session.gid if app.session else "?")
        note = "; ".join(filter(None, (damaged, settings_note)))
        if note:
            app.toast(note)
        keys = KeyLogic(config.keys.debounce, config.keys.long_press)
        if script is not None:
            for event in script:
                events.put(event)
        else:
            inputs = start_inputs(chosen, events, emulated, stack)
            if inputs is None:
                app.toast("No buttons: GPIO failed")
            else:
                roles = set().union(*(made.keys for made in inputs))
                keys.holds = stand_ins(roles)
                app.arrows = {"left", "right"} <= roles  # numbers two at a time where both are keys
                report_lost([pin for made in inputs for pin in made.lost], keys.holds, app)
            if keyboard_drives:
                keyboard = Keyboard(sys.stdin.fileno(), events, partial(press_pin, inputs or []))
                keyboard.start()
                stack.callback(keyboard.close)
                if opener is TerminalDisplay:
                    log_to_file(directory / "companion.log")
                    sys.stdout.write("\x1b[2J")
        phone.start()  # serves only if the view is on; nothing of it is loaded otherwise
        stack.callback(phone.stop)
        daemon = Daemon(app, output, events, keys, watchdog=watchdog_period(),
                        ports=start_ports(config, events, stack), phone=phone)
        daemon.run()
    return 0
