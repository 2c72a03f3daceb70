"""Every screen reached by the golden games and the benchmark session, typed in press by
press with looks through the game menu's pages (tests/screens.py), is checked on the
drawing layer: no Python notation in any string drawn (issue 13 §4)."""

from __future__ import annotations

import pytest

from companion.record import Replayed
from companion.ui.draw import Drawn
from tests.layout import python_in
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
        from PIL import Image
        return tuple(Drawn(w, False, 1, (0, 0, 1, 1), Image.new("1", (1, 1))) for w in words)
    assert python_in(drawn("fish: {'Ann': 7}", "roll: None", "elevation: [[0, 1", "'Ann'",
                           "done: True")) == ["fish: {'Ann': 7}", "roll: None", "elevation: [[0, 1",
                                              "'Ann'", "done: True"]
    assert python_in(drawn("Gleeb's and Grues", "the grue's size", "Ann 7, Bob 3")) == []
