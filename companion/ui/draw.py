"""Drawing primitives for a 128x64 1-bit screen: fonts, bars, pips, wrapped text.

Sizes follow what reads at arm's length on the real panel: 12 px and up for what matters
(whose turn, the choice under the cursor), 10-11 px for supporting figures.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources

from PIL import Image, ImageDraw, ImageFont

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


@lru_cache(maxsize=2048)
def fit(words: str, size: int, width: int) -> str:
    """``words`` cut with an ellipsis so that it fits ``width`` pixels."""
    if length(words, size) <= width:
        return words
    while words and length(words + "~", size) > width:
        words = words[:-1]
    return words + "~"


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
    """One string as drawn: its words (``cut`` when shortened to fit), colour, ink box
    (left, top, right, bottom; exclusive) and ink mask."""

    words: str
    cut: bool
    fill: int
    box: tuple[int, int, int, int]
    mask: Image.Image


#: While a list is set here, every string drawn is appended to it (the layout tests read
#: what each screen wrote, and where).
_recording: list[list[Drawn]] = []


@contextmanager
def recording() -> Iterator[list[Drawn]]:
    """Collect every string drawn inside the ``with`` block."""
    found: list[Drawn] = []
    _recording.append(found)
    try:
        yield found
    finally:
        _recording.remove(found)


def text(draw: ImageDraw.ImageDraw, xy: tuple[int, int], words: str, size: int,
         fill: int = WHITE, width: int = WIDTH, anchor: str = "ls", struck: bool = False) -> None:
    """Draw one line at a baseline, cut to ``width``; ``struck``: with a line through its
    lower-case letters (what the rules refuse now), part of the string as drawn."""
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
            found.append(Drawn(shown, shown != words, fill, (x, y, x + mask.width, y + mask.height), mask))


def header(draw: ImageDraw.ImageDraw, left: str, right: str = "") -> None:
    """The inverted top bar: whose turn (or where we are) and a short figure."""
    draw.rectangle((0, 0, WIDTH - 1, HEADER - 1), fill=WHITE)
    right_width = int(length(right, 10)) + 2 if right else 0
    text(draw, (2, 10), left, 12, BLACK, WIDTH - right_width - 4)
    if right:
        text(draw, (WIDTH - 2, 10), right, 10, BLACK, anchor="rs")


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


def label_and_hint(draw: ImageDraw.ImageDraw, xy: tuple[int, int], right: int, label: str,
                   hint: str, size: int, fill: int = WHITE, hint_baseline: int = 0,
                   struck: bool = False) -> None:
    """A choice (``struck`` through when the rules refuse it now) and, if it fits beside
    it, its small hint, right-aligned at ``right`` (on the label's baseline, or on
    ``hint_baseline``).

    The label always wins: a hint that would crowd it is left out.
    """
    x, baseline = xy
    label_width = length(label, size)
    hint_width = length(hint, 10) if hint else 0
    if hint and x + label_width + 4 + hint_width <= right:
        text(draw, (right, hint_baseline or baseline), hint, 10, fill, anchor="rs")
    text(draw, (x, baseline), label, size, fill, right - x, struck=struck)


def notice(draw: ImageDraw.ImageDraw, baseline: int, message: str) -> None:
    """A message (a refusal's reason, a result) inverted, on up to two lines of 11 px
    across the screen, the last on ``baseline``: it covers what is above until the next press.
    """
    lines = wrap(message, 11)[:2]
    top = baseline - 10 - 12 * (len(lines) - 1)
    draw.rectangle((0, top, WIDTH - 1, baseline + 2), fill=WHITE)
    for row, line in enumerate(lines):
        text(draw, (2, top + 10 + 12 * row), line, 11, BLACK)
