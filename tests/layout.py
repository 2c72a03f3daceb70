"""What is wrong with the text of one frame: Python's notation, and text that is cut,
off the screen, or run into by another string or shape (checked on the drawing layer)."""

from __future__ import annotations

import re

from PIL import Image

from companion.ui.draw import HEIGHT, WIDTH, Drawn, checking, overdrawn

#: Python's notation: brackets, quotes round a word (an apostrophe inside one is English),
#: and its constants.
PYTHON = re.compile(r"[{}\[\]]|(?<![A-Za-z])'|'(?![A-Za-z])|\b(None|True|False)\b")


def python_in(drawn: tuple[Drawn, ...]) -> list[str]:
    """The strings that show Python's notation."""
    return [d.words for d in drawn if PYTHON.search(d.words)]


def layout_faults(image: Image.Image, drawn: tuple[Drawn, ...]) -> list[str]:
    """Each string must lie on the screen, uncut, and alone in its box and a pixel round it:
    the frame there must be exactly the string's ink on a plain ground. A bar, a shape or
    another string drawn over it or touching it is a fault (``draw.overdrawn``)."""
    faults = []
    for d in drawn:
        x0, y0, x1, y1 = d.box
        if x0 < 0 or y0 < 0 or x1 > WIDTH or y1 > HEIGHT:
            faults.append(f"off the screen: {d.words!r} at {d.box}")
        elif d.cut:
            faults.append(f"cut: {d.words!r}")
    with checking() as found:
        overdrawn(image, [d for d in drawn if f"off the screen: {d.words!r} at {d.box}" not in faults])
    return faults + [f"run into: {fault.words!r} at {fault.ink}" for fault in found]
