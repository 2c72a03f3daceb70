"""Send only what changed to an SSD1306 or SH1106 panel.

luma.oled's drivers for these two controllers send the whole frame (about 1 KB) on every
``display()`` call; on the Pi's default 100 kHz I2C bus that is about 93 ms per press, the
slowest part of the box. Both controllers keep the picture in their own memory, in 8 pages
of 8 pixel rows, and take writes to any page and column span. So these devices keep a copy
of what the controller holds and, for each new frame, send only the changed spans, with
the addressing commands each needs (on an SSD1306, runs of them as one window where that
puts fewer bytes on the I2C wire), through luma's own serial interface (so I2C and SPI
both work). :class:`PagedSSD1306` and :class:`PagedSH1106` are luma's device classes with
only ``display()`` replaced: persist, rotation, contrast, hide/show and clean-up are luma's.

>>> import PIL.Image
>>> rows = page_bytes(PIL.Image.new("1", (128, 64), 1))
>>> len(rows), len(rows[0]), rows[0][:2]
(8, 128, b'\\xff\\xff')
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from itertools import groupby
from typing import Any

from luma.core.device import device as luma_device
from luma.oled.device import sh1106 as luma_sh1106
from luma.oled.device import ssd1306 as luma_ssd1306
from PIL import Image

PAGES, COLUMNS = 8, 128
SSD1306_WINDOW = 6  # command bytes to set a column and a page window
SH1106_PAGE = 3  # command bytes to set a page and a start column
SH1106_COLUMN_OFFSET = 2  # the SH1106 has 132 columns of memory; the glass shows 2..129
# On I2C every transfer adds the address byte and a control byte (command or data). luma's
# i2c interface makes one transfer per command() call, and one per data() block: blocks of
# up to 4096 bytes when it opens the bus itself (as the daemon's cmdline-made device does),
# SMBus blocks of 32 when handed a bus.
I2C_FRAMING = 2
I2C_BLOCK = 4096
SMBUS_BLOCK = 32
# Unchanged columns worth resending rather than addressing a new run: what addressing costs
# on the wire (the commands, and their transfer's and the new data transfer's framing).
SSD1306_GAP = SSD1306_WINDOW + 2 * I2C_FRAMING
SH1106_GAP = SH1106_PAGE + 2 * I2C_FRAMING


def transfers(count: int, block: int) -> int:
    """I2C transfers luma makes to send ``count`` data bytes in blocks of ``block``."""
    return -(-count // block)


def page_bytes(image: Image.Image) -> list[bytes]:
    """A 128x64 1-bit image as 8 pages of 128 bytes, bit 0 the top row of each page.

    Turning it a quarter clockwise (a transpose, then a flip left to right, in one step)
    puts each screen column in a row of 8 bytes, most significant bit first, with bit 0
    the top pixel and the pages in reverse order, which the stride ``7 - page`` undoes.
    """
    if image.mode != "1":
        image = image.convert("1")
    raw = image.transpose(Image.Transpose.ROTATE_270).tobytes()
    return [raw[PAGES - 1 - page::PAGES] for page in range(PAGES)]


@dataclass(frozen=True)
class Span:
    """Changed columns ``first..last`` (inclusive) of one page."""

    page: int
    first: int
    last: int


def changed_spans(old: list[bytes] | None, new: list[bytes]) -> list[Span]:
    """Per page, the smallest column span that covers every changed byte."""
    spans = []
    for page, row in enumerate(new):
        if old is None:
            spans.append(Span(page, 0, COLUMNS - 1))
        elif old[page] != row:
            changed = differing(old[page], row)
            spans.append(Span(page, COLUMNS - len(changed.lstrip(b"\0")), len(changed.rstrip(b"\0")) - 1))
    return spans


def changed_runs(old: list[bytes] | None, new: list[bytes], gap: int) -> list[Span]:
    """Per page, the runs of changed columns, a run going on over fewer than ``gap``
    unchanged columns (resending them costs less than addressing a new run).

    >>> before = [bytes(128)] * 8
    >>> after = [bytes(128)] * 7 + [b"\\1" * 3 + bytes(20) + b"\\1" + bytes(104)]
    >>> changed_runs(before, after, 10)
    [Span(page=7, first=0, last=2), Span(page=7, first=23, last=23)]
    """
    if old is None:
        return changed_spans(old, new)
    run = run_pattern(gap)
    return [Span(page, found.start(), found.end() - 1) for page, row in enumerate(new)
            if old[page] != row for found in run.finditer(differing(old[page], row))]


def page_spans(runs: list[Span]) -> list[Span]:
    """One span a page over that page's runs (what :func:`changed_spans` finds)."""
    spans = []
    for page, on_page in groupby(runs, lambda run: run.page):
        row = list(on_page)
        spans.append(Span(page, row[0].first, row[-1].last))
    return spans


def differing(before: bytes, after: bytes) -> bytes:
    """A zero byte where two rows agree (computed on whole rows at once: a column at a
    time in Python would cost more than the rest of a press)."""
    return (int.from_bytes(before, "big") ^ int.from_bytes(after, "big")).to_bytes(len(after), "big")


@cache
def run_pattern(gap: int) -> re.Pattern[bytes]:
    """Changed bytes (non-zero in :func:`differing`) with fewer than ``gap`` zeros between.

    Whole runs are taken at once and never given back (possessive): giving any back could
    never lead to a longer match, and the backtracking cost a busy frame's plan a third."""
    return re.compile(rb"[^\0]+(?:\0{1,%d}+[^\0]+)*+" % (gap - 1))


@dataclass(frozen=True)
class Window:
    """Columns ``first..last`` of pages ``top..bottom``: one SSD1306 window and its data."""

    top: int
    bottom: int
    first: int
    last: int



def covering(spans: list[Span]) -> Window:
    """The smallest window over consecutive spans (pages between them are sent as they are)."""
    return Window(spans[0].page, spans[-1].page, min(s.first for s in spans),
                  max(s.last for s in spans))


def ssd1306_windows(spans: list[Span]) -> list[Window]:
    """The windows that send ``spans`` with the fewest bytes on the I2C wire.

    Each run of consecutive spans goes as one window over them; every partition into runs
    is tried (at most 8 pages: 36 runs). Span by span and one window over all are two of
    the partitions, and one window over everything is never more than luma's full frame,
    so the chosen plan never puts more on the wire than a full frame.

    >>> ssd1306_windows([Span(0, 0, 127), Span(1, 0, 127), Span(7, 3, 3)])
    [Window(top=0, bottom=1, first=0, last=127), Window(top=7, bottom=7, first=3, last=3)]
    """
    best = [0] + [-1] * len(spans)  # the cheapest cost of sending the first j spans
    start = [0] * (len(spans) + 1)  # where the last run of that cheapest plan starts
    for end in range(1, len(spans) + 1):
        bottom, first, last = spans[end - 1].page, COLUMNS, -1
        for begin in range(end - 1, -1, -1):  # runs growing upwards, their width kept as they grow
            span = spans[begin]
            first = span.first if span.first < first else first  # not min(): this loop is hot
            last = span.last if span.last > last else last
            cost = best[begin] + window_cost((bottom - span.page + 1) * (last - first + 1))
            if best[end] < 0 or cost <= best[end]:
                best[end], start[end] = cost, begin
    windows, end = [], len(spans)
    while end:
        windows.append(covering(spans[start[end]:end]))
        end = start[end]
    return windows[::-1]


def stacked_windows(runs: list[Span]) -> list[Window]:
    """Windows over ``runs`` (several a page), each run going on from the window above it
    on the page before where that costs fewer bytes on the wire than a window of its own.

    A name that changes in the top bar and a figure at its other end make two small
    windows, not one across the screen.

    >>> stacked_windows([Span(0, 2, 20), Span(0, 110, 120), Span(1, 3, 21)])
    [Window(top=0, bottom=0, first=110, last=120), Window(top=0, bottom=1, first=2, last=21)]
    """
    done: list[Window] = []
    above: list[Window] = []  # windows down to the page before, not yet taken further
    here: list[Window] = []  # windows down to this page
    page = -2
    for run in runs:
        if run.page != page:  # the windows not taken on to this page are finished
            done += above
            if run.page != page + 1:
                done += here
                here = []
            above, here, page = here, [], run.page
        alone = Window(page, page, run.first, run.last)
        alone_cost = window_cost(run.last - run.first + 1)
        best: tuple[int, Window, Window] | None = None
        for window in above:  # the grown window is only built when it wins: this loop is hot
            first, last = min(window.first, run.first), max(window.last, run.last)
            gain = (window_cost(area(window)) + alone_cost
                    - window_cost((page - window.top + 1) * (last - first + 1)))
            if gain >= 0 and (best is None or gain > best[0]):
                best = (gain, window, Window(window.top, page, first, last))
        if best is None:
            here.append(alone)
        else:
            above.remove(best[1])
            here.append(best[2])
    return done + above + here


def plan_cost(windows: Sequence[Window]) -> int:
    """Bytes on the wire to send these SSD1306 windows."""
    return sum(window_cost(area(w)) for w in windows)


def area(window: Window) -> int:
    """Data bytes in a window."""
    return (window.bottom - window.top + 1) * (window.last - window.first + 1)


@cache  # called for every run tried in a plan: a look-up costs less than the sum
def window_cost(count: int) -> int:
    """Bytes on the wire for one window command and ``count`` data bytes (SSD1306)."""
    return (I2C_FRAMING + SSD1306_WINDOW) + count + I2C_FRAMING * transfers(count, I2C_BLOCK)


# luma ships no type information, so its classes are ``Any`` to mypy.
class ChangedPages(luma_device):  # type: ignore[misc]
    """The changed-pages ``display()`` for luma's page-addressed OLED devices.

    Put before luma's own class, it replaces only ``display()``: everything else
    (``persist``, rotation, ``contrast``, ``hide``/``show``, ``cleanup`` and its clearing of
    the glass) is luma's, so the device behaves as luma's users expect.
    """

    #: What the controller's memory holds, as far as we know; None: unknown, send all.
    #: A class default, because luma's constructor already draws (it clears the glass).
    shadow: list[bytes] | None = None

    def display(self, image: Image.Image) -> None:
        """Send the changed spans of ``image`` (luma's size and mode, before rotation)."""
        if image.mode != self.mode or image.size != self.size:  # luma asserts the same
            raise ValueError(f"expected a {self.size} image of mode {self.mode!r}")
        pages = page_bytes(self.preprocess(image))
        old = self.shadow
        if old != pages:
            # Until the writes have all gone through, the controller's memory is unknown:
            # an I/O error half-way must lead to a full redraw next time.
            self.shadow = None
            self.send(old, pages)
        self.shadow = pages

    def forget(self) -> None:
        """The panel lost its memory (power, reset): the next frame goes out whole."""
        self.shadow = None

    def send(self, old: list[bytes] | None, pages: list[bytes]) -> None:
        """Write what differs from ``old`` (None: all) with the controller's addressing
        commands."""
        raise NotImplementedError


class PagedSSD1306(ChangedPages, luma_ssd1306):  # type: ignore[misc]
    """luma's ``ssd1306`` (128x64) sending only changed spans, as one window or several."""

    def __init__(self, serial_interface: Any = None, width: int = COLUMNS, height: int = PAGES * 8,
                 rotate: int = 0, **kwargs: Any) -> None:
        _check_size(width, height)
        super().__init__(serial_interface, width, height, rotate, **kwargs)

    def send(self, old: list[bytes] | None, pages: list[bytes]) -> None:
        """The cheaper on the wire of two plans: windows over runs of whole-page spans (never
        more than a full frame), and windows over each page's changed runs."""
        runs = changed_runs(old, pages, SSD1306_GAP)
        spans = ssd1306_windows(page_spans(runs))
        stacked = stacked_windows(runs)
        for window in stacked if plan_cost(stacked) < plan_cost(spans) else spans:
            self._window(window.first, window.last, window.top, window.bottom)
            self.data(list(b"".join(pages[page][window.first:window.last + 1]
                                    for page in range(window.top, window.bottom + 1))))

    def _window(self, first: int, last: int, top: int, bottom: int) -> None:
        # Horizontal addressing (luma's set-up): writes fill the window row by row.
        self.command(0x21, first, last, 0x22, top, bottom)


class PagedSH1106(ChangedPages, luma_sh1106):  # type: ignore[misc]
    """luma's ``sh1106`` (128x64) sending only changed spans, one page at a time."""

    def __init__(self, serial_interface: Any = None, width: int = COLUMNS, height: int = PAGES * 8,
                 rotate: int = 0, page_address_offset: int = SH1106_COLUMN_OFFSET, **kwargs: Any) -> None:
        _check_size(width, height)
        self.column_offset = page_address_offset
        super().__init__(serial_interface, width, height, rotate, page_address_offset, **kwargs)

    def send(self, old: list[bytes] | None, pages: list[bytes]) -> None:
        for span in changed_runs(old, pages, SH1106_GAP):
            column = span.first + self.column_offset
            self.command(0xB0 + span.page, column & 0x0F, 0x10 | column >> 4)
            self.data(list(pages[span.page][span.first:span.last + 1]))


def _check_size(width: int, height: int) -> None:
    if (width, height) != (COLUMNS, PAGES * 8):
        raise ValueError(f"the changed-pages path is for {COLUMNS}x{PAGES * 8} panels, not {width}x{height}")


#: luma's display names that have a changed-pages class.
PAGED = {"ssd1306": PagedSSD1306, "sh1106": PagedSH1106}


def paged_class(args: Any) -> type[PagedSSD1306] | type[PagedSH1106] | None:
    """Our changed-pages class for these luma flags: a 128x64 SSD1306 or SH1106, else None.

    luma builds the class it finds by name in ``luma.oled.device``; the display module
    (:func:`companion.io.display.create_device`) builds ours instead for these two.
    """
    kind = PAGED.get(args.display)
    return kind if kind is not None and (args.width, args.height) == (COLUMNS, PAGES * 8) else None
