"""Drawing primitives for a 128x64 1-bit screen: fonts, bars, pips, wrapped text.

Sizes follow what reads at arm's length on the real panel: 12 px and up for what matters
(whose turn, the choice under the cursor), 10-11 px for supporting figures.
"""

from __future__ import annotations

from functools import cache

from PIL import Image, ImageDraw, ImageFont

WIDTH, HEIGHT = 128, 64
WHITE, BLACK = 1, 0
HEADER = 14  # rows of the top bar: 12 px type with room for descenders

@cache
def font(size: int) -> ImageFont.FreeTypeFont:
    """Pillow's bundled scalable font: no font file needed on the Pi."""
    face = ImageFont.load_default(size=size)
    if not isinstance(face, ImageFont.FreeTypeFont):  # Pillow before 10.1: a bitmap font
        raise RuntimeError("Pillow 10.1 or later is needed for its scalable font")
    return face


def blank() -> Image.Image:
    """A black 1-bit frame."""
    return Image.new("1", (WIDTH, HEIGHT), BLACK)


def fit(text: str, size: int, width: int) -> str:
    """``text`` cut with an ellipsis so that it fits ``width`` pixels."""
    face = font(size)
    if face.getlength(text) <= width:
        return text
    while text and face.getlength(text + "~") > width:
        text = text[:-1]
    return text + "~"


def text(draw: ImageDraw.ImageDraw, xy: tuple[int, int], words: str, size: int,
         fill: int = WHITE, width: int = WIDTH, anchor: str = "ls") -> None:
    """Draw one line at a baseline, cut to ``width``."""
    draw.text(xy, fit(words, size, width), font=font(size), fill=fill, anchor=anchor)


def header(draw: ImageDraw.ImageDraw, left: str, right: str = "") -> None:
    """The inverted top bar: whose turn (or where we are) and a short figure."""
    draw.rectangle((0, 0, WIDTH - 1, HEADER - 1), fill=WHITE)
    right_width = int(font(10).getlength(right)) + 2 if right else 0
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
    face = font(size)
    lines: list[str] = []
    for paragraph in words.split("\n"):
        line = ""
        for word in paragraph.split():
            trial = f"{line} {word}".strip()
            if face.getlength(trial) <= width or not line:
                line = trial
            else:
                lines.append(line)
                line = word
        lines.append(line)
    return lines


def arrows(draw: ImageDraw.ImageDraw, x: int, top: int, bottom: int, up: bool, down: bool) -> None:
    """Small triangles that say there is more above or below."""
    if up:
        draw.polygon([(x, top + 3), (x + 3, top), (x + 6, top + 3)], fill=WHITE)
    if down:
        draw.polygon([(x, bottom - 3), (x + 3, bottom), (x + 6, bottom - 3)], fill=WHITE)


def label_and_hint(draw: ImageDraw.ImageDraw, xy: tuple[int, int], right: int, label: str,
                   hint: str, size: int, fill: int = WHITE) -> None:
    """A choice and, if it fits beside it, its small hint, right-aligned at ``right``.

    The label always wins: a hint that would crowd it is left out.
    """
    x, baseline = xy
    label_width = font(size).getlength(label)
    hint_width = font(10).getlength(hint) if hint else 0
    if hint and x + label_width + 6 + hint_width <= right:
        text(draw, (right, baseline), hint, 10, fill, anchor="rs")
    text(draw, (x, baseline), label, size, fill, right - x)
