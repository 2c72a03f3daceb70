"""Draw hardware/minimal-wiring.png: the wiring of the DIY minimal companion build.

    python hardware/draw_wiring.py [OUTPUT.png]

Needs only Pillow (10.1 or later). Uses DejaVu Sans when installed (Debian and Raspberry
Pi OS: fonts-dejavu-core) and Pillow's bundled font otherwise, so the picture may differ
slightly between machines; the committed PNG was drawn with DejaVu.

The pins drawn here are the "minimal" preset of hardware/README.md: keep the two in step.
"""

from __future__ import annotations

import pathlib
import sys

from PIL import Image, ImageDraw, ImageFont

# --- what is wired ---------------------------------------------------------------------

# The 40-pin header (J8) of every Raspberry Pi since the B+: physical pin -> name.
HEADER = {
    1: "3V3", 2: "5V", 3: "GPIO2 SDA", 4: "5V", 5: "GPIO3 SCL", 6: "GND",
    7: "GPIO4", 8: "GPIO14 TXD", 9: "GND", 10: "GPIO15 RXD", 11: "GPIO17", 12: "GPIO18",
    13: "GPIO27", 14: "GND", 15: "GPIO22", 16: "GPIO23", 17: "3V3", 18: "GPIO24",
    19: "GPIO10 MOSI", 20: "GND", 21: "GPIO9 MISO", 22: "GPIO25", 23: "GPIO11 SCLK",
    24: "GPIO8 CE0", 25: "GND", 26: "GPIO7 CE1", 27: "GPIO0 ID_SD", 28: "GPIO1 ID_SC",
    29: "GPIO5", 30: "GND", 31: "GPIO6", 32: "GPIO12", 33: "GPIO13", 34: "GND",
    35: "GPIO19", 36: "GPIO16", 37: "GPIO26", 38: "GPIO20", 39: "GND", 40: "GPIO21",
}

RED, BLACK = (200, 30, 30), (20, 20, 20)
BLUE, YELLOW = (30, 90, 200), (215, 160, 0)
GREEN, PURPLE, ORANGE = (20, 140, 60), (130, 50, 170), (225, 110, 20)
GREY, LIGHT, PAPER = (120, 120, 120), (205, 205, 205), (255, 255, 255)

# physical pin -> (colour of its wire, label under the header)
USED = {
    1: (RED, "3V3"), 3: (BLUE, "SDA  GPIO2"), 5: (YELLOW, "SCL  GPIO3"), 9: (BLACK, "GND"),
    11: (GREEN, "GPIO17  up"), 13: (GREEN, "GPIO27  down"), 15: (GREEN, "GPIO22  select"),
    25: (BLACK, "GND"),
    29: (PURPLE, "GPIO5  enc A"), 31: (PURPLE, "GPIO6  enc B"), 33: (PURPLE, "GPIO13  push"),
    37: (ORANGE, "GPIO26  tilt"), 39: (BLACK, "GND"),
}

# --- drawing helpers -------------------------------------------------------------------

W, H = 1500, 1230
PITCH = 66                      # header pin spacing on the drawing
X0 = 150                        # x of pins 1 and 2
Y_EVEN, Y_ODD = 250, 300        # rows: even pins on the board edge, odd pins inside
PIN_R = 17


def font(size: int, bold: bool = False, mono: bool = False) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    name = "DejaVuSansMono" if mono else "DejaVuSans"
    name += "-Bold.ttf" if bold else ".ttf"
    for folder in ("/usr/share/fonts/truetype/dejavu", "/usr/share/fonts/dejavu"):
        path = pathlib.Path(folder) / name
        if path.exists():
            return ImageFont.truetype(str(path), size)
    return ImageFont.load_default(size=size)


def pin_x(pin: int) -> int:
    return X0 + (pin - 1) // 2 * PITCH


def pin_y(pin: int) -> int:
    return Y_ODD if pin % 2 else Y_EVEN


def wire(draw: ImageDraw.ImageDraw, points: list[tuple[int, int]], colour: tuple[int, int, int],
         dashed: bool = False, width: int = 5) -> None:
    """An orthogonal wire through the given points (dashed for optional parts)."""
    for (x1, y1), (x2, y2) in zip(points, points[1:]):
        if not dashed:
            draw.line([(x1, y1), (x2, y2)], fill=colour, width=width)
            continue
        length = abs(x2 - x1) + abs(y2 - y1)
        step = 14
        for start in range(0, length, step * 2):
            end = min(start + step, length)
            t1, t2 = start / length, end / length
            draw.line([(x1 + (x2 - x1) * t1, y1 + (y2 - y1) * t1),
                       (x1 + (x2 - x1) * t2, y1 + (y2 - y1) * t2)], fill=colour, width=width)
    for x, y in points[1:-1]:
        draw.ellipse([x - width // 2, y - width // 2, x + width // 2, y + width // 2], fill=colour)


def terminal(draw: ImageDraw.ImageDraw, x: int, y: int, r: int = 7) -> None:
    draw.ellipse([x - r, y - r, x + r, y + r], fill=PAPER, outline=BLACK, width=3)


def rotated_text(img: Image.Image, xy: tuple[int, int], text: str, fnt, fill, anchor_bottom: bool) -> None:
    """Text turned 90 degrees (reading upwards); xy is its bottom-left, or top-left."""
    box = fnt.getbbox(text)
    w, h = box[2] + 2, box[3] + 4
    label = Image.new("RGBA", (w, h), (0, 0, 0, 0))
    ImageDraw.Draw(label).text((0, 0), text, font=fnt, fill=fill)
    label = label.rotate(90, expand=True)
    x, y = xy
    img.paste(label, (x, y - label.height if anchor_bottom else y), label)


def button(draw: ImageDraw.ImageDraw, x: int, top: int, bottom: int) -> None:
    """A tactile push button seen from above, one leg up (GPIO), one leg down (GND)."""
    mid = (top + bottom) // 2
    draw.rounded_rectangle([x - 30, mid - 30, x + 30, mid + 30], radius=6, fill=(215, 215, 215),
                           outline=BLACK, width=3)
    draw.ellipse([x - 17, mid - 17, x + 17, mid + 17], fill=(60, 60, 60))
    terminal(draw, x, mid - 30)
    terminal(draw, x, mid + 30)


# --- the picture -----------------------------------------------------------------------


def draw_picture() -> Image.Image:
    img = Image.new("RGB", (W, H), PAPER)
    d = ImageDraw.Draw(img)
    f_title, f_head = font(30, bold=True), font(20, bold=True)
    f_text, f_small, f_pin = font(18), font(16), font(15, bold=True)

    d.text((40, 22), "companion - DIY minimal build: wiring", font=f_title, fill=BLACK)
    d.text((40, 62), "Raspberry Pi 40-pin header seen from above: even pins on the board edge, pin 1 has "
           "the square pad. Dashed parts are optional.", font=f_text, fill=GREY)

    # Header body and pins.
    left, right = X0 - 32, pin_x(39) + 32
    d.rounded_rectangle([left, Y_EVEN - 30, right, Y_ODD + 30], radius=10, fill=(40, 40, 40))
    for pin, name in HEADER.items():
        x, y = pin_x(pin), pin_y(pin)
        used = pin in USED
        colour = USED[pin][0] if used else (90, 90, 90)
        shape = d.rectangle if pin == 1 else d.ellipse
        shape([x - PIN_R, y - PIN_R, x + PIN_R, y + PIN_R], fill=colour if used else (75, 75, 75),
              outline=(230, 230, 230) if used else (140, 140, 140), width=2)
        text_fill = BLACK if colour == YELLOW else (255, 255, 255)
        d.text((x, y), str(pin), font=f_pin, fill=text_fill if used else (235, 235, 235), anchor="mm")
        if pin % 2 == 0:   # even pins: names above, reading upwards
            rotated_text(img, (x - 9, Y_EVEN - 36), name, f_small, GREY, anchor_bottom=True)

    # Labels of the odd (inner) row, beside the wire that drops from each pin.
    for pin in range(1, 40, 2):
        x = pin_x(pin)
        colour, label = USED.get(pin, (LIGHT, HEADER[pin]))
        fnt = font(16, bold=True) if pin in USED else f_small
        rotated_text(img, (x + 7, Y_ODD + 36), label, fnt,
                     BLACK if pin in USED else (170, 170, 170), anchor_bottom=False)

    top = Y_ODD + PIN_R

    # --- OLED module (I2C): VCC, SDA, SCL, GND --------------------------------------
    oled_pins = [(1, "VCC", RED), (3, "SDA", BLUE), (5, "SCL", YELLOW), (9, "GND", BLACK)]
    mod_x = [pin_x(1), pin_x(3), pin_x(5), pin_x(7)]
    mod_top = 570
    for (pin, _, colour), mx in zip(oled_pins, mod_x):
        if mx == pin_x(pin):
            wire(d, [(pin_x(pin), top), (mx, mod_top)], colour)
        else:
            wire(d, [(pin_x(pin), top), (pin_x(pin), 520), (mx, 520), (mx, mod_top)], colour)
    d.rounded_rectangle([mod_x[0] - 40, mod_top, mod_x[3] + 40, mod_top + 210], radius=8,
                        fill=(25, 60, 130))
    for (_, name, _), mx in zip(oled_pins, mod_x):
        terminal(d, mx, mod_top + 16)
        d.text((mx, mod_top + 40), name, font=f_head, fill=(255, 255, 255), anchor="mm")
    d.rectangle([mod_x[0] - 20, mod_top + 62, mod_x[3] + 20, mod_top + 160], fill=(5, 5, 5))
    d.text(((mod_x[0] + mod_x[3]) // 2, mod_top + 111), "128x64 OLED", font=f_text,
           fill=(120, 200, 255), anchor="mm")
    d.text(((mod_x[0] + mod_x[3]) // 2, mod_top + 186), "SSD1306 / SH1106, I2C",
           font=f_small, fill=(220, 220, 220), anchor="mm")
    d.multiline_text((mod_x[0] - 40, mod_top + 222),
                     "VCC to 3.3 V (pin 1), not 5 V.\n"
                     "Pin order differs between\nmodules: follow the labels\n"
                     "printed on yours.", font=f_text, fill=BLACK, spacing=4)

    # --- three buttons -----------------------------------------------------------------
    rail_y = 950
    rail_left, rail_right = 0, 0
    buttons = [(11, "UP"), (13, "DOWN"), (15, "SELECT")]
    btn_x = [pin_x(11) + 10, pin_x(11) + 160, pin_x(11) + 310]
    btn_top, btn_bottom = 680, 860
    for i, ((pin, name), bx) in enumerate(zip(buttons, btn_x)):
        turn_y = 570 - i * 40   # rightmost wire turns highest: no crossings
        mid = (btn_top + btn_bottom) // 2
        wire(d, [(pin_x(pin), top), (pin_x(pin), turn_y), (bx, turn_y), (bx, mid - 30)], GREEN)
        wire(d, [(bx, mid + 30), (bx, rail_y)], BLACK)
        button(d, bx, btn_top, btn_bottom)
        mid = (btn_top + btn_bottom) // 2
        d.text((bx + 40, mid - 26), name, font=f_head, fill=BLACK)
        d.text((bx + 40, mid + 2), HEADER[pin].split()[0], font=f_small, fill=GREY)
    mid = (btn_top + btn_bottom) // 2
    d.text((btn_x[2] + 40, mid + 24), "long press:", font=f_small, fill=GREY)
    d.text((btn_x[2] + 40, mid + 44), "back / menu", font=f_small, fill=GREY)
    rail_left = btn_x[0]

    # --- rotary encoder with push switch (optional) ---------------------------------
    enc_cx, enc_top = pin_x(31) + 10, 700
    enc_pins = [(29, "A", pin_x(29) - 30), (31, "B", pin_x(31) + 10), (33, "SW", pin_x(33) + 50)]
    for pin, _, ex in enc_pins:
        wire(d, [(pin_x(pin), top), (pin_x(pin), 640), (ex, 640), (ex, enc_top)], PURPLE,
             dashed=True)
    box = [pin_x(29) - 70, enc_top, pin_x(33) + 90, enc_top + 210]
    d.rounded_rectangle(box, radius=10, outline=PURPLE, width=4, fill=(248, 240, 252))
    d.ellipse([enc_cx - 42, enc_top + 50, enc_cx + 42, enc_top + 134], outline=BLACK, width=4)
    d.ellipse([enc_cx - 12, enc_top + 80, enc_cx + 12, enc_top + 104], fill=BLACK)
    d.text((enc_cx, enc_top + 160), "rotary encoder", font=font(18, bold=True), fill=PURPLE,
           anchor="mm")
    d.text((enc_cx, enc_top + 184), "(optional)", font=f_small, fill=PURPLE, anchor="mm")
    for _, name, ex in enc_pins:
        terminal(d, ex, enc_top + 12)
        d.text((ex, enc_top + 34), name, font=f_small, fill=BLACK, anchor="mm")
    # common (C) and the switch's other leg both go to ground
    for gx, name in ((pin_x(29) - 30, "C"), (pin_x(33) + 50, "SW2")):
        terminal(d, gx, enc_top + 198)
        d.text((gx, enc_top + 176), name, font=f_small, fill=BLACK, anchor="mm")
        wire(d, [(gx, enc_top + 205), (gx, rail_y)], BLACK, dashed=True)

    # --- tilt switch (optional): GPIO26 and GND, side by side ----------------------
    t1, t2 = pin_x(37), pin_x(39)
    tilt_top = 740
    wire(d, [(t1, top), (t1, tilt_top)], ORANGE, dashed=True)
    wire(d, [(t2, top), (t2, tilt_top)], BLACK, dashed=True)
    d.rounded_rectangle([t1 - 26, tilt_top, t2 + 26, tilt_top + 90], radius=30, outline=ORANGE,
                        width=4, fill=(253, 244, 232))
    d.ellipse([(t1 + t2) // 2 - 14, tilt_top + 40, (t1 + t2) // 2 + 14, tilt_top + 68], fill=GREY)
    d.text(((t1 + t2) // 2, tilt_top + 112), "tilt switch", font=f_head, fill=ORANGE, anchor="mm")
    d.text(((t1 + t2) // 2, tilt_top + 136), "(optional):", font=f_small, fill=ORANGE, anchor="mm")
    d.text(((t1 + t2) // 2, tilt_top + 156), "shake to roll", font=f_small, fill=ORANGE, anchor="mm")

    # --- the ground rail, fed from pin 25 ---------------------------------------------
    rail_right = pin_x(33) + 50
    d.line([(rail_left, rail_y), (rail_right, rail_y)], fill=BLACK, width=8)
    wire(d, [(pin_x(25), top), (pin_x(25), rail_y)], BLACK)
    d.text((rail_left, rail_y + 12),
           "common ground: a breadboard rail, or one wire daisy-chained from leg to leg, to GND (pin 25)",
           font=f_text, fill=BLACK)

    # --- notes and the matching configuration ---------------------------------------
    notes_y = 1020
    d.text((40, notes_y), "Notes", font=f_head, fill=BLACK)
    d.multiline_text((40, notes_y + 32),
                     "No resistors: the Pi's internal pull-ups hold each input\n"
                     "high; a press pulls it to GND (active low).\n"
                     "KY-040 encoder module: CLK = A, DT = B, SW = push,\n"
                     "GND = GND, + to 3.3 V (pin 17), never to 5 V.\n"
                     "Enable I2C: dtparam=i2c_arm=on in /boot/firmware/config.txt,\n"
                     "reboot, then  i2cdetect -y 1  shows the display at 3c.",
                     font=f_text, fill=BLACK, spacing=6)
    cfg = ('[display]\n'
           'flags = "--display ssd1306 --interface i2c --i2c-port 1 --i2c-address 0x3C"\n'
           '[buttons]\n'
           'preset = "minimal"    # up 17, down 27, select 22\n'
           'pins = { roll = 26 }  # only with the tilt switch\n'
           '[encoder]             # only with the encoder\n'
           'a = 5\nb = 6\npush = 13')
    f_cfg = font(14, mono=True)
    cfg_x, cfg_y = 720, notes_y + 32
    d.text((cfg_x, notes_y), "/etc/companion/companion.toml", font=f_head, fill=BLACK)
    bbox = d.multiline_textbbox((cfg_x + 12, cfg_y + 10), cfg, font=f_cfg, spacing=4)
    d.rectangle([cfg_x, cfg_y, bbox[2] + 14, bbox[3] + 12], fill=(244, 244, 244), outline=LIGHT)
    d.multiline_text((cfg_x + 12, cfg_y + 10), cfg, font=f_cfg, fill=BLACK, spacing=4)
    return img


def main(argv: list[str]) -> int:
    out = pathlib.Path(argv[1]) if len(argv) > 1 else pathlib.Path(__file__).with_name("minimal-wiring.png")
    draw_picture().save(out, optimize=True)
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
