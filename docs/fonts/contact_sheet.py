"""Make docs/fonts/contact-sheet.png: candidate pixel fonts side by side at 128x64 scale.

Run from the repository root with the fonts at hand (Debian: fonts-terminus-otb,
fonts-spleen); only Terminus ships with the companion, the others are compared here.

    python docs/fonts/contact_sheet.py /usr/share/consolefonts/spleen-6x12.psfu.gz
"""

from __future__ import annotations

import gzip
import sys
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

SAMPLES = ("0O Q 1lI 5S 8B", "LO/3 blue 0/36", "d4: 1-4  roll 4 dice", "Bob: hazard, health 5",
           "Ann: ability? 5 fish")  # the confusable characters, then texts from the screens
SCALE = 4


def psf_glyphs(path: str) -> tuple[dict[str, Image.Image], int, int]:
    """A PSF2 console font's glyphs for printable ASCII (index = code point)."""
    data = gzip.decompress(Path(path).read_bytes()) if path.endswith(".gz") else Path(path).read_bytes()
    header, count, size, height, width = (int.from_bytes(data[o:o + 4], "little") for o in (8, 16, 20, 24, 28))
    row = (width + 7) // 8
    glyphs = {}
    for code in range(32, 127):
        bits = data[header + code * size: header + (code + 1) * size]
        glyph = Image.new("1", (width, height), 0)
        for y in range(height):
            for x in range(width):
                if bits[y * row + x // 8] & (0x80 >> (x % 8)):
                    glyph.putpixel((x, y), 1)
        glyphs[chr(code)] = glyph
    return glyphs, width, height


def panel(title: str, draw_line) -> Image.Image:  # type: ignore[no-untyped-def]
    image = Image.new("1", (128, 64 + 12), 0)
    canvas = ImageDraw.Draw(image)
    canvas.rectangle((0, 0, 127, 10), fill=1)
    canvas.text((2, 0), title, font=ImageFont.load_default(), fill=0)
    for index, words in enumerate(SAMPLES[:5]):
        draw_line(image, (1, 12 + index * 12), words)
    return image


def main() -> None:
    terminus = ImageFont.truetype("companion/ui/fonts/terminus-normal.otb", 12)
    pillow = ImageFont.load_default(size=11)
    spleen_small = ImageFont.load("companion/ui/fonts/spleen-5x8.pil")
    columns = [
        panel("Pillow default 11px", lambda im, xy, w: ImageDraw.Draw(im).text(xy, w, font=pillow, fill=1)),
        panel("Terminus 12 (OFL)", lambda im, xy, w: ImageDraw.Draw(im).text(xy, w, font=terminus, fill=1)),
        panel("Spleen 5x8 (BSD-2)", lambda im, xy, w: ImageDraw.Draw(im).text(xy, w, font=spleen_small, fill=1)),
    ]
    for source in sys.argv[1:]:
        glyphs, width, _ = psf_glyphs(source)

        def spleen(image: Image.Image, xy: tuple[int, int], words: str,
                   glyphs: dict[str, Image.Image] = glyphs, width: int = width) -> None:
            for i, ch in enumerate(words):
                image.paste(glyphs.get(ch, glyphs["?"]), (xy[0] + i * width, xy[1]))
        columns.append(panel(f"Spleen {width}x12 (BSD-2)", spleen))
    sheet = Image.new("1", (2 * 132, 76 * ((len(columns) + 1) // 2)), 0)
    for i, column in enumerate(columns):
        sheet.paste(column, ((i % 2) * 132, (i // 2) * 76))
    sheet = sheet.resize((sheet.width * SCALE, sheet.height * SCALE), Image.NEAREST)
    sheet.save("docs/fonts/contact-sheet.png")


if __name__ == "__main__":
    main()
