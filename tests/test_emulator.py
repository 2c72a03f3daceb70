"""The terminal emulator and the command line agree with the docs (issue 13 §6): an
80x24 terminal shows the screen's words as letters and the whole help line, and pygame's
greeting stays out of the output."""

from __future__ import annotations

import io
import os
import pathlib
import random
import re
import subprocess
import sys

import pytest
from PIL import Image

from companion.config import Config
from companion.intents import Intent
from companion.io.display import TerminalDisplay
from companion.store import Store
from companion.ui.app import App

ROOT = pathlib.Path(__file__).parent.parent


def painted(app: App, monkeypatch: pytest.MonkeyPatch, columns: int, lines: int) -> list[str]:
    monkeypatch.setenv("COLUMNS", str(columns))
    monkeypatch.setenv("LINES", str(lines))
    out = io.StringIO()
    TerminalDisplay(out).display(app.frame())
    plain = re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", out.getvalue())
    return plain.split("\r\n")


def test_an_80x24_terminal_shows_the_words_and_the_whole_help_line(
        tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = Store(str(tmp_path / "games.sqlite"))
    app = App(store, Config(), rng=random.Random(1))
    rows = painted(app, monkeypatch, 80, 24)
    assert len(rows) <= 24 and all(len(row) <= 80 for row in rows)
    assert any("Companion" in row for row in rows) and any("New game" in row for row in rows)
    assert "q:quit" in rows[-1]
    for kind in ("select", "down"):  # New game > Microbot Racers, on the play screen later
        app.handle(Intent(kind))
    assert any("Microbot Racers" in row for row in painted(app, monkeypatch, 80, 24))
    store.close()


def test_capture_mode_writes_each_frame_without_loading_pygame(tmp_path: pathlib.Path) -> None:
    """pygame (with pkg_resources) made capture mode 20 MB larger than the daemon, and greeted
    on standard output; the frames are PNGs at twice the size, dimmed ones darker."""
    env = {k: v for k, v in os.environ.items() if k != "PYGAME_HIDE_SUPPORT_PROMPT"}
    env["PYTHONPATH"] = str(ROOT)
    code = ("import sys\n"
            "from PIL import Image\n"
            "from companion.io.display import DIM, capture_device\n"
            f"device = capture_device({str(tmp_path)!r})\n"
            "frame = Image.new('1', (128, 64))\n"
            "frame.putpixel((3, 2), 1)\n"
            "device.display(frame)\n"
            "device.contrast(DIM)\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] == 'pygame'))")
    run = subprocess.run([sys.executable, "-c", code],
                         capture_output=True, text=True, env=env, timeout=60, check=False)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[]" and "pygame" not in run.stderr
    bright, dim = (Image.open(tmp_path / f"frame_{n:05}.png").convert("RGB") for n in (1, 2))
    assert bright.size == (256, 128)
    assert [bright.getpixel((x, y)) for x, y in ((6, 4), (7, 5), (8, 4))] == [
        (255, 255, 255), (255, 255, 255), (0, 0, 0)]
    assert 0 < dim.getpixel((6, 4))[0] < 255


def test_make_emulator_keeps_its_games_where_the_cli_looks() -> None:
    """`make emulator` and `make window` give no --state of their own, so `companion games`
    and `companion export latest` (default state directory) find the games played there."""
    runs = [line for line in (ROOT / "Makefile").read_text().splitlines() if "companion run" in line]
    assert runs and not any("--state" in line for line in runs)
