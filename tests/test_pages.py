"""Sending only changed pages leaves the glass exactly as luma's full redraw would."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from luma.oled.device import sh1106, ssd1306
from PIL import Image, ImageDraw

from companion.io.controller import Controller
from companion.io.pages import PagedDisplay, paged

KINDS = {"ssd1306": ssd1306, "sh1106": sh1106}
FULL = {"ssd1306": 1030, "sh1106": 1048}


def device(kind: str, rotate: int = 0) -> tuple[object, Controller]:
    model = Controller(kind)
    return KINDS[kind](serial_interface=model, rotate=rotate), model


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


def small_change(frame: Image.Image, rng: random.Random) -> Image.Image:
    out = frame.copy()
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
    ours_device, ours = device(kind, rotate)
    stock_device, stock = device(kind, rotate)
    wrapped = paged(ours_device)
    assert isinstance(wrapped, PagedDisplay)
    frame = random_frame(rng)
    for _ in range(12):
        frame = small_change(frame, rng) if rng.random() < 0.7 else random_frame(rng)
        before, wire, stock_wire = ours.total, ours.wire, stock.wire
        wrapped.display(frame)
        stock_device.display(frame)
        assert ours.image().tobytes() == stock.image().tobytes()
        assert ours.total - before <= FULL[kind]
        # and never more on the I2C wire (address and control byte per transfer) than luma
        assert ours.wire - wire <= stock.wire - stock_wire


@pytest.mark.parametrize("kind", KINDS)
def test_a_frame_changing_nearly_every_byte_costs_no_more_on_the_wire_than_luma(kind: str) -> None:
    """Seven whole pages and most of the eighth: sent span by span, the addressing and each
    transfer's address and control bytes would add up to more than one full frame."""
    ours_device, ours = device(kind)
    stock_device, stock = device(kind)
    wrapped = paged(ours_device)
    blank = Image.new("1", (128, 64), 0)
    wrapped.display(blank)
    changed = blank.copy()
    ImageDraw.Draw(changed).rectangle((0, 0, 127, 55), fill=1)
    ImageDraw.Draw(changed).rectangle((0, 56, 84, 63), fill=1)
    wire, smbus = ours.wire, ours.wire_smbus
    stock_device.display(changed)
    stock_wire, stock_smbus = stock.wire, stock.wire_smbus
    stock_device.display(changed)
    wrapped.display(changed)
    assert ours.image().tobytes() == stock.image().tobytes()
    assert ours.wire - wire <= stock.wire - stock_wire
    assert ours.wire_smbus - smbus <= stock.wire_smbus - stock_smbus  # a bus handed to luma


@pytest.mark.parametrize("kind", KINDS)
def test_an_unchanged_frame_sends_nothing(kind: str) -> None:
    raw, model = device(kind)
    wrapped = paged(raw)
    frame = random_frame(random.Random(3))
    wrapped.display(frame)
    before = model.total
    wrapped.display(frame.copy())
    assert model.total == before


@pytest.mark.parametrize("kind", KINDS)
def test_a_one_pixel_change_sends_a_few_bytes(kind: str) -> None:
    raw, model = device(kind)
    wrapped = paged(raw)
    frame = Image.new("1", (128, 64), 0)
    wrapped.display(frame)
    changed = frame.copy()
    changed.putpixel((60, 30), 1)
    before = model.total
    wrapped.display(changed)
    assert model.total - before <= 7  # addressing commands and one data byte
    assert model.image().getpixel((60, 30))


def test_after_the_panel_loses_its_memory_the_next_frame_goes_out_whole() -> None:
    raw, model = device("ssd1306")
    wrapped = paged(raw)
    frame = random_frame(random.Random(4))
    wrapped.display(frame)
    model.ram = [bytearray(128) for _ in range(8)]  # power blip: the controller forgot
    wrapped.forget()
    wrapped.display(frame)
    assert model.image().tobytes() == frame.tobytes()


def test_other_displays_are_left_to_luma() -> None:
    from luma.core.device import dummy

    plain = dummy(width=128, height=64, mode="1")
    assert paged(plain) is plain
