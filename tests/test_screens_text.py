"""Every screen reached by the golden games and the benchmark session, typed in press by
press with looks through the game menu's pages (tests/screens.py), is checked on the
drawing layer: no Python notation in any string drawn (issue 13 §4), every string whole, in
its box and on the glass (issue 26 §1: ``companion.ui.draw.checking``), and clear of what is
drawn around it (issue 13 §5)."""

from __future__ import annotations

import pytest
from PIL import ImageDraw

from companion.record import Replayed
from companion.ui.draw import BLACK, Drawn, blank, checking, label_and_hint, lines, recording, text
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
def test_every_string_drawn_is_whole_in_its_box_on_the_glass_and_clear_of_its_neighbours(
        name: str, replayed: Replayed) -> None:
    """Issue 13 §5 and issue 26 §1: no glyph cut, out of its box or off the glass, no line
    or hint left out, and nothing drawn over a string or touching it (a bar, a banner,
    another string): checked on every frame."""
    found: dict[str, str] = {}
    for shot in shots(name, replayed):
        for fault in [*map(str, shot.faults), *layout_faults(shot.image, shot.drawn)]:
            found.setdefault(fault.split(" ink ")[0].split(" at ")[0], shot.where)
    assert not found, list(found.items())[:10]


def test_the_drawing_layer_check_sees_each_way_words_go_wrong() -> None:
    """Cut, outside the box it was given, off the glass (the first row and column go while
    the picture is shifted against burn-in; dark words need a lit row round them on the
    glass), lines and hints left out; and a deliberate ellipsis is no fault."""
    canvas = ImageDraw.Draw(blank())
    with checking() as found:
        text(canvas, (2, 30), "Lilliputian Leaf-Climbers", 12, width=60)
        text(canvas, (2, 30), "Lilliputian Leaf-Climbers", 12, width=60, ellipsis=True)
        text(canvas, (2, 30), "escaped", 10, box=(0, 25, 127, 28))
        text(canvas, (0, 30), "far", 10)
        text(canvas, (2, 64), "4", 12, BLACK)
        lines(canvas, (2, 20), "one two three four five six seven", 11, 60, 2, 11)
        label_and_hint(canvas, (2, 40), 90, "Enter faces", "room: 12", 12)
    problems = [(fault.problem, fault.words) for fault in found]
    assert problems == [("cut", "Lilliputian Leaf-Climbers"), ("outside its box", "escaped"),
                        ("off the glass", "far"), ("off the glass", "4"),
                        ("2 of 4 lines left out", "one two three four five six seven"),
                        ("hint left out", "Enter faces | room: 12")]
    with checking() as found:
        text(canvas, (2, 30), "escaped 0", 10)
        text(canvas, (2, 62), "4", 12, BLACK)  # digits have no descender: a lit row under
    assert found == []


def test_the_layout_check_sees_a_bar_over_a_string_a_cut_and_the_edge() -> None:
    image = blank()
    canvas = ImageDraw.Draw(image)
    with recording() as drawn, checking():
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
