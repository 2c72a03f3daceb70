"""Every line of every whole golden game can be entered on the box with up, down and select:
the generic prompt model leaves nothing that only a record file could say."""

from __future__ import annotations

import pathlib

import pytest

from companion.record import Replayed, replay_text
from companion.session import Session
from companion.ui.driver import Driver
from tests.harness import Harness

GOLDEN = pathlib.Path(__file__).parent / "golden"


def settable_on_the_box(replayed: Replayed) -> bool:
    """Options the new-game screens offer (free-text options exist only in records)."""
    specs = replayed.header.game.options
    return all(value in specs[key].choices for key, value in replayed.header.options)


RECORDS = [path for path in sorted(GOLDEN.glob("*/*.record")) if path.with_suffix(".json").exists()
           and settable_on_the_box(replay_text(path.read_text()))]


@pytest.mark.parametrize("path", RECORDS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_a_golden_game_typed_through_the_screens_is_stored_line_for_line(
        path: pathlib.Path, tmp_path: pathlib.Path) -> None:
    replayed = replay_text(path.read_text())
    box = Harness(tmp_path)
    driver = Driver(box.app, lambda intent: box.intent(intent.kind, intent.value))
    driver.new_game(replayed.header)
    for line in replayed.actions:
        driver.line(line)
    stored = Session(box.store, box.app.session.gid)
    assert stored.state == replayed.state
    if stored.over():
        assert box.shows("Game over")
    box.close()
