"""The fast text layout draws exactly what Pillow's full (Raqm) layout draws, at the sizes
that use it: the speed-up changes no pixel on any screen."""

from __future__ import annotations

import random
import string
from importlib import resources

import pytest
from PIL import Image, ImageDraw, ImageFont, features

from companion.ui.draw import FONTS, checking, font, text

#: What screens write: names, moves, squares, sums and punctuation, and a few accents.
CHARACTERS = string.ascii_letters + string.digits + " .,;:!?-+&/()'\"#%*=<>[]_~éüñ–…°×"


def strings(count: int = 400) -> list[str]:
    rng = random.Random(12)
    return ["Ann: roll the d4", "Cat crushed at c4 r6; Ann to c2 r1", "Use 3, 5 again", *(
        "".join(rng.choice(CHARACTERS) for _ in range(rng.randint(1, 30))) for _ in range(count))]


def pixels(face: ImageFont.FreeTypeFont, words: str, anchor: str) -> bytes:
    canvas = Image.new("1", (520, 60), 0)
    ImageDraw.Draw(canvas).text((260, 30), words, font=face, fill=1, anchor=anchor)
    return canvas.tobytes()


@pytest.mark.skipif(not features.check("raqm"), reason="Pillow has no Raqm here to compare with")
@pytest.mark.parametrize("size", [11, 12])
def test_words_and_choices_measure_and_draw_as_raqm_draws_them(size: int) -> None:
    fast = font(size)
    assert isinstance(fast, ImageFont.FreeTypeFont)
    assert fast.layout_engine == ImageFont.Layout.BASIC
    weight = "bold" if size >= 12 else "normal"
    with resources.as_file(FONTS / f"terminus-{weight}.otb") as path:
        full = ImageFont.truetype(str(path), fast.size, layout_engine=ImageFont.Layout.RAQM)
    for words in strings():
        assert fast.getlength(words, mode="1") == full.getlength(words, mode="1"), words
        for anchor in ("ls", "ms", "rs", "mm"):
            assert pixels(fast, words, anchor) == pixels(full, words, anchor), (words, anchor)


@pytest.mark.parametrize("size", [11, 12, 14, 18])
def test_a_cached_string_draws_the_pixels_pillow_draws(size: int) -> None:
    """The masks kept for strings already drawn change no pixel: drawn through the cache,
    every string lands where and as ImageDraw.text would put it, for every anchor."""
    face = font(size)
    assert isinstance(face, ImageFont.FreeTypeFont)
    for words in [*strings(60), "", "   "]:
        for anchor in ("ls", "ms", "rs", "mm", "la"):
            canvas = Image.new("1", (520, 60), 0)
            with checking():  # a canvas wider than the panel: the panel's check does not apply
                text(ImageDraw.Draw(canvas), (260, 30), words, size, 1, width=520, anchor=anchor)
            assert canvas.tobytes() == pixels(face, words, anchor), (words, anchor)
