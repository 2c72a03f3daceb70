"""Every screen reached by the golden games and the benchmark session, typed in press by
press with looks through the game menu's pages (tests/screens.py), is checked on the
drawing layer: no Python notation in any string drawn (issue 13 §4), and every string
whole, on the screen and clear of what is drawn around it (§5)."""

from __future__ import annotations

import pytest
from PIL import ImageDraw

from companion.record import Replayed
from companion.ui.draw import Drawn, blank, recording, text
from tests.layout import layout_faults, python_in
from tests.screens import records, shots

RECORDS = records()


@pytest.mark.parametrize(("name", "replayed"), RECORDS, ids=[name for name, _ in RECORDS])
def test_no_screen_shows_python(name: str, replayed: Replayed) -> None:
    taken = shots(name, replayed)
    assert any(s.where.endswith("on Page") for s in taken)  # the summary page was looked at
    found = {(shot.where, words) for shot in taken for words in python_in(shot.drawn)}
    assert not found, sorted(found)[:10]


def test_the_check_catches_what_it_is_for() -> None:
    def drawn(*words: str) -> tuple[Drawn, ...]:
        return tuple(Drawn(w, False, 1, (0, 0, 1, 1), blank()) for w in words)
    assert python_in(drawn("fish: {'Ann': 7}", "roll: None", "elevation: [[0, 1", "'Ann'",
                           "done: True")) == ["fish: {'Ann': 7}", "roll: None", "elevation: [[0, 1",
                                              "'Ann'", "done: True"]
    assert python_in(drawn("Gleeb's and Grues", "the grue's size", "Ann 7, Bob 3")) == []


@pytest.mark.parametrize(("name", "replayed"), RECORDS, ids=[name for name, _ in RECORDS])
def test_every_string_drawn_is_whole_on_the_screen_and_clear_of_its_neighbours(
        name: str, replayed: Replayed) -> None:
    """Issue 13 §5: no glyph cut or off the screen, and nothing drawn over a string or
    touching it (a bar, a banner, another string): checked on every frame."""
    found: dict[str, str] = {}
    for shot in shots(name, replayed):
        for fault in layout_faults(shot.image, shot.drawn):
            found.setdefault(fault.split(" at ")[0], shot.where)
    assert not found, list(found.items())[:10]


def test_the_layout_check_sees_a_bar_over_a_string_a_cut_and_the_edge() -> None:
    image = blank()
    canvas = ImageDraw.Draw(image)
    with recording() as drawn:
        text(canvas, (2, 30), "escaped 0", 10)
        text(canvas, (2, 50), "Lilliputian Leaf-Climbers", 12)
        text(canvas, (120, 12), "far", 10)
    canvas.rectangle((20, 26, 60, 28), fill=1)  # a bar drawn into the first string
    faults = layout_faults(image, tuple(drawn))
    assert any(f.startswith("run into: 'escaped 0'") for f in faults)
    assert any(f.startswith("cut: 'Lilliputian") for f in faults)
    assert any(f.startswith("off the screen: 'far'") for f in faults)
    clean = blank()
    with recording() as drawn:
        text(ImageDraw.Draw(clean), (2, 30), "escaped 0", 10)
    assert layout_faults(clean, tuple(drawn)) == []
