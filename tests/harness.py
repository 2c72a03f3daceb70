"""Drive the real daemon loop with gpiozero mock pins and read the screen from luma's dummy.

The clock is fake so debounce, long presses, dimming and blanking are exact and instant.
``shows(text)`` looks for the text, drawn in our font, anywhere on the last frame: tests
assert on what a player would see, not on internals.

The helpers that several test modules share live here too (test modules import from here,
never from each other): a stand-in host for screens, the ``companion`` command and a
pseudo-terminal serial device, and a companion with its phone view on.
"""

from __future__ import annotations

import http.client
import json
import os
import pathlib
import pty
import queue
import random
import select
import socket
import sys
import time
from functools import cache, partial
from tty import setraw as termios_raw
from typing import Any

from gpiozero import Device
from gpiozero.pins.mock import MockFactory
from luma.core.device import dummy
from PIL import Image, ImageDraw

from companion.clock import SYSTEM, Clock
from companion.config import Config, PhoneConfig, save_settings
from companion.daemon import Daemon
from companion.games.base import Line
from companion.intents import Intent
from companion.io.buttons import PRESETS, Keys, KeySettings
from companion.io.display import Output
from companion.io.keylogic import KeyLogic
from companion.phone import PhoneView
from companion.record import replay_text
from companion.session import Session
from companion.store import Store, checksum
from companion.ui.app import App
from companion.ui.draw import font, recording, text


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


@cache
def struck_glyph(words: str, size: int) -> Image.Image:
    """``words`` as the screens draw an answer the rules refuse now: struck through."""
    canvas = Image.new("1", (256, 32), 0)
    text(ImageDraw.Draw(canvas), (2, 24), words, size, width=256, struck=True)
    box = canvas.getbbox()
    assert box is not None
    return canvas.crop(box)


def frame_shows(frame: Image.Image, words: str, size: int = 12, struck: bool = False) -> bool:
    """Whether ``words`` (at ``size`` px, either colour; or white and ``struck`` through) is
    drawn anywhere on ``frame``."""
    for glyph in (struck_glyph(words, size),) if struck else glyphs(words, size):
        raw = glyph.tobytes()
        width, height = glyph.size
        for y in range(64 - height + 1):
            for x in range(128 - width + 1):
                if frame.crop((x, y, x + width, y + height)).tobytes() == raw:
                    return True
    return False


class Harness:
    """One companion: store on disk, minimal-build (or other) buttons, dummy display."""

    def __init__(self, directory: pathlib.Path, preset: str = "minimal", seed: int = 7,
                 store_file: str = "games.sqlite", clock: Clock = SYSTEM, config: Config | None = None) -> None:
        Device.pin_factory = MockFactory()
        self.now = 1000.0
        self.events: queue.Queue[object] = queue.Queue()
        self.pins = PRESETS[preset]
        self.bank = Keys(KeySettings(preset), self.events, clock=lambda: self.now)
        self.serial = CommandLog()
        self.device = dummy(width=128, height=64, mode="1", serial_interface=self.serial)
        self.store = Store(str(directory / store_file), clock=clock)
        # Wired as `companion run` wires it: settings kept in the directory, the preset's keys.
        self.app = App(self.store, config or Config(), rng=random.Random(seed), inputs=list(self.pins),
                       save=partial(save_settings, state_dir=directory))
        self.app.arrows = {"left", "right"} <= set(self.pins)
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

    def shows(self, words: str, size: int = 12, struck: bool = False) -> bool:
        """Whether ``words`` (at ``size`` px, either colour; or ``struck`` through, as an
        answer the rules refuse now) is drawn on the screen."""
        if frame_shows(self.screen, words, size, struck):
            return True
        print("not shown:", words, size, "struck" if struck else "", "; shown:", self.texts())
        return False

    def texts(self) -> list[tuple[str, int]]:
        """The strings the top screen draws now, with their heights (for a failing test's
        message: what the screen said instead)."""
        with recording() as drawn:
            self.app.frame()
        return [(d.words, d.box[3] - d.box[1]) for d in drawn]

    def says(self, words: str) -> bool:
        """Whether any string the top screen draws contains ``words`` (whatever its size)."""
        return any(words in drawn for drawn, _ in self.texts())

    def save(self, path: pathlib.Path) -> None:
        self.screen.save(path)


# --- screens on their own ---


class Host:
    """A screen's host that only counts pops (screens tested on their own)."""

    def __init__(self) -> None:
        self.popped = 0

    def push(self, screen: object) -> None:
        pass

    def pop(self) -> None:
        self.popped += 1

    def toast(self, message: str) -> None:
        pass


# --- the companion as a process, and serial devices on pseudo-terminals ---

COMPANION = [sys.executable, "-m", "companion"]
ENV = {**os.environ, "GPIOZERO_PIN_FACTORY": "mock", "PYGAME_HIDE_SUPPORT_PROMPT": "1"}
PATIENCE = 20.0  # seconds before a test gives up waiting for a thread: a failure, not a timing


class Tty:
    """A pseudo-terminal standing in for a USB device. The test holds the device's end (the
    master); the companion opens the tty through ``link``, as udev's by-id links point to
    whichever ttyACM the device got this time.

    The test also keeps the tty's own end open, in raw mode: until the companion opens it,
    the terminal must not echo what the device sends, and reading the master must not fail
    for want of anyone at the other end.
    """

    def __init__(self, link: pathlib.Path) -> None:
        self.link = link
        self.master = self.held = -1
        self.heard = b""

    def plug(self) -> None:
        self.master, self.held = pty.openpty()
        termios_raw(self.held)
        fresh = self.link.with_name(self.link.name + ".new")
        fresh.symlink_to(os.ttyname(self.held))
        os.replace(fresh, self.link)

    def unplug(self) -> None:
        """Both ends closed: the tty is gone, and its link with it."""
        os.close(self.master)
        os.close(self.held)
        self.master = self.held = -1
        self.link.unlink()

    def send(self, data: bytes) -> None:
        os.write(self.master, data)

    def answer(self, seconds: float = PATIENCE) -> str:
        """The next answer line the companion wrote ("" if none came in ``seconds``)."""
        end = time.monotonic() + seconds
        while b"\r\n" not in self.heard:
            left = end - time.monotonic()
            if left <= 0:
                assert seconds < PATIENCE, f"no answer; heard {self.heard!r}"
                return ""
            if select.select([self.master], [], [], left)[0]:
                self.heard += os.read(self.master, 4096)
        line, self.heard = self.heard.split(b"\r\n", 1)
        return line.decode("utf-8")

    def until_answered(self) -> None:
        """Say ``help`` until the companion answers: pyserial drops what arrived before it
        opened the port, as a real device's early bytes are lost."""
        end = time.monotonic() + PATIENCE
        while time.monotonic() < end:
            self.send(b"help\n")
            if self.answer(0.5):
                return
        raise AssertionError("the companion never opened the port")

# --- the phone view ---

BENCH = pathlib.Path(__file__).parent.parent / "companion" / "benchdata"
RECORDS = {
    "microbot-racers": "microbot-lap-win.record",
    "leaf-climbers": "leaf-climbers.record",
    "penguin-panic": "penguin-panic.record",
    "gleebs-and-grues": "gleebs-and-grues.record",
    "quick-lemmings": "quick-lemmings.record",
}


def half_game(game: str) -> str:
    """The first half of the benchmark session's game: a point in the middle of play."""
    lines = (BENCH / RECORDS[game]).read_text().splitlines()
    return "\n".join(lines[: len(lines) // 2]) + "\n"


def store_game(store: Store, text: str) -> int:
    """Play a record through a session, one entry a line; the game's id."""
    replayed = replay_text(text)
    session = Session.new(store, replayed.header)
    for line in replayed.actions:
        session.play([line])
    return session.gid


class Box:
    """A companion with its phone view on, listening on a free loopback port."""

    def __init__(self, directory: pathlib.Path) -> None:
        self.harness = Harness(directory)
        self.store_path = str(directory / "games.sqlite")
        self.phone = PhoneView(PhoneConfig(True, "127.0.0.1", 0), directory, self.store_path)
        self.phone.start()
        assert self.phone.server is not None
        self.harness.app.phone = self.phone
        self.harness.daemon.phone = self.phone
        self.harness.daemon.refresh()

    @property
    def port(self) -> int:
        assert self.phone.server is not None
        return self.phone.server.port

    def get(self, path: str, method: str = "GET", headers: dict[str, str] | None = None,
            body: bytes | None = None, timeout: float = 10) -> tuple[int, bytes]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            conn.request(method, path, body=body, headers=headers or {})
            answer = conn.getresponse()
            return answer.status, answer.read()
        finally:
            conn.close()

    def page(self, rest: str = "") -> str:
        return f"/{self.phone.token}/{rest}"

    def open_game(self, game: str) -> int:
        gid = store_game(self.harness.store, half_game(game))
        assert self.harness.app.open(gid)
        self.harness.daemon.refresh()
        return gid

    def close(self) -> None:
        self.phone.stop()
        self.harness.close()


class PageStream:
    """A live page's event stream, read as a browser's EventSource would. ``last_id``: the
    Last-Event-ID a browser sends when it reconnects; ``query``: added to the address."""

    def __init__(self, box: Box, last_id: str = "", query: str = "", timeout: float = 5) -> None:
        self.sock = socket.create_connection(("127.0.0.1", box.port), timeout=timeout)
        extra = f"Last-Event-ID: {last_id}\r\n" if last_id else ""
        self.sock.sendall(f"GET {box.page('events')}{query} HTTP/1.1\r\nHost: box\r\n{extra}\r\n".encode())
        self.buffer = b""
        self.last_id = last_id
        head = self._until(b"\r\n\r\n")
        self.status = int(head.split()[1])
        self.chunked = b"chunked" in head.lower()

    def _until(self, mark: bytes) -> bytes:
        while mark not in self.buffer:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError("the server closed the stream")
            self.buffer += chunk
        got, self.buffer = self.buffer.split(mark, 1)
        return got

    def event(self) -> tuple[str, Any]:
        """The next event that is not a comment: (name, data); keeps the last id, as a
        browser does."""
        while True:
            block = self._until(b"\n\n")
            lines = [line for line in block.decode().splitlines()
                     if not line.startswith(":") and not line.startswith("retry:")
                     and not all(c in "0123456789abcdefABCDEF" for c in line)]  # chunk sizes
            name = next((line[6:].strip() for line in lines if line.startswith("event:")), "message")
            self.last_id = next((line[3:].strip() for line in lines if line.startswith("id:")), self.last_id)
            data = "".join(line[5:].strip() for line in lines if line.startswith("data:"))
            if data:
                return name, json.loads(data)

    def next(self, name: str) -> Any:
        """The data of the next event called ``name`` (others before it are passed over)."""
        while True:
            got, data = self.event()
            if got == name:
                return data

    def close(self) -> None:
        self.sock.close()


def long_game(store: Store, lines: int, rolled: bool = True) -> int:
    """A Microbot race ``lines`` entries long, stored as playing it would leave it (its
    checkpoints, and each roll in the dice audit as the device's when ``rolled``), but
    written in one go: the game's id."""
    from companion import checkpoint
    from companion.bench import long_race

    header, race = long_race(lines)
    gid = store.create(header.game.id, header.lines())
    rolls = [seq for seq, line in enumerate(race, start=1) if rolled and line.verb == "roll"]
    with store._write() as db:
        rows = [(gid, seq, str(line), int(seq in rolls), None) for seq, line in enumerate(race, start=1)]
        db.executemany("INSERT INTO entries (game, seq, lines, rolled, source, crc) VALUES (?, ?, ?, ?, ?, ?)",
                       [(*row, checksum(row)) for row in rows])
        db.executemany("INSERT INTO rolls (game, n, seq, lines) VALUES (?, ?, ?, ?)",
                       [(gid, n, seq, str(race[seq - 1])) for n, seq in enumerate(rolls, start=1)])
        db.execute("UPDATE games SET head = ? WHERE id = ?", (len(race), gid))
        store._seal(db, gid)  # the row summed as it now is, as every change to it does
        game, state = header.game, header.start()
        for seq, line in enumerate(race, start=1):
            state = game.apply(state, line)
            if seq % checkpoint.EVERY == 0:
                store._keep_checkpoint(db, gid, seq, checkpoint.engine_tag(game), checkpoint.encode(state))
    return gid


def next_line(session: Session) -> Line:
    """A legal next entry: the first answer the prompt offers (a roll of ones for dice)."""
    from companion.games.base import Choice, Roll

    ask = session.prompt()
    assert ask is not None, "the game is over"
    answer = ask.answers[0]
    if isinstance(answer, Roll):
        return answer.line(tuple(1 for _ in answer.sides))
    assert isinstance(answer, Choice)
    return answer.line


def service_keys() -> dict[str, list[str]]:
    """The [Service] section's settings, every value of a repeated key kept in order."""
    keys: dict[str, list[str]] = {}
    section = ""
    for raw in (pathlib.Path(__file__).parent.parent / "systemd" / "companion.service").read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):
            section = line
            continue
        if section == "[Service]":
            key, _, value = line.partition("=")
            keys.setdefault(key, []).append(value)
    return keys
