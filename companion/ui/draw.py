"""Drawing primitives for a 128x64 1-bit screen: fonts, bars, pips, wrapped text.

Sizes follow what reads at arm's length on the real panel: 12 px and up for what matters
(whose turn, the choice under the cursor), 10-11 px for supporting figures.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources

from PIL import Image, ImageChops, ImageDraw, ImageFont

WIDTH, HEIGHT = 128, 64
WHITE, BLACK = 1, 0
HEADER = 14  # rows of the top bar: 12 px type with room for descenders

#: Two pixel fonts made for small screens, each with a slashed zero and 1/l/I, 5/S, 8/B
#: told apart (docs/fonts.md compares them with Pillow's own): Spleen 5x8 (BSD-2,
#: fonts/LICENSE-Spleen.txt) for the small figures of panels and hints, and Terminus Font
#: (SIL OFL 1.1, fonts/LICENSE-Terminus.txt) for words, choices and titles. Terminus is an
#: OpenType bitmap font that FreeType draws pixel for pixel at its fixed strikes; Spleen
#: comes from Debian as a console font, converted to PIL's format (docs/fonts/psf_to_pil.py).
FONTS = resources.files("companion.ui") / "fonts"
STRIKES = (12, 14, 16, 18, 20, 22, 24, 28, 32)
SMALL = 10  # roles of this size and under: Spleen 5x8
SMALL_ASCENT = 7  # rows of Spleen 5x8 above its baseline

Font = ImageFont.FreeTypeFont | ImageFont.ImageFont


@cache
def font(size: int) -> Font:
    """The face for a role's size: small figures (10) Spleen 5x8; words (11) Terminus 12;
    titles and choices (12) Terminus 12 bold; larger sizes the largest bold strike that fits.
    """
    if size <= SMALL:
        with resources.as_file(FONTS / "spleen-5x8.pil") as path:
            return ImageFont.load(str(path))
    strike = max(s for s in STRIKES if s <= max(size, 12))
    weight = "bold" if size >= 12 else "normal"
    # Pillow's basic layout measures and draws a string about ten times faster than Raqm
    # (a new question or result costs a press several strings), and at strike 12, the
    # size of words and choices, it draws the very same pixels; at 14 and 18 it does not.
    basic = ImageFont.Layout.BASIC if strike == 12 else None
    with resources.as_file(FONTS / f"terminus-{weight}.otb") as path:
        return ImageFont.truetype(str(path), strike, layout_engine=basic)


def blank() -> Image.Image:
    """A black 1-bit frame."""
    return Image.new("1", (WIDTH, HEIGHT), BLACK)


# Rendering text with FreeType is most of what drawing a screen costs, and a game shows the
# same few hundred strings over and over: measurements and rendered strings are cached
# (bounded, so memory stays flat however long the game).


@lru_cache(maxsize=4096)
def length(words: str, size: int) -> float:
    """Width of a string in pixels."""
    face = font(size)
    if isinstance(face, ImageFont.FreeTypeFont):
        return float(face.getlength(words, mode="1"))
    return float(face.getlength(words))


#: The mark of a string shortened on purpose (the one deliberate cut: see ``text``); the
#: small type has no ellipsis, so its tilde stands for one.
ELLIPSIS = {True: "\u2026", False: "~"}


@lru_cache(maxsize=2048)
def fit(words: str, size: int, width: int) -> str:
    """``words`` cut with an ellipsis so that it fits ``width`` pixels."""
    if length(words, size) <= width:
        return words
    mark = ELLIPSIS[size > SMALL]
    while words and length(words + mark, size) > width:
        words = words[:-1]
    return words + mark


# Room for every string of a long evening (the benchmark session's seven games show 1,177):
# strings come back in a cycle (a round's questions, results, squares), and an LRU smaller
# than the cycle misses every time. About 1.5 KB an entry, so at most about 3 MB.
@lru_cache(maxsize=2048)
def rendered(words: str, size: int, anchor: str) -> tuple[Image.Image | None, int, int]:
    """A string drawn once as a 1-bit mask, with its offset from the anchor point.

    A TrueType line is the very mask ImageDraw.text would paste (its ``getmask2`` at a
    whole-pixel origin), cut to its ink: half the cost of drawing it on a scratch canvas,
    and a new string is drawn on the press that first shows it. Anything else is drawn by
    ImageDraw.text itself on a scratch canvas big enough for any anchor and cut to its ink,
    so the pixels are exactly those a direct call would draw.
    """
    face = font(size)
    if isinstance(face, ImageFont.FreeTypeFont) and "\n" not in words:
        core, (dx, dy) = face.getmask2(words, "1", anchor=anchor)
        mask = Image.Image()._new(core)
        ink = mask.getbbox()
        if ink is None:
            return None, 0, 0
        return (mask.crop(ink).convert("1", dither=Image.Dither.NONE),
                ink[0] + dx, ink[1] + dy)
    reach = int(length(words, size)) + 2 * size + 4
    origin = (reach, 2 * size)
    canvas = Image.new("1", (2 * reach, 4 * size), 0)
    if isinstance(face, ImageFont.FreeTypeFont):
        ImageDraw.Draw(canvas).text(origin, words, font=face, fill=1, anchor=anchor)
    else:  # PIL's bitmap fonts draw from their top left: place the anchor by hand
        shift = {"l": 0.0, "m": length(words, size) / 2, "r": length(words, size)}[anchor[0]]
        drop = {"a": 0, "t": 0, "m": SMALL_ASCENT // 2, "s": SMALL_ASCENT}[anchor[1]]
        ImageDraw.Draw(canvas).text((origin[0] - int(shift), origin[1] - drop), words, font=face, fill=1)
    box = canvas.getbbox()
    if box is None:  # nothing but spaces
        return None, 0, 0
    return canvas.crop(box), box[0] - origin[0], box[1] - origin[1]


@dataclass(frozen=True)
class Drawn:
    """One string as drawn: its words (``cut`` when shortened to fit without leave), colour,
    ink box (left, top, right, bottom; exclusive) and ink mask."""

    words: str
    cut: bool
    fill: int
    box: tuple[int, int, int, int]
    mask: Image.Image


class Recorded(list[Drawn]):
    """The strings drawn on a frame, in order, and the bands drawn to hide whole strings
    (``cover``): each band's box, and how many strings were drawn before it."""

    def __init__(self) -> None:
        super().__init__()
        self.covers: list[tuple[int, tuple[int, int, int, int]]] = []


#: While a list is set here, every string drawn is appended to it (the layout tests read
#: what each screen wrote, and where).
_recording: list[Recorded] = []


@contextmanager
def recording() -> Iterator[Recorded]:
    """Collect every string drawn inside the ``with`` block."""
    found = Recorded()
    _recording.append(found)
    try:
        yield found
    finally:  # this very list (lists equal in content are not the same recording)
        del _recording[next(i for i, r in enumerate(_recording) if r is found)]


# --- The check: every string knows the box it was given ---
#
# A screen hands every string the box it may take (a line's room, a lit tab, the rows of a
# notice). In checking mode (the tests turn it on; the daemon never does, and then a string
# costs one test of an empty list) each string drawn is checked against that box, the glass
# and its own words, and every fault is collected: a screen that does not fit its words
# must lay them out otherwise (wrap, page, scroll, smaller type if still readable), never
# cut them.

Box = tuple[int, int, int, int]
#: Pixels the burn-in shift moves the picture up and left (io/display.py's SHIFTS): the
#: first column and row are off the glass half the time, so no glyph may use them.
SHIFT = 1
#: Where ink always reaches the glass (inclusive).
GLASS: Box = (SHIFT, SHIFT, WIDTH - 1, HEIGHT - 1)


@dataclass(frozen=True)
class Fault:
    """A string drawn wrong: what it says, what is wrong, its ink and its box (inclusive)."""

    words: str
    problem: str
    ink: Box
    box: Box

    def __str__(self) -> str:
        return f"{self.problem}: {self.words!r} ink {self.ink} box {self.box}"


_checking: list[list[Fault]] = []


@contextmanager
def checking() -> Iterator[list[Fault]]:
    """Check every string drawn inside the ``with`` block; the faults found are collected
    in the list it gives (the innermost block's, when blocks nest)."""
    found: list[Fault] = []
    _checking.append(found)
    try:
        yield found
    finally:
        # By identity: list.remove compares by value, and two blocks' lists are equal while
        # both are empty (an inner block would take the outer's place).
        del _checking[next(i for i, each in enumerate(_checking) if each is found)]


def report(words: str, problem: str, ink: Box = (0, 0, 0, 0), box: Box = (0, 0, 0, 0)) -> None:
    """A fault, to the innermost check (nothing when none is on)."""
    if _checking:
        _checking[-1].append(Fault(words, problem, ink, box))


def inside(inner: Box, outer: Box, margin: int = 0) -> bool:
    """Whether ``inner`` lies in ``outer`` with ``margin`` pixels to spare on every side."""
    return (inner[0] >= outer[0] + margin and inner[1] >= outer[1] + margin
            and inner[2] <= outer[2] - margin and inner[3] <= outer[3] - margin)


def room_of(xy: tuple[int, int], width: int, anchor: str) -> Box:
    """The box a line anchored at ``xy`` may take: ``width`` pixels on the anchor's side(s)
    and the whole height of the screen."""
    x = xy[0]
    left = {"l": x, "m": x - width // 2, "r": x - width}[anchor[0]]
    return left, 0, left + width - 1, HEIGHT - 1


def check(words: str, shown: str, fill: int, ink: Box, box: Box, ellipsis: bool) -> None:
    """The faults of one string: shortened without leave, outside its box, off the glass;
    dark words on a lit ground need a lit pixel round them on the glass (else a stroke on
    the edge of the lit part merges with the dark beyond it and the glyph looks cut)."""
    if shown != words and not ellipsis:
        report(words, "cut", ink, box)
    if not inside(ink, box):
        report(words, "outside its box", ink, box)
    if not inside(ink, GLASS, 1 if fill == BLACK else 0):
        report(words, "off the glass", ink, GLASS)


def cover(draw: ImageDraw.ImageDraw, box: Box, fill: int = WHITE) -> None:
    """A band over ``box`` (inclusive) that hides whatever is under it: a string under it
    whole is hidden, not cut (a string partly under it is cut: see ``overdrawn``)."""
    draw.rectangle(box, fill=fill)
    for found in _recording:
        found.covers.append((len(found), box))


def overdrawn(image: Image.Image, drawn: Sequence[Drawn]) -> None:
    """A whole frame's check, once it is drawn: each string must be alone in its box and a
    pixel round it (on the glass), the frame there exactly its ink on a plain ground. A bar,
    a band or another string drawn over it or touching it is a fault (``drawn``: the strings
    recorded while the frame was drawn); a ``cover`` that hides a string whole (a notice
    over the board) is not: it cuts nothing."""
    if not _checking:
        return
    covers = drawn.covers if isinstance(drawn, Recorded) else []
    for index, d in enumerate(drawn):
        x0, y0, x1, y1 = d.box
        left, top = max(0, x0 - 1), max(0, y0 - 1)
        right, bottom = min(WIDTH, x1 + 1), min(HEIGHT, y1 + 1)
        if left >= right or top >= bottom:
            continue
        if any(after > index and inside((x0, y0, x1 - 1, y1 - 1), box) for after, box in covers):
            continue  # hidden whole
        expected = Image.new("1", (right - left, bottom - top), 1 - d.fill)
        expected.paste(d.fill, (x0 - left, y0 - top), d.mask)
        if ImageChops.difference(expected, image.crop((left, top, right, bottom))).getbbox() is not None:
            report(d.words, "run into", (x0, y0, x1 - 1, y1 - 1))


#: The players' names of the game on screen while a frame is drawn (``naming``).
_naming: list[tuple[str, ...]] = []
SHORTEST_NAME = 2  # letters a name keeps when it is shortened


@contextmanager
def naming(names: Sequence[str]) -> Iterator[None]:
    """While the ``with`` block draws, a line too wide for its room first has the players'
    ``names`` in it shortened, each ending in an ellipsis: 12 letters of a name do not fit
    every line, and the whole name is in the top bar when it is that player's turn."""
    _naming.append(tuple(names))
    try:
        yield
    finally:
        _naming.pop()


@lru_cache(maxsize=512)
def shorten_names(words: str, names: tuple[str, ...], size: int, width: int, rows: int = 1) -> str:
    """``words`` with the longest of ``names`` in them shortened a letter at a time (to
    :data:`SHORTEST_NAME` and an ellipsis) until they fit ``width`` (wrapped, in ``rows``
    lines), or as short as that.

    >>> shorten_names("Annabelle: roll", ("Annabelle", "Bob"), 12, 60)
    'Ann\u2026: roll'
    >>> shorten_names("Bob: roll", ("Bob",), 12, 30)  # a shortened Bob is no narrower
    'Bob: roll'
    """
    mark = ELLIPSIS[size > SMALL]
    kept = {name: name for name in names if name in words}  # each name as the words have it

    def shorter(name: str) -> str:  # a letter fewer than now, the ellipsis counted
        letters = kept[name][:-1] if kept[name] != name else name[:-1]
        return letters[:-1] + mark

    while not fits(words, size, width, rows):
        can = [name for name in kept if len(shorter(name)) - 1 >= SHORTEST_NAME]
        if not can:
            break
        longest = max(can, key=lambda name: len(kept[name]))
        cut = shorter(longest)
        words, kept[longest] = words.replace(kept[longest], cut), cut
    return words


def fits(words: str, size: int, width: int, rows: int = 1) -> bool:
    """Whether ``words`` fit ``width`` on one line, or wrapped in ``rows`` lines."""
    if rows == 1:
        return length(words, size) <= width
    return len(wrap(words, size, width)) <= rows


def named(words: str, size: int, width: int, rows: int = 1) -> str:
    """``words`` as they are drawn in ``width`` (and ``rows`` lines): the players' names in
    them shortened as ``naming`` says, where they do not fit."""
    if not _naming or fits(words, size, width, rows):
        return words
    return shorten_names(words, _naming[-1], size, width, rows)


def text(draw: ImageDraw.ImageDraw, xy: tuple[int, int], words: str, size: int,
         fill: int = WHITE, width: int = WIDTH, anchor: str = "ls", box: Box | None = None,
         ellipsis: bool = False, struck: bool = False) -> None:
    """Draw one line at a baseline, in ``width`` pixels on the anchor's side (or sides);
    ``struck``: with a line through its lower-case letters (what the rules refuse now),
    part of the string as drawn.

    ``box`` (inclusive) is where its ink may go, by default the width's columns from the
    top of the screen to the bottom. A line wider than ``width`` has the players' names in
    it shortened (``naming``); if it is still too wide it is shortened to fit, which the
    check counts as a fault unless ``ellipsis`` says that a shortened line, ending in an
    ellipsis, is meant (a line that quotes an entry).
    """
    words = named(words, size, width)
    shown = fit(words, size, width)
    mask, left, top = rendered(shown, size, anchor)
    if mask is not None and struck:
        mask = mask.copy()
        # Low in the lower-case letters: through them, but under a hyphen, which stays.
        row = xy[1] - size // 4 - (xy[1] + top)
        ImageDraw.Draw(mask).line((0, row, mask.width - 1, row), fill=1)
    if mask is not None:
        x, y = xy[0] + left, xy[1] + top
        draw.bitmap((x, y), mask, fill=fill)
        for found in _recording:
            found.append(Drawn(shown, shown != words and not ellipsis, fill,
                               (x, y, x + mask.width, y + mask.height), mask))
        if _checking:
            check(words, shown, fill, (x, y, x + mask.width - 1, y + mask.height - 1),
                  box or room_of(xy, width, anchor), ellipsis)


def header(draw: ImageDraw.ImageDraw, left: str, right: str = "") -> None:
    """The inverted top bar: whose turn (or where we are) and a short figure."""
    draw.rectangle((0, 0, WIDTH - 1, HEADER - 1), fill=WHITE)
    right_width = int(length(right, 10)) + 2 if right else 0
    # A lit row round the words on the glass: above their tallest letters the bar's row 1
    # (row 0 goes while the picture is shifted), under their descenders row 13.
    text(draw, (2, 11), left, 12, BLACK, WIDTH - right_width - 4)
    if right:
        text(draw, (WIDTH - 2, 11), right, 10, BLACK, anchor="rs")


def pips(draw: ImageDraw.ImageDraw, x: int, y: int, value: int, total: int,
         size: int = 6, gap: int = 2) -> int:
    """``total`` small boxes, ``value`` of them filled (health, laps); the x after them."""
    for i in range(total):
        box = (x, y, x + size - 1, y + size - 1)
        draw.rectangle(box, fill=WHITE if i < value else BLACK, outline=WHITE)
        x += size + gap
    return x


def bar(draw: ImageDraw.ImageDraw, box: tuple[int, int, int, int], value: int, total: int) -> None:
    """A horizontal bar, filled in proportion (fish tracks and the like)."""
    x0, y0, x1, y1 = box
    draw.rectangle(box, outline=WHITE, fill=BLACK)
    if total > 0 and value > 0:
        draw.rectangle((x0, y0, x0 + round((x1 - x0) * min(value, total) / total), y1), fill=WHITE)


def wrap(words: str, size: int, width: int = WIDTH - 4) -> list[str]:
    """Break text into lines that fit ``width`` pixels."""
    lines: list[str] = []
    for paragraph in words.split("\n"):
        line = ""
        for word in paragraph.split():
            trial = f"{line} {word}".strip()
            if length(trial, size) <= width or not line:
                line = trial
            else:
                lines.append(line)
                line = word
        lines.append(line)
    return lines


def arrows(draw: ImageDraw.ImageDraw, x: int, top: int, bottom: int, up: bool, down: bool,
           size: int = 3) -> None:
    """Small triangles (``size`` rows under the tip) that say there is more above or below."""
    if up:
        draw.polygon([(x, top + size), (x + size, top), (x + 2 * size, top + size)], fill=WHITE)
    if down:
        draw.polygon([(x, bottom - size), (x + size, bottom), (x + 2 * size, bottom - size)], fill=WHITE)


HINT_GAP = 4  # pixels between a label and its hint


def label_and_hint(draw: ImageDraw.ImageDraw, xy: tuple[int, int], right: int, label: str,
                   hint: str, size: int, fill: int = WHITE, hint_baseline: int = 0,
                   ellipsis: bool = False, struck: bool = False) -> None:
    """A choice (``struck`` through when the rules refuse it now) and its small hint beside
    it, right-aligned at ``right`` (on the label's baseline, or on ``hint_baseline``);
    ``ellipsis``: a label too long for the line may end in one (see ``text``).

    A hint that does not fit beside the label is left out (the label always wins), which
    the check counts as a fault: the hint is part of what the line says.
    """
    x, baseline = xy
    both = beside(label, hint, size, right - x)
    if both is not None:
        label, hint = both
    if hint and both is not None:
        text(draw, (right, hint_baseline or baseline), hint, 10, fill, anchor="rs")
    elif hint:
        report(f"{label} | {hint}", "hint left out")
    text(draw, (x, baseline), label, size, fill, right - x, ellipsis=ellipsis, struck=struck)


def beside(label: str, hint: str, size: int, width: int) -> tuple[str, str] | None:
    """The label (in ``size``) and its small hint as they fit side by side in ``width``
    pixels, the players' names in them shortened as ``naming`` says (the label's first);
    None when the hint does not fit beside the label."""
    if not hint:
        return label, hint
    hint_width = length(hint, 10)
    label = named(label, size, int(width - HINT_GAP - hint_width))
    label_width = length(label, size)
    if label_width + HINT_GAP + hint_width > width:  # a name as the hint gives way too
        hint = named(hint, 10, int(width - label_width - HINT_GAP))
        hint_width = length(hint, 10)
    return (label, hint) if label_width + HINT_GAP + hint_width <= width else None


def lines(draw: ImageDraw.ImageDraw, xy: tuple[int, int], words: str, size: int, width: int,
          rows: int, pitch: int, fill: int = WHITE, box: Box | None = None) -> None:
    """``words`` wrapped to ``width``, at most ``rows`` lines ``pitch`` apart, the first on
    the baseline at ``xy``; lines beyond ``rows`` are left out, which the check counts as
    a fault (the words must go on a page of their own, or say less)."""
    words = named(words, size, width, rows)
    wrapped = wrap(words, size, width)
    if len(wrapped) > rows:
        report(words, f"{len(wrapped) - rows} of {len(wrapped)} lines left out")
    for row, line in enumerate(wrapped[:rows]):
        text(draw, (xy[0], xy[1] + row * pitch), line, size, fill, width, box=box)


#: A notice's types, the larger first: its size, the rows from one line's baseline to the
#: next, and the rows from the last line's baseline to the band's last (lit) row.
NOTICE_TYPES = ((11, 12, 2), (10, 9, 1))
#: The rows a screen's notice may take: its band's first row at the highest, and its last.
Area = tuple[int, int]


def notice_type(message: str, area: Area) -> tuple[int, int, int, int]:
    """The largest type in which ``message`` fits ``area`` (lines of 11 px, else of 10 px),
    and its lines: size, pitch, descent (see NOTICE_TYPES) and the number of lines; a
    message too long for both gets the smaller."""
    for size, pitch, descent in NOTICE_TYPES:  # noqa: B007 (the last one stays when none fits)
        count = len(wrap(message, size, WIDTH - 4))
        if area[1] - pitch * count >= area[0]:
            break
    return size, pitch, descent, count


def notice_fits(message: str, area: Area) -> bool:
    """Whether ``message`` fits a notice in ``area``."""
    _, pitch, _, count = notice_type(message, area)
    return area[1] - pitch * count >= area[0]


def notice_top(message: str, area: Area) -> int:
    """The first row of the notice of ``message`` in ``area``."""
    _, pitch, _, count = notice_type(message, area)
    return max(area[0], area[1] - pitch * count)


def notice(draw: ImageDraw.ImageDraw, area: Area, message: str) -> None:
    """A message (a refusal's reason, a result) dark on a lit band across the screen, up
    from the foot of ``area`` as far as it needs: it covers what is there until the next
    press. A message too long for the area loses lines, which the check counts as a fault
    (the app puts such a message on a page of its own)."""
    size, pitch, descent, _ = notice_type(message, area)
    top = notice_top(message, area)
    band = (0, top, WIDTH - 1, area[1])
    draw.rectangle(band, fill=WHITE)
    lines(draw, (2, top + pitch - descent), message, size, WIDTH - 4, (area[1] - top) // pitch, pitch,
          BLACK, band)
