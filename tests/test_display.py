"""A display that fails or is missing never stops the game; it is picked up again."""

from __future__ import annotations

import logging
import pathlib
import subprocess
import sys

import pytest
from luma.core.device import dummy
from PIL import Image

from companion.io.display import RETRY_FIRST, NoDisplay, Output
from companion.session import Session
from tests.harness import Harness


class Flaky(NoDisplay):
    """A luma dummy whose bus can be unplugged."""

    def __init__(self) -> None:
        self.inner = dummy(width=128, height=64, mode="1")
        self.mode = "1"
        self.plugged = True
        self.opened = 0

    def open(self) -> Flaky:
        if not self.plugged:
            raise OSError(121, "Remote I/O error")
        self.opened += 1
        return self

    def display(self, image: Image.Image) -> None:
        if not self.plugged:
            raise OSError(121, "Remote I/O error")
        self.inner.display(image)


def frame(fill: int) -> Image.Image:
    return Image.new("1", (128, 64), fill)


def test_a_missing_display_is_retried_with_growing_pauses(caplog: pytest.LogCaptureFixture) -> None:
    panel, now = Flaky(), [0.0]
    panel.plugged = False
    with caplog.at_level(logging.ERROR):
        output = Output(panel.open, shift=False, clock=lambda: now[0])
        assert not output.show(frame(1))
        assert output.retry_at == RETRY_FIRST
        now[0] = 1.0
        assert not output.show(frame(1))
        assert output.retry_at == 1.0 + 2 * RETRY_FIRST  # the pause doubles
    assert len([r for r in caplog.records if "display not answering" in r.message]) == 1
    panel.plugged = True
    now[0] = 3.0
    assert output.show(frame(1))
    assert output.retry_at is None and panel.inner.image is not None


def test_an_unplugged_cable_mid_game_loses_no_press_and_the_screen_comes_back(
        tmp_path: pathlib.Path) -> None:
    panel = Flaky()
    box = Harness(tmp_path)
    box.output = Output(panel.open, shift=False, clock=lambda: box.now)
    box.daemon.output = box.output
    box.device = panel.inner
    box.presses("select", "select", "select", "select", "select")  # a Microbot race
    panel.plugged = False
    box.press("select")  # the device rolls for P1 while the screen is gone
    box.press("select")  # and P1 picks
    assert Session(box.store, box.app.session.gid).head == 2
    panel.plugged = True
    box.wait(5)  # the loop wakes to retry on its own
    assert panel.opened == 2
    box.daemon.refresh()
    assert box.shows("pick 1 of 3", 11)  # P2 picks next: the screen shows the game as it is
    box.close()


def test_a_panel_that_is_not_there_at_start_is_not_fatal(tmp_path: pathlib.Path) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "companion", "run", "--state", str(tmp_path),
         "--display", "--display ssd1306 --interface i2c --i2c-port 97", "--keys", "select select"],
        stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert "display not answering" in run.stderr
    assert "Traceback" not in run.stderr


def test_the_burn_in_shift_never_moves_ink_off_the_glass() -> None:
    """Issue 26 §1: the shift against burn-in moves the picture, and what leaves the glass
    is lost. The drawing layer's check keeps every glyph inside GLASS; every step of the
    shift must keep GLASS on the glass (the old one, down and right, lost the last row and
    with it the descenders of the answer and the foot of the digits being entered)."""
    from companion.io.display import SHIFTS
    from companion.ui.draw import GLASS

    inked = frame(0)
    inked.paste(1, (GLASS[0], GLASS[1], GLASS[2] + 1, GLASS[3] + 1))
    panel = Flaky()
    output = Output(panel.open, shift=True)
    for step in range(len(SHIFTS)):
        output.last = None
        assert output.show(inked, step)
        shown = panel.inner.image
        assert shown is not None
        assert shown.convert("1").histogram()[-1] == inked.histogram()[-1], SHIFTS[step]
