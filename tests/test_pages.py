"""Sending only changed pages leaves the glass exactly as luma's full redraw would."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from luma.oled.device import sh1106, ssd1306
from PIL import Image, ImageDraw

from companion.io.controller import Controller
from companion.io.display import create_device
from companion.io.pages import PAGED, Span, changed_spans, page_bytes

KINDS = {"ssd1306": ssd1306, "sh1106": sh1106}
FULL = {"ssd1306": 1030, "sh1106": 1048}


def device(kind: str, rotate: int = 0) -> tuple[Any, Controller]:
    """luma's own device for ``kind`` on a model controller."""
    model = Controller(kind)
    return KINDS[kind](serial_interface=model, rotate=rotate), model


def ours(kind: str, rotate: int = 0) -> tuple[Any, Controller]:
    """Our changed-pages device for ``kind`` on a model controller."""
    model = Controller(kind)
    return PAGED[kind](serial_interface=model, rotate=rotate), model


def random_frame(rng: random.Random) -> Image.Image:
    frame = Image.new("1", (128, 64), 0)
    draw = ImageDraw.Draw(frame)
    for _ in range(rng.randint(0, 6)):
        x0, y0 = rng.randrange(128), rng.randrange(64)
        box = (x0, y0, min(127, x0 + rng.randrange(40)), min(63, y0 + rng.randrange(20)))
        draw.rectangle(box, fill=rng.randint(0, 1))
    if rng.random() < 0.5:
        draw.text((rng.randrange(100), rng.randrange(50)), str(rng.randrange(1000)), fill=1)
    return frame


def lit(frame: Image.Image, *boxes: tuple[int, int, int, int]) -> Image.Image:
    """A copy of ``frame`` with these boxes lit."""
    out = frame.copy()
    for box in boxes:
        ImageDraw.Draw(out).rectangle(box, fill=1)
    return out


def small_change(frame: Image.Image, rng: random.Random) -> Image.Image:
    """One to four small patches: several runs on a page, and runs on pages near each other."""
    out = frame.copy()
    for _ in range(rng.randint(1, 4)):
        x, y = rng.randrange(120), rng.randrange(56)
        ImageDraw.Draw(out).rectangle((x, y, x + rng.randrange(8), y + rng.randrange(8)),
                                      fill=rng.randint(0, 1))
    return out


@pytest.mark.parametrize("kind", KINDS)
def test_the_model_rebuilds_what_luma_sends(kind: str) -> None:
    rng = random.Random(1)
    stock, model = device(kind)
    for _ in range(20):
        frame = random_frame(rng)
        stock.display(frame)
        assert model.image().tobytes() == frame.tobytes()


@pytest.mark.parametrize("kind", KINDS)
def test_luma_sends_a_full_frame_on_every_call_even_unchanged(kind: str) -> None:
    stock, model = device(kind)
    frame = random_frame(random.Random(2))
    for _ in range(3):
        before = model.total
        stock.display(frame)
        assert model.total - before == FULL[kind]


@pytest.mark.parametrize("kind", KINDS)
@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), rotate=st.sampled_from([0, 2]))
def test_only_changes_make_the_same_glass_as_a_full_redraw(kind: str, seed: int, rotate: int) -> None:
    rng = random.Random(seed)
    wrapped, model = ours(kind, rotate)
    stock_device, stock = device(kind, rotate)
    frame = random_frame(rng)
    for _ in range(12):
        frame = small_change(frame, rng) if rng.random() < 0.7 else random_frame(rng)
        before, wire, stock_wire = model.total, model.wire, stock.wire
        wrapped.display(frame)
        stock_device.display(frame)
        assert model.image().tobytes() == stock.image().tobytes()
        assert model.total - before <= FULL[kind]
        # and never more on the I2C wire (address and control byte per transfer) than luma
        assert model.wire - wire <= stock.wire - stock_wire


@pytest.mark.parametrize("kind", KINDS)
def test_a_frame_changing_nearly_every_byte_costs_no_more_on_the_wire_than_luma(kind: str) -> None:
    """Seven whole pages and most of the eighth: sent span by span, the addressing and each
    transfer's address and control bytes would add up to more than one full frame."""
    wrapped, model = ours(kind)
    stock_device, stock = device(kind)
    blank = Image.new("1", (128, 64), 0)
    wrapped.display(blank)
    changed = lit(blank, (0, 0, 127, 55), (0, 56, 84, 63))
    wire, smbus = model.wire, model.wire_smbus
    stock_device.display(changed)
    stock_wire, stock_smbus = stock.wire, stock.wire_smbus
    stock_device.display(changed)
    wrapped.display(changed)
    assert model.image().tobytes() == stock.image().tobytes()
    assert model.wire - wire <= stock.wire - stock_wire
    assert model.wire_smbus - smbus <= stock.wire_smbus - stock_smbus  # a bus handed to luma


@pytest.mark.parametrize("kind", KINDS)
def test_an_unchanged_frame_sends_nothing(kind: str) -> None:
    wrapped, model = ours(kind)
    frame = random_frame(random.Random(3))
    wrapped.display(frame)
    before = model.total
    wrapped.display(frame.copy())
    assert model.total == before


@pytest.mark.parametrize("kind", KINDS)
def test_a_one_pixel_change_sends_a_few_bytes(kind: str) -> None:
    wrapped, model = ours(kind)
    frame = Image.new("1", (128, 64), 0)
    wrapped.display(frame)
    changed = frame.copy()
    changed.putpixel((60, 30), 1)
    before = model.total
    wrapped.display(changed)
    assert model.total - before <= 7  # addressing commands and one data byte
    assert model.image().getpixel((60, 30))


def test_after_the_panel_loses_its_memory_the_next_frame_goes_out_whole() -> None:
    wrapped, model = ours("ssd1306")
    frame = random_frame(random.Random(4))
    wrapped.display(frame)
    model.ram = [bytearray(128) for _ in range(8)]  # power blip: the controller forgot
    wrapped.forget()
    wrapped.display(frame)
    assert model.image().tobytes() == frame.tobytes()


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("x", [0, 1, 63, 126, 127])
def test_a_change_in_one_column_reaches_the_glass(kind: str, x: int) -> None:
    wrapped, model = ours(kind)
    frame = Image.new("1", (128, 64), 0)
    frame.putpixel((10, 20), 1)
    wrapped.display(frame)
    for y in (20, 63):  # the page already changed before, and a page untouched so far
        frame = frame.copy()
        frame.putpixel((x, y), 1)
        wrapped.display(frame)
        assert model.image().tobytes() == frame.tobytes()
    # Two pages far apart at once (on the SSD1306, two windows rather than one rectangle).
    frame = frame.copy()
    frame.putpixel((x, 0), 1)
    frame.putpixel((127 - x, 40), 1)
    wrapped.display(frame)
    assert model.image().tobytes() == frame.tobytes()


@pytest.mark.parametrize("kind", KINDS)
def test_two_changes_at_either_end_of_a_row_are_sent_apart(kind: str) -> None:
    """A name in the top bar and the figure at its other end: two short writes, not the
    columns between them."""
    wrapped, model = ours(kind)
    frame = Image.new("1", (128, 64), 0)
    wrapped.display(frame)
    changed = lit(frame, (2, 2, 20, 12), (110, 2, 125, 12))
    before = model.total
    wrapped.display(changed)
    assert model.image().tobytes() == changed.tobytes()
    assert model.total - before < 2 * (19 + 16) + 2 * 6 + 20  # not 2 pages of 124 columns


def test_a_span_runs_from_the_first_changed_column_to_the_last_inclusive() -> None:
    old = page_bytes(Image.new("1", (128, 64), 0))
    frame = Image.new("1", (128, 64), 0)
    frame.putpixel((10, 9), 1)
    frame.putpixel((127, 9), 1)
    frame.putpixel((5, 63), 1)
    assert changed_spans(old, page_bytes(frame)) == [Span(1, 10, 127), Span(7, 5, 5)]
    assert changed_spans(None, old)[0] == Span(0, 0, 127)


@pytest.mark.parametrize("kind", KINDS)
def test_our_devices_are_lumas_with_only_display_replaced(kind: str) -> None:
    wrapped, _ = ours(kind)
    assert isinstance(wrapped, KINDS[kind])
    replaced = {name for name in vars(type(wrapped).__mro__[1]) if callable(getattr(wrapped, name, None))}
    assert replaced == {"display", "forget", "send"}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("persist", [False, True])
def test_cleanup_clears_the_glass_unless_persist_as_in_luma(kind: str, persist: bool) -> None:
    wrapped, model = ours(kind)
    stock_device, stock = device(kind)
    frame = random_frame(random.Random(5))
    for dev in (wrapped, stock_device):
        dev.display(frame)
        dev.persist = persist
        dev.cleanup()
    assert model.image().tobytes() == stock.image().tobytes()
    assert (model.image().tobytes() == frame.tobytes()) is persist or frame.getbbox() is None


@pytest.mark.parametrize("kind", KINDS)
def test_contrast_hide_and_show_send_what_luma_sends(kind: str) -> None:
    wrapped, model = ours(kind)
    stock_device, stock = device(kind)
    for dev, counter in ((wrapped, model), (stock_device, stock)):
        before = counter.command_bytes
        dev.contrast(0x08)
        dev.hide()
        dev.show()
        counter.sent = counter.command_bytes - before
    assert model.sent == stock.sent == 4


@pytest.mark.parametrize("kind", KINDS)
def test_a_rotated_device_draws_the_rotated_frame(kind: str) -> None:
    wrapped, model = ours(kind, rotate=1)
    stock_device, stock = device(kind, rotate=1)
    frame = Image.new("1", (64, 128), 0)
    ImageDraw.Draw(frame).text((5, 5), "12", fill=1)
    wrapped.display(frame)
    stock_device.display(frame)
    assert model.image().tobytes() == stock.image().tobytes()


def test_a_frame_of_the_wrong_size_is_refused() -> None:
    wrapped, _ = ours("ssd1306")
    with pytest.raises(ValueError, match="expected"):
        wrapped.display(Image.new("1", (64, 32), 0))


@pytest.mark.parametrize("kind", KINDS)
def test_the_luma_flags_open_our_device_for_a_128x64_panel(kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from luma.core import cmdline

    model = Controller(kind)
    monkeypatch.setattr(cmdline, "make_interface", lambda args: type("Bus", (), {"i2c": lambda self: model})())
    args = cmdline.create_parser(description="test").parse_args(["--display", kind, "--rotate", "2"])
    opened = create_device(args)
    assert type(opened) is PAGED[kind] and opened.rotate == 2
    frame = random_frame(random.Random(6))
    opened.display(frame)
    assert model.image().tobytes() == frame.rotate(180).tobytes()


def test_other_luma_flags_open_lumas_own_device() -> None:
    from luma.core import cmdline

    args = cmdline.create_parser(description="test").parse_args(["--display", "capture"])
    assert type(create_device(args)).__module__.startswith("luma.emulator")
    with pytest.raises(ValueError, match="128x64"):
        PAGED["ssd1306"](serial_interface=Controller("ssd1306"), width=128, height=32)
