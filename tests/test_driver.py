"""Every line of a whole race can be entered on the box with up, down and select."""

from __future__ import annotations

import pathlib

from companion.record import replay_text
from companion.session import Session
from companion.ui.driver import Driver
from tests.harness import Harness

GOLDEN = pathlib.Path(__file__).parent / "golden" / "microbot-racers"


def test_a_whole_race_typed_through_the_screens_is_stored_line_for_line(tmp_path: pathlib.Path) -> None:
    record = (GOLDEN / "lap-win.record").read_text()
    replayed = replay_text(record)
    box = Harness(tmp_path)
    driver = Driver(box.app, lambda intent: box.intent(intent.kind, intent.value))
    driver.new_game(replayed.header)
    for line in replayed.actions:
        driver.line(line)
    stored = Session(box.store, box.app.session.gid)
    assert stored.state == replayed.state
    assert stored.over()
    assert box.shows("Game over")
    box.close()
