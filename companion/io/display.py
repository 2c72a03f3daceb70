"""Displays: a luma device from luma.core.cmdline flags, our terminal emulator, or none.

:class:`Output` sits in front of any of them: it skips frames that did not change, shifts
the picture a pixel or two over time (burn-in) and dims or blanks the panel.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import io
import logging
import os
import shutil
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Literal, NoReturn, Protocol, TextIO

from PIL import Image

from companion.config import display_words
from companion.exc import DisplayError

log = logging.getLogger(__name__)

BRIGHT, DIM = 0xCF, 0x08
#: How the panel shows: in full, dimmed after a while idle, or blank (hidden) after longer.
Level = Literal["bright", "dim", "blank"]
RETRY_FIRST, RETRY_LONGEST = 1.0, 30.0  # seconds between attempts to reopen a lost display
#: Burn-in care: the picture moves through these offsets, one step per period. Up and left,
#: so that what leaves the glass is the first row and column, which no screen writes in
#: (companion.ui.draw.GLASS); moved down or right, the last row's descenders went.
SHIFTS = ((0, 0), (-1, 0), (-1, -1), (0, -1))


class Device(Protocol):
    """The part of luma's device contract that we use."""

    mode: str

    def display(self, image: Image.Image) -> None: ...
    def contrast(self, level: int) -> None: ...
    def hide(self) -> None: ...
    def show(self) -> None: ...
    def cleanup(self) -> None: ...


def luma_opener(flags: str) -> Callable[[], Any]:
    """Check ``--display ... --interface ...`` flags with luma's own parser now; the returned
    function opens the device (and may be called again after the panel went away).

    SSD1306 and SH1106 panels get the changed-pages path of :mod:`companion.io.pages`.
    """
    args = luma_flags(flags)

    def open_device() -> Any:
        device = create_device(args)
        # Keep the last picture on the glass when the device is closed (luma's cleanup
        # would otherwise clear it).
        device.persist = True
        return device

    return open_device


def luma_flags(flags: str) -> argparse.Namespace:
    """The display flags as luma's own parser reads them (``luma.core.cmdline``, as
    ``create_device`` takes them), or :class:`DisplayError` in one line."""
    from luma.core import cmdline  # luma.core is heavy; only a real display needs it

    args = parse_flags(cmdline.create_parser(description="companion display"), flags)
    if display_kind(args.display) is None:
        raise DisplayError(f"luma knows no display {args.display!r}")
    return args


def display_kind(display: str) -> str | None:
    """Which of luma's families a display belongs to (``oled``; ``emulator`` for luma's
    emulators; ``core`` for the Linux frame buffer); None for one luma does not know."""
    from luma.core import cmdline

    return next((kind for kind, names in cmdline.get_display_types().items() if display in names), None)


def create_device(args: Any) -> Any:
    """``luma.core.cmdline.create_device``, leaving nothing behind when the panel does not
    answer, however often that is retried.

    luma's device ``__init__`` registers an atexit hook and then talks to the panel; when
    the handshake fails, the hook stays registered and the serial interface (an smbus2 bus:
    a file descriptor) stays open, since only ``cleanup()`` closes it. For luma.oled panels
    (every panel the builds use) the interface is therefore made here, one step apart from
    the device, so it can be closed on failure. luma's atexit hooks are never kept: the
    companion closes its display itself (:meth:`Output.close`), and a display lost and
    reopened for hours must not add a hook each time.
    """
    from luma.core import cmdline

    with luma_hooks_dropped():
        if args.display not in cmdline.get_display_types().get("oled", []):
            return cmdline.create_device(args)
        import luma.core.framebuffer
        import luma.oled.device

        from companion.io.pages import paged_class

        interface = getattr(cmdline.make_interface(args), args.interface)()
        try:
            framebuffer = getattr(luma.core.framebuffer, args.framebuffer)(
                num_segments=args.num_segments, debug=args.debug)
            # Our changed-pages class for a 128x64 SSD1306 or SH1106; luma's own otherwise.
            kind = paged_class(args) or getattr(luma.oled.device, args.display)
            return kind(serial_interface=interface, **dict(vars(args), framebuffer=framebuffer))
        except BaseException:
            interface.cleanup()
            raise


@contextmanager
def luma_hooks_dropped() -> Iterator[None]:
    """Keep luma from registering atexit hooks inside the block.

    Registering and then unregistering would not do: CPython's atexit leaves a slot behind
    for every unregistered hook. Runs on the main thread only, which alone opens displays.
    """
    register = atexit.register

    def ignored(func: Callable[..., Any], *args: Any, **kwargs: Any) -> Callable[..., Any]:
        return func

    atexit.register = ignored  # type: ignore[assignment]  # the same call, not registered
    try:
        yield
    finally:
        atexit.register = register


def parse_flags(parser: argparse.ArgumentParser, flags: str) -> argparse.Namespace:
    """luma's flags parsed, or :class:`DisplayError` with argparse's one-line reason.

    argparse would print luma's 20-odd lines of usage and exit; a configuration fault must be
    one line. Its ``error`` is replaced to raise instead, and anything else it prints (a
    ``--help`` among the flags) is kept off the terminal.
    """
    def refuse(message: str) -> NoReturn:
        raise DisplayError(f"luma refused the display flags: {message}")

    parser.error = refuse  # type: ignore[method-assign]
    words = display_words(flags)
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            return parser.parse_args(words)
    except SystemExit:
        raise DisplayError(f"luma refused the display flags {flags!r}") from None


def quiet_pygame() -> None:
    """pygame greets on import ("Hello from the pygame community"); not in our output."""
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")


def capture_device(directory: str) -> CaptureDisplay:
    """The capture mode's device: one PNG per frame, twice the size."""
    return CaptureDisplay(f"{directory}/frame_{{0:05}}.png")


class CaptureDisplay:
    """Each frame as a numbered PNG, scaled up, the way luma.emulator's capture device writes
    it (``transform="identity"``: each pixel a square; dimmed frames darker; a new file when
    the contrast changes), but through PIL. luma.emulator scales and saves with pygame,
    whose import (and pkg_resources with it) made capture mode 20 MB larger than the daemon
    and half a second slower to start; PIL is loaded anyway.
    """

    mode = "1"

    def __init__(self, template: str, scale: int = 2) -> None:
        self.template = template
        self.scale = scale
        self.saved = 0
        self.brightness = 1.0
        self.last: Image.Image | None = None

    def display(self, image: Image.Image) -> None:
        self.last = image
        self.saved += 1
        frame = image.convert("RGB")
        if self.brightness < 1.0:
            frame = Image.blend(Image.new("RGB", frame.size), frame, self.brightness)
        size = (frame.width * self.scale, frame.height * self.scale)
        frame.resize(size, Image.Resampling.NEAREST).save(self.template.format(self.saved))

    def contrast(self, level: int) -> None:
        self.brightness = level / 255
        if self.last is not None:
            self.display(self.last)

    def hide(self) -> None:
        self.contrast(0)

    def show(self) -> None:
        self.contrast(0xFF)

    def cleanup(self) -> None:
        pass


def pygame_device() -> Any:
    """luma.emulator's window."""
    quiet_pygame()
    from luma.emulator.device import pygame

    return pygame(width=128, height=64, mode="1", transform="scale2x", scale=3)


#: Indexed by upper-left 8, upper-right 4, lower-left 2, lower-right 1.
QUADRANTS = " ▗▖▄▝▐▞▟▘▚▌▙▀▜▛█"
#: Braille dot bits for a 2x4 cell, by (column, row).
BRAILLE = {(0, 0): 0x01, (0, 1): 0x02, (0, 2): 0x04, (1, 0): 0x08, (1, 1): 0x10,
           (1, 2): 0x20, (0, 3): 0x40, (1, 3): 0x80}
HELP = "arrows Enter:select Esc:back m:menu u:undo y:redo r:roll 0-9:faces q:quit"  # < 80


class TerminalDisplay:
    """Our own terminal emulator of the panel: Unicode block characters, ANSI cursor moves.

    luma.emulator's terminal modes import pygame and insist on a tty for stdout; this one
    needs nothing. A tall terminal gets 2x2 pixels a character (64x32, easy to read); an
    ordinary 80x24 one gets Braille cells of 2x4 pixels (64x16) for the pictures, with the
    screen's words written over them as letters (the frame carries what it wrote, in
    ``image.info["texts"]``). A dimmed panel is drawn faint, a blanked one empty.
    """

    mode = "1"

    def __init__(self, out: TextIO = sys.stdout) -> None:
        self.out = out
        self.faint = False
        self.hidden = False
        self.last: Image.Image | None = None
        self.texts: tuple[tuple[str, tuple[int, int, int, int], int], ...] = ()

    def display(self, image: Image.Image) -> None:
        self.texts = image.info.get("texts", ())
        self.last = image.convert("1")
        self._paint()

    def contrast(self, level: int) -> None:
        self.faint = level < BRIGHT
        self._paint()

    def hide(self) -> None:
        self.hidden = True
        self._paint()

    def show(self) -> None:
        self.hidden = False
        self._paint()

    def cleanup(self) -> None:
        self.out.write("\x1b[0m\n")
        self.out.flush()

    def _paint(self) -> None:
        if self.last is None:
            return
        size = shutil.get_terminal_size((80, 24))
        rows = render_quadrants(self.last) if size.lines >= 36 else render_braille(self.last, self.texts)
        columns = self.last.width // 2  # rows may hold escape codes: count cells, not chars
        if self.hidden:
            rows = [" " * columns] * len(rows)
        style = "\x1b[2m" if self.faint else "\x1b[0m"
        border = "+" + "-" * columns + "+"
        body = "\r\n".join(f"|{style}{row}\x1b[0m|" for row in rows)
        self.out.write(f"\x1b[H{border}\r\n{body}\r\n{border}\r\n{HELP[:size.columns - 1]}\x1b[K")
        self.out.flush()


def _lit(image: Image.Image) -> Callable[[int, int], int]:
    """Whether the pixel at (x, y) is lit, as 0 or 1."""
    pixels = image.load()
    if pixels is None:  # Pillow returns None only for an image that has no data at all
        raise ValueError("the frame has no pixels")
    return lambda x, y: 1 if pixels[x, y] else 0


def render_quadrants(image: Image.Image) -> list[str]:
    """A 1-bit image as rows of quadrant characters (2x2 pixels each)."""
    lit = _lit(image)
    width, height = image.size
    return ["".join(QUADRANTS[8 * lit(x, y) | 4 * lit(x + 1, y) | 2 * lit(x, y + 1) | lit(x + 1, y + 1)]
                    for x in range(0, width, 2))
            for y in range(0, height, 2)]


def render_braille(image: Image.Image,
                   texts: Sequence[tuple[str, tuple[int, int, int, int], int]] = ()) -> list[str]:
    """A 1-bit image as rows of Braille characters (2x4 pixels each); each of ``texts``
    (words, ink box, colour) is written as letters on the middle row of its box, in reverse
    video when drawn dark on light, the Braille under its box cleared."""
    lit = _lit(image)
    width, height = image.size
    cells = [[chr(0x2800 + sum(bit for (dx, dy), bit in BRAILLE.items() if lit(x + dx, y + dy)))
              for x in range(0, width, 2)]
             for y in range(0, height, 4)]
    for words, (x0, y0, x1, y1), fill in texts:
        ground = " " if fill else "\u28ff"
        top, bottom = max(0, y0 // 4), min(len(cells) - 1, (y1 - 1) // 4)
        left, right = max(0, x0 // 2), min(len(cells[0]) - 1, (x1 - 1) // 2)
        for row in range(top, bottom + 1):
            cells[row][left:right + 1] = [ground] * (right + 1 - left)
        row = (top + bottom + 1) // 2
        for column, char in enumerate(words[:len(cells[0]) - left], start=left):
            cells[row][column] = char if fill else f"\x1b[7m{char}\x1b[27m"
    return ["".join(row) for row in cells]


class NoDisplay:
    """Headless: frames go nowhere (buttons and serial still work)."""

    mode = "1"

    def display(self, image: Image.Image) -> None:
        pass

    def contrast(self, level: int) -> None:
        pass

    def hide(self) -> None:
        pass

    def show(self) -> None:
        pass

    def cleanup(self) -> None:
        pass


class Output:
    """Frames to a device: unchanged frames skipped, shifted over time, dimmed and blanked.

    A display that fails (a loose cable, a panel that is not there yet) never stops the
    game: the failure is logged once, the device is reopened with growing pauses, and the
    current frame is sent in full when it answers again.
    """

    def __init__(self, opener: Callable[[], Device], shift: bool = True,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.opener = opener
        self.shift = shift
        self.clock = clock
        self.device: Device | None = None
        self.last: bytes | None = None
        self.level: Level = "bright"
        self.frames_sent = 0
        self.retry_at: float | None = None
        self.pause = RETRY_FIRST
        self._open()

    def show(self, image: Image.Image, step: int = 0) -> bool:
        """Send the frame unless the glass already shows it; whether anything was sent."""
        offset = SHIFTS[step % len(SHIFTS)] if self.shift else (0, 0)
        if offset != (0, 0):
            moved = Image.new("1", image.size, 0)
            moved.paste(image, offset)
            moved.info = dict(image.info)
            image = moved
        raw = image.tobytes()
        if raw == self.last:
            return False
        if self.device is None and not self._reopen_due():
            return False
        assert self.device is not None
        try:
            self.device.display(image if self.device.mode == "1" else image.convert(self.device.mode))
        except Exception as err:  # any driver or bus error: keep the game going
            self._lost(err)
            return False
        self.last = raw
        self.frames_sent += 1
        if self.retry_at is not None:  # back only once a frame got through
            log.info("display answering again")
            self.retry_at, self.pause = None, RETRY_FIRST
        return True

    def set_level(self, level: Level) -> None:
        if level == self.level:
            return
        previous, self.level = self.level, level
        if self.device is None:
            return
        try:
            self._apply_level(previous)
        except Exception as err:
            self._lost(err)

    def _apply_level(self, previous: Level) -> None:
        assert self.device is not None
        if self.level == "blank":
            self.device.hide()
            return
        if previous == "blank":
            self.device.show()
        self.device.contrast(DIM if self.level == "dim" else BRIGHT)

    def _open(self) -> bool:
        try:
            self.device = self.opener()
        except Exception as err:
            self._lost(err)
            return False
        self.last = None  # the panel may show anything: send the next frame whole
        if self.level != "bright":  # a panel that comes back starts bright and shown
            try:
                self._apply_level("bright")
            except Exception as err:
                self._lost(err)
                return False
        return True

    def _reopen_due(self) -> bool:
        if self.retry_at is not None and self.clock() < self.retry_at:
            return False
        return self._open()

    def _lost(self, err: Exception) -> None:
        if self.retry_at is None:
            log.error("display not answering (%s): carrying on without it, retrying", err)
        if self.device is not None:
            # The device is already gone; nothing more to release.
            with contextlib.suppress(Exception):
                self.device.cleanup()
        self.device, self.last = None, None
        self.retry_at = self.clock() + self.pause
        self.pause = min(self.pause * 2, RETRY_LONGEST)

    def close(self) -> None:
        """Release the device at shutdown."""
        if self.device is not None:
            self.device.cleanup()
