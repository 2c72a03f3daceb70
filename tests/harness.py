"""Drive the real daemon loop with gpiozero mock pins and read the screen from luma's dummy.

The clock is fake so debounce, long presses, dimming and blanking are exact and instant.
``shows(text)`` looks for the text, drawn in our font, anywhere on the last frame: tests
assert on what a player would see, not on internals.
"""

from __future__ import annotations

import pathlib
import queue
import random
from functools import cache

from gpiozero import Device
from gpiozero.pins.mock import MockFactory
from luma.core.device import dummy
from PIL import Image, ImageDraw

from companion.config import Config
from companion.daemon import Daemon
from companion.io.buttons import PRESETS, ButtonBank, KeyLogic
from companion.io.display import Output
from companion.store import Store
from companion.ui.app import App
from companion.ui.draw import font, recording
from companion.ui.intents import Intent


class CommandLog:
    """A luma serial interface that keeps the command bytes it is sent."""

    def __init__(self) -> None:
        self.commands: list[tuple[int, ...]] = []

    def command(self, *cmd: int) -> None:
        self.commands.append(cmd)

    def data(self, data: list[int]) -> None:
        pass

    def cleanup(self) -> None:
        pass


@cache
def glyphs(words: str, size: int) -> tuple[Image.Image, Image.Image]:
    """``words`` rendered white-on-black and black-on-white, cropped tight."""
    white = Image.new("1", (256, 32), 0)
    ImageDraw.Draw(white).text((2, 2), words, font=font(size), fill=1)
    black = Image.new("1", (256, 32), 1)
    ImageDraw.Draw(black).text((2, 2), words, font=font(size), fill=0)
    box = white.getbbox()
    assert box is not None
    return white.crop(box), black.crop(box)


class Harness:
    """One companion: store on disk, minimal-build (or other) buttons, dummy display."""

    def __init__(self, directory: pathlib.Path, preset: str = "minimal", seed: int = 7,
                 store_file: str = "games.sqlite") -> None:
        Device.pin_factory = MockFactory()
        self.now = 1000.0
        self.events: queue.Queue[object] = queue.Queue()
        self.pins = PRESETS[preset]
        self.bank = ButtonBank(self.pins, self.events, clock=lambda: self.now)
        self.serial = CommandLog()
        self.device = dummy(width=128, height=64, mode="1", serial_interface=self.serial)
        self.store = Store(str(directory / store_file))
        self.app = App(self.store, Config(), directory, rng=random.Random(seed))
        self.output = Output(lambda: self.device, shift=False, clock=lambda: self.now)
        self.daemon = Daemon(self.app, self.output, self.events, KeyLogic(0.02, 0.6),
                             clock=lambda: self.now)
        self.daemon.refresh()

    def close(self) -> None:
        self.bank.close()
        self.store.close()

    # --- time and events ---

    def pump(self) -> None:
        """Hand every queued event, then any timeout that is due, to the loop."""
        while True:
            try:
                self.daemon.step(self.events.get_nowait())
            except queue.Empty:
                break
        deadline = self.daemon.deadline()
        if deadline is not None and deadline <= self.now:
            self.daemon.step(None)

    def wait(self, seconds: float, step: float = 0.01) -> None:
        """Let time pass, waking the loop whenever it asked to be woken."""
        end = self.now + seconds
        while self.now < end:
            deadline = self.daemon.deadline()
            self.now = min(end, deadline if deadline is not None and deadline > self.now else end)
            self.pump()
            if deadline is None or deadline > end:
                self.now = end
        self.pump()

    def press(self, role: str, hold: float = 0.08, bounce: bool = False) -> None:
        """Press and release a button, optionally with contact bounce at both edges."""
        pin = Device.pin_factory.pin(self.pins[role])
        if bounce:
            for _ in range(3):
                pin.drive_low()
                self.pump()
                self.now += 0.002
                pin.drive_high()
                self.pump()
                self.now += 0.002
        pin.drive_low()
        self.pump()
        self.wait(hold)
        pin.drive_high()
        self.pump()
        self.wait(0.05)

    def presses(self, *roles: str) -> None:
        for role in roles:
            self.press(role)

    def intent(self, kind: str, value: int = 0) -> None:
        """An intent with no button (a typed digit, as the keyboard or a reader sends it)."""
        self.events.put(Intent(kind, value))
        self.pump()

    def long_press(self, role: str = "select") -> None:
        self.press(role, hold=0.8)

    # --- what the player sees ---

    @property
    def screen(self) -> Image.Image:
        assert self.device.image is not None
        return self.device.image.convert("1")

    def shows(self, words: str, size: int = 12) -> bool:
        """Whether ``words`` (at ``size`` px, either colour) is drawn on the screen."""
        frame = self.screen
        for glyph in glyphs(words, size):
            raw = glyph.tobytes()
            width, height = glyph.size
            for y in range(0, 64 - height + 1):
                for x in range(0, 128 - width + 1):
                    if frame.crop((x, y, x + width, y + height)).tobytes() == raw:
                        return True
        print("not shown:", words, size, "; shown:", self.texts())
        return False

    def texts(self) -> list[tuple[str, int]]:
        """The strings the top screen draws now, with their heights (for a failing test's
        message: what the screen said instead)."""
        with recording() as drawn:
            self.app.frame()
        return [(d.words, d.box[3] - d.box[1]) for d in drawn]

    def save(self, path: pathlib.Path) -> None:
        self.screen.save(path)
