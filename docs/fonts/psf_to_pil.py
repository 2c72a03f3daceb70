"""Convert a PSF2 console font (Debian's fonts-spleen ships Spleen only so) to PIL's bitmap
font format, through BDF, for printable ASCII and Latin-1.

    python docs/fonts/psf_to_pil.py /usr/share/consolefonts/spleen-5x8.psfu.gz companion/ui/fonts/spleen-5x8
"""

from __future__ import annotations

import gzip
import io
import sys
from pathlib import Path

from PIL import BdfFontFile


def psf_to_bdf(data: bytes, name: str) -> bytes:
    header, count, size, height, width = (int.from_bytes(data[o:o + 4], "little") for o in (8, 16, 20, 24, 28))
    row = (width + 7) // 8
    ascent = height - 1 if height <= 8 else height - 2  # descent of 1 (5x8) or 2 rows
    out = [f"STARTFONT 2.1\nFONT {name}\nSIZE {height} 75 75\n"
           f"FONTBOUNDINGBOX {width} {height} 0 {ascent - height}\n"
           f"STARTPROPERTIES 2\nFONT_ASCENT {ascent}\nFONT_DESCENT {height - ascent}\nENDPROPERTIES\n"]
    codes = [c for c in range(32, 256) if c < 127 or c >= 160]
    codes = [c for c in codes if c < count]
    out.append(f"CHARS {len(codes)}\n")
    for code in codes:
        bits = data[header + code * size: header + (code + 1) * size]
        out.append(f"STARTCHAR U+{code:04X}\nENCODING {code}\nSWIDTH 500 0\nDWIDTH {width} 0\n"
                   f"BBX {width} {height} 0 {ascent - height}\nBITMAP\n")
        out.extend(bits[y * row:(y + 1) * row].hex().upper() + "\n" for y in range(height))
        out.append("ENDCHAR\n")
    out.append("ENDFONT\n")
    return "".join(out).encode()


def main() -> None:
    source, target = sys.argv[1], sys.argv[2]
    raw = Path(source).read_bytes()
    data = gzip.decompress(raw) if source.endswith(".gz") else raw
    BdfFontFile.BdfFontFile(io.BytesIO(psf_to_bdf(data, target.rsplit("/", 1)[-1]))).save(target)


if __name__ == "__main__":
    main()
