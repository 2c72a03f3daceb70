"""The terminal emulator's keyboard: keys press the same gpiozero input devices as on the Pi.

Arrow keys, Enter, Esc and the context key drive MockFactory pins (so the emulator runs the
real input device, debounce and long-press path); undo, redo and digits have no button on most
builds and go straight to the queue as intents. Terminals send no key release, so a key
press is a short press: the pin goes low, then high again after :data:`TAP` seconds.
"""

from __future__ import annotations

import contextlib
import os
import queue
import select
import termios
import threading
import tty
from collections.abc import Callable

from companion.intents import Intent, Kind

TAP = 0.08  # long enough to pass the debounce filter, short of a long press
ESCAPE_WAIT = 0.05  # an Esc alone versus the start of an arrow key's sequence

KEYS: dict[bytes, Kind] = {
    b"\x1b[A": "up", b"\x1b[B": "down", b"\x1b[C": "right", b"\x1b[D": "left",
    b"\x1bOA": "up", b"\x1bOB": "down", b"\x1bOC": "right", b"\x1bOD": "left",
    b"\r": "select", b"\n": "select", b" ": "select",
    b"\x1b": "back", b"\x7f": "back", b"\x08": "back",
    b"m": "context", b"\t": "context", b"r": "roll",
    b"u": "undo", b"y": "redo",
}
QUIT = frozenset({b"q", b"\x03", b"\x04"})


class Quit:
    """Put on the queue when the person at the keyboard asks to stop."""


class Keyboard:
    """Reads keys from a terminal in a thread of its own; it only enqueues or presses pins.

    The thread sleeps in ``select`` until a key comes or :meth:`close` writes to a pipe of
    its own (the self-pipe trick), so an idle emulator wakes for nothing.
    """

    def __init__(self, fd: int, events: queue.Queue[object],
                 press: Callable[[Kind], bool]) -> None:
        self.fd = fd
        self.events = events
        self.press = press
        self._saved = termios.tcgetattr(fd)
        self._stop = threading.Event()
        self._wake_read, self._wake_write = os.pipe()
        self.thread = threading.Thread(target=self._run, name="keyboard", daemon=True)

    def start(self) -> None:
        tty.setcbreak(self.fd)
        self.thread.start()

    def close(self) -> None:
        if self._stop.is_set():  # closed already
            return
        self._stop.set()
        os.write(self._wake_write, b"\0")
        if self.thread.is_alive():
            self.thread.join(timeout=1.0)  # it may be tapping a pin (press_pin sleeps briefly)
        with contextlib.suppress(termios.error):  # a terminal that has gone needs no restoring
            termios.tcsetattr(self.fd, termios.TCSADRAIN, self._saved)
        if not self.thread.is_alive():  # a thread stuck elsewhere keeps its pipe
            os.close(self._wake_read)
            os.close(self._wake_write)

    def _run(self) -> None:
        while not self._stop.is_set():
            key = self._read_key()
            if key is None:
                continue
            if not key:  # the terminal is gone: stop, rather than spin on a readable end
                return
            self.handle(key)

    def handle(self, key: bytes) -> None:
        """One key: a button press, an intent, or quitting."""
        if key in QUIT:
            self.events.put(Quit())
        elif key.isdigit():
            self.events.put(Intent("digit", int(key)))
        elif key in KEYS and not self.press(KEYS[key]):
            self.events.put(Intent(KEYS[key]))

    def _read_key(self) -> bytes | None:
        """The next key; None when woken to stop, b"" when the terminal has gone."""
        ready, _, _ = select.select([self.fd, self._wake_read], [], [])
        if self._wake_read in ready:
            return None
        try:
            key = os.read(self.fd, 1)
        except OSError:  # a hung-up pty reads as EIO
            return b""
        if key == b"\x1b":
            while select.select([self.fd], [], [], ESCAPE_WAIT)[0]:
                key += os.read(self.fd, 1)
                if len(key) >= 3:
                    break
        return key
