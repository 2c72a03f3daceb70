"""The serial ports' marks in the top bar: one small box per port, drawn over a finished
frame in the right-most gap between the bar's words."""

from __future__ import annotations

from PIL import Image, ImageDraw

from companion.ui.draw import BLACK, HEADER, WHITE, WIDTH

MARK = 7  # pixels: the side of a serial port's box in the top bar


def link_marks(image: Image.Image, links: list[bool]) -> None:
    """One small box per serial port in the top bar: solid while its device is connected,
    crossed out while it is not. The boxes go in the right-most gap between the bar's words
    (they never cover them); a bar with no room, or a screen without a bar, shows none."""
    need = len(links) * (MARK + 2) + 2
    rows = image.crop((0, 1, WIDTH, HEADER - 1)).convert("L").tobytes()
    run = 0
    for x in range(WIDTH - 1, -1, -1):
        run = run + 1 if all(rows[x::WIDTH]) else 0
        if run == need:
            break
    else:
        return
    draw = ImageDraw.Draw(image)
    top = (HEADER - MARK) // 2
    for left, connected in zip(range(x + 2, WIDTH, MARK + 2), links):
        box = (left, top, left + MARK - 1, top + MARK - 1)
        draw.rectangle(box, fill=BLACK if connected else WHITE, outline=BLACK)
        if not connected:
            draw.line(box, fill=BLACK)
            draw.line((box[0], box[3], box[2], box[1]), fill=BLACK)
